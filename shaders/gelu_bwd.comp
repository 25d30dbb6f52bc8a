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

/* Four elements per invocation, as vec4s (lib/ops/elem_util.h says when). */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDout4 { vec4 dout4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDx4 { vec4 dx4[]; };

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const vec4 u = x4[pc.off_x / 4u + i];
        const vec4 g = vec4(svk_gelu_grad(u.x), svk_gelu_grad(u.y), svk_gelu_grad(u.z), svk_gelu_grad(u.w));
        dx4[pc.off_out / 4u + i] = dout4[pc.off_dout / 4u + i] * g;
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    dx[pc.off_out + i] = dout[pc.off_dout + i] * svk_gelu_grad(x[pc.off_x + i]);
}
