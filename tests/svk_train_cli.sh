#!/bin/bash
# svk-train and svk-generate as a user runs them: every option of the
# model issue on a small model, on both backends.
# usage: svk_train_cli.sh SVK_TRAIN SVK_GENERATE
set -u
train=$1
gen=$2
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
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
    '$train' ${small[*]} --steps 8 --stop-at 4 --save '$dir/a.safetensors' --jsonl > '$dir/part1.jsonl' &&
    '$train' ${small[*]} --resume '$dir/a.safetensors' --jsonl > '$dir/part.jsonl' &&
    python3 - '$dir/full.jsonl' '$dir/part1.jsonl' '$dir/part.jsonl' <<'PY'
import json, sys
full, p1, p2 = ([json.loads(l) for l in open(f) if '\"step\"' in l] for f in sys.argv[1:])
assert [p['step'] for p in p1 + p2] == list(range(1, 9)), (p1, p2)
# The run's data position and schedule travel in the checkpoint: the same losses, to the last digit.
assert [(p['loss'], p['lr']) for p in p1 + p2] == [(f['loss'], f['lr']) for f in full], (p1, p2, full)
PY"
# The addition task's format is the run's: a resume without --answer and
# --operands goes on with the saved run's (plain here, not the defaults).
check "--answer plain --operands plain: a resume continues with plain problems, the same losses" bash -c "
    '$train' ${small[*]} --answer plain --operands plain --steps 8 --jsonl > '$dir/pfull.jsonl' &&
    '$train' ${small[*]} --answer plain --operands plain --steps 8 --stop-at 4 --save '$dir/p.safetensors' \
      --jsonl > '$dir/p1.jsonl' &&
    head -c 4096 '$dir/p.safetensors' | grep -aq ' answer=plain operands=plain ' &&
    '$train' ${small[*]} --resume '$dir/p.safetensors' --jsonl > '$dir/p2.jsonl' 2> '$dir/p2.err' &&
    ! grep -q differs '$dir/p2.err' &&
    '$train' ${small[*]} --steps 8 --jsonl > '$dir/rfull.jsonl' &&
    python3 - '$dir/pfull.jsonl' '$dir/p1.jsonl' '$dir/p2.jsonl' '$dir/rfull.jsonl' <<'PY'
import json, sys
full, p1, p2, rev = ([json.loads(l) for l in open(f) if '\"step\"' in l] for f in sys.argv[1:])
assert [p['loss'] for p in p1 + p2] == [f['loss'] for f in full], (p1, p2, full)
assert [p['loss'] for p in full] != [r['loss'] for r in rev], (full, rev)  # the defaults' problems are others
PY"
check "--answer reversed: held-out answers least significant digit first" bash -c "
    '$train' ${small[*]} --answer reversed --steps 1 > '$dir/rev.out' && grep -q 'answers reversed' '$dir/rev.out' &&
    grep -Eq '^  39\+81=.* \(want 021\)' '$dir/rev.out' &&
    '$train' ${small[*]} --answer plain --steps 1 > '$dir/plain.out' && grep -Eq '^  39\+81=.* \(want 120\)' '$dir/plain.out'"
check "--operands padded: held-out operands with --digits digits each" bash -c "
    '$train' ${small[*]} --operands padded --steps 1 > '$dir/pad.out' && grep -q 'operands padded' '$dir/pad.out' &&
    grep -Eq '^  04\+13=' '$dir/pad.out' &&
    '$train' ${small[*]} --operands plain --steps 1 > '$dir/unpad.out' && grep -Eq '^  4\+13=' '$dir/unpad.out'"
# The accuracy curve: a point every --eval-every steps before the end, the
# end's in the final line; the default is ten points over the run.
check "--eval-every: the held-out accuracy curve (jsonl); it changes no training step" bash -c "
    '$train' ${small[*]} --steps 7 --eval-every 3 --jsonl > '$dir/curve.jsonl' &&
    '$train' ${small[*]} --steps 7 --eval-every 0 --jsonl > '$dir/curve0.jsonl' &&
    python3 - '$dir/curve.jsonl' '$dir/curve0.jsonl' <<'PY'
import json, sys
rows, rows0 = ([json.loads(l) for l in open(f)] for f in sys.argv[1:])
ev = [(r['eval_step'], r['heldout']) for r in rows if 'eval_step' in r]
assert ev == [(3, 20), (6, 20), (7, 20)], ev
assert [r['step'] for r in rows if 'step' in r] == list(range(1, 8)), rows
assert all(0 <= r['heldout_accuracy'] <= 1 for r in rows if 'eval_step' in r), rows
def steps(rs): return [(r['loss'], r['grad_norm']) for r in rs if 'step' in r]
assert steps(rows) == steps(rows0), (rows, rows0)
assert [r['eval_step'] for r in rows0 if 'eval_step' in r] == [7], rows0
PY"
check "--eval-every: the curve in the log, ten points by default, the last the final accuracy" bash -c "
    '$train' ${small[*]} --steps 20 > '$dir/curve.out' && '$train' ${small[*]} --steps 20 --eval-every 0 > '$dir/nocurve.out' &&
    python3 - '$dir/curve.out' '$dir/nocurve.out' <<'PY'
import re, sys
out = open(sys.argv[1]).read().splitlines()
points = [re.fullmatch(r'eval   step (\d+)/20  held-out \d+/20 = ([\d.]+)% exact match  \([\d.]+ s\)', l)
          for l in out if l.startswith('eval ')]
assert all(points) and [int(p.group(1)) for p in points] == list(range(2, 20, 2)), out
curve = [l for l in out if l.startswith('held-out accuracy curve (20 problems, evaluations ')]
assert len(curve) == 1, out
pct = re.findall(r' step (\d+) ([\d.]+)%', curve[0])
assert [int(s) for s, _ in pct] == list(range(2, 21, 2)), curve
assert [p.group(2) for p in points] == [a for _, a in pct[:-1]], (points, curve)
final = [l for l in out[out.index(curve[0]) + 1:] if l.startswith('held-out accuracy: ')]
assert re.fullmatch(r'held-out accuracy: \d+/20 = ' + re.escape(pct[-1][1]) + '% exact match', final[0]), out
nocurve = open(sys.argv[2]).read()
assert 'eval ' not in nocurve and 'accuracy curve' not in nocurve and 'held-out accuracy: ' in nocurve, nocurve
PY"
check "a resume of a finished run trains nothing, and --steps lengthens it" bash -c "
    '$train' ${small[*]} --resume '$dir/a.safetensors' --save '$dir/a2.safetensors' > /dev/null &&
    '$train' ${small[*]} --resume '$dir/a2.safetensors' > '$dir/r2.out' && grep -q 'nothing to train' '$dir/r2.out' &&
    '$train' ${small[*]} --resume '$dir/a2.safetensors' --steps 10 --jsonl > '$dir/r3.jsonl' 2> '$dir/r3.err' &&
    [ \$(grep -c '\"step\"' '$dir/r3.jsonl') -eq 2 ] && grep -q 'differs from the resumed run' '$dir/r3.err'"
check "--init-from loads weights only" "$train" "${small[@]}" --steps 2 --init-from "$dir/a.safetensors"
# A run from a checkpoint has the checkpoint's model: --init-from and
# --resume take its configuration with no --config; a --config may repeat
# its values (some of them, in any order) but not change one.
# Learned positions (35328 parameters at ctx=32), where the addition task's
# default model has RoPE (34304).
check "--init-from takes the checkpoint's configuration" bash -c "
    '$train' ${small[*]} --config pos=learned --steps 1 --no-log --save '$dir/learned.safetensors' > /dev/null &&
    '$train' --batch 4 --seq 32 --eval 0 --steps 2 --init-from '$dir/learned.safetensors' > '$dir/init.out' &&
    grep -q '2 layers x 32 wide, 35328 parameters' '$dir/init.out'"
check "--init-from with some of the checkpoint's --config values" "$train" --config layers=2 --config heads=2 \
    --batch 4 --seq 32 --eval 0 --steps 1 --init-from "$dir/a.safetensors"
usage_error "--init-from with a --config that changes the model" \
    "--config width=64 conflicts with the model of --init-from $dir/a.safetensors" \
    "$train" --config layers=2 --config width=64 --batch 4 --seq 32 --eval 0 --steps 1 --init-from "$dir/a.safetensors"
usage_error "--resume with a --config that changes the model" "--config placement=pre conflicts with the model of --resume" \
    "$train" --config placement=pre --resume "$dir/a.safetensors"
check "--resume with one of the checkpoint's --config values" "$train" --config width=32 --eval 0 \
    --resume "$dir/a.safetensors"
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
rows = [r for r in map(json.loads, open(sys.argv[1])) if 'step' in r]  # the training steps, not the curve's points
assert [r['skipped'] for r in rows] == [False, True, True, True], rows
assert rows[0]['loss'] is not None and all(r['loss'] is None for r in rows[1:]), rows
PY"
# A run that diverges with fewer bad steps in a row than --max-bad-steps
# allows still must not save its weights over the user's checkpoint: the
# final save is refused (exit 3, the last step was skipped) and so is each
# --save-every save while steps are skipped; the good file stays as it was.
check "a diverged run ending before --max-bad-steps does not save over a good checkpoint" bash -c "
    '$train' ${small[*]} --steps 2 --eval 0 --save '$dir/good.safetensors' > /dev/null &&
    cp '$dir/good.safetensors' '$dir/good.copy' &&
    '$train' ${small[*]} --steps 5 --eval 0 --constant-lr --lr 1e30 --max-bad-steps 10 \
      --save '$dir/good.safetensors' > /dev/null 2> '$dir/div2.err'; rc=\$?
    cat '$dir/div2.err'; [ \$rc -eq 3 ] || { echo \"exit status \$rc, expected 3\"; exit 1; }
    grep -q 'not saving: the run ended with its last 4 steps skipped' '$dir/div2.err' &&
    cmp '$dir/good.safetensors' '$dir/good.copy'"
# Step 1's update (at lr 1e30) applies and is saved; steps 2-5 are skipped,
# and so are their saves: the file holds the run at step 1.
check "--save-every saves nothing while steps are skipped" bash -c "
    '$train' ${small[*]} --steps 5 --eval 0 --constant-lr --lr 1e30 --max-bad-steps 10 --save-every 1 \
      --save '$dir/every.safetensors' > /dev/null 2> '$dir/div3.err'; rc=\$?
    cat '$dir/div3.err'; [ \$rc -eq 3 ] && grep -q 'not saving at step 4: the step was skipped' '$dir/div3.err' &&
    head -c 4096 '$dir/every.safetensors' | grep -aq 'position=1 '"
check "--find-nonfinite names the operation where the first skipped step went non-finite" bash -c "
    '$train' ${small[*]} --steps 3 --eval 0 --constant-lr --lr 1e30 --max-bad-steps 0 --find-nonfinite \
      > /dev/null 2> '$dir/find.err'; cat '$dir/find.err'
    grep -Eq -- '--find-nonfinite: step 2 first goes non-finite in operation [0-9]+ .* pass' '$dir/find.err' &&
    grep -q '  output ' '$dir/find.err' && grep -q '  input ' '$dir/find.err' &&
    [ \$(grep -c 'first goes non-finite' '$dir/find.err') -eq 1 ]"
# --no-log: the CSV makes every step looked at, which leaves no steps
# between looks to count.
check "--max-bad-steps counts skips between progress lines (cpu, --no-log)" bash -c "
    '$train' --device cpu ${small[*]} --steps 30 --log-every 10 --constant-lr --lr 1e30 --max-bad-steps 5 --no-log \
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

refused "unknown config key" "unknown config key 'colour'" "$train" --config colour=blue
refused "bad config value" "placement=sideways" "$train" --config placement=sideways
refused "--seq beyond ctx" "exceeds the model's ctx" "$train" --config ctx=16 --seq 32
refused "unknown option" "unknown option" "$train" --bogus
refused "bad number" "--steps 'many': not an integer in 0..4294967295" "$train" --steps many
refused "missing resume file" "nope.safetensors" "$train" --resume "$dir/nope.safetensors"
refused "corrupt checkpoint" "$dir/bad.safetensors" bash -c "echo garbage > '$dir/bad.safetensors' && '$train' --resume '$dir/bad.safetensors'"
refused "wrong-size --tokens file" "--tokens must hold exactly B*T = 4*32 int32 values (--batch x --accum, --seq): $dir/tok.bin holds 64 bytes" \
    "$train" "${small[@]}" --tokens "$dir/tok.bin" --targets "$dir/tgt.bin"
mkfifo "$dir/fifo"
refused "a FIFO as --tokens is refused, not waited on" "is not a regular file (it is a FIFO)" \
    timeout 20 "$train" "${small[@]}" --batch 2 --seq 8 --tokens "$dir/fifo" --targets "$dir/tgt.bin"

# Bad values: exit status 2 (a bad command line) and a message naming the
# option, the value and what is allowed, before any device is opened.
tiny=(--device cpu --config width=16 --config layers=1 --config heads=2 --config ctx=16 --batch 2 --seq 16 --eval 0
      --steps 1)
usage_error "--seed 2^64 overflows" "--seed '18446744073709551616': not an integer in 0..18446744073709551615" \
    "$train" "${tiny[@]}" --seed 18446744073709551616
usage_error "--seed -1" "--seed '-1'" "$train" "${tiny[@]}" --seed -1
usage_error "--seed ''" "--seed ''" "$train" "${tiny[@]}" --seed ""
usage_error "--device vulkan:4294967295 (was device 0)" "--device 'vulkan:4294967295': not cpu, vulkan or vulkan:N" \
    "$train" "${tiny[@]}" --device vulkan:4294967295
usage_error "--device vulkan:abc (was device 0)" "--device 'vulkan:abc'" "$train" "${tiny[@]}" --device vulkan:abc
usage_error "--device vulkan:-1" "--device 'vulkan:-1'" "$train" "${tiny[@]}" --device vulkan:-1
usage_error "--device gpu" "--device 'gpu'" "$train" "${tiny[@]}" --device gpu
usage_error "--steps -1" "--steps '-1'" "$train" "${tiny[@]}" --steps -1
usage_error "--steps 4294967296" "--steps '4294967296'" "$train" "${tiny[@]}" --steps 4294967296
usage_error "--batch 0" "--batch '0': not an integer in 1..1048576" "$train" "${tiny[@]}" --batch 0
usage_error "--seq ' 8'" "--seq ' 8'" "$train" "${tiny[@]}" --seq " 8"
usage_error "--digits 10" "--digits '10': not an integer in 1..9" "$train" "${tiny[@]}" --digits 10
usage_error "--eval 0x10" "--eval '0x10'" "$train" "${tiny[@]}" --eval 0x10
usage_error "--eval-every -1" "--eval-every '-1'" "$train" "${tiny[@]}" --eval-every -1
usage_error "--answer backwards" "--answer 'backwards': not plain or reversed" "$train" "${tiny[@]}" --answer backwards
usage_error "--operands zeros" "--operands 'zeros': not plain or padded" "$train" "${tiny[@]}" --operands zeros
usage_error "--eval more than half the problems" "--eval" "$train" "${tiny[@]}" --digits 1 --eval 51
usage_error "--lr nan" "--lr 'nan': not a finite number >= 0" "$train" "${tiny[@]}" --lr nan
usage_error "--lr inf" "--lr 'inf'" "$train" "${tiny[@]}" --lr inf
usage_error "--lr 1e39 (beyond float)" "--lr '1e39'" "$train" "${tiny[@]}" --lr 1e39
usage_error "--clip -1" "--clip '-1'" "$train" "${tiny[@]}" --clip -1
usage_error "--wd 0x1p3" "--wd '0x1p3'" "$train" "${tiny[@]}" --wd 0x1p3
usage_error "--log-every 0" "--log-every '0'" "$train" "${tiny[@]}" --log-every 0
usage_error "--max-bad-steps 1e3" "--max-bad-steps '1e3'" "$train" "${tiny[@]}" --max-bad-steps 1e3
usage_error "a value missing" "--seed needs a value" "$train" "${tiny[@]}" --seed
usage_error "--seq too short for the addition task" "--seq 8 is too short for the addition task with --digits 2" \
    "$train" "${tiny[@]}" --seq 8
usage_error "--data with --tokens" "exclude each other" "$train" "${tiny[@]}" --data "$dir/text.txt" \
    --tokens "$dir/tok.bin" --targets "$dir/tgt.bin"
# An index past the machine's devices: the library names the index and how
# many there are; the machine, not the command line, decides (status 1).
check "--device vulkan:99 names the index and the device count" bash -c "
    '$train' ${tiny[*]} --device vulkan:99 > '$dir/out99' 2>&1; rc=\$?; cat '$dir/out99'
    [ \$rc -eq 1 ] && grep -Eq -- \"--device vulkan:99: .*Vulkan device 99, but there (is|are) [0-9]+\" '$dir/out99'"

# --data shorter than one sequence + 1 bytes: refused before any step (no
# step line, no uninitialised batch trained on), with its size and the
# size needed; exactly seq + 1 bytes trains.
: > "$dir/empty.txt"
printf '0123456789' > "$dir/short.txt"
printf '0123456789abcdefg' > "$dir/exact.txt"
for f in empty:0 short:10; do
    name=${f%%:*} size=${f#*:}
    check "--data ${name} file ($size bytes) refused before any step" bash -c "
        '$train' ${tiny[*]} --jsonl --data '$dir/$name.txt' > '$dir/d.out' 2> '$dir/d.err'; rc=\$?
        cat '$dir/d.out' '$dir/d.err'
        [ \$rc -eq 1 ] && ! grep -q step '$dir/d.out' &&
        grep -qF -- \"--data $dir/$name.txt holds $size bytes; --seq 16 needs at least 17 (one sequence + 1)\" '$dir/d.err'"
done
check "--data of exactly seq + 1 bytes trains" bash -c "'$train' ${tiny[*]} --jsonl --data '$dir/exact.txt' | grep -q '\"step\": 1'"

# The banner: once, whether stdout is a file or a terminal.
check "the addition task's banner is printed once (stdout a file)" bash -c "
    '$train' ${tiny[*]} --steps 2 --eval 2 > '$dir/banner.out' 2>&1; cat '$dir/banner.out'
    [ \$(grep -c '^svk-train: .* placement' '$dir/banner.out') -eq 1 ] &&
    [ \$(grep -c 'data: addition task' '$dir/banner.out') -eq 1 ] &&
    [ \$(grep -c '^held-out problems' '$dir/banner.out') -eq 1 ]"
if command -v script > /dev/null; then
    check "the addition task's banner is printed once (a terminal)" bash -c "
        script -qec \"'$train' ${tiny[*]} --steps 2 --eval 2\" /dev/null > '$dir/banner.tty' 2>&1; cat -v '$dir/banner.tty'
        [ \$(grep -c 'svk-train: .* placement' '$dir/banner.tty') -eq 1 ] &&
        [ \$(grep -c 'held-out problems' '$dir/banner.tty') -eq 1 ]"
fi
# The addition task's own defaults (the main job: README.md) and the
# library's model and schedule for --data; --config and options go on top.
check "defaults: addition's 2 x 32 RoPE model, batch 16, 3000 steps, lr 5e-3; --data's 4 x 128, 32, 300, 3e-3" bash -c "
    '$train' --stop-at 1 --eval 0 --no-log > '$dir/def.out' && cat '$dir/def.out' &&
    grep -q 'siamese placement, layernorm, 2 layers x 32 wide, 34304 parameters' '$dir/def.out' &&
    grep -q 'batch 16 x 32, steps 1-1 of 3000, lr 0.005 warm-up + cosine, data: addition task' '$dir/def.out' &&
    '$train' --stop-at 1 --no-log --data '$dir/text.txt' > '$dir/defd.out' && cat '$dir/defd.out' &&
    grep -q '4 layers x 128 wide' '$dir/defd.out' && grep -q 'batch 32 x 32, steps 1-1 of 300, lr 0.003 ' '$dir/defd.out' &&
    '$train' --stop-at 1 --eval 0 --no-log --config width=64 --batch 8 > '$dir/defc.out' &&
    grep -q '2 layers x 64 wide' '$dir/defc.out' && grep -q 'batch 8 x 32, steps 1-1 of 3000' '$dir/defc.out' &&
    '$train' --help | grep -q 'addition: layers=2 width=32 pos=rope'"
check "--help lists the exit statuses" bash -c "'$train' --help |
    grep -qx 'exit status: 0 ok, 1 the run failed, 2 bad command line, 3 the run diverged (stopped by --max-bad-steps, or its state at the end is'"

summary
