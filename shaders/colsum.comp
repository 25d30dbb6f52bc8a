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
 * Workgroup z is the row block; x/y spread the column groups
 * (svk_op_grid). Reference: lib/ref/bias.c (bias_bwd).
 * Conformance: tools/conformance/conform_bias.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_colsum.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufSrc { float src[]; };
layout(set = 0, binding = 1, std430) buffer BufDst { float dst[]; };

void main()
{
    const uint wg = gl_WorkGroupSize.x;
    const uint g = svk_group_index();
    if (g > (pc.N - 1u) / wg)
        return;
    const uint c = g * wg + gl_LocalInvocationID.x;
    if (c >= pc.N)
        return;
    const uint block = gl_WorkGroupID.z;
    const uint r0 = block * pc.rows_per_block;
    const uint r1 = min(r0 + pc.rows_per_block, pc.rows);
    float sum = 0.0;
    for (uint r = r0; r < r1; r++)
        sum += src[pc.off_src + r * pc.ld + c];
    if ((pc.flags & SVK_COLSUM_FLAG_ACCUMULATE) != 0u)
        dst[pc.off_dst + c] += sum;
    else
        dst[pc.off_dst + block * pc.N + c] = sum;
}
