#version 450
/*
 * Bias add, in place: out[r, j] += bias[j], bias broadcast over rows.
 * One invocation per element of out: [rows, N] is walked as one flat
 * array, j = i % N. Reference: lib/ref/bias.c (bias_fwd).
 * Conformance: tools/conformance/conform_bias.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_bias.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"
#include "common/elem_index.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufBias { float bias[]; };
layout(set = 0, binding = 1, std430) buffer BufOut { float outv[]; };

void main()
{
    uint i;
    if (!svk_elem_index(pc.rows * pc.N, i))
        return;
    outv[pc.off_out + i] += bias[pc.off_bias + i % pc.N];
}
