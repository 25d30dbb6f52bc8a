#!/bin/sh
# svk-bench --quick --json, whose output must be one JSON document with
# rows and steps, every GB/s kernel row with the copy run among its runs;
# times are never judged. Then --filter with two
# alternatives must keep the rows of either and no other.
# Usage: bench_smoke.sh SVK_BENCH
set -eu
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$1" --quick --json >"$out" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "bench_smoke: svk-bench exited $rc" >&2
    exit "$rc"
fi
python3 - "$out" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
assert d["tool"] == "svk-bench", "not svk-bench's document"
assert d["rows"], "no kernel rows"
assert d["steps"], "no training-step rows"
measured = [r for r in d["rows"] if "value" in r]
assert measured, "every row was skipped"
for limit in ("copy_gbps", "fma_gflops"):
    assert (d["limits"].get(limit) or 0) > 0, "limit %s not measured" % limit
# Every measured GB/s kernel row is held to the copy run among its runs.
for r in measured:
    if r["metric"] == "GB/s" and r["section"] != "limit":
        assert (r.get("copy_gbps_beside") or 0) > 0, "%s %s %s: no copy beside it" % (
            r["kernel"], r["direction"], r["shape"])
        assert abs(r["of_copy"] - r["value"] / r["copy_gbps_beside"]) <= 1e-9 * r["of_copy"] + 1e-12, \
            "%s %s: of_copy is not against the copy beside it" % (r["kernel"], r["shape"])
print("bench_smoke: %d rows (%d measured), %d steps, %d targets"
      % (len(d["rows"]), len(measured), len(d["steps"]), len(d["targets"])))
PY

"$1" --quick --json --no-step --filter 'limit copy|residual fwd' >"$out" 2>/dev/null || {
    echo "bench_smoke: svk-bench --filter exited $?" >&2
    exit 1
}
python3 - "$out" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
names = {(r["section"], r["kernel"], r["direction"]) for r in d["rows"]}
assert ("limit", "copy", "-") in names, "the filter's first alternative was lost: %s" % names
assert ("residual", "residual", "fwd") in names, "the filter's second alternative was lost: %s" % names
for s, k, dr in names:
    assert (s == "limit" and k.startswith("copy")) or (k, dr) == ("residual", "fwd"), \
        "row %s %s %s passed the filter" % (s, k, dr)
assert not d["steps"], "--no-step ran steps"
print("bench_smoke: --filter 'limit copy|residual fwd' kept %d rows" % len(d["rows"]))
PY
