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
 * Reference: lib/ref/clip.c. Conformance: tools/conformance/conform_clip.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_clip.h"

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"

SVK_BUF(0, readonly, BufPartials, partials);
SVK_BUF(1, writeonly, BufOut, outv);

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    float ss = 0.0;
    for (uint i = lid; i < pc.n; i += wg)
        ss += partials[pc.off_partials + i];
    ss = svk_wg_sum(ss);
    if (lid == 0u) {
        const float norm = sqrt(ss);
        float scale = 1.0;
        if (pc.max_norm != 0.0) {
            scale = pc.max_norm / (norm + 1e-6);
            if (scale > 1.0)
                scale = 1.0;
            if ((floatBitsToUint(norm) & 0x7fffffffu) > 0x7f800000u)
                scale = norm;
        }
        outv[pc.off_out] = norm;
        outv[pc.off_out + 1u] = scale;
    }
}
