#!/bin/sh
# svk-bench --quick --json, whose output must be one JSON document with
# rows and steps; times are never judged. Usage: bench_smoke.sh SVK_BENCH
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
print("bench_smoke: %d rows (%d measured), %d steps, %d targets"
      % (len(d["rows"]), len(measured), len(d["steps"]), len(d["targets"])))
PY
