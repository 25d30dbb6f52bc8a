#version 450
/*
 * Keeps an activation in 16 bits (docs/MODEL.md, "Precision"): rounds x in
 * place to the nearest fp16 or bf16 value, so the forward pass goes on from
 * the value the backward will see, and (store) writes the codes, two to a
 * 32-bit word. One word per invocation: the pair of elements shares it, so
 * no two invocations write the same word and no 16-bit storage feature is
 * needed. With `scaled`, x is first multiplied by scale[0]: the loss
 * scale, applied where the logits' gradient is rounded (docs/MODEL.md,
 * "Precision"). With `codes_only`, x is left as it is: the codes are a
 * 16-bit copy for the backward pass of a value the forward pass goes on
 * from in float32 (the residual streams). Reference: lib/ref/pack16.c. Conformance:
 * tools/conformance/conform_pack16.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_pack16.h"
#include "common/kernel.glsl"
#include "common/elem_index.glsl"
#include "common/half16.glsl"

SVK_BUF(0, SVK_RW, BufX, x);
layout(set = 0, binding = 1, std430) buffer BufPacked { uint packed[]; };
SVK_BUF(2, readonly, BufScale, scale);

void main()
{
    uint w;
    if (!svk_elem_index((pc.n + 1u) / 2u, w))
        return;
    const uint i = pc.off_x + 2u * w;
    const bool pair = 2u * w + 1u < pc.n;
    /* Unscaled values go through untouched: a multiplication by 1 may
     * quieten a NaN. */
    float v0 = x[i], v1 = pair ? x[i + 1u] : 0.0;
    if (pc.scaled != 0u) {
        const float s = scale[pc.off_scale];
        v0 *= s;
        v1 *= s;
    }
    const uint lo = svk_half_encode(pc.fmt, v0);
    const uint hi = pair ? svk_half_encode(pc.fmt, v1) : 0u;
    if (pc.codes_only == 0u) {
        x[i] = svk_half_decode(pc.fmt, lo);
        if (pair)
            x[i + 1u] = svk_half_decode(pc.fmt, hi);
    }
    if (pc.store != 0u)
        packed[pc.off_packed + w] = lo | (hi << 16);
}
