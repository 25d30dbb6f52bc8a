#!/bin/bash
# svk-train --resume continues the run it resumes, bit for bit: N steps
# straight and k steps (--stop-at k) then a resume for the rest save the same
# file, byte for byte (weights, moments, step and the run's state), for the
# addition task, --data and a fixed batch; and a run with --save-every 1
# killed with SIGKILL at random points, each time resumed from what it last
# saved, ends with the uninterrupted run's file.
# usage: svk_train_resume.sh SVK_TRAIN [KILLS] [SEED]
set -u
train=$1
kills=${2:-6}
seed=${3:-$RANDOM}
RANDOM=$seed
echo "seed: $seed (repeat with: $0 $train $kills $seed)"
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32 --eval 0)
head -c 3000 /dev/urandom | base64 > "$dir/text.txt"
python3 - "$dir" <<'PY'
import struct, sys
B, T = 4, 32
toks = [(i * 7) % 256 for i in range(B * T)]
tgts = [(t + 1) % 256 for t in toks]
open(sys.argv[1] + "/tok.bin", "wb").write(struct.pack("<%di" % (B * T), *toks))
open(sys.argv[1] + "/tgt.bin", "wb").write(struct.pack("<%di" % (B * T), *tgts))
PY

# Straight, and in two legs: the same file.
two_legs() { # device, data options...
    local dev=$1
    shift
    "$train" --device "$dev" "${small[@]}" "$@" --steps 12 --save "$dir/straight.st" > /dev/null &&
        "$train" --device "$dev" "${small[@]}" "$@" --steps 12 --stop-at 5 --save "$dir/legs.st" > /dev/null &&
        "$train" --device "$dev" --eval 0 "$@" --resume "$dir/legs.st" --save "$dir/legs.st" > /dev/null &&
        cmp "$dir/straight.st" "$dir/legs.st"
}
for dev in cpu vulkan; do
    check "addition, $dev: 12 steps straight = 5, then a resume for 7, byte for byte" two_legs $dev
    check "--data, $dev: 12 steps straight = 5, then a resume for 7, byte for byte" two_legs $dev --data "$dir/text.txt"
    check "fixed batch, $dev: 12 steps straight = 5, then a resume for 7, byte for byte" two_legs $dev \
        --tokens "$dir/tok.bin" --targets "$dir/tgt.bin"
done

# Killed at random points with SIGKILL, resumed each time from its last save.
# Most kills wait for the run to reach a random step (watching its
# checkpoint), then a few milliseconds more, so that they land inside the
# run, anywhere in a step or a save, however fast or loaded the machine;
# every fourth lands at a random time in the leg's start-up instead.
position() { # the run's position in a checkpoint's header, or 0
    local p
    p=$( { head -c 4096 "$1" | grep -ao 'position=[0-9]*' | cut -d= -f2; } 2>/dev/null)
    echo "${p:-0}"
}
killed_run() { # device, steps
    local dev=$1 steps=$2
    local run=("$train" --device "$dev" "${small[@]}" --data "$dir/text.txt" --steps "$steps" --save-every 1)
    rm -f "$dir"/run.st*
    "${run[@]}" --save "$dir/ref.st" > /dev/null || return 1
    local k=0 n=0 inside=0 resumed
    while :; do
        n=$((n + 1))
        [ $n -le 200 ] || { echo "no progress after 200 starts"; return 1; }
        resumed=()
        [ -f "$dir/run.st" ] && resumed=(--resume "$dir/run.st")
        local before
        before=$(position "$dir/run.st")
        "${run[@]}" --save "$dir/run.st" "${resumed[@]}" > "$dir/leg.out" 2>&1 &
        local pid=$!
        if [ $k -lt "$kills" ] && [ $((steps - before)) -gt 1 ]; then
            local how
            if [ $((k % 4)) -eq 3 ]; then
                how="$((RANDOM % 300)) ms after its start"
                sleep "0.$(printf %03d $((RANDOM % 300)))"
            else
                local target=$((before + 1 + RANDOM % (steps - before - 1)))
                while kill -0 $pid 2>/dev/null && [ "$(position "$dir/run.st")" -lt $target ]; do
                    sleep 0.005
                done
                sleep "0.0$((RANDOM % 10))"
                how="once past step $target"
            fi
            if kill -9 $pid 2>/dev/null; then
                wait $pid 2>/dev/null
                k=$((k + 1))
                local after
                after=$(position "$dir/run.st")
                [ "$after" -gt "$before" ] && inside=$((inside + 1))
                echo "$dev: kill $k $how, the checkpoint at step $after of $steps" >> "$dir/kills"
                continue
            fi
        fi
        wait $pid || { cat "$dir/leg.out"; return 1; }
        break
    done
    echo "$dev: $k kills ($inside after the run had moved on), $n starts; $(ls "$dir" | grep -c '\.tmp\.')" \
         "temporaries left by saves killed midway" >> "$dir/kills"
    rm -f "$dir"/*.tmp.*
    cmp "$dir/ref.st" "$dir/run.st" || return 1
    [ $inside -ge 2 ] || { echo "fewer than 2 kills landed inside the run (it outran the watcher)"; return 2; }
}
# A run that outran its watcher (a loaded machine: the poll is slower than a
# step) proves too little, not something wrong: it runs again, up to 3 times.
killed_runs() { # device, steps
    local r
    for try in 1 2 3; do
        killed_run "$@"
        r=$?
        [ $r -eq 2 ] || return $r
        echo "$1: attempt $try: too few kills inside the run; again" >> "$dir/kills"
    done
    return 1
}
check "cpu, --data: $kills random SIGKILLs, resumed until done, ends byte for byte as the straight run" \
    killed_runs cpu 100
check "vulkan, --data: $kills random SIGKILLs, resumed until done, ends byte for byte as the straight run" \
    killed_runs vulkan 100
cat "$dir/kills" 2>/dev/null
summary
