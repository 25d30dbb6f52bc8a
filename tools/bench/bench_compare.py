#!/usr/bin/env python3
"""bench_compare.py: two svk-bench runs (--json) side by side.

    python3 tools/bench/bench_compare.py BEFORE.json AFTER.json [--filter TEXT] [--rows]

For each kernel row both runs measured (matched by section, kernel,
direction, variant, shape and dims) it takes after / before of the rate
(GFLOP/s or GB/s: above 1 is faster) and of the row's ratio to its own
run's limit (of OpenBLAS for GEMM, of the copy kernel beside it for the
memory-bound rows). The second is the one to read when the two runs come
from different minutes or hosts: each is measured side by side within its
run, so it moves less with the machine's speed (docs/PERFORMANCE.md). It
prints the median of both per section and kernel (every row with --rows),
the training steps' tokens/s and GPU time, and every target whose verdict
changed. It says when the two runs name different devices or host CPUs
(svk-bench's machine.cpu, absent before 2026-12-05 21:00 UTC), where the
rates compare different machines.

--filter TEXT keeps the rows whose 'section kernel direction variant shape'
contains TEXT (A|B: either), as svk-bench's own --filter does.

Exit status: 0, or 2 with a message when a file is not svk-bench's JSON.
Nothing here is timed; it only reads the two documents.
"""

import argparse
import json
import statistics
import sys


class BadDocument(Exception):
    def __init__(self, path, why):
        super().__init__("%s: %s" % (path, why))


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise BadDocument(path, "cannot read it as JSON: %s" % e)
    if not isinstance(d, dict) or d.get("tool") != "svk-bench" or not isinstance(d.get("rows"), list):
        raise BadDocument(path, "not an svk-bench --json document (no tool 'svk-bench' with rows)")
    return d


def describe(d):
    dev = d.get("device", {})
    mach = d.get("machine", {})
    blas = d.get("openblas", {})
    return "%s; %s (%s, subgroup %s); host CPU %s; OpenBLAS %s" % (
        d.get("date", "?"), dev.get("name", "?"), dev.get("driver_info", "?"), dev.get("subgroup_size", "?"),
        mach.get("cpu", "not recorded"), blas.get("core", "not built") if blas.get("built") else "not built")


def row_key(r):
    return (r.get("section"), r.get("kernel"), r.get("direction"), r.get("variant"), r.get("shape"), r.get("dims"))


def row_text(r):
    return " ".join(str(x) for x in (r.get("section"), r.get("kernel"), r.get("direction"), r.get("variant"),
                                      r.get("shape")))


def keep(r, flt):
    return not flt or any(alt in row_text(r) for alt in flt.split("|"))


def of_limit(r):
    """The row's ratio to its run's limit: OpenBLAS for GEMM, the copy beside it otherwise."""
    for k in ("of_openblas", "of_copy"):
        if r.get(k):
            return r[k]
    return None


def measured(d, flt):
    return {row_key(r): r for r in d["rows"] if r.get("value") and keep(r, flt)}


def fmt_ratio(x):
    return "%.2f" % x if x is not None else "-"


def main(argv):
    p = argparse.ArgumentParser(description="Two svk-bench --json runs side by side.")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--filter", default="", help="rows whose 'section kernel direction variant shape' "
                   "contains TEXT (A|B: either)")
    p.add_argument("--rows", action="store_true", help="every matched row, not only the medians")
    args = p.parse_args(argv)
    try:
        a, b = load(args.before), load(args.after)
    except BadDocument as e:
        sys.stderr.write("bench_compare.py: %s\n" % e)
        return 2

    print("before: %s" % describe(a))
    print("after:  %s" % describe(b))
    ca, cb = a.get("machine", {}).get("cpu"), b.get("machine", {}).get("cpu")
    if a.get("device", {}).get("name") != b.get("device", {}).get("name"):
        print("note: different devices; the rates compare two devices, the ratios to each run's limits less so")
    elif ca and cb and ca != cb:
        print("note: different host CPUs; a CPU device's rates and OpenBLAS's both follow the host")
    elif not (ca and cb):
        print("note: a run does not name its host CPU (svk-bench before machine.cpu); check they are the same")

    ra, rb = measured(a, args.filter), measured(b, args.filter)
    both = [k for k in ra if k in rb]
    only_a = sum(1 for k in ra if k not in rb)
    only_b = sum(1 for k in rb if k not in ra)
    print("\nkernel rows: %d in both, %d only before, %d only after (skipped or filtered in the other)"
          % (len(both), only_a, only_b))

    groups = {}
    for k in both:
        x, y = ra[k], rb[k]
        rate = y["value"] / x["value"]
        la, lb = of_limit(x), of_limit(y)
        lim = lb / la if la and lb else None
        groups.setdefault((k[0], k[1], k[3]), []).append((rate, lim, k, x, y))
    if both:
        print("%-12s %-16s %-9s %5s  %-31s %s" % ("section", "kernel", "variant", "rows",
                                                 "after/before rate (med, range)", "of its limit (med)"))
    for g in sorted(groups):
        v = groups[g]
        rates = [r for r, _, _, _, _ in v]
        lims = [l for _, l, _, _, _ in v if l is not None]
        rate_text = "%.2f (%.2f-%.2f)" % (statistics.median(rates), min(rates), max(rates))
        print("%-12s %-16s %-9s %5d  %-31s %s" % (g[0], g[1], g[2] or "-", len(v), rate_text,
                                                 fmt_ratio(statistics.median(lims)) if lims else "-"))
        if args.rows:
            for rate, lim, k, x, y in sorted(v, key=lambda t: t[0]):
                print("    %-58s %9.2f -> %9.2f %-7s %5.2f  of limit %s -> %s" % (
                    (row_text(x) + " " + (x.get("dims") or ""))[:58], x["value"], y["value"], x["metric"], rate,
                    fmt_ratio(of_limit(x)), fmt_ratio(of_limit(y))))

    sa = {s["name"]: s for s in a.get("steps", []) if s.get("gpu_ms")}
    sb = {s["name"]: s for s in b.get("steps", []) if s.get("gpu_ms")}
    names = [n for n in sa if n in sb]
    if names:
        print("\n%-16s %24s %34s" % ("step", "tokens/s before -> after", "GPU ms/step (min) before -> after"))
        for n in names:
            x, y = sa[n], sb[n]
            print("%-16s %9.0f -> %9.0f %5.2fx   %7.2f (%7.2f) -> %7.2f (%7.2f)" % (
                n, x["tokens_per_s"], y["tokens_per_s"], y["tokens_per_s"] / x["tokens_per_s"], x["gpu_ms"],
                x.get("gpu_min_ms") or 0, y["gpu_ms"], y.get("gpu_min_ms") or 0))

    ta = {t["target"]: t for t in a.get("targets", [])}
    tb = {t["target"]: t for t in b.get("targets", [])}
    changed = [t for t in ta if t in tb and ta[t].get("status") != tb[t].get("status")]
    print("\ntargets whose verdict changed: %s" % ("none" if not changed else ""))
    for t in changed:
        print("  %-62s %s -> %s (%s)" % (t, ta[t].get("status"), tb[t].get("status"), tb[t].get("measured", "")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
