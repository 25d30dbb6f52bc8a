#!/bin/bash
# svk-train --plan: the memory table, exit 0 whether or not the run fits
# (GPT-2-small's shape included); a run whose batch does not fit is refused
# before anything is allocated, naming the largest batch that would.
# usage: svk_train_plan.sh SVK_TRAIN
set -u
train=$1
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
gpt2=(--config vocab=50257 --config width=768 --config layers=12 --config heads=12 --config ctx=1024 --seq 1024
      --batch 8)
check "--plan: the table of the default run, which fits" bash -c "
    '$train' --plan > '$dir/p' && grep -q '^  parameters  *134.00 KiB' '$dir/p' && grep -q '^  activations ' '$dir/p' &&
    grep -q '^  workspace ' '$dir/p' && grep -q '^  device heap ' '$dir/p' && grep -q '^  fits: yes' '$dir/p' &&
    grep -q 'the largest batch that fits at --seq 32: [0-9]' '$dir/p'"
check "--plan of GPT-2-small's shape: 123.73 M parameters, exit 0 whether or not it fits" bash -c "
    '$train' --plan ${gpt2[*]} > '$dir/g' && grep -q '12 layers x 768 wide, 12 heads, vocab 50257, ctx 1024: 123.73 M' '$dir/g' &&
    grep -q '^  parameters  *471.99 MiB' '$dir/g' && grep -q '^  fits: ' '$dir/g'"
check "--plan with --accum and --recompute on the CPU reference: host memory" bash -c "
    '$train' --plan --device cpu --batch 8 --accum 4 --recompute > '$dir/c' &&
    grep -q 'batch 32 x 32 (4 micro-batches of 8), fp32, recomputation on, on the CPU reference' '$dir/c' &&
    grep -q '^  host memory: ' '$dir/c'"
check "--batch 8 --accum 4 and --recompute plan fewer activation bytes than --batch 32" bash -c "
    act() { '$train' --plan \"\$@\" | sed -n 's/^  activations *//p'; } &&
    python3 - \"\$(act --batch 32)\" \"\$(act --batch 8 --accum 4)\" \"\$(act --batch 32 --recompute)\" <<'PY'
import sys
u = {'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30}
v = [float(a.split()[0]) * u[a.split()[1]] for a in sys.argv[1:]]
assert v[1] * 3 < v[0] and v[2] < v[0], v
PY"
refused "a batch that does not fit: refused before training, naming the largest that would" \
    "the largest batch that fits is --batch" \
    "$train" --batch 1048576 --seq 32 --steps 1 --no-log
check "--help documents --plan" bash -c "'$train' --help | grep -q -- '--plan '"
summary
