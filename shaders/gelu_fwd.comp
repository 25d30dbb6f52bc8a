#version 450
/*
 * GELU forward, elementwise: out[i] = gelu(x[i]), tanh form (see
 * common/gelu.glsl). out may be x (in place): each invocation reads its
 * element before writing it. Reference: lib/ref/gelu.c.
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
layout(set = 0, binding = 1, std430) writeonly buffer BufOut { float outv[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufOut4 { vec4 outv4[]; };

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const vec4 u = x4[pc.off_x / 4u + i];
        outv4[pc.off_out / 4u + i] = vec4(svk_gelu(u.x), svk_gelu(u.y), svk_gelu(u.z), svk_gelu(u.w));
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    outv[pc.off_out + i] = svk_gelu(x[pc.off_x + i]);
}
