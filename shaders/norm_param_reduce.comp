#version 450
/*
 * The second stage of every norm backward pass: adds the per-lane partial
 * sums of the gain and bias gradients (written by layernorm_bwd, rmsnorm_bwd
 * and siamese_norm_bwd) to dg and db, which accumulate (+=) as the
 * reference's do. One invocation per output element sums its column of
 * partials in lane order: a fixed order, so the result is bit-identical
 * from run to run, with no atomics.
 * Reference: the dg/db sums of lib/ref/layernorm.c and rmsnorm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_param_reduce.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufPart { float part[]; };
layout(set = 0, binding = 1, std430) buffer BufDg { float dg[]; };
layout(set = 0, binding = 2, std430) buffer BufDb { float db[]; };

#include "common/grid.glsl"

void main()
{
    const uint t = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    const uint C = pc.C;
    if (t >= pc.n_norms * pc.blocks_per_norm * C)
        return;
    const uint blk = t / C, i = t % C;
    const uint k = blk / pc.blocks_per_norm;
    const bool bias = blk % pc.blocks_per_norm != 0u;
    const uint src = pc.off_part + blk * pc.n_part * C + i;
    float s = 0.0;
    for (uint p = 0u; p < pc.n_part; p++)
        s += part[src + p * C];
    if (bias)
        db[pc.off_db + k * C + i] += s;
    else
        dg[pc.off_dg + k * C + i] += s;
}
