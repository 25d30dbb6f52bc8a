#version 450
/*
 * Column sums of a [rows, N] matrix (leading dimension ld), one stage of a
 * deterministic two-stage reduction (lib/ops/colsum.c):
 *   partials: dst[z, c] = sum of src[r, c] over the rows of block z,
 *   accumulate (one block): dst[c] += sum of src[r, c] over all rows.
 * The op runs the first over row blocks into a scratch [blocks, N], then
 * the second over the scratch into the real destination, so a parameter
 * gradient is accumulated (+=) with no float atomics. Each invocation owns
 * one column of one block and adds its rows in ascending order: the result
 * is a fixed function of the inputs, whatever the subgroup size or
 * scheduling, and neighbouring invocations read neighbouring addresses.
 * With VEC4 (N, ld and both offsets multiples of 4) an invocation owns
 * four neighbouring columns and reads them as one vec4: the same sums.
 * Workgroup z is the row block; x/y spread the column groups
 * (svk_op_grid). Reference: lib/ref/bias.c (bias_bwd).
 * Conformance: tools/conformance/conform_bias.c.
 *
 * colsum_texel (SVK_TEXEL), for CPU devices (lavapipe): the same
 * sums, in the same order, with src read through an RGBA32F uniform texel
 * view, four columns per fetch (VEC4 only; lib/ops/colsum.c picks it where
 * src can be viewed). lavapipe runs a storage-buffer load whose address
 * differs per lane as a loop over the lanes, and inside the row loop under
 * its lane mask; a texel fetch is one call. Conformance: the "-cpu" rows.
 */
#extension GL_GOOGLE_include_directive : require
#include "common/variants.glsl"

#include "common/push_colsum.h"

#include "common/kernel.glsl"

layout(constant_id = 3) const bool VEC4 = false;

#ifdef SVK_TEXEL
/* src as an RGBA32F view: four columns per fetch (VEC4 only). */
layout(set = 0, binding = 0) uniform textureBuffer src_t4;
#define SRC4(i) texelFetch(src_t4, int(i))
#else
SVK_BUF4(0, readonly, BufSrc, src);
#define SRC4(i) src4[i]
#endif
SVK_BUF4(1, SVK_RW, BufDst, dst);

void main()
{
    const uint wg = gl_WorkGroupSize.x;
    const uint g = svk_group_index();
    const uint cols = VEC4 ? pc.N / 4u : pc.N;
    if (g > (cols - 1u) / wg)
        return;
    const uint c = g * wg + gl_LocalInvocationID.x;
    if (c >= cols)
        return;
    const uint block = gl_WorkGroupID.z;
    const uint r0 = block * pc.rows_per_block;
    const uint r1 = min(r0 + pc.rows_per_block, pc.rows);
    if (VEC4) {
        vec4 sum4 = vec4(0.0);
        for (uint r = r0; r < r1; r++)
            sum4 += SRC4((pc.off_src + r * pc.ld) / 4u + c);
        if ((pc.flags & SVK_COLSUM_FLAG_ACCUMULATE) != 0u)
            dst4[pc.off_dst / 4u + c] += sum4;
        else
            dst4[(pc.off_dst + block * pc.N) / 4u + c] = sum4;
        return;
    }
#ifndef SVK_TEXEL
    float sum = 0.0;
    for (uint r = r0; r < r1; r++)
        sum += src[pc.off_src + r * pc.ld + c];
    if ((pc.flags & SVK_COLSUM_FLAG_ACCUMULATE) != 0u)
        dst[pc.off_dst + c] += sum;
    else
        dst[pc.off_dst + block * pc.N + c] = sum;
#endif
}
