#!/bin/bash
# svk-train as a user watches it (issue 35, item 5): the CSV of every step
# and its loss curve, where they go and what --resume makes of them; the
# held-out split of --data and its loss every --eval-every steps; Ctrl-C
# (SIGINT) and SIGTERM finishing the step, saving and exiting 130, a run
# so interrupted resumed to the straight run's very file; a second signal
# quitting at once; the progress bar on a terminal.
# usage: svk_train_ux.sh SVK_TRAIN
set -u
train=$1
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32 --eval 0)
# About 8 KB of text: a 10% tail of 800 bytes holds 24 windows of 32.
head -c 6000 /dev/urandom | base64 > "$dir/text.txt"

# The CSV's rows against --jsonl's (the same step, loss, lr and gradient
# norm), one per step, and the curve an SVG that parses as XML.
cat > "$dir/csv_rows.py" <<'PY'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
steps = [json.loads(l) for l in open(sys.argv[2]) if '"step"' in l]
assert list(rows[0].keys()) == ['step', 'loss', 'lr', 'grad_norm', 'tokens_per_s', 'heldout_loss', 'skipped'], rows[0]
assert [int(r['step']) for r in rows] == [s['step'] for s in steps] == list(range(1, len(steps) + 1)), (rows, steps)
for r, s in zip(rows, steps):
    assert abs(float(r['loss']) - s['loss']) < 1e-5 and abs(float(r['lr']) - s['lr']) <= 1e-6 * s['lr'], (r, s)
    assert abs(float(r['grad_norm']) - s['grad_norm']) <= 1e-5 * s['grad_norm'], (r, s)
    assert float(r['tokens_per_s']) > 0 and r['skipped'] == '0' and r['heldout_loss'] == '', r
PY
cat > "$dir/svg_ok.py" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
assert root.tag == ns + 'svg', root.tag
paths = [p.get('d') for p in root.iter(ns + 'path')]
# The frame, the training loss (a move and a line per step after the first).
assert any(d.count('L') >= int(sys.argv[2]) - 1 for d in paths), paths
PY
check "the CSV: a header and one row per step, the losses --jsonl prints; the SVG beside it parses, with the curve" \
    bash -c "'$train' ${small[*]} --steps 7 --save '$dir/run.st' --jsonl > '$dir/run.jsonl' &&
    python3 '$dir/csv_rows.py' '$dir/run.csv' '$dir/run.jsonl' && python3 '$dir/svg_ok.py' '$dir/run.svg' 7"
check "without --save: svk-train.csv and .svg in the current directory, and a line that says so" bash -c "
    mkdir '$dir/here' && cd '$dir/here' && '$train' ${small[*]} --steps 3 > out.txt &&
    [ \$(wc -l < svk-train.csv) -eq 4 ] && python3 '$dir/svg_ok.py' svk-train.svg 3 &&
    grep -qx 'wrote svk-train.csv (3 rows) and svk-train.svg (its plot)' out.txt"
check "--log PATH: the CSV there, the SVG beside it with .svg" bash -c "
    '$train' ${small[*]} --steps 2 --log '$dir/my.csv' > /dev/null && [ \$(wc -l < '$dir/my.csv') -eq 3 ] &&
    python3 '$dir/svg_ok.py' '$dir/my.svg' 2"
check "--no-log: no CSV, no SVG" bash -c "
    mkdir '$dir/none' && cd '$dir/none' && '$train' ${small[*]} --steps 2 --no-log > /dev/null && [ -z \"\$(ls)\" ]"
usage_error "--log and --no-log" "exclude each other" "$train" "${small[@]}" --log "$dir/x.csv" --no-log
usage_error "--log over --save's file" "would overwrite --save's file" "$train" "${small[@]}" --save "$dir/r.csv" \
    --log "$dir/r.csv"
usage_error "a --log whose SVG is --data" "would overwrite --data's file" "$train" "${small[@]}" --log "$dir/t.csv" \
    --data "$dir/t.svg"
# A FIFO at the CSV's path is refused before any step (by name: opening it
# would wait for a reader), and left a FIFO.
mkfifo "$dir/fifo.csv"
check "a FIFO as --log: refused before training, exit 1, left as it was" bash -c "
    timeout 60 '$train' ${small[*]} --steps 2 --log '$dir/fifo.csv' > '$dir/fifo.out' 2>&1; rc=\$?
    cat '$dir/fifo.out'; [ \$rc -eq 1 ] && grep -q 'fifo.csv: it is a FIFO, not a regular file' '$dir/fifo.out' &&
    ! grep -q '^step' '$dir/fifo.out' && [ -p '$dir/fifo.csv' ]"

# A diverged run's CSV: the skipped steps as nan, skipped 1; the curve
# still drawn (and parsed).
check "a diverged run: skipped steps in the CSV as nan with skipped 1, the SVG well-formed" bash -c "
    '$train' ${small[*]} --steps 9 --constant-lr --lr 1e30 --max-bad-steps 3 --log '$dir/div.csv' > /dev/null 2>&1
    [ \$? -eq 3 ] && python3 - '$dir/div.csv' <<'PY' && python3 '$dir/svg_ok.py' '$dir/div.svg' 0
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r['skipped'] for r in rows] == ['0', '1', '1', '1'], rows
assert [r['loss'] for r in rows[1:]] == ['nan'] * 3 and float(rows[0]['loss']) > 0, rows
PY"

# --resume: the CSV goes on from the checkpoint's step; rows a later part
# of the run had written past it are dropped. Straight and in two legs,
# the same rows but for tokens_per_s.
cat > "$dir/same_rows.py" <<'PY'
import csv, sys
a, b = (list(csv.reader(open(f))) for f in sys.argv[1:3])
drop = lambda rows: [r[:4] + r[5:] for r in rows]
assert drop(a) == drop(b), (a, b)
assert len(a) == int(sys.argv[3]) + 1, len(a)
PY
check "--resume: the CSV continues to the straight run's rows (but tokens/s); rows past the checkpoint dropped" bash -c "
    '$train' ${small[*]} --steps 10 --save '$dir/s.st' > /dev/null &&
    '$train' ${small[*]} --steps 10 --stop-at 4 --save '$dir/l.st' > /dev/null &&
    cp '$dir/s.csv' '$dir/l.csv' &&
    '$train' --eval 0 --resume '$dir/l.st' --save '$dir/l.st' > /dev/null 2> '$dir/l.err' &&
    cmp '$dir/s.st' '$dir/l.st' && python3 '$dir/same_rows.py' '$dir/s.csv' '$dir/l.csv' 10"
check "--resume with no CSV beside the checkpoint: its rows start after the resumed step, with a note" bash -c "
    '$train' ${small[*]} --steps 6 --stop-at 3 --save '$dir/n.st' > /dev/null && rm '$dir/n.csv' &&
    '$train' --eval 0 --resume '$dir/n.st' --save '$dir/n.st' > /dev/null 2> '$dir/n.err' &&
    grep -q 'note: no $dir/n.csv to continue: its rows start at step 4' '$dir/n.err' &&
    [ \"\$(cut -d, -f1 '$dir/n.csv' | tr '\n' ' ')\" = 'step 4 5 6 ' ]"

# --data's held-out split: its loss every --eval-every steps and at the
# end, in the CSV's column and printed; the split goes in the checkpoint,
# and a resumed run measures the same losses.
cat > "$dir/heldout.py" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ev = [json.loads(l) for l in open(sys.argv[2]) if 'eval_step' in l]
want = [int(s) for s in sys.argv[3].split(',')]
assert [e['eval_step'] for e in ev] == want, ev
assert all(2 < e['heldout_loss'] < 7 and e['heldout_tokens'] > 0 for e in ev), ev
measured = [(int(r['step']), float(r['heldout_loss'])) for r in rows if r['heldout_loss']]
assert [s for s, _ in measured] == want, rows
assert all(abs(m - e['heldout_loss']) < 2e-6 for (_, m), e in zip(measured, ev)), (measured, ev)
PY
check "--data: the held-out loss at the --eval-every steps and the end, in the CSV and the jsonl" bash -c "
    '$train' ${small[*]} --data '$dir/text.txt' --steps 7 --eval-every 3 --save '$dir/h.st' --jsonl > '$dir/h.jsonl' &&
    python3 '$dir/heldout.py' '$dir/h.csv' '$dir/h.jsonl' 3,6,7 &&
    head -c 4096 '$dir/h.st' | grep -aq ' holdout=0.100000001'"
check "--data: the held-out loss printed, its batches named" bash -c "
    '$train' ${small[*]} --data '$dir/text.txt' --steps 4 --eval-every 2 --log '$dir/hp.csv' > '$dir/hp.out' &&
    grep -Eq '^eval   step 2/4  held-out loss [0-9.]+  \(6 batches of 4 x 32, [0-9.]+ s\)' '$dir/hp.out' &&
    [ \$(grep -c '^eval .*held-out loss' '$dir/hp.out') -eq 2 ]"
check "--data: a resumed run measures the straight run's held-out losses; the same file" bash -c "
    '$train' ${small[*]} --data '$dir/text.txt' --steps 8 --eval-every 3 --save '$dir/hs.st' > /dev/null &&
    '$train' ${small[*]} --data '$dir/text.txt' --steps 8 --eval-every 3 --stop-at 4 --save '$dir/hl.st' > /dev/null &&
    '$train' --eval 0 --eval-every 3 --data '$dir/text.txt' --resume '$dir/hl.st' --save '$dir/hl.st' > /dev/null &&
    cmp '$dir/hs.st' '$dir/hl.st' && python3 '$dir/same_rows.py' '$dir/hs.csv' '$dir/hl.csv' 8"
check "--holdout 0: no split, no held-out loss; the run state as before the split" bash -c "
    '$train' ${small[*]} --data '$dir/text.txt' --steps 3 --holdout 0 --save '$dir/h0.st' --jsonl > '$dir/h0.jsonl' &&
    ! grep -q heldout '$dir/h0.jsonl' && ! head -c 4096 '$dir/h0.st' | grep -aq holdout= &&
    [ \"\$(cut -d, -f6 '$dir/h0.csv' | sort -u | tr -d '\n')\" = heldout_loss ]"
head -c 60 "$dir/text.txt" > "$dir/short.txt"
check "a file too short to split: by default a note and all of it trained on" bash -c "
    '$train' ${small[*]} --data '$dir/short.txt' --steps 2 --jsonl > '$dir/s.jsonl' 2> '$dir/s.err' &&
    grep -q 'note: --data $dir/short.txt holds 60 bytes: --holdout 0.1 would hold out 6' '$dir/s.err' &&
    ! grep -q heldout '$dir/s.jsonl'"
refused "a file too short to split with --holdout given: refused" "but each needs at least one sequence + 1" \
    "$train" "${small[@]}" --data "$dir/short.txt" --steps 2 --holdout 0.5
usage_error "--holdout 0.95" "--holdout '0.95'" "$train" "${small[@]}" --data "$dir/text.txt" --holdout 0.95

# Signals. Python starts the runs: a shell without job control starts a
# background job with SIGINT ignored (svk-train then leaves it ignored,
# checked below), and Python tells an exit status of 130 from a death by
# the signal. It waits for the run's progress line of a step, signals it,
# and prints the exit status.
cat > "$dir/send_signal.py" <<'PY'
import os, re, signal, subprocess, sys, time
sig, at, times = getattr(signal, sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
p = subprocess.Popen(sys.argv[4:], stdout=subprocess.PIPE, stderr=open(os.environ['ERR'], 'w'), text=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
out = []
for line in p.stdout:
    out.append(line)
    m = re.match(r'step +(\d+)/', line)
    if m and int(m.group(1)) >= at:
        p.send_signal(sig)
        # A second signal once the first is taken (its note on stderr):
        # two sent at once may merge into one.
        for _ in range(times - 1):
            t = time.time()
            while 'interrupted:' not in open(os.environ['ERR']).read() and time.time() < t + 20:
                time.sleep(0.001)
            p.send_signal(sig)
        break
out += p.stdout.readlines()
rc = p.wait()
open(os.environ['OUT'], 'w').write(''.join(out))
print(rc)
PY
sig_run() { # signal, step, times, command...: prints the exit status (-N: killed by signal N)
    OUT=$dir/sig.out ERR=$dir/sig.err timeout 300 python3 "$dir/send_signal.py" "$@"
}
position() { # the run's position in a checkpoint's header
    head -c 4096 "$1" | grep -ao 'position=[0-9]*' | cut -d= -f2
}
"$train" "${small[@]}" --steps 40 --save "$dir/straight.st" > /dev/null 2>&1
interrupted() { # signal: interrupted after step 3, then resumed; the straight run's file
    local rc p
    rm -f "$dir"/int.*
    rc=$(sig_run "$1" 3 1 "$train" "${small[@]}" --steps 40 --log-every 1 --save "$dir/int.st")
    cat "$dir/sig.err"
    [ "$rc" = 130 ] || { echo "exit status $rc, expected 130"; return 1; }
    p=$(position "$dir/int.st")
    grep -q "interrupted: finishing the step in progress, then saving $dir/int.st and the log" "$dir/sig.err" &&
        grep -q "interrupted after step $p of 40: saved; go on with --resume $dir/int.st" "$dir/sig.err" &&
        [ "$p" -ge 3 ] && [ "$p" -lt 40 ] && [ "$(($(wc -l < "$dir/int.csv") - 1))" -eq "$p" ] &&
        python3 "$dir/svg_ok.py" "$dir/int.svg" "$p" || return 1
    "$train" --eval 0 --resume "$dir/int.st" --save "$dir/int.st" > /dev/null 2>&1 &&
        cmp "$dir/straight.st" "$dir/int.st" && python3 "$dir/same_rows.py" "$dir/straight.csv" "$dir/int.csv" 40
}
check "SIGINT after step 3: the step finished, saved, exit 130; resumed, the straight run's file and rows" \
    interrupted SIGINT
check "SIGTERM likewise" interrupted SIGTERM
# Two at once: the second ends the process there (killed by SIGINT), and
# the checkpoint (saved every step) is one of the run's, which a resume
# takes to the straight run's file.
# (The second signal must land while the first is being acted on, a few
# milliseconds here: a run that finished first is tried again.)
twice() {
    local rc try
    for try in 1 2 3; do
        rm -f "$dir"/int.*
        rc=$(sig_run SIGINT 3 2 "$train" "${small[@]}" --steps 40 --log-every 1 --save-every 1 --save "$dir/int.st")
        cat "$dir/sig.err"
        [ "$rc" = 130 ] || break
        echo "try $try: the run was done before the second signal"
    done
    [ "$rc" = -2 ] || { echo "exit status $rc, expected -2 (killed by SIGINT)"; return 1; }
    "$train" --eval 0 --resume "$dir/int.st" --save "$dir/int.st" > /dev/null 2>&1 &&
        cmp "$dir/straight.st" "$dir/int.st"
}
check "a second SIGINT quits at once; the checkpoint left is whole and resumes to the straight run's file" twice
check "SIGINT without --save: exit 130, the CSV written, nothing saved" bash -c "
    rc=\$(OUT='$dir/ns.out' ERR='$dir/ns.err' timeout 300 python3 '$dir/send_signal.py' SIGINT 2 1 '$train' ${small[*]} \
        --steps 40 --log-every 1 --log '$dir/ns.csv'); cat '$dir/ns.err'
    [ \"\$rc\" = 130 ] && grep -q 'not saved (no --save)' '$dir/ns.err' && [ \$(wc -l < '$dir/ns.csv') -ge 3 ] &&
    [ -s '$dir/ns.svg' ]"
# A job a shell starts in the background without job control has SIGINT
# ignored (the terminal's Ctrl-C is not for it): it stays ignored.
ignored() {
    "$train" "${small[@]}" --steps 6 --log-every 1 --no-log > "$dir/bg.out" 2>&1 &
    local pid=$! n=0
    while ! grep -q '^step *2/' "$dir/bg.out" && [ $n -lt 3000 ]; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -INT $pid
    wait $pid
    local rc=$?
    cat "$dir/bg.out"
    [ $rc -eq 0 ] && grep -q '^step *6/6' "$dir/bg.out"
}
check "an ignored SIGINT (a background job) stays ignored: the run ends as it would" ignored

# The progress bar on a terminal: rate and ETA, a warning on a line of its
# own, the bar's line ended before what follows.
if command -v script > /dev/null; then
    check "the progress bar on a terminal: rate and ETA; warnings and the end on lines of their own" bash -c "
        script -qec \"'$train' ${small[*]} --steps 6 --log-every 1 --constant-lr --lr 1e30 --max-bad-steps 0 --no-log\" \
            /dev/null > '$dir/tty.out' 2>&1; cat -v '$dir/tty.out'
        python3 - '$dir/tty.out' <<'PY'
import re, sys
t = open(sys.argv[1], 'rb').read().decode().replace('\r\n', '\n')
assert re.search(r'\[#+\.*\] step 1/6  loss [0-9.]+  [0-9]+ tok/s  ETA (-|[0-9hms]+) ', t), t
# Every warning starts a line; the bar's last state ends its line.
assert t.count('svk-train: warning: step') == 5 and '\nsvk-train: warning: step 2 skipped' in t, t
assert all(l.startswith('svk-train: warning') for l in t.split('\n') if 'warning: step' in l), t
assert re.search(r'step 6/6 [^\n]*\n', t) and '\ntrained 6 steps' in t, t
PY"
fi
check "--help: the CSV's columns and its non-finite values, --holdout, exit status 130" bash -c "
    '$train' --help > '$dir/help' && grep -q -- '--log PATH' '$dir/help' && grep -q -- '--no-log' '$dir/help' &&
    grep -q 'step,loss,lr,grad_norm,tokens_per_s,heldout_loss,skipped' '$dir/help' &&
    grep -q 'nan, inf or -inf' '$dir/help' && grep -q -- '--holdout X' '$dir/help' &&
    grep -q '130 interrupted (SIGINT or' '$dir/help'"

summary
