#!/bin/bash
# svk-train --precision: 16-bit activations (docs/MODEL.md, "Precision").
# 200 steps of the main job (svk-train's default model and task) in fp16
# and in bf16 end within 2% of fp32's loss (the mean of the last 20 steps,
# as one step's loss is noisy); --plan names the precision and shows less
# activation memory; --resume keeps it (byte for byte as the straight
# run), as it keeps --eval; a precision that is none is refused by name.
# usage: svk_train_precision.sh SVK_TRAIN
set -u
train=$1
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"

for p in fp32 fp16 bf16; do
    "$train" --steps 200 --eval 0 --no-log --jsonl --precision "$p" > "$dir/$p.jsonl" 2> "$dir/$p.err" ||
        cp "$dir/$p.err" "$dir/$p.jsonl"
done
cat > "$dir/track.py" <<'PY'
import json, sys
def tail(path):
    losses = [json.loads(l)["loss"] for l in open(path) if l.startswith('{"step"')]
    assert len(losses) == 200, (path, len(losses))
    return sum(losses[-20:]) / 20, losses[0]
ref, first = tail(sys.argv[1])
got, _ = tail(sys.argv[2])
print("last 20 steps' mean loss %.4f, fp32's %.4f (first step %.4f): %+.2f%%" % (got, ref, first, 100 * (got - ref) / ref))
assert abs(got - ref) <= 0.02 * ref and ref < first - 1, (got, ref)
PY
for p in fp16 bf16; do
    check "$p: 200 steps of the main job end within 2% of fp32's loss" python3 "$dir/track.py" "$dir/fp32.jsonl" \
        "$dir/$p.jsonl"
    grep -F "mean loss" "$dir/out" | sed 's/^/     /'
done

check "--plan names the precision, and bf16's activations are fewer bytes than fp32's" bash -c "
    '$train' --plan --config layers=6 --precision bf16 > '$dir/plan16' && grep -q ', bf16, ' '$dir/plan16' &&
    '$train' --plan --config layers=6 > '$dir/plan32' && grep -q ', fp32, ' '$dir/plan32' &&
    python3 - '$dir/plan32' '$dir/plan16' <<'PY'
import re, sys
def act(p):
    n, unit = re.search(r'activations\s+([0-9.]+) (\w+)', open(p).read()).groups()
    return float(n) * {'B': 1, 'KiB': 2**10, 'MiB': 2**20, 'GiB': 2**30}[unit]
print('activations %.0f bytes in bf16, %.0f in fp32' % (act(sys.argv[2]), act(sys.argv[1])))
assert act(sys.argv[2]) < 0.8 * act(sys.argv[1])
PY"

check "--resume keeps --precision: 6 steps straight = 3, then a resume for 3, byte for byte" bash -c "
    '$train' --device cpu --steps 6 --eval 0 --precision fp16 --no-log --save '$dir/s.st' > /dev/null &&
    '$train' --device cpu --steps 6 --eval 0 --precision fp16 --stop-at 3 --no-log --save '$dir/l.st' > /dev/null &&
    head -c 4096 '$dir/l.st' | grep -aq ' precision=fp16' &&
    '$train' --device cpu --eval 0 --resume '$dir/l.st' --save '$dir/l.st' --no-log 2> '$dir/r.err' > /dev/null &&
    ! grep -q differs '$dir/r.err' && cmp '$dir/s.st' '$dir/l.st'"

# The addition task's held-out problems are never trained on, so --eval
# shapes the training stream: the run state keeps it too.
check "--resume keeps --eval: 6 steps straight = 3, then a resume for 3 without it, byte for byte" bash -c "
    '$train' --device cpu --steps 6 --eval 7 --no-log --save '$dir/e.st' > /dev/null &&
    '$train' --device cpu --steps 6 --eval 7 --stop-at 3 --no-log --save '$dir/f.st' > /dev/null &&
    head -c 4096 '$dir/f.st' | grep -aq ' eval=7' &&
    '$train' --device cpu --resume '$dir/f.st' --save '$dir/f.st' --no-log 2> '$dir/r.err' > /dev/null &&
    ! grep -q differs '$dir/r.err' && cmp '$dir/e.st' '$dir/f.st'"

refused "--precision fp8 is refused by name" "--precision 'fp8': not fp32, fp16 or bf16" \
    "$train" --precision fp8 --steps 1
summary
