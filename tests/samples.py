#!/usr/bin/env python3
"""The samples (samples/) in their quick mode, with what they write checked.

usage: samples.py train_text EXE TEXT_FILE
       samples.py norm_study EXE

train_text: a quick run into a temporary folder (the sample itself checks
that its checkpoint, reopened, continues the prompt as the model did), then
--resume to 40 steps from that checkpoint.
norm_study: a quick run; every file it promises is there: norm_study.md
(the table, a row per placement and learning rate, and its caption),
norm_study.csv and runs.csv (their columns, a row per cell or run, numbers
where numbers belong), loss_curves.csv (a column per run, a row per step)
and loss_curves.svg (well-formed XML, an <svg> with a panel title per
learning rate, a path per seed and per mean, and labelled axes).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from pytally import check, summary


def run(cmd):
    print("$ " + " ".join(cmd))
    sys.stdout.flush()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="")
    return p


def train_text(exe, text):
    with tempfile.TemporaryDirectory(prefix="svk-sample-") as tmp:
        out = os.path.join(tmp, "run")
        p = run([exe, "--quick", "--out", out, text])
        check(p.returncode == 0, "train_text --quick: exit %d" % p.returncode)
        check("reopened: the same greedy continuation" in p.stdout,
              "train_text: its checkpoint, reopened, continues the prompt as the model did")
        check(os.path.isfile(os.path.join(out, "model.safetensors")), "train_text: %s/model.safetensors" % out)
        p = run([exe, "--quick", "--resume", "--steps", "40", "--out", out, text])
        check(p.returncode == 0 and "at step 30" in p.stdout and "step    40/40" in p.stdout,
              "train_text --resume: goes on from step 30 to 40 (exit %d)" % p.returncode)


def number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def norm_study(exe):
    placements = ["pre", "post", "siamese"]
    lrs = ["0.001", "0.003", "0.01"]
    seeds, steps = 2, 8  # --quick's
    with tempfile.TemporaryDirectory(prefix="svk-sample-") as tmp:
        out = os.path.join(tmp, "study")
        p = run([exe, "--quick", "--out", out])
        if not check(p.returncode == 0, "norm_study --quick: exit %d" % p.returncode):
            return
        names = ["norm_study.md", "norm_study.csv", "runs.csv", "loss_curves.csv", "loss_curves.svg"]
        missing = [n for n in names if not os.path.isfile(os.path.join(out, n))]
        if not check(not missing, "norm_study writes %s (missing: %s)" % (", ".join(names), missing or "none")):
            return

        # The summary table: a row per (learning rate, placement).
        rows = read_csv(os.path.join(out, "norm_study.csv"))
        header = ["placement", "peak_lr", "seeds", "final_loss_mean", "final_loss_min", "final_loss_max",
                  "exact_match_mean", "exact_match_min", "exact_match_max", "diverged"]
        check(rows and rows[0] == header, "norm_study.csv columns: %s" % (rows[0] if rows else None))
        body = rows[1:]
        keys = [(r[0], r[1]) for r in body if len(r) == len(header)]
        check(sorted(keys) == sorted((pl, lr) for pl in placements for lr in lrs),
              "norm_study.csv: one row per placement and learning rate (%d rows)" % len(body))
        check(all(len(r) == len(header) and all(number(x) for x in r[1:]) and r[2] == str(seeds) for r in body),
              "norm_study.csv: numbers in every numeric column, %d seeds per row" % seeds)
        # (the printed means are rounded as the bounds are: 1e-3 of slack; a
        # diverged cell's NaN or infinity orders with nothing, and passes)
        def ordered(lo, mean, hi):
            lo, mean, hi = float(lo), float(mean), float(hi)
            return not all(map(math.isfinite, (lo, mean, hi))) or lo - 1e-3 <= mean <= hi + 1e-3
        check(all(0 <= float(r[6]) <= 100 and ordered(r[7], r[6], r[8]) and ordered(r[4], r[3], r[5]) and
                  0 <= int(r[9]) <= seeds for r in body
                  if len(r) == len(header) and all(number(x) for x in r[1:])),
              "norm_study.csv: min <= mean <= max, exact match a percentage, diverged a count of seeds")

        # One row per run.
        rows = read_csv(os.path.join(out, "runs.csv"))
        header = ["placement", "peak_lr", "seed", "final_loss", "first_loss", "exact_match", "heldout",
                  "skipped_steps", "diverged", "seconds"]
        check(rows and rows[0] == header, "runs.csv columns: %s" % (rows[0] if rows else None))
        check(len(rows) - 1 == len(placements) * len(lrs) * seeds and
              all(len(r) == len(header) and all(number(x) for x in r[1:]) for r in rows[1:]),
              "runs.csv: %d runs, numbers in every numeric column" % (len(rows) - 1))

        # Every run's loss at every step.
        rows = read_csv(os.path.join(out, "loss_curves.csv"))
        runs = len(placements) * len(lrs) * seeds
        check(len(rows) == steps + 1 and rows[0][0] == "step" and len(rows[0]) == runs + 1 and
              all(len(r) == runs + 1 and all(number(x) for x in r) for r in rows[1:]),
              "loss_curves.csv: a column per run (%d), a row per step (%d)" % (len(rows[0]) - 1, len(rows) - 1))

        # The figure: well-formed XML, one panel per learning rate.
        try:
            svg = ET.parse(os.path.join(out, "loss_curves.svg")).getroot()
        except ET.ParseError as e:
            check(False, "loss_curves.svg parses as XML: %s" % e)
            return
        ns = "{http://www.w3.org/2000/svg}"
        check(svg.tag == ns + "svg", "loss_curves.svg: root element %s" % svg.tag)
        texts = ["".join(t.itertext()) for t in svg.iter(ns + "text")]
        titles = [t for t in texts if t.startswith("peak learning rate ")]
        check(titles == ["peak learning rate " + lr for lr in lrs], "loss_curves.svg: panels %s" % titles)
        check(texts.count("step") == len(lrs) and
              sum(t.startswith("training loss") for t in texts) == len(lrs) and
              all(pl in texts for pl in placements),
              "loss_curves.svg: each panel's axes labelled, a legend naming %s" % ", ".join(placements))
        paths = list(svg.iter(ns + "path"))
        check(len(paths) == len(lrs) * len(placements) * (seeds + 1) and all(pa.get("d") for pa in paths),
              "loss_curves.svg: %d curves (a line per seed and their mean, per placement and panel)" % len(paths))

        with open(os.path.join(out, "norm_study.md")) as f:
            md = f.read()
        lines = [l for l in md.splitlines() if l.startswith("| ")]
        check(len(lines) == 1 + len(placements) * len(lrs) and "Diverged:" in md and "Made by `" in md,
              "norm_study.md: the table (%d rows), its caption and the command" % (len(lines) - 1))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "train_text" and len(sys.argv) == 4:
        train_text(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "norm_study":
        norm_study(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return summary()


if __name__ == "__main__":
    sys.exit(main())
