#version 450
/*
 * SwiGLU gate backward, elementwise:
 *   dup = dout silu(gate),  dgate = dout up silu'(gate),
 *   silu'(u) = s (1 + u (1 - s)), s = sigmoid(u),
 * with 1 - s taken from the sigmoid pair (common/sigmoid.glsl), not by
 * subtraction, so it is exact where s rounds to 1 and never NaN.
 * Each invocation reads all its inputs before writing, so dgate and dup may
 * alias the inputs element for element. Reference: lib/ref/swiglu.c.
 * Conformance: tools/conformance/conform_gelu.c.
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
layout(set = 0, binding = 2, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufDgate { float dgate[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufDup { float dup[]; };

void main()
{
    uint i;
    if (!svk_elem_index(pc.n, i))
        return;
    const float g = gate[pc.off_gate + i];
    const float u = up[pc.off_up + i];
    const float d = dout[pc.off_dout + i];
    float s, c;
    svk_sigmoid_pair(g, s, c);
    dup[pc.off_dup + i] = d * (g * s);
    dgate[pc.off_out + i] = d * u * (s * (1.0 + g * c));
}
