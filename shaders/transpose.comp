#version 450
/*
 * Transpose: dst [cols, rows] = src [rows, cols]^T (src with leading
 * dimension ld, dst packed). The model uses it for weights whose forward
 * product the device runs faster as NN than as NT (lib/model/plan.c,
 * svk_plan_options.mlp_proj_nn); a copy, so the result is exact.
 * Reference: plain C in tools/conformance/conform_transpose.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_transpose.h"
#include "common/elementwise.glsl"

SVK_BUF(0, readonly, BufSrc, src);
SVK_BUF4(1, writeonly, BufDst, dst);

/* Invocation o writes dst[o] (with VEC4 dst[4 o .. 4 o + 3], rows a
 * multiple of 4 and dst on a vec4): neighbours write neighbours and read
 * down a column of src, ld apart. A CPU device stores lane by lane, so a
 * vec4 is a quarter of the store passes. */
#define SVK_ELEM_N (pc.rows * pc.cols)

void svk_elem_vec4(uint o)
{
    const uint j = o / (pc.rows / 4u), i = 4u * (o % (pc.rows / 4u));
    const uint s = pc.off_src + i * pc.ld + j;
    dst4[pc.off_dst / 4u + o] = vec4(src[s], src[s + pc.ld], src[s + 2u * pc.ld], src[s + 3u * pc.ld]);
}

void svk_elem_scalar(uint o)
{
    const uint j = o / pc.rows, i = o % pc.rows; /* dst[j, i] = src[i, j] */
    dst[pc.off_dst + o] = src[pc.off_src + i * pc.ld + j];
}

#include "common/elementwise_main.glsl"
