#version 450
/*
 * SwiGLU gate forward, elementwise: out = silu(gate) * up,
 * silu(u) = u sigmoid(u), with gate and up separate arrays. The sigmoid is
 * the overflow-free pair of common/sigmoid.glsl. out may equal gate or up.
 * Reference: lib/ref/swiglu.c. Conformance: tools/conformance/conform_gelu.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_swiglu.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"
#include "common/elem_index.glsl"
#include "common/sigmoid.glsl"

/* Four elements per invocation, as vec4s (lib/ops/elem_util.h says when). */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufGate { float gate[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufGate4 { vec4 gate4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufUp { float up[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufUp4 { vec4 up4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut { float outv[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut4 { vec4 outv4[]; };

float swiglu(float g, float u)
{
    float s, c;
    svk_sigmoid_pair(g, s, c);
    return g * s * u;
}

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const vec4 g = gate4[pc.off_gate / 4u + i], u = up4[pc.off_up / 4u + i];
        outv4[pc.off_out / 4u + i] = vec4(swiglu(g.x, u.x), swiglu(g.y, u.y), swiglu(g.z, u.z), swiglu(g.w, u.w));
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    outv[pc.off_out + i] = swiglu(gate[pc.off_gate + i], up[pc.off_up + i]);
}
