#version 450
/*
 * Fill, copy and add over n floats: dst = value, dst = src, dst += src.
 * The model's plumbing (zeroing gradients, forking the residual streams) and
 * the benchmark's copy-bandwidth yardstick. One element per invocation, or
 * with VEC4 one vec4 (lib/ops/elem_util.h says when): the memory system,
 * not arithmetic, is what this measures and what it costs.
 * Reference: plain C in tools/conformance/conform_copy.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_copy.h"
#include "common/elementwise.glsl"

SVK_BUF4(0, SVK_RW, BufDst, dst);
SVK_BUF4(1, readonly, BufSrc, src);

void svk_elem_vec4(uint i)
{
    const uint d = pc.off_dst / 4u + i, s = pc.off_src / 4u + i;
    if (pc.mode == SVK_COPY_MODE_FILL)
        dst4[d] = vec4(pc.value);
    else if (pc.mode == SVK_COPY_MODE_COPY)
        dst4[d] = src4[s];
    else
        dst4[d] += src4[s];
}

void svk_elem_scalar(uint i)
{
    const uint d = pc.off_dst + i, s = pc.off_src + i;
    if (pc.mode == SVK_COPY_MODE_FILL)
        dst[d] = pc.value;
    else if (pc.mode == SVK_COPY_MODE_COPY)
        dst[d] = src[s];
    else
        dst[d] += src[s];
}

#include "common/elementwise_main.glsl"
