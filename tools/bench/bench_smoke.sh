#!/bin/sh
# svk-bench --quick --json, whose output must be one JSON document with
# rows and steps, the reduce rows (every way, the reduced ones at one loss), every GB/s kernel row with the copy run among its runs,
# and the GEMM target of the variant the step does not run informational;
# times are never judged. bench_compare.py must then match every measured
# row of that run with itself (ratios of 1) and refuse a document that is
# not svk-bench's. step_vs_torch.py must pair the run's step with a
# PyTorch document made up from it (no PyTorch needed) and refuse the two
# in the wrong order. Then --filter with two alternatives must keep the
# rows of either and no other.
# Usage: bench_smoke.sh SVK_BENCH BENCH_COMPARE_PY STEP_VS_TORCH_PY
set -eu
out=$(mktemp)
cmp_out=$(mktemp)
torch_json=$(mktemp)
trap 'rm -f "$out" "$cmp_out" "$torch_json"' EXIT
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
# The GEMM target is judged on the variant the device's step runs, the
# other's is informational (a step on cooperative matrices has no target
# row of its own: then neither is).
gemm = {t["target"].split(")")[0].split("(")[1]: t["status"] for t in d["targets"] if t["target"].startswith("GEMM (")}
variant = d["steps"][0]["variant"]
assert gemm and all(r["variant"] == variant for r in d["steps"]), d["steps"]
for v, status in gemm.items():
    assert (status == "informational") == (variant in gemm and v != variant), \
        "GEMM (%s): %s, the step runs %s" % (v, status, variant)
# The step with its gradients reduced, one rank: every way measured, the
# reduced ones at the same loss (the same sums, whole or in buckets).
red = {r["mode"]: r for r in d["reduce"] if r["name"] == "tiny"}
assert sorted(red) == ["buckets", "buckets/8", "none", "whole"], red
for m, r in red.items():
    assert "skipped" not in r and r["step_ms"] > 0 and r["ranks"] == 1, r
    assert r["bytes_per_step"] == 4 * r["params"], r
assert red["whole"]["buckets"] == 1 and red["buckets/8"]["buckets"] > 1, red
for m in ("buckets", "buckets/8"):
    assert abs(red[m]["loss"] - red["whole"]["loss"]) <= 1e-5 * abs(red["whole"]["loss"]), red
print("bench_smoke: %d rows (%d measured), %d steps, %d targets, %d reduce rows"
      % (len(d["rows"]), len(measured), len(d["steps"]), len(d["targets"]), len(d["reduce"])))
PY

python3 "$2" "$out" "$out" >"$cmp_out" || {
    echo "bench_smoke: bench_compare.py exited $? on a run against itself" >&2
    exit 1
}
python3 - "$out" "$cmp_out" <<'PY'
import json, re, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
text = open(sys.argv[2]).read()
n = sum(1 for r in d["rows"] if r.get("value"))
assert "kernel rows: %d in both, 0 only before, 0 only after" % n in text, text
medians = re.findall(r"^\S+\s+\S+\s+\S+\s+\d+  (\d+\.\d+) ", text, re.M)
assert medians and all(m == "1.00" for m in medians), text
assert "targets whose verdict changed: none" in text, text
print("bench_smoke: bench_compare.py matched %d rows with themselves" % n)
PY
rc=0
python3 "$2" "$1" "$out" >/dev/null 2>"$cmp_out" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "cannot read it as JSON" "$cmp_out"; then
    echo "bench_smoke: bench_compare.py on a binary gave status $rc: $(cat "$cmp_out")" >&2
    exit 1
fi

# A PyTorch run of the 'tiny' step at half svk-bench's tokens/s: the pair's
# ratio must be 2.
python3 - "$out" "$torch_json" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    s = [x for x in json.load(f)["steps"] if x["name"] == "tiny"][0]
steps = [{"name": "tiny", "tokens_per_s": s["tokens_per_s"] / 2, "ms_per_step": 2.0, "ms_min": 1.5}]
with open(sys.argv[2], "w") as f:
    json.dump({"tool": "torch_step", "steps": steps}, f)
PY
python3 "$3" --pairs "$torch_json" "$out" --config tiny --json >"$cmp_out" || {
    echo "bench_smoke: step_vs_torch.py exited $? on a made-up pair" >&2
    exit 1
}
python3 - "$cmp_out" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
assert abs(d["summary"]["ratio_median"] - 2.0) < 1e-9, d
print("bench_smoke: step_vs_torch.py paired the 'tiny' step, ratio %.2f" % d["summary"]["ratio_median"])
PY
rc=0
python3 "$3" --pairs "$out" "$torch_json" --config tiny >/dev/null 2>"$cmp_out" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "not a torch_step document" "$cmp_out"; then
    echo "bench_smoke: step_vs_torch.py on swapped files gave status $rc: $(cat "$cmp_out")" >&2
    exit 1
fi

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
assert not d["steps"] and not d["reduce"], "--no-step ran steps"
print("bench_smoke: --filter 'limit copy|residual fwd' kept %d rows" % len(d["rows"]))
PY
