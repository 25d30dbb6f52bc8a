#version 450
/*
 * GELU forward, elementwise: out[i] = gelu(x[i]), tanh form (see
 * common/gelu.glsl). out may be x (in place): each invocation reads its
 * element before writing it. Reference: lib/ref/gelu.c.
 * Conformance: tools/conformance/conform_gelu.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_gelu.h"
#include "common/elementwise.glsl"
#include "common/sigmoid.glsl"
#include "common/gelu.glsl"

SVK_BUF4(0, readonly, BufX, x);
SVK_BUF4(1, writeonly, BufOut, outv);

void svk_elem_vec4(uint i)
{
    const vec4 u = x4[pc.off_x / 4u + i];
    outv4[pc.off_out / 4u + i] = vec4(svk_gelu(u.x), svk_gelu(u.y), svk_gelu(u.z), svk_gelu(u.w));
}

void svk_elem_scalar(uint i)
{
    outv[pc.off_out + i] = svk_gelu(x[pc.off_x + i]);
}

#include "common/elementwise_main.glsl"
