#!/bin/bash
# svk-train --accum: gradient accumulation on token shards (and
# --recompute, activation recomputation, which composes with it). With one seed,
# --batch 8 --accum 4 reads the 32 windows --batch 32 reads, and its
# per-step losses agree with them within 1e-5 relative over 20 steps, on
# both backends; --resume keeps --accum (byte for byte as the straight run);
# a fixed batch must hold --batch x --accum rows; bad values are refused.
# usage: svk_train_accum.sh SVK_TRAIN
set -u
train=$1
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--config vocab=64 --config width=32 --config layers=2 --config heads=2 --config ctx=16 --seq 16
       --steps 20 --lr 0.01 --warmup 2 --no-log --jsonl)
python3 - "$dir" <<'PY'
import random, struct, sys
r = random.Random(11)
t = [r.randrange(64)]
while len(t) < 6000:
    t.append((t[-1] * 5 + 3) % 64 if r.random() < 0.8 else r.randrange(64))
open(f"{sys.argv[1]}/train_000.bin", "wb").write(struct.pack(f"<{len(t)}H", *t))
PY
shards=(--train-data "$dir/train_000.bin" --token-format u16)
cat > "$dir/same.py" <<'PY'
import json, sys
a = [json.loads(l)["loss"] for l in open(sys.argv[1]) if '"step"' in l]
b = [json.loads(l)["loss"] for l in open(sys.argv[2]) if '"step"' in l]
assert len(a) == len(b) == 20, (len(a), len(b))
worst = max(abs(x - y) / abs(y) for x, y in zip(a, b))
print("worst relative difference %.3g over %d steps (first %g, last %g)" % (worst, len(a), b[0], b[-1]))
assert worst <= 1e-5 and b[-1] < b[0] - 0.5, worst
PY
for dev in cpu vulkan; do
    check "$dev: --batch 8 --accum 4 = --batch 32 within 1e-5 relative, 20 steps on token shards" bash -c "
        '$train' --device $dev ${small[*]} ${shards[*]} --batch 32 > '$dir/b32.jsonl' &&
        '$train' --device $dev ${small[*]} ${shards[*]} --batch 8 --accum 4 > '$dir/b8x4.jsonl' &&
        python3 '$dir/same.py' '$dir/b8x4.jsonl' '$dir/b32.jsonl'"
done
check "the banner names the micro-batches" bash -c "
    '$train' --device cpu ${small[*]/--jsonl/} ${shards[*]} --batch 2 --accum 3 --steps 1 | grep -q 'batch 6 x 16 (3 micro-batches of 2)'"

# Resumed: the run state keeps --accum; the legs' checkpoint is the straight
# run's byte for byte.
check "--resume keeps --accum: 6 steps straight = 3, then a resume for 3, byte for byte" bash -c "
    '$train' --device cpu ${small[*]} ${shards[*]} --batch 2 --accum 3 --steps 6 --save '$dir/s.st' > /dev/null &&
    '$train' --device cpu ${small[*]} ${shards[*]} --batch 2 --accum 3 --steps 6 --stop-at 3 --save '$dir/l.st' \
        > /dev/null &&
    head -c 4096 '$dir/l.st' | grep -aq ' accum=3' &&
    '$train' --device cpu ${shards[*]} --resume '$dir/l.st' --save '$dir/l.st' --no-log 2> '$dir/r.err' >/dev/null &&
    ! grep -q differs '$dir/r.err' && cmp '$dir/s.st' '$dir/l.st'"

# A fixed batch holds --batch x --accum rows.
python3 -c "
import struct
open('$dir/tok.i32', 'wb').write(struct.pack('<64i', *[i % 64 for i in range(64)]))
open('$dir/tgt.i32', 'wb').write(struct.pack('<64i', *[(i + 1) % 64 for i in range(64)]))"
check "--tokens/--targets with --accum: the files hold --batch x --accum rows" bash -c "
    '$train' --device cpu ${small[*]} --tokens '$dir/tok.i32' --targets '$dir/tgt.i32' --batch 2 --accum 2 \
        --steps 2 > /dev/null"
refused "--tokens of the wrong size for --batch x --accum" "(--batch x --accum, --seq)" \
    "$train" --device cpu "${small[@]}" --tokens "$dir/tok.i32" --targets "$dir/tgt.i32" --batch 2 --accum 3 --steps 1
usage_error "--accum 0" "--accum '0'" "$train" "${small[@]}" "${shards[@]}" --accum 0
usage_error "--accum 1025" "--accum '1025': not an integer in 1..1024" "$train" "${small[@]}" "${shards[@]}" --accum 1025
usage_error "--accum too large for the step" "tokens a step, more than 2^31" \
    "$train" "${small[@]}" "${shards[@]}" --batch 1048576 --accum 1024
check "--recompute: the same run, bit for bit, with --accum too" bash -c "
    '$train' --device vulkan ${small[*]} ${shards[*]} --batch 4 --accum 2 --steps 4 --save '$dir/k.st' > '$dir/k.jsonl' &&
    '$train' --device vulkan ${small[*]} ${shards[*]} --batch 4 --accum 2 --steps 4 --recompute --save '$dir/r.st' \
        > '$dir/r.jsonl' &&
    cmp '$dir/k.st' '$dir/r.st' &&
    diff <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/k.jsonl') <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/r.jsonl')"
check "--help documents --accum and --recompute" bash -c "
    '$train' --help > '$dir/help' && grep -q -- '--accum N' '$dir/help' && grep -q -- '--recompute' '$dir/help'"
summary
