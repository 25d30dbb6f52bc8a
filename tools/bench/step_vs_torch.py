#!/usr/bin/env python3
"""libsvk's training step against PyTorch's, paired by round.

The target of issue 6 compares tokens/s of the same training step on the same
threads. Both sides share the machine with whatever else runs on it, so one
pair of runs says little: this runs torch_step.py and svk-bench's step rows
alternately, PyTorch first in each round, and pairs each round's figures. Or,
with --pairs, it pairs runs saved earlier (torch_step.py --json, svk-bench
--json), which needs no PyTorch.

Per round: tokens/s of each (svk-bench's from the wall time of its replayed
steps, torch_step.py's from its median step) and their ratio. Then the median
of the ratios, and the ratio of the quickest steps each side took in all
rounds (PyTorch's fastest step against svk-bench's smallest GPU time), the
figure least moved by the machine's noise.

Exit status: 0, or 2 when a run fails or a document is not the tool's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("step_vs_torch: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path, tool):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: cannot read it as JSON (%s)" % (path, e))
    if not isinstance(d, dict) or d.get("tool") != tool:
        fail("%s: not a %s document" % (path, tool))
    return d


def step_of(doc, name, what):
    for s in doc.get("steps") or []:
        if s.get("name") == name:
            return s
    fail("%s has no step row named '%s'" % (what, name))


def run_json(cmd, tool, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    try:
        d = json.loads(p.stdout)
    except ValueError:
        fail("%s did not print one JSON document" % " ".join(cmd))
    if d.get("tool") != tool:
        fail("%s printed no %s document" % (" ".join(cmd), tool))
    return d


def pair(torch_doc, svk_doc, name):
    t = step_of(torch_doc, name, "the PyTorch run")
    s = step_of(svk_doc, name, "the svk-bench run")
    if not t.get("tokens_per_s") or not s.get("tokens_per_s"):
        fail("step '%s' was not timed in one of the runs" % name)
    return {
        "torch_tokens_per_s": t["tokens_per_s"],
        "torch_ms": t.get("ms_per_step"),
        "torch_min_ms": t.get("ms_min"),
        "svk_tokens_per_s": s["tokens_per_s"],
        "svk_gpu_ms": s.get("gpu_ms"),
        "svk_gpu_min_ms": s.get("gpu_min_ms"),
        "ratio": s["tokens_per_s"] / t["tokens_per_s"],
    }


def summary(rounds):
    ratios = [r["ratio"] for r in rounds]
    out = {"rounds": len(rounds), "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
           "ratio_max": max(ratios)}
    tmins = [r["torch_min_ms"] for r in rounds if r.get("torch_min_ms")]
    smins = [r["svk_gpu_min_ms"] for r in rounds if r.get("svk_gpu_min_ms")]
    if tmins and smins:
        out["torch_min_ms"], out["svk_gpu_min_ms"] = min(tmins), min(smins)
        out["ratio_of_minimums"] = min(tmins) / min(smins)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="default", help="the step row to compare (default: default)")
    ap.add_argument("--rounds", type=int, default=5, help="alternated rounds (default 5)")
    ap.add_argument("--steps", type=int, default=10, help="timed steps per run on each side (default 10)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="PyTorch's threads, and lavapipe's (LP_NUM_THREADS) when unset (default: processors)")
    ap.add_argument("--svk-bench", default=os.path.join("build", "tools", "bench", "svk-bench"),
                    help="the svk-bench binary (default: build/tools/bench/svk-bench)")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="the interpreter that has PyTorch (default: /usr/bin/python3, Debian's python3-torch)")
    ap.add_argument("--pairs", nargs="+", metavar="JSON",
                    help="pair saved runs instead: TORCH.json SVK.json [TORCH.json SVK.json ...]")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    a = ap.parse_args()

    rounds = []
    if a.pairs:
        if len(a.pairs) % 2:
            fail("--pairs takes files two by two: a torch_step.py run, then an svk-bench run")
        for i in range(0, len(a.pairs), 2):
            rounds.append(pair(load(a.pairs[i], "torch_step"), load(a.pairs[i + 1], "svk-bench"), a.config))
    else:
        if a.rounds < 1 or a.steps < 1:
            fail("--rounds and --steps must be at least 1")
        if not os.access(a.svk_bench, os.X_OK):
            fail("%s is not an executable svk-bench (build first, or pass --svk-bench)" % a.svk_bench)
        env = dict(os.environ)
        if env.get("OPENBLAS_CORETYPE"):
            print("step_vs_torch: OPENBLAS_CORETYPE=%s is set; PyTorch's BLAS runs that kernel (unset it to "
                  "measure the machine's best)" % env["OPENBLAS_CORETYPE"], file=sys.stderr)
        torch_cmd = [a.python, os.path.join(HERE, "torch_step.py"), "--config", a.config, "--threads",
                     str(a.threads), "--steps", str(a.steps), "--json"]
        svk_cmd = [a.svk_bench, "--no-kernels", "--filter", "step " + a.config, "--steps", str(a.steps),
                   "--threads", str(a.threads), "--json"]
        for r in range(a.rounds):
            t = run_json(torch_cmd, "torch_step", env)
            s = run_json(svk_cmd, "svk-bench", env)
            rounds.append(pair(t, s, a.config))
            if not a.json:
                print("round %d of %d done" % (r + 1, a.rounds), file=sys.stderr)

    sm = summary(rounds)
    if a.json:
        print(json.dumps({"tool": "step_vs_torch", "config": a.config, "rounds": rounds, "summary": sm}, indent=2))
        return
    print("step '%s': libsvk against PyTorch, tokens/s paired by round" % a.config)
    print("round  PyTorch tok/s (ms, min)     libsvk tok/s (GPU ms, min)    libsvk / PyTorch")
    for i, r in enumerate(rounds):
        print("%5d  %8.0f (%6.1f, %6.1f)     %8.0f (%6.1f, %6.1f)       %.2f" % (
            i + 1, r["torch_tokens_per_s"], r["torch_ms"] or 0, r["torch_min_ms"] or 0, r["svk_tokens_per_s"],
            r["svk_gpu_ms"] or 0, r["svk_gpu_min_ms"] or 0, r["ratio"]))
    print("median ratio %.2f (%.2f to %.2f over %d rounds)" % (sm["ratio_median"], sm["ratio_min"], sm["ratio_max"],
                                                              sm["rounds"]))
    if "ratio_of_minimums" in sm:
        print("quickest steps: PyTorch %.1f ms, libsvk %.1f ms of GPU time: %.2f" % (
            sm["torch_min_ms"], sm["svk_gpu_min_ms"], sm["ratio_of_minimums"]))
    print("target (issue 6): libsvk's tokens/s at least PyTorch's: %s" % (
        "met" if sm["ratio_min"] >= 1.0 else "missed" if sm["ratio_max"] < 1.0 else "mixed: rounds on both sides"))


if __name__ == "__main__":
    main()
