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
#include "common/elementwise.glsl"
#include "common/sigmoid.glsl"

SVK_BUF4(0, readonly, BufGate, gate);
SVK_BUF4(1, readonly, BufUp, up);
SVK_BUF4(2, readonly, BufDout, dout);
SVK_BUF4(3, writeonly, BufDgate, dgate);
SVK_BUF4(4, writeonly, BufDup, dup);

/* d/dup = d silu(g), d/dgate = d up silu'(g), into du, dg. */
void swiglu_grad(float g, float u, float d, out float dg, out float du)
{
    float s, c;
    svk_sigmoid_pair(g, s, c);
    du = d * (g * s);
    dg = d * u * (s * (1.0 + g * c));
}

void svk_elem_vec4(uint i)
{
    const vec4 g = gate4[pc.off_gate / 4u + i], u = up4[pc.off_up / 4u + i], d = dout4[pc.off_dout / 4u + i];
    vec4 dg, du;
    for (uint j = 0u; j < 4u; j++)
        swiglu_grad(g[j], u[j], d[j], dg[j], du[j]);
    dup4[pc.off_dup / 4u + i] = du;
    dgate4[pc.off_out / 4u + i] = dg;
}

void svk_elem_scalar(uint i)
{
    float dg, du;
    swiglu_grad(gate[pc.off_gate + i], up[pc.off_up + i], dout[pc.off_dout + i], dg, du);
    dup[pc.off_dup + i] = du;
    dgate[pc.off_out + i] = dg;
}

#include "common/elementwise_main.glsl"
