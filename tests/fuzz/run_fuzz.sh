#!/bin/bash
# Runs the checkpoint fuzzer for a bounded time (tests/fuzz/fuzz_checkpoint.c
# says what it checks): a fresh seed corpus from fuzz_seeds, then
# SVK_FUZZ_TIME seconds (default 60) of libFuzzer from a printed seed
# (SVK_FUZZ_SEED repeats it; the run is repeatable up to timing, since the
# bound is time, not a count). Fails on any crash, leak, sanitizer report or
# broken promise, keeping the input and printing how to replay it.
#   run_fuzz.sh FUZZER SEED_GENERATOR DICT WORKDIR
# SVK_FUZZ_KEEP=1 keeps WORKDIR/corpus from an earlier run (longer runs).
set -euo pipefail
fuzzer=$1 seeds=$2 dict=$3 work=$4
time=${SVK_FUZZ_TIME:-60}
seed=${SVK_FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483646 + 1 ))}

if [ "${SVK_FUZZ_KEEP:-0}" != 1 ]; then
    rm -rf "$work"
fi
rm -rf "$work/seeds" "$work/artifacts"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts"
"$seeds" "$work/seeds"

echo "fuzz: seed $seed, $time s (repeat with SVK_FUZZ_SEED=$seed SVK_FUZZ_TIME=$time)"
status=0
# -error_exitcode=1: libFuzzer's default, 77, is meson's "skipped".
# -timeout=10: one input taking 10 s is a hang (a load takes microseconds).
# -max_len: room for the mutator's extra tensors beyond the largest seed.
"$fuzzer" -seed="$seed" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -error_exitcode=1 -timeout_exitcode=1 -dict="$dict" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" 2>&1 || status=$?

found=$(find "$work/artifacts" -type f | sort)
if [ "$status" -ne 0 ] || [ -n "$found" ]; then
    echo "fuzz: FAILED (exit $status, seed $seed)"
    for f in $found; do
        echo "fuzz: input kept: $f ($(stat -c %s "$f") bytes); replay: $fuzzer $f"
    done
    exit 1
fi
echo "fuzz: no findings in $time s; corpus grew to $(find "$work/corpus" -type f | wc -l) inputs"
