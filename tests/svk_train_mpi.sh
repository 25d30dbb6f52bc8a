#!/bin/bash
# svk-train under mpirun (docs/DISTRIBUTED.md): two ranks with the global
# --batch 4 (2 rows each) give the per-step losses of one process with
# --batch 4 within 1e-5 relative over 20 steps, for the siamese and pre
# placements, their parameter hashes agreeing (--check-every); ranks whose
# parameters differ stop, each saying so; a rank killed mid-run, or one
# whose device is lost, ends the job, non-zero, within seconds, the last
# checkpoint loadable; a --batch that does not divide by the ranks
# is refused by name; fp16 with --accum 2 composes; the gradients reduced
# in buckets (the default) and whole (--reduce whole) give the same losses,
# and ranks whose buckets differ stop, each saying so. LP_NUM_THREADS=1: two lavapipe ranks on a 2-core
# machine would otherwise each start a thread a core.
# usage: svk_train_mpi.sh SVK_TRAIN MPIRUN SVK_TRAIN_FAULT
set -u
train=$1
mpirun=$2
fault=$3
[ "${fault#/}" = "$fault" ] && fault=$PWD/$fault
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
export LP_NUM_THREADS=1
# Root is allowed here (CI runs as root); two ranks on fewer cores too.
mpi=("$mpirun" --allow-run-as-root --oversubscribe -x LP_NUM_THREADS)
# The addition task's 2 x 32 model; one submission a step, so that the
# first step is not a timed replay.
small=(--steps 20 --batch 4 --eval 0 --no-log --jsonl --max-submit-ms 0)
cat > "$dir/same.py" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1]) if '"step"' in l]
b = [json.loads(l) for l in open(sys.argv[2]) if '"step"' in l]
assert len(a) == len(b) == 20, (len(a), len(b))
worst = max(abs(x["loss"] - y["loss"]) / abs(y["loss"]) for x, y in zip(a, b))
print("worst relative difference %.3g over %d steps (first %g, last %g)" % (worst, len(a), b[0]["loss"], b[-1]["loss"]))
assert worst <= 1e-5, worst
assert not any(x["skipped"] for x in a)
PY
# The gradients go in buckets of 16 KiB (several, for this model of 134
# KiB of gradients) as the backward completes them, the default way
# (siamese), or whole after the backward (--reduce whole, the reference;
# pre): the same losses as one process. (tests/test_grad_reduce.c holds
# the two ways to the same bits in one process.)
check "siamese: mpirun -np 2 --batch 4, buckets of 16 KiB = one process --batch 4 within 1e-5 relative, 20 steps; hashes agree; several buckets" \
    bash -c "
    '$train' ${small[*]} > '$dir/one.siamese.jsonl' &&
    timeout 120 ${mpi[*]} -np 2 '$train' ${small[*]} --check-every 10 --bucket-kb 16 \
        > '$dir/two.siamese.jsonl' 2> '$dir/two.err' &&
    cat '$dir/two.err' && grep -Eq 'gradients \(in ([2-9]|[1-9][0-9]) buckets\)' '$dir/two.err' &&
    python3 '$dir/same.py' '$dir/two.siamese.jsonl' '$dir/one.siamese.jsonl'"
check "pre: mpirun -np 2 --batch 4 --reduce whole = one process --batch 4 within 1e-5 relative, 20 steps; hashes agree" \
    bash -c "
    '$train' ${small[*]} --config placement=pre > '$dir/one.pre.jsonl' &&
    timeout 120 ${mpi[*]} -np 2 '$train' ${small[*]} --config placement=pre --reduce whole --check-every 10 \
        > '$dir/two.pre.jsonl' &&
    python3 '$dir/same.py' '$dir/two.pre.jsonl' '$dir/one.pre.jsonl'"

# It composes with 16-bit activations (fp16: loss scaling too) and
# gradient accumulation: one all-reduce per optimizer step, the buckets
# those of the last micro-batch's backward.
check "siamese fp16 --accum 2, buckets of 16 KiB: mpirun -np 2 = one process within 1e-5 relative, 20 steps" \
    bash -c "
    '$train' ${small[*]} --precision fp16 --accum 2 > '$dir/one.jsonl' &&
    timeout 120 ${mpi[*]} -np 2 '$train' ${small[*]} --precision fp16 --accum 2 --check-every 10 --bucket-kb 16 \
        > '$dir/two.jsonl' &&
    python3 '$dir/same.py' '$dir/two.jsonl' '$dir/one.jsonl' &&
    grep -q '\"loss_scale\": 65536' '$dir/two.jsonl'"

# Ranks started from different seeds hold different weights: the first
# comparison stops them, every rank naming the hashes.
expect_mismatch() {
    timeout 120 "${mpi[@]}" -np 1 "$train" --steps 6 --batch 4 --eval 0 --no-log --max-submit-ms 0 --seed 1 \
        --check-every 2 : -np 1 "$train" --steps 6 --batch 4 --eval 0 --no-log --max-submit-ms 0 --seed 2 \
        --check-every 2 > "$dir/mm.out" 2>&1
    local rc=$?
    cat "$dir/mm.out"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c "parameters differ after step 2" "$dir/mm.out")" -eq 2 ] &&
        grep -q "rank 0: the ranks' parameters differ" "$dir/mm.out" &&
        grep -q "rank 1: the ranks' parameters differ" "$dir/mm.out"
}
check "--check-every: ranks with different weights stop at the first comparison, each saying so" expect_mismatch

# Ranks asked for buckets of different sizes would sum unrelated
# gradients: the first step's comparison stops them, each saying so.
expect_bucket_mismatch() {
    local c=(--steps 2 --batch 4 --eval 0 --no-log --max-submit-ms 0)
    timeout 120 "${mpi[@]}" -np 1 "$train" "${c[@]}" --bucket-kb 16 : -np 1 "$train" "${c[@]}" --bucket-kb 32 \
        > "$dir/bm.out" 2>&1
    local rc=$?
    cat "$dir/bm.out"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c "cut their gradients into different buckets" "$dir/bm.out")" -eq 2 ]
}
check "ranks cutting different buckets stop at the first step, each saying so" expect_bucket_mismatch

# A rank killed with SIGKILL after a few steps: mpirun ends the other and
# exits non-zero, well before the run would have ended, and rank 0's last
# checkpoint (saved every 2 steps) still loads and generates.
kill_one() {
    timeout 120 "${mpi[@]}" -np 2 "$train" --steps 100000 --batch 4 --eval 0 --no-log --jsonl --max-submit-ms 0 \
        --save "$dir/k.safetensors" --save-every 2 > "$dir/k.jsonl" 2> "$dir/k.err" &
    local outer=$! runner="" victim="" i
    for ((i = 0; i < 600; i++)); do
        [ -z "$victim" ] || break
        sleep 0.1
        [ "$(grep -c '"step"' "$dir/k.jsonl" 2>/dev/null)" -ge 3 ] || continue
        runner=$(ps --ppid "$outer" -o pid= | tr -d ' ')
        for p in $(ps --ppid "$runner" -o pid=); do
            if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then
                victim=$p
            fi
        done
    done
    [ -n "$victim" ] || { echo "rank 1 was not found"; kill "$outer"; wait "$outer"; return 1; }
    local t0=$SECONDS
    kill -9 "$victim"
    wait "$outer"
    local rc=$? took=$((SECONDS - t0))
    cat "$dir/k.err"
    echo "mpirun exited $rc, $took s after rank 1 (pid $victim) was killed"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -le 30 ] &&
        "$(dirname "$train")/svk-generate" "$dir/k.safetensors" --tokens 4 --device cpu
}
check "a rank killed mid-run ends the job non-zero within 30 s; the last checkpoint loads" kill_one

# Rank 1's device lost mid-run (SVK_TRAIN_FAULT: svk-train over fault
# injection, tests/svk_train_fault.c; its FV_LOSE_SUBMIT-th submission loses
# the device, in step 2 or 3 here): the job ends non-zero within seconds,
# rank 1 saying why and where the checkpoint is, and rank 0's checkpoint of
# step 2 loads.
lose_one() {
    local c=(--steps 40 --batch 4 --eval 0 --no-log --max-submit-ms 0 --save "$dir/l.safetensors" --save-every 2)
    local t0=$SECONDS
    timeout 120 "${mpi[@]}" -np 1 "$fault" "${c[@]}" : -np 1 env FV_LOSE_SUBMIT=100 "$fault" "${c[@]}" \
        > "$dir/l.out" 2>&1
    local rc=$? took=$((SECONDS - t0))
    cat "$dir/l.out"
    echo "mpirun exited $rc after $took s"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -le 60 ] &&
        grep -q "rank 1: the device was lost; this ends the job on every rank" "$dir/l.out" &&
        "$(dirname "$train")/svk-generate" "$dir/l.safetensors" --tokens 4 --device cpu
}
check "rank 1's device lost mid-run: the job ends non-zero, rank 1 says why; rank 0's checkpoint loads" lose_one

refused "--batch must divide by the ranks" "--batch 3 is the global batch" \
    timeout 120 "${mpi[@]}" -np 2 "$train" --steps 2 --batch 3 --eval 0 --no-log
summary
