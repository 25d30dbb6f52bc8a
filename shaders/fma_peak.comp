#version 450
/*
 * The device's multiply-add rate: the benchmark's arithmetic yardstick, as
 * shaders/copy.comp is its memory one. Each invocation runs
 * SVK_FMA_PEAK_CHAINS independent recurrences acc = fma(acc, a, b) from
 * distinct starts, pc.iters times SVK_FMA_PEAK_UNROLL steps, in registers,
 * and writes their sum. Nothing is read in the loop, so what it measures is
 * what a register-blocked GEMM's inner loop could reach at best: on a CPU
 * driver (lavapipe) that is fma as the driver compiles it (split into a
 * multiply and an add by Mesa 22.3), the SIMD width it chose and its
 * per-iteration loop cost; on a GPU, the FP32 pipes.
 * Reference: lib/ref/fma_peak.c (its error bound says why a fused and a
 * split fma agree to the conformance tolerance).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/kernel.glsl"

#include "common/push_fma_peak.h"
#include "common/elem_index.glsl"

SVK_BUF(0, writeonly, BufOut, o);

const uint NV = SVK_FMA_PEAK_CHAINS / 4u;

void main()
{
    uint i;
    if (!svk_elem_index(pc.n, i))
        return;
    /* Starts that differ per lane and per chain, so that nothing is
     * uniform for the compiler to hoist: s, s + 1, ..., s + 15. */
    const float s = float(i % 64u);
    vec4 acc[NV];
    for (uint v = 0u; v < NV; v++)
        acc[v] = vec4(s) + vec4(0.0, 1.0, 2.0, 3.0) + float(4u * v);
    const vec4 a = vec4(pc.a), b = vec4(pc.b);
    for (uint t = 0u; t < pc.iters; t++)
        for (uint u = 0u; u < SVK_FMA_PEAK_UNROLL; u++) /* constant trip count: unrolled */
            for (uint v = 0u; v < NV; v++)
                acc[v] = fma(acc[v], a, b);
    vec4 sum = vec4(0.0);
    for (uint v = 0u; v < NV; v++)
        sum += acc[v];
    o[pc.off_out + i] = (sum.x + sum.y) + (sum.z + sum.w);
}
