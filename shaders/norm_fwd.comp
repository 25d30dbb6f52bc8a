#version 450
/*
 * LayerNorm and RMSNorm forward over the last axis:
 *   layernorm_fwd: out = (x - mean) * rstd * g + b,  rstd = 1 / sqrt(var + eps),
 *     biased variance, saving mean and rstd per row for the backward pass;
 *   rmsnorm_fwd (SVK_RMSNORM): out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps),
 *     saving rstd.
 * Reference: lib/ref/layernorm.c, lib/ref/rmsnorm.c. Conformance:
 * tools/conformance/conform_norm.c.
 *
 * LayerNorm's numerics: two passes around a shift. K = x[row, 0] is
 * subtracted before summing, so the mean is carried as K + m with
 * m = mean(x - K) small when the row has a large common offset: for
 * x = 1e4 + noise, x - K is exact (Sterbenz) and m, the deviations
 * (x - K) - m and their squares keep full float precision, where a float
 * mean near 1e4 would already be off by up to half an ulp of 1e4 (5e-4) and
 * E[x^2] - mean^2 would cancel every digit. The variance is the mean of
 * squared deviations (second pass), so an error e in the mean only adds e^2
 * to it. RMSNorm's sum of squares has no cancellation: one pass. (Squares
 * overflow float for |x| above ~1e19, far outside what a residual stream
 * holds.)
 *
 * One lane (WG_X invocations) per row, WG_Y rows per workgroup (norm_row.glsl).
 * out may equal x: every invocation writes only the elements it read.
 *
 * CPU devices run the CPU forms instead, norm_fwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_fwd.h"
#include "common/kernel.glsl"
#include "common/norm_fwd_bindings.glsl"
#include "common/norm_row.glsl"

void nr_lane_main(const uint row, const bool on)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint W = pc.width;
    const uint base = pc.off_x + row * W;

#ifdef SVK_RMSNORM
#define NR_DEV(i) x[base + (i)]
#else
    const float K = on ? x[base] : 0.0;
    float s = 0.0;
    if (on)
        for (uint i = lx; i < W; i += WG_X)
            s += x[base + i] - K;
    const float m = nr_row_sum(vec4(s, 0.0, 0.0, 0.0)).x / float(W);
/* LayerNorm's deviation from the mean K + m. */
#define NR_DEV(i) ((x[base + (i)] - K) - m)
#endif

    float ss = 0.0;
    if (on)
        for (uint i = lx; i < W; i += WG_X) {
            const float d = NR_DEV(i);
            ss += d * d;
        }
    const float ms = nr_row_sum(vec4(ss, 0.0, 0.0, 0.0)).x / float(W);
    const float rs = inversesqrt(ms + pc.eps);

    if (!on)
        return;
    const uint ob = pc.off_out + row * W;
    for (uint i = lx; i < W; i += WG_X) {
        const float d = NR_DEV(i);
#ifdef SVK_RMSNORM
        o[ob + i] = d * rs * g[pc.off_g + i];
#else
        o[ob + i] = d * rs * g[pc.off_g + i] + b[pc.off_b + i];
#endif
    }
#ifndef SVK_RMSNORM
    if (lx == 0u && (pc.flags & SVK_NORM_FLAG_SAVE_MEAN) != 0u)
        mean[pc.off_mean + row] = K + m;
#endif
    if (lx == 0u && (pc.flags & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
        rstd[pc.off_rstd + row] = rs;
}
