#version 450
/*
 * Second stage of gradient clipping: the global L2 norm from the n partial
 * sums of squares clip_sumsq.comp wrote, and the clip scale
 *   norm = sqrt(sum of partials),  scale = min(1, max_norm / (norm + 1e-6)),
 * scale 1 when max_norm == 0 (clipping off), written to out[0] = norm,
 * out[1] = scale in device memory, where the AdamW update reads the scale
 * (no host round trip). One workgroup; invocation k adds slots k, k + WG, ...
 * in order, then a shared-memory tree: a fixed order, the same bits on every
 * run. A NaN norm (a non-finite gradient) gives a NaN scale, as the
 * reference's comparison does. The test for NaN is on the bits: a
 * comparison is not enough, since Vulkan lets a compiler assume no NaN
 * (NVIDIA's turns "if (scale > 1) scale = 1" into a min() that returns 1).
 * With SVK_CLIP_FLAG_LOSS_SCALE the gradients came multiplied by the loss
 * scale S (state): the norm is unscaled, the multiplier written to out[1]
 * is the clip scale times 1/S, and the scaler is updated for the next
 * step: an overflow (a norm whose square is not finite) halves S and
 * restarts the count of good steps, `interval` good steps in a row double
 * it. S, as the step used it, goes to out_scale.
 * Reference: lib/ref/clip.c, lib/ref/loss_scale.c. Conformance:
 * tools/conformance/conform_clip.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_clip.h"

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"

SVK_BUF(0, readonly, BufPartials, partials);
SVK_BUF(1, writeonly, BufOut, outv);
SVK_BUF(2, SVK_RW, BufState, state);
SVK_BUF(3, writeonly, BufOutScale, out_scale);

bool svk_is_finite(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

/* lib/ref/loss_scale.c's svk_ref_loss_scale_update, in its order. */
void update_scaler(const bool overflow)
{
    const uint o = pc.off_state;
    const float s = state[o + SVK_LOSS_SCALER_S], inv = state[o + SVK_LOSS_SCALER_INV];
    float good = state[o + SVK_LOSS_SCALER_GOOD];
    if (overflow) {
        good = 0.0;
        if (s > ldexp(1.0, -SVK_LOSS_SCALE_MAX_EXP)) {
            state[o + SVK_LOSS_SCALER_S] = s * 0.5;
            state[o + SVK_LOSS_SCALER_INV] = inv * 2.0;
        }
    } else {
        good += 1.0;
        if (good >= float(pc.interval)) {
            good = 0.0;
            if (s < ldexp(1.0, SVK_LOSS_SCALE_MAX_EXP)) {
                state[o + SVK_LOSS_SCALER_S] = s * 2.0;
                state[o + SVK_LOSS_SCALER_INV] = inv * 0.5;
            }
        }
    }
    state[o + SVK_LOSS_SCALER_GOOD] = good;
}

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    float ss = 0.0;
    for (uint i = lid; i < pc.n; i += wg)
        ss += partials[pc.off_partials + i];
    ss = svk_wg_sum(ss);
    if (lid == 0u) {
        const bool scaled = (pc.flags & SVK_CLIP_FLAG_LOSS_SCALE) != 0u;
        const float inv = scaled ? state[pc.off_state + SVK_LOSS_SCALER_INV] : 1.0;
        precise float norm = sqrt(ss) * inv;
        float scale = 1.0;
        if (pc.max_norm != 0.0) {
            scale = pc.max_norm / (norm + 1e-6);
            if (scale > 1.0)
                scale = 1.0;
            if ((floatBitsToUint(norm) & 0x7fffffffu) > 0x7f800000u)
                scale = norm;
        }
        if (scaled) {
            precise float scaled_clip = scale * inv;
            scale = scaled_clip;
            precise float norm_sq = norm * norm;
            out_scale[pc.off_out_scale] = state[pc.off_state + SVK_LOSS_SCALER_S];
            update_scaler(!svk_is_finite(norm_sq));
        }
        outv[pc.off_out] = norm;
        outv[pc.off_out + 1u] = scale;
    }
}
