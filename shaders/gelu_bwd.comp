#version 450
/*
 * GELU backward, elementwise: dx[i] = dout[i] * gelu'(x[i]) (see
 * common/gelu.glsl). dx may be dout (in place). Reference: lib/ref/gelu.c.
 * Conformance: tools/conformance/conform_gelu.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_gelu.h"
#include "common/elementwise.glsl"
#include "common/sigmoid.glsl"
#include "common/gelu.glsl"

SVK_BUF4(0, readonly, BufX, x);
SVK_BUF4(1, readonly, BufDout, dout);
SVK_BUF4(2, writeonly, BufDx, dx);

void svk_elem_vec4(uint i)
{
    const vec4 u = x4[pc.off_x / 4u + i];
    const vec4 g = vec4(svk_gelu_grad(u.x), svk_gelu_grad(u.y), svk_gelu_grad(u.z), svk_gelu_grad(u.w));
    dx4[pc.off_out / 4u + i] = dout4[pc.off_dout / 4u + i] * g;
}

void svk_elem_scalar(uint i)
{
    dx[pc.off_out + i] = dout[pc.off_dout + i] * svk_gelu_grad(x[pc.off_x + i]);
}

#include "common/elementwise_main.glsl"
