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

layout(set = 0, binding = 0, std430) readonly buffer BufGate { float gate[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufUp { float up[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut { float outv[]; };

void main()
{
    uint i;
    if (!svk_elem_index(pc.n, i))
        return;
    const float g = gate[pc.off_gate + i];
    float s, c;
    svk_sigmoid_pair(g, s, c);
    outv[pc.off_out + i] = g * s * up[pc.off_up + i];
}
