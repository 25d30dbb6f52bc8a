#!/bin/bash
# svk-train and svk-generate as a user runs them: every option of the
# model issue on a small model, on both backends.
# usage: svk_train_cli.sh SVK_TRAIN SVK_GENERATE
set -u
train=$1
gen=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0
fail=0
check() { # description, command...
    local what=$1
    shift
    if "$@" >"$dir/out" 2>&1; then
        echo "PASS $what"
        pass=$((pass + 1))
    else
        echo "FAIL $what"
        sed 's/^/     /' "$dir/out" | tail -20
        fail=$((fail + 1))
    fi
}
small=(--config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32 --eval 20)

check "addition, vulkan, jsonl" bash -c "'$train' ${small[*]} --steps 6 --jsonl > '$dir/v.jsonl' && \
    [ \$(grep -c '\"step\"' '$dir/v.jsonl') -eq 6 ] && grep -q heldout_accuracy '$dir/v.jsonl' && \
    grep -q tokens_per_s '$dir/v.jsonl' && grep -q grad_norm '$dir/v.jsonl'"
check "addition, cpu backend, same losses as vulkan" bash -c "'$train' --device cpu ${small[*]} --steps 6 --jsonl \
    > '$dir/c.jsonl' && python3 - '$dir/c.jsonl' '$dir/v.jsonl' <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1]) if '\"step\"' in l]
b = [json.loads(l) for l in open(sys.argv[2]) if '\"step\"' in l]
assert len(a) == len(b) == 6
for x, y in zip(a, b):
    assert abs(x['loss'] - y['loss']) <= 1e-4 * abs(x['loss']), (x, y)
PY"
check "save, then resume continues with the same losses" bash -c "
    '$train' ${small[*]} --steps 8 --jsonl > '$dir/full.jsonl' &&
    '$train' ${small[*]} --steps 4 --save '$dir/a.safetensors' --jsonl > /dev/null &&
    '$train' ${small[*]} --steps 4 --resume '$dir/a.safetensors' --jsonl > '$dir/part.jsonl' &&
    python3 - '$dir/full.jsonl' '$dir/part.jsonl' <<'PY'
import json, sys
full = [json.loads(l) for l in open(sys.argv[1]) if '\"step\"' in l]
part = [json.loads(l) for l in open(sys.argv[2]) if '\"step\"' in l]
assert [p['step'] for p in part] == [5, 6, 7, 8], part
# The data stream restarts with the seed, so compare the schedule, and that training goes on from step 5.
assert [round(p['lr'], 9) for p in part] == [round(f['lr'], 9) for f in full[4:]], (part, full)
PY"
check "--init-from loads weights only" "$train" "${small[@]}" --steps 2 --init-from "$dir/a.safetensors"
check "--save-every" bash -c "'$train' ${small[*]} --steps 4 --save-every 2 --save '$dir/e.safetensors' >/dev/null && [ -s '$dir/e.safetensors' ]"
python3 - "$dir" <<'PY'
import struct, sys
d = sys.argv[1]
B, T = 2, 8
toks = [(i * 7) % 256 for i in range(B * T)]
tgts = [(t + 1) % 256 if i % 3 else -1 for i, t in enumerate(toks)]
open(d + "/tok.bin", "wb").write(struct.pack("<%di" % (B * T), *toks))
open(d + "/tgt.bin", "wb").write(struct.pack("<%di" % (B * T), *tgts))
open(d + "/text.txt", "w").write("the quick brown fox jumps over the lazy dog. " * 40)
PY
check "--tokens/--targets fixed batch, --dump-grads, --dump-logits" bash -c "
    '$train' --config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 2 --seq 8 --steps 3 \
      --tokens '$dir/tok.bin' --targets '$dir/tgt.bin' --dump-grads '$dir/g.safetensors' \
      --dump-logits '$dir/l.safetensors' --constant-lr --lr 1e-3 --clip 0 --wd 0 > /dev/null &&
    python3 - '$dir/g.safetensors' '$dir/l.safetensors' <<'PY'
import json, struct, sys
def header(p):
    b = open(p, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    return json.loads(b[8:8 + n])
g = header(sys.argv[1])
assert 'grad.wte.weight' in g and g['grad.wte.weight']['shape'] == [256, 32], g.keys()
assert 'grad.blocks.1.attn_norm.input.weight' in g
l = header(sys.argv[2])
assert l['logits']['shape'] == [2, 8, 256], l
PY"
check "--data FILE" "$train" --config width=32 --config layers=1 --config heads=2 --config ctx=32 --batch 2 --seq 16 \
    --steps 3 --data "$dir/text.txt"
check "svk-generate from a checkpoint" bash -c "'$gen' '$dir/a.safetensors' --prompt '12+34=' --tokens 5 | grep -q '^12+34='"
check "svk-generate on the cpu, sampling" "$gen" "$dir/a.safetensors" --device cpu --prompt "1+1=" --tokens 3 \
    --temperature 0.8 --top-k 10 --seed 3

# A diverged run: lr 1e30 makes the first update blow the weights up, so
# every later step's loss is NaN and the library skips it. --max-bad-steps 3
# stops after three in a row, exit status 3, and --save writes nothing.
check "--max-bad-steps stops a diverged run (vulkan, jsonl)" bash -c "
    '$train' ${small[*]} --steps 30 --constant-lr --lr 1e30 --max-bad-steps 3 --jsonl --save '$dir/div.safetensors' \
      > '$dir/div.jsonl' 2> '$dir/div.err'; rc=\$?
    cat '$dir/div.err'; [ \$rc -eq 3 ] || { echo \"exit status \$rc, expected 3\"; exit 1; }
    grep -q 'stopping at step 4: 3 training steps in a row were skipped' '$dir/div.err' &&
    grep -q 'warning: step 2 skipped' '$dir/div.err' && [ ! -e '$dir/div.safetensors' ] &&
    python3 - '$dir/div.jsonl' <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r['skipped'] for r in rows] == [False, True, True, True], rows
assert rows[0]['loss'] is not None and all(r['loss'] is None for r in rows[1:]), rows
PY"
check "--max-bad-steps counts skips between progress lines (cpu)" bash -c "
    '$train' --device cpu ${small[*]} --steps 30 --log-every 10 --constant-lr --lr 1e30 --max-bad-steps 5 \
      > /dev/null 2> '$dir/div.err'; rc=\$?
    cat '$dir/div.err'; [ \$rc -eq 3 ] && grep -q '9 of steps 2-10 skipped' '$dir/div.err' &&
    grep -q 'stopping at step 10: 9 training steps in a row' '$dir/div.err'"
# The developer's profiles: each mode prints its table (timestamps permitting,
# which lavapipe's are), and the dispatch mode one line per dispatch.
for mode in 1 op kernel dispatch; do
    check "SVK_PROFILE=$mode prints the step's GPU time" bash -c "SVK_PROFILE=$mode '$train' ${small[*]} --steps 2 \
        --eval 0 2>&1 | grep -q 'svk profile: [0-9]* dispatches'"
done
check "SVK_PROFILE=dispatch lists each dispatch with its shader" bash -c "SVK_PROFILE=dispatch '$train' ${small[*]} \
    --steps 2 --eval 0 2>&1 | grep -Eq '^ +[0-9.]+ ms +adamw +adamw'"
check "--help documents --max-bad-steps" bash -c "'$train' --help | grep -q -- '--max-bad-steps N'"
check "--max-bad-steps 0 never stops, and says how many were skipped" bash -c "
    '$train' ${small[*]} --steps 6 --eval 0 --constant-lr --lr 1e30 --max-bad-steps 0 > /dev/null 2> '$dir/div.err' &&
    cat '$dir/div.err' && grep -q '5 of the 6 steps were skipped' '$dir/div.err'"

refused() { # description, expected text, command...
    local what=$1 want=$2
    shift 2
    if "$@" >"$dir/out" 2>&1; then
        echo "FAIL $what: exited 0"
        fail=$((fail + 1))
    elif grep -qF -- "$want" "$dir/out"; then
        echo "PASS $what: $(head -1 "$dir/out")"
        pass=$((pass + 1))
    else
        echo "FAIL $what: message lacks '$want'"
        cat "$dir/out"
        fail=$((fail + 1))
    fi
}
refused "unknown config key" "unknown config key 'colour'" "$train" --config colour=blue
refused "bad config value" "placement=sideways" "$train" --config placement=sideways
refused "--seq beyond ctx" "exceeds the model's ctx" "$train" --config ctx=16 --seq 32
refused "unknown option" "unknown option" "$train" --bogus
refused "bad number" "bad value" "$train" --steps many
refused "missing resume file" "nope.safetensors" "$train" --resume "$dir/nope.safetensors"
refused "corrupt checkpoint" "$dir/bad.safetensors" bash -c "echo garbage > '$dir/bad.safetensors' && '$train' --resume '$dir/bad.safetensors'"
refused "wrong-size --tokens file" "exactly B*T" "$train" "${small[@]}" --tokens "$dir/tok.bin" --targets "$dir/tgt.bin"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
