#version 450
/*
 * Token + position embedding: out[b, t, c] = wte[tokens[b, t], c] + wpe[t, c]
 * (wpe only with SVK_EMBEDDING_FLAG_WPE, i.e. pos = learned). One invocation
 * per element of out. A token outside [0, V) is never used as an address:
 * its row of out is written 0 (the op counts such tokens separately, with
 * index_check.comp). With a part of the table (pc.row0, SVK_EMBEDDING_FLAG_PART)
 * a row whose token lies outside the part is left for another part's
 * dispatch. Reference: lib/ref/embedding.c.
 * Conformance: tools/conformance/conform_embedding.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_embedding.h"

#include "common/kernel.glsl"

#include "common/elem_index.glsl"

/* Four columns per invocation, as vec4s (lib/ops/embedding.c: where C and
 * the operands' offsets are multiples of 4, so that a vec4 never spans two
 * rows). On a CPU device a storage access costs per lane, not per byte. */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufTokens { int tokens[]; };
SVK_BUF4(1, readonly, BufWte, wte);
SVK_BUF4(2, readonly, BufWpe, wpe);
SVK_BUF4(3, writeonly, BufOut, outv);

/* Whether tok's row is in the bound table (all of it, or a part). */
bool in_table(int tok)
{
    return tok >= 0 && uint(tok) >= pc.row0 && uint(tok) - pc.row0 < pc.V;
}

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.B * pc.T * pc.C / 4u, i))
            return;
        const uint e = 4u * i, row = e / pc.C, c = e % pc.C, t = row % pc.T;
        const int tok = tokens[pc.off_tokens + row];
        vec4 v = vec4(0.0);
        if (in_table(tok)) {
            v = wte4[(pc.off_table + (uint(tok) - pc.row0) * pc.C + c) / 4u];
            if ((pc.flags & SVK_EMBEDDING_FLAG_WPE) != 0u)
                v += wpe4[(pc.off_wpe + t * pc.C + c) / 4u];
        } else if ((pc.flags & SVK_EMBEDDING_FLAG_PART) != 0u) {
            return;
        }
        outv4[(pc.off_act + e) / 4u] = v;
        return;
    }
    if (!svk_elem_index(pc.B * pc.T * pc.C, i))
        return;
    const uint row = i / pc.C, c = i % pc.C, t = row % pc.T;
    const int tok = tokens[pc.off_tokens + row];
    float v = 0.0;
    if (in_table(tok)) {
        v = wte[pc.off_table + (uint(tok) - pc.row0) * pc.C + c];
        if ((pc.flags & SVK_EMBEDDING_FLAG_WPE) != 0u)
            v += wpe[pc.off_wpe + t * pc.C + c];
    } else if ((pc.flags & SVK_EMBEDDING_FLAG_PART) != 0u) {
        return;
    }
    outv[pc.off_act + i] = v;
}
