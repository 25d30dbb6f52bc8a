#version 450
/*
 * Bias add, in place: out[r, j] += bias[j], bias broadcast over rows.
 * One invocation per element of out: [rows, N] is walked as one flat
 * array, j = i % N. Reference: lib/ref/bias.c (bias_fwd).
 * Conformance: tools/conformance/conform_bias.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_bias.h"

#include "common/kernel.glsl"

#include "common/elem_index.glsl"

SVK_BUF(0, readonly, BufBias, bias);
SVK_BUF(1, SVK_RW, BufOut, outv);

void main()
{
    uint i;
    if (!svk_elem_index(pc.rows * pc.N, i))
        return;
    outv[pc.off_out + i] += bias[pc.off_bias + i % pc.N];
}
