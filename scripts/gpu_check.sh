#!/bin/bash
# Checks libsvk on a GPU in one go, from an existing build: the device list,
# the conformance tool (every kernel against the CPU reference), the device
# tests, the svk-train command-line test, the default training run (with
# its memory plan at GPT-2-small's shape, accumulation and recomputation,
# tensors in windows, GPT-2-small's shape trained), the
# benchmark, and where the device has cooperative matrices the model test,
# the training run and the steps with them (SVK_GEMM_COOPMAT=1). Each
# stage has a time limit, so one hang costs one stage; a short table closes
# the run and every log lands in OUT_DIR.
#
# usage: scripts/gpu_check.sh BUILD_DIR OUT_DIR
#   BUILD_DIR  a meson build with tests (e.g. meson setup build-gpu
#              --buildtype=release); it may have been copied from elsewhere,
#              since binaries find libsvk relative to themselves
#   OUT_DIR    where the logs, bench.json and summary.txt go
# Environment: SVK_DEVICE picks the device (default: the best one);
#   VALIDATION=0 runs without the Khronos validation layer (default 1: the
#   tests fail on any message it reports, as in the test suite);
#   STAGES="info conformance tests cli train bench coopmat" runs a subset.
set -u
if [ $# -ne 2 ]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
out=$2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
stages=${STAGES:-info conformance tests cli train bench coopmat}
validation=${VALIDATION:-1}
summary=$out/summary.txt
: >"$summary"

want() { case " $stages " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# stage NAME LIMIT_S LOG COMMAND...: runs one stage, records its status and time.
stage() {
    local name=$1 limit=$2 log=$3
    shift 3
    local t0 rc
    t0=$EPOCHREALTIME
    timeout -k 5 "$limit" "$@" >"$log" 2>&1
    rc=$?
    local secs
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    local verdict=PASS
    [ "$rc" -eq 0 ] || verdict="FAIL(rc=$rc)"
    [ "$rc" -eq 124 ] && verdict="TIMEOUT(${limit}s)"
    printf '%-34s %-14s %7.1f s  %s\n' "$name" "$verdict" "$secs" "$(basename "$log")" | tee -a "$summary"
    return 0
}

export SVK_PIPELINE_CACHE=0
test_env=(env SVK_VALIDATION="$validation")

if want info; then
    stage "svk-info" 30 "$out/info.txt" "$build/tools/svk-info"
fi
if want conformance; then
    stage "svk-conformance" 200 "$out/conformance.txt" \
        "${test_env[@]}" "$build/tools/conformance/svk-conformance" -v
fi
if want tests; then
    t=$build/tests
    stage "test cmdlist" 120 "$out/test_cmdlist.txt" "${test_env[@]}" "$t/test_cmdlist"
    stage "test buffer" 120 "$out/test_buffer.txt" "${test_env[@]}" "$t/test_buffer"
    stage "test context" 120 "$out/test_context.txt" "${test_env[@]}" "$t/test_context"
    stage "test model" 300 "$out/test_model.txt" "${test_env[@]}" "$t/test_model"
    stage "test model (flash attention)" 300 "$out/test_model_flash.txt" \
        "${test_env[@]}" SVK_ATTENTION=flash "$t/test_model" --test=backends
    stage "test nonfinite_step" 120 "$out/test_nonfinite_step.txt" "${test_env[@]}" "$t/test_nonfinite_step"
    stage "test bad_input" 120 "$out/test_bad_input.txt" "${test_env[@]}" "$t/test_bad_input"
    stage "test oom" 120 "$out/test_oom.txt" "${test_env[@]}" "$t/test_oom"
    stage "test import" 120 "$out/test_import.txt" "${test_env[@]}" "$t/test_import"
    stage "test accum" 120 "$out/test_accum.txt" "${test_env[@]}" "$t/test_accum"
    stage "test recompute" 120 "$out/test_recompute.txt" "${test_env[@]}" "$t/test_recompute"
    stage "test precision" 120 "$out/test_precision.txt" "${test_env[@]}" "$t/test_precision"
    stage "test loss_scale" 120 "$out/test_loss_scale.txt" "${test_env[@]}" "$t/test_loss_scale"
    stage "test grad_reduce" 120 "$out/test_grad_reduce.txt" "${test_env[@]}" "$t/test_grad_reduce"
    stage "test memory_plan" 120 "$out/test_memory_plan.txt" "${test_env[@]}" "$t/test_memory_plan"
    stage "test big_tensors" 120 "$out/test_big_tensors.txt" "${test_env[@]}" "$t/test_big_tensors"
    stage "test gpt2_shape" 300 "$out/test_gpt2_shape.txt" "${test_env[@]}" "$t/test_gpt2_shape"
    stage "test train_state" 120 "$out/test_train_state.txt" "${test_env[@]}" "$t/test_train_state"
    stage "test logits_in_place" 120 "$out/test_logits_in_place.txt" "${test_env[@]}" "$t/test_logits_in_place"
    stage "test adamw_pieces" 120 "$out/test_adamw_pieces.txt" "${test_env[@]}" "$t/test_adamw_pieces"
    stage "test watchdog" 120 "$out/test_watchdog.txt" "${test_env[@]}" "$t/test_watchdog"
fi
if want cli; then
    stage "svk-train / svk-generate CLI" 300 "$out/train_cli.txt" "${test_env[@]}" \
        bash "$src/tests/svk_train_cli.sh" "$build/tools/train/svk-train" "$build/tools/train/svk-generate"
fi
if want train; then
    stage "svk-train (default model)" 300 "$out/train.txt" "$build/tools/train/svk-train"
    stage "svk-train --plan (GPT-2-small shape)" 60 "$out/plan_gpt2.txt" "$build/tools/train/svk-train" --plan \
        --config vocab=50257 --config width=768 --config layers=12 --config heads=12 --config ctx=1024 \
        --seq 1024 --batch 8
    stage "svk-train --accum / --recompute" 300 "$out/train_accum.txt" "${test_env[@]}" \
        bash "$src/tests/svk_train_accum.sh" "$build/tools/train/svk-train"
    stage "svk-train --precision" 300 "$out/train_precision.txt" "${test_env[@]}" \
        bash "$src/tests/svk_train_precision.sh" "$build/tools/train/svk-train"
fi
if want bench; then
    stage "svk-bench" 200 "$out/bench.txt" bash -c "'$build/tools/bench/svk-bench' --json >'$out/bench.json'"
fi
if want coopmat && "$build/tools/svk-info" | grep -q "cooperative matrix  *[0-9]"; then
    stage "test model (cooperative matrices)" 120 "$out/test_model_coopmat.txt" \
        "${test_env[@]}" "$build/tests/test_model" --test=coopmat
    stage "svk-train (default, coopmat)" 300 "$out/train_coopmat.txt" \
        env SVK_GEMM_COOPMAT=1 "$build/tools/train/svk-train"
    stage "svk-bench steps (coopmat)" 200 "$out/bench_steps_coopmat.txt" bash -c \
        "SVK_GEMM_COOPMAT=1 '$build/tools/bench/svk-bench' --no-kernels --json >'$out/bench_steps_coopmat.json'"
    # NV is the default where both are offered; the KHR module is the one
    # AMD and Intel run (shaders/coopmat_khr.py).
    if ! "$build/tools/svk-info" | grep -q "VK_KHR_cooperative_matrix" &&
        SVK_COOPMAT_EXT=khr "$build/tools/svk-info" | grep -q "VK_KHR_cooperative_matrix"; then
        stage "svk-conformance gemm (KHR module)" 200 "$out/conformance_gemm_khr.txt" \
            "${test_env[@]}" SVK_COOPMAT_EXT=khr "$build/tools/conformance/svk-conformance" --kernel gemm -v
        stage "test model (coopmat, KHR module)" 120 "$out/test_model_coopmat_khr.txt" \
            "${test_env[@]}" SVK_COOPMAT_EXT=khr "$build/tests/test_model" --test=coopmat
    fi
fi

echo
echo "== summary ($out)"
cat "$summary"
for f in "$out"/test_*.txt "$out"/conformance*.txt "$out/train_cli.txt"; do
    [ -f "$f" ] || continue
    grep -w FAIL "$f" | head -8 | sed "s|^|$(basename "$f"): |"
done
[ -f "$out/train.txt" ] && tail -4 "$out/train.txt"
[ -f "$out/train_coopmat.txt" ] && tail -2 "$out/train_coopmat.txt"
[ -f "$out/bench.txt" ] && tail -60 "$out/bench.txt"
! grep -q -v ' PASS ' "$summary"
