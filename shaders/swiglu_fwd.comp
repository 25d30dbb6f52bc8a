#version 450
/*
 * SwiGLU gate forward, elementwise: out = silu(gate) * up,
 * silu(u) = u sigmoid(u), with gate and up separate arrays. The sigmoid is
 * the overflow-free pair of common/sigmoid.glsl. out may equal gate or up.
 * Reference: lib/ref/swiglu.c. Conformance: tools/conformance/conform_gelu.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_swiglu.h"
#include "common/elementwise.glsl"
#include "common/sigmoid.glsl"

SVK_BUF4(0, readonly, BufGate, gate);
SVK_BUF4(1, readonly, BufUp, up);
SVK_BUF4(2, writeonly, BufOut, outv);

float swiglu(float g, float u)
{
    float s, c;
    svk_sigmoid_pair(g, s, c);
    return g * s * u;
}

void svk_elem_vec4(uint i)
{
    const vec4 g = gate4[pc.off_gate / 4u + i], u = up4[pc.off_up / 4u + i];
    outv4[pc.off_out / 4u + i] = vec4(swiglu(g.x, u.x), swiglu(g.y, u.y), swiglu(g.z, u.z), swiglu(g.w, u.w));
}

void svk_elem_scalar(uint i)
{
    outv[pc.off_out + i] = swiglu(gate[pc.off_gate + i], up[pc.off_up + i]);
}

#include "common/elementwise_main.glsl"
