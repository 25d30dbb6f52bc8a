#!/bin/bash
# svk-train on pre-tokenized shards (--train-data, --val-data,
# --token-format): tiny uint16 and llm.c shards made here; the held-out loss
# every --eval-every steps in the CSV and the jsonl; --save-best keeps the
# lowest one's checkpoint; a token >= the model's vocab is refused naming its
# file and offset; --resume goes on byte for byte as the straight run; the
# options that exclude each other; and the learning-rate schedules
# (--schedule wsd, --decay-frac) as svk_lr_schedule_ex gives them.
# usage: svk_train_tokens.sh SVK_TRAIN
set -u
train=$1
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--config vocab=64 --config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32)
# Shards of a learnable sequence (mostly t' = 3t + 1 mod 64): two to train
# on, one held out; a shard with token 64 at token offset 20; the training
# shards again in llm.c's format.
python3 - "$dir" <<'PY'
import random, struct, sys
d = sys.argv[1]
r = random.Random(5)
def tokens(n):
    t = [r.randrange(64)]
    while len(t) < n:
        t.append((t[-1] * 3 + 1) % 64 if r.random() < 0.9 else r.randrange(64))
    return t
for name, n in [("train_000.bin", 3000), ("train_001.bin", 2000), ("val_000.bin", 1500)]:
    t = tokens(n)
    open(f"{d}/{name}", "wb").write(struct.pack(f"<{n}H", *t))
    header = [20240520, 1, n] + [0] * 253
    open(f"{d}/{name[:-4]}.llmc", "wb").write(struct.pack("<256i", *header) + struct.pack(f"<{n}H", *t))
bad = [1] * 40
bad[20] = 64
open(f"{d}/bad_000.bin", "wb").write(struct.pack("<40H", *bad))
PY
shards=(--train-data "$dir/train_*.bin" --val-data "$dir/val_*.bin" --token-format u16)
# The same, quoted for the checks' bash -c commands (the shell there must not
# expand the patterns: svk-train does).
sh_shards="--train-data '$dir/train_*.bin' --val-data '$dir/val_*.bin' --token-format u16"

# The held-out loss at steps 3, 6 and the end (7), in the CSV's heldout_loss
# and the jsonl's eval objects, the same numbers; --save-best's file holds
# the run at the lowest of them (its run state says which).
cat > "$dir/heldout.py" <<'PY'
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ev = [json.loads(l) for l in open(sys.argv[2]) if '"eval_step"' in l]
want = [int(s) for s in sys.argv[3].split(",")]
assert [e["eval_step"] for e in ev] == want, ev
assert all(1 < e["heldout_loss"] < 6 and e["heldout_tokens"] == 8 * 4 * 32 for e in ev), ev
measured = [(int(r["step"]), float(r["heldout_loss"])) for r in rows if r["heldout_loss"]]
assert [s for s, _ in measured] == want, measured
assert all(abs(m - e["heldout_loss"]) < 2e-6 for (_, m), e in zip(measured, ev)), (measured, ev)
# "best": true exactly where the loss is lower than every one before.
low = float("inf")
for e in ev:
    assert e.get("best", False) == (e["heldout_loss"] < low), ev
    low = min(low, e["heldout_loss"])
state = open(sys.argv[4], "rb").read(4096).decode("latin-1")
step, loss = min(measured, key=lambda m: m[1])
assert re.search(r" position=%d " % step, state), (state, step)
assert re.search(r" best_step=%d\b" % step, state), (state, step)
assert abs(float(re.search(r" best_loss=(\S+)", state).group(1)) - loss) < 1e-6, (state, loss)
assert " data=tokens " in state, state
PY
for dev in cpu vulkan; do
    check "$dev: --train-data/--val-data: the held-out loss at the --eval-every steps and the end, in the CSV and \
the jsonl; --save-best's file is the lowest's" bash -c "
        '$train' --device $dev ${small[*]} $sh_shards --steps 7 --eval-every 3 --save-best '$dir/best.st' \
            --save '$dir/run.st' --jsonl > '$dir/run.jsonl' &&
        python3 '$dir/heldout.py' '$dir/run.csv' '$dir/run.jsonl' 3,6,7 '$dir/best.st'"
done
check "the CSV keeps its columns; a line of text per held-out loss, naming --save-best's saves" bash -c "
    '$train' --device cpu ${small[*]} $sh_shards --steps 4 --eval-every 2 --save-best '$dir/b2.st' \
        --log '$dir/t.csv' > '$dir/t.out' &&
    head -1 '$dir/t.csv' | grep -qx 'step,loss,lr,grad_norm,tokens_per_s,heldout_loss,skipped' &&
    [ \$(grep -c '^eval   step [24]/4  held-out loss [0-9.]*  (8 batches of 4 x 32' '$dir/t.out') -eq 2 ] &&
    grep -q 'best so far: saved $dir/b2.st' '$dir/t.out' && [ -f '$dir/b2.st' ]"
check "--eval-tokens: whole batches, capped at what the held-out shards hold" bash -c "
    '$train' --device cpu ${small[*]} $sh_shards --steps 2 --eval-every 0 --eval-tokens 200 --jsonl > '$dir/e1' &&
    grep -q '\"heldout_tokens\": 256' '$dir/e1' &&
    '$train' --device cpu ${small[*]} $sh_shards --steps 2 --eval-every 0 --eval-tokens 1000000 --jsonl > '$dir/e2' &&
    grep -q '\"heldout_tokens\": 1408' '$dir/e2'" # val: 1499 / 32 = 46 windows, 11 batches of 4
check "--token-format llmc (the default): the same shards in llm.c's format train the same run" bash -c "
    '$train' --device cpu ${small[*]} --train-data '$dir/train_*.llmc' --val-data '$dir/val_*.llmc' --steps 3 \
        --jsonl --no-log > '$dir/l.jsonl' &&
    '$train' --device cpu ${small[*]} $sh_shards --steps 3 --jsonl --no-log > '$dir/u.jsonl' &&
    diff <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/l.jsonl') <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/u.jsonl')"

# A token >= vocab: the run stops naming the file and the token's offset,
# in a training shard when a batch reads it, in a held-out one before the
# run trains.
refused "a token >= vocab in a --train-data shard: its file and offset" \
    "bad_000.bin: token 64 at token offset 20 (byte 40) is not below the vocabulary of 64" \
    "$train" --device cpu "${small[@]}" --train-data "$dir/bad_000.bin" --token-format u16 --steps 2 --no-log
refused "a token >= vocab in a --val-data shard: its file and offset" \
    "bad_000.bin: token 64 at token offset 20 (byte 40) is not below the vocabulary of 64" \
    "$train" --device cpu "${small[@]}" --train-data "$dir/train_*.bin" --val-data "$dir/bad_000.bin" \
    --token-format u16 --steps 2 --no-log
refused "a raw shard read as llm.c's: the format named, and the option" "--token-format llmc|u16|u32" \
    "$train" --device cpu "${small[@]}" --train-data "$dir/train_*.bin" --steps 2 --no-log
refused "a pattern that matches nothing" "no file matches" \
    "$train" --device cpu "${small[@]}" --train-data "$dir/none_*.bin" --steps 2 --no-log
refused "a shard shorter than --seq + 1 tokens" "holds 40 tokens; --seq 64 needs at least 65" \
    "$train" --device cpu "${small[@]}" --config ctx=64 --seq 64 --train-data "$dir/bad_000.bin" --token-format u16 \
    --steps 2 --no-log

# Resumed: the same files, byte for byte, as the straight run (the shards'
# position and the best loss travel in the checkpoint), and the same losses.
two_legs() { # device
    local dev=$1
    "$train" --device "$dev" "${small[@]}" "${shards[@]}" --steps 12 --eval-every 4 --save "$dir/straight.st" \
        --save-best "$dir/straight-best.st" --jsonl --no-log > "$dir/straight.jsonl" &&
        "$train" --device "$dev" "${small[@]}" "${shards[@]}" --steps 12 --eval-every 4 --stop-at 5 \
            --save "$dir/legs.st" --save-best "$dir/legs-best.st" --jsonl --no-log > "$dir/leg1.jsonl" &&
        "$train" --device "$dev" "${shards[@]}" --eval-every 4 --resume "$dir/legs.st" --save "$dir/legs.st" \
            --save-best "$dir/legs-best.st" --jsonl --no-log > "$dir/leg2.jsonl" 2> "$dir/leg2.err" &&
        ! grep -q 'differs\|starts again' "$dir/leg2.err" &&
        cmp "$dir/straight.st" "$dir/legs.st" && cmp "$dir/straight-best.st" "$dir/legs-best.st" &&
        diff <(sed 's/"tokens_per_s": [0-9.]*//' "$dir/straight.jsonl") \
            <(cat "$dir/leg1.jsonl" "$dir/leg2.jsonl" | sed 's/"tokens_per_s": [0-9.]*//')
}
for dev in cpu vulkan; do
    check "$dev: 12 steps straight = 5, then a resume for 7: the same checkpoints byte for byte, the same losses" \
        two_legs $dev
done
check "a resume with other shards starts their stream again from --seed, and says so" bash -c "
    '$train' --device cpu ${small[*]} --train-data '$dir/train_000.bin' --token-format u16 --steps 4 --stop-at 2 \
        --save '$dir/o.st' --no-log > /dev/null &&
    '$train' --device cpu $sh_shards --resume '$dir/o.st' --no-log 2>&1 >/dev/null |
        grep -q 'the data (tokens shards, seed 1) is not the resumed run.s'"

# Options that exclude each other, or need another: exit status 2.
usage_error "--train-data with --data" "--train-data and --data exclude each other" \
    "$train" "${small[@]}" "${shards[@]}" --data "$dir/val_000.bin"
usage_error "--train-data with --tokens" "--train-data and --tokens/--targets exclude each other" \
    "$train" "${small[@]}" "${shards[@]}" --tokens a --targets b
usage_error "--train-data with --task" "--train-data and --task exclude each other" \
    "$train" "${small[@]}" "${shards[@]}" --task addition
usage_error "--train-data with --digits" "--train-data and --digits exclude each other" \
    "$train" "${small[@]}" "${shards[@]}" --digits 3
usage_error "--val-data alone" "--val-data needs --train-data" "$train" "${small[@]}" --val-data "$dir/val_000.bin"
usage_error "--token-format u8" "--token-format 'u8': not llmc, u16 or u32" "$train" "${small[@]}" "${shards[@]}" \
    --token-format u8
usage_error "--save-best without a held-out loss" "--save-best keeps the checkpoint of the lowest held-out loss" \
    "$train" "${small[@]}" --train-data "$dir/train_*.bin" --token-format u16 --save-best "$dir/x.st"
usage_error "--save-best and --save one file" "--save-best and --save name one file" \
    "$train" "${small[@]}" "${shards[@]}" --save-best "$dir/x.st" --save "$dir/x.st"
usage_error "--eval-tokens without a held-out loss" "--eval-tokens sizes the held-out loss" \
    "$train" "${small[@]}" --eval-tokens 100
usage_error "--schedule linear" "--schedule 'linear': not cosine, constant or wsd" "$train" "${small[@]}" \
    --schedule linear
usage_error "--constant-lr with --schedule wsd" "--constant-lr and --schedule wsd exclude each other" \
    "$train" "${small[@]}" --constant-lr --schedule wsd
usage_error "--decay-frac with the cosine" "--decay-frac is --schedule wsd's" "$train" "${small[@]}" \
    --decay-frac 0.5
usage_error "--decay-frac 1.5" "--decay-frac '1.5'" "$train" "${small[@]}" --schedule wsd --decay-frac 1.5

# --data's held-out split with --save-best and --eval-tokens.
head -c 3000 /dev/urandom | base64 > "$dir/text.txt"
check "--data: --save-best keeps the lowest held-out loss's checkpoint; --eval-tokens sizes it" bash -c "
    '$train' --device cpu ${small[*]} --config vocab=256 --data '$dir/text.txt' --steps 4 --eval-every 2 \
        --eval-tokens 128 --save-best '$dir/tb.st' --jsonl --no-log > '$dir/tb.jsonl' &&
    [ \$(grep -c '\"heldout_tokens\": 128' '$dir/tb.jsonl') -eq 2 ] &&
    head -c 4096 '$dir/tb.st' | grep -aq ' data=text .* best_loss='"

# The schedules: wsd's rates (10 steps, 2 of warm-up, the last 4 decaying
# with --decay-frac 0.4), kept in the run state; constant = --constant-lr.
check "--schedule wsd --decay-frac 0.4: warm-up, the peak, then down to a tenth; the run state keeps it" bash -c "
    '$train' --device cpu ${small[*]} $sh_shards --steps 10 --warmup 2 --lr 0.01 --schedule wsd --decay-frac 0.4 \
        --save '$dir/w.st' --jsonl --no-log > '$dir/w.jsonl' &&
    head -c 4096 '$dir/w.st' | grep -aq ' schedule=wsd .* decay_frac=0.400000006' &&
    python3 - '$dir/w.jsonl' <<'PY'
import json, sys
lrs = [json.loads(l)['lr'] for l in open(sys.argv[1]) if '\"step\"' in l]
want = [0.005, 0.01, 0.01, 0.01, 0.01, 0.01, 0.00775, 0.0055, 0.00325, 0.001]
assert all(abs(a - b) <= 1e-6 * b for a, b in zip(lrs, want)) and len(lrs) == 10, lrs
PY"
check "--schedule constant is --constant-lr: the same losses and rates" bash -c "
    '$train' --device cpu ${small[*]} $sh_shards --steps 3 --schedule constant --jsonl --no-log > '$dir/c1' &&
    '$train' --device cpu ${small[*]} $sh_shards --steps 3 --constant-lr --jsonl --no-log > '$dir/c2' &&
    diff <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/c1') <(sed 's/\"tokens_per_s\": [0-9.]*//' '$dir/c2') &&
    grep -q '\"lr\": 0.003,' '$dir/c1'"
check "--help documents the shards, --eval-tokens, --save-best and the schedules" bash -c "
    '$train' --help > '$dir/help' && grep -q -- '--train-data GLOB' '$dir/help' && grep -q -- '--val-data GLOB' '$dir/help' &&
    grep -q -- '--token-format llmc|u16|u32' '$dir/help' && grep -q -- '--eval-tokens N' '$dir/help' &&
    grep -q -- '--save-best PATH' '$dir/help' && grep -q -- '--schedule cosine|constant|wsd' '$dir/help' &&
    grep -q -- '--decay-frac F' '$dir/help'"
summary
