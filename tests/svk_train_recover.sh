#!/bin/bash
# svk-train and a lost device (docs/RELIABILITY.md, row 3d). A step cut
# into many submissions (--max-submit-ms 0.001: one an op) or into one
# (--max-submit-ms 0) ends with the default run's file, byte for byte.
# SVK_TRAIN_FAULT is svk-train over fault injection (tests/svk_train_fault.c):
# with FV_LOSE_SUBMIT=K its K-th submission loses the device, mid-run.
# Without --recover the run ends (exit 1) naming the likely cause (a
# watchdog) and its last checkpoint, which is intact: a --resume from it
# ends with the uninterrupted run's file. With --recover the run makes a
# new context, goes on from that checkpoint (or from its start, lost
# before the first) and ends with the uninterrupted run's file too.
# usage: svk_train_recover.sh SVK_TRAIN SVK_TRAIN_FAULT
set -u
train=$1
fault=$2
[ "${fault#/}" = "$fault" ] && fault=$PWD/$fault
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32 --eval 0 --no-log
       --steps 12)
# The lost runs submit every op alone (--max-submit-ms 0.001, about 60
# submissions a step), so that the loss lands inside a step: the 300th
# submission is in step 5 or 6, after the checkpoint of step 4.
tiny=(--max-submit-ms 0.001)
mid=300

check "the uninterrupted run" "$train" "${small[@]}" --save-every 4 --save straight.st
for ms in 0.001 0; do
    check "--max-submit-ms $ms: the default run's file, byte for byte" \
        sh -c '"$@" --max-submit-ms '$ms' --save-every 4 --save ms.st && cmp straight.st ms.st' sh "$train" "${small[@]}"
done

expect "--max-submit-ms 0.001: the op over it named, once" 0 "cannot be split" \
    "$train" "${small[@]}" --steps 2 "${tiny[@]}"
check "... once" test "$(grep -c "cannot be split" out)" = 1

expect "lost mid-run without --recover: exit 1, the likely cause named" 1 "watchdog" \
    env FV_LOSE_SUBMIT="$mid" "$fault" "${small[@]}" "${tiny[@]}" --save-every 4 --save lost.st
cp out lost.out
check "... and the checkpoint to go on from" grep -q "holds the run's last checkpoint (step 4), intact: go on with --resume lost.st" lost.out
check "... which is intact: a --resume from it ends with the uninterrupted run's file" \
    sh -c '"$1" --resume lost.st --save lost.st --eval 0 --no-log && cmp straight.st lost.st' sh "$train"

expect "lost mid-run with --recover: a new context, resumed from the checkpoint" 0 "recovering (1 of 3)" \
    env FV_LOSE_SUBMIT="$mid" "$fault" "${small[@]}" "${tiny[@]}" --save-every 4 --save recovered.st --recover
check "... which ends with the uninterrupted run's file, byte for byte" cmp straight.st recovered.st
expect "lost before the first checkpoint with --recover: the run starts again" 0 "started again" \
    env FV_LOSE_SUBMIT=8 "$fault" "${small[@]}" "${tiny[@]}" --save-every 4 --save early.st --recover
check "... and ends with the uninterrupted run's file, byte for byte" cmp straight.st early.st

expect "--recover needs --save" 2 "--recover goes on from the run's last checkpoint" "$train" --recover --steps 1
expect "--max-submit-ms -1 is refused" 2 "--max-submit-ms" "$train" --max-submit-ms -1
expect "--help names --max-submit-ms" 0 "--max-submit-ms X" "$train" --help
expect "--help names --recover" 0 "--recover " "$train" --help
summary
