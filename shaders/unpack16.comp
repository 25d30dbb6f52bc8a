#version 450
/*
 * An activation kept in 16 bits (pack16.comp) back to float32: x[2i] and
 * x[2i + 1] from word i's low and high halves, exactly (every fp16 and
 * bf16 value is a float32). One word per invocation. Reference:
 * lib/ref/pack16.c. Conformance: tools/conformance/conform_pack16.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_pack16.h"
#include "common/kernel.glsl"
#include "common/elem_index.glsl"
#include "common/half16.glsl"

SVK_BUF(0, writeonly, BufX, x);
layout(set = 0, binding = 1, std430) readonly buffer BufPacked { uint packed[]; };

void main()
{
    uint w;
    if (!svk_elem_index((pc.n + 1u) / 2u, w))
        return;
    const uint i = pc.off_x + 2u * w, word = packed[pc.off_packed + w];
    x[i] = svk_half_decode(pc.fmt, word & 0xffffu);
    if (2u * w + 1u < pc.n)
        x[i + 1u] = svk_half_decode(pc.fmt, word >> 16);
}
