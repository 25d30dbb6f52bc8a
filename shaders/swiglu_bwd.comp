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

/* Four elements per invocation, as vec4s (lib/ops/elem_util.h says when). */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufGate { float gate[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufGate4 { vec4 gate4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufUp { float up[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufUp4 { vec4 up4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufDout4 { vec4 dout4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufDgate { float dgate[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufDgate4 { vec4 dgate4[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufDup { float dup[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufDup4 { vec4 dup4[]; };

/* d/dup = d silu(g), d/dgate = d up silu'(g), into du, dg. */
void swiglu_grad(float g, float u, float d, out float dg, out float du)
{
    float s, c;
    svk_sigmoid_pair(g, s, c);
    du = d * (g * s);
    dg = d * u * (s * (1.0 + g * c));
}

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const vec4 g = gate4[pc.off_gate / 4u + i], u = up4[pc.off_up / 4u + i], d = dout4[pc.off_dout / 4u + i];
        vec4 dg, du;
        for (uint j = 0u; j < 4u; j++)
            swiglu_grad(g[j], u[j], d[j], dg[j], du[j]);
        dup4[pc.off_dup / 4u + i] = du;
        dgate4[pc.off_out / 4u + i] = dg;
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    float dg, du;
    swiglu_grad(gate[pc.off_gate + i], up[pc.off_up + i], dout[pc.off_dout + i], dg, du);
    dup[pc.off_dup + i] = du;
    dgate[pc.off_out + i] = dg;
}
