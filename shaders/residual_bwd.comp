#version 450
/*
 * Backward of the SiameseNorm dual residual update: dz = dx / c + dy
 * (written). The gradients of the old x and y equal those of the new ones,
 * so dx and dy pass on unchanged and are only read here.
 * Reference: lib/ref/residual.c. Conformance: tools/conformance/conform_norm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_residual.h"
#include "common/elementwise.glsl"

SVK_BUF4(0, readonly, BufDx, dx);
SVK_BUF4(1, readonly, BufDy, dy);
SVK_BUF4(2, writeonly, BufDz, dz);

void svk_elem_vec4(uint i)
{
    dz4[pc.off_z / 4u + i] = dx4[pc.off_x / 4u + i] / pc.c + dy4[pc.off_y / 4u + i];
}

void svk_elem_scalar(uint i)
{
    dz[pc.off_z + i] = dx[pc.off_x + i] / pc.c + dy[pc.off_y + i];
}

#include "common/elementwise_main.glsl"
