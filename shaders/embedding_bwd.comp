#version 450
/*
 * Embedding backward: the scatter-add
 *   dwte[tokens[b, t]] += dout[b, t],  dwpe[t] += dout[b, t]
 * without float atomics, each destination element receiving its
 * contributions in the reference's order (b, then t), so the result is
 * bit-identical from run to run (and, the additions being the same, to the
 * float reference). Positions whose token lies outside [0, V) contribute
 * nothing and are never used as addresses. Two dispatches of this shader
 * (lib/ops/embedding.c), binding 2 being the destination:
 *
 * dwte (flags without POS): invocation (c, s) owns column c of every
 * vocabulary row v with v % slices == s, and walks all positions in order,
 * adding dout[p, c] into dwte[tokens[p], c] when tokens[p] is one of its
 * rows. No two invocations touch the same element, so there is no race; the
 * slices (grid y) multiply the parallelism beyond C. The tokens are staged
 * through shared memory a workgroup-width chunk at a time; every invocation
 * of a workgroup sees the same token at each step, so they branch alike.
 *
 * dwpe (flag POS): invocation j owns dwpe[t, c] (j = t * C + c) and adds
 * dout[b, t, c] over b in order.
 *
 * Reference: lib/ref/embedding.c. Conformance: tools/conformance/conform_embedding.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_embedding.h"

#include "common/kernel.glsl"

#include "common/elem_index.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufTokens { int tokens[]; };
SVK_BUF(1, readonly, BufDout, dout);
SVK_BUF(2, SVK_RW, BufDst, dst);

shared int chunk[gl_WorkGroupSize.x];

/* Whether tok's row is in the bound table: all of it, or for a table too
 * large for one binding the part [row0, row0 + V) (dwpe's dispatch: all). */
bool valid(int tok)
{
    return tok >= 0 && uint(tok) >= pc.row0 && uint(tok) - pc.row0 < pc.V;
}

void accumulate_wpe()
{
    uint j;
    if (!svk_elem_index(pc.T * pc.C, j))
        return;
    const uint t = j / pc.C, c = j % pc.C;
    float acc = dst[pc.off_table + j];
    for (uint b = 0u; b < pc.B; b++) {
        const uint p = b * pc.T + t;
        if (valid(tokens[pc.off_tokens + p]))
            acc += dout[pc.off_act + p * pc.C + c];
    }
    dst[pc.off_table + j] = acc;
}

void accumulate_wte()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint c = gl_WorkGroupID.x * wg + lid;
    const uint slice = gl_WorkGroupID.y;
    const uint n = pc.B * pc.T;
    /* Invocations past C still load tokens and meet every barrier. */
    for (uint p0 = 0u; p0 < n; p0 += wg) {
        /* Each token is judged once, by the invocation that loads it: -1
         * unless it is valid and its row belongs to this slice. */
        int tok = -1;
        if (p0 + lid < n) {
            tok = tokens[pc.off_tokens + p0 + lid];
            tok = valid(tok) ? tok - int(pc.row0) : -1;
            if (tok >= 0 && uint(tok) % pc.slices != slice)
                tok = -1;
        }
        chunk[lid] = tok;
        barrier();
        const uint len = min(wg, n - p0);
        if (c < pc.C) {
            for (uint k = 0u; k < len; k++) {
                const int t = chunk[k];
                if (t >= 0)
                    dst[pc.off_table + uint(t) * pc.C + c] += dout[pc.off_act + (p0 + k) * pc.C + c];
            }
        }
        barrier(); /* the next chunk overwrites what this one read */
    }
}

void main()
{
    /* flags is a push constant, uniform over the dispatch, so the barriers
     * in accumulate_wte are in uniform control flow. */
    if ((pc.flags & SVK_EMBEDDING_FLAG_POS) != 0u)
        accumulate_wpe();
    else
        accumulate_wte();
}
