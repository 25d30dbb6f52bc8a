#version 450
/*
 * SiameseNorm dual residual update, in place: x += z / c, y += z
 * (c = sqrt(2 (l + 1)) for layer l). A division, as docs/MODEL.md and
 * the reference (lib/ref/residual.c) write it, not a multiplication by 1/c.
 * Conformance: tools/conformance/conform_norm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_residual.h"
#include "common/elementwise.glsl"

SVK_BUF4(0, SVK_RW, BufX, x);
SVK_BUF4(1, SVK_RW, BufY, y);
SVK_BUF4(2, readonly, BufZ, z);

void svk_elem_vec4(uint i)
{
    const vec4 v = z4[pc.off_z / 4u + i];
    x4[pc.off_x / 4u + i] += v / pc.c;
    y4[pc.off_y / 4u + i] += v;
}

void svk_elem_scalar(uint i)
{
    const float v = z[pc.off_z + i];
    x[pc.off_x + i] += v / pc.c;
    y[pc.off_y + i] += v;
}

#include "common/elementwise_main.glsl"
