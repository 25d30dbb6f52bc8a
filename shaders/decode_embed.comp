#version 450
/*
 * One token's embedding at its position, both read from the step buffer
 * (generation with a key-value cache): out[c] = wte[token, c] + wpe[pos, c]
 * (wpe with SVK_DECODE_FLAG_WPE). One invocation per column. A token
 * outside [0, V) or a position outside [0, ctx) is never an address: out
 * is zeros. A part of a table too large for one binding (SVK_DECODE_FLAG_PART)
 * writes out only for a token of its rows. Reference: svk_ref_embedding_decode
 * (lib/ref/decode.c).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_decode.h"

#include "common/kernel.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufStep { int step[]; };
SVK_BUF(1, readonly, BufWte, wte);
SVK_BUF(2, readonly, BufWpe, wpe);
SVK_BUF(3, writeonly, BufOut, outv);

void main()
{
    const uint c = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (c >= pc.C)
        return;
    const int tok = step[pc.off_step], pos = step[pc.off_step + 1u];
    const bool part = (pc.flags & SVK_DECODE_FLAG_PART) != 0u;
    const bool mine = tok >= 0 && uint(tok) >= pc.row0 && uint(tok) - pc.row0 < pc.V;
    if (part && !mine)
        return;
    float v = 0.0;
    if (mine && pos >= 0 && uint(pos) < pc.ctx) {
        v = wte[pc.off_a + (uint(tok) - pc.row0) * pc.C + c];
        if ((pc.flags & SVK_DECODE_FLAG_WPE) != 0u)
            v += wpe[pc.off_b + uint(pos) * pc.C + c];
    }
    outv[pc.off_out + c] = v;
}
