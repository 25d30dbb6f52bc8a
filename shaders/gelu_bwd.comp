#version 450
/*
 * GELU backward, elementwise: dx[i] = dout[i] * gelu'(x[i]) (see
 * common/gelu.glsl). dx may be dout (in place). Reference: lib/ref/gelu.c.
 * Conformance: tools/conformance/conform_gelu.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_gelu.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"
#include "common/elem_index.glsl"
#include "common/sigmoid.glsl"
#include "common/gelu.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDx { float dx[]; };

void main()
{
    uint i;
    if (!svk_elem_index(pc.n, i))
        return;
    dx[pc.off_out + i] = dout[pc.off_dout + i] * svk_gelu_grad(x[pc.off_x + i]);
}
