#version 450
/*
 * Embedding backward, the CPU form of embedding_bwd.comp (same push
 * constants, bindings and results, bit for bit): the scatter-add
 *   dwte[tokens[b, t]] += dout[b, t],  dwpe[t] += dout[b, t]
 * four columns per invocation, each destination element receiving its
 * contributions in the reference's order (b, then t), without atomics.
 * Two dispatches (lib/ops/embedding.c), binding 2 the destination:
 *
 * dwte (flags without POS): invocation q owns columns 4q .. 4q + 3 of every
 * vocabulary row and walks all B*T positions in order, adding dout's four
 * columns of the position into its token's row. Every invocation reads
 * the same token at each step (a uniform load and a uniform branch), so
 * neither shared memory nor a barrier is needed.
 * dwpe (flag POS): invocation j owns columns 4 (j % (C/4)) .. +3 of
 * dwpe[j / (C/4)] and adds them over b in order.
 *
 * Why: on a CPU device (lavapipe) the portable form's staging of tokens
 * through shared memory costs two barriers per 64 positions (each a
 * coroutine switch of the workgroup), and a storage access costs per lane,
 * not per byte; here one vec4 access moves four columns. lib/ops picks it
 * on CPU devices where C and the operands' offsets are multiples of 4, the
 * device's choice of slices is asked for, and B*T positions fit the loop
 * budget (common/row_cpu.glsl, "Loop budget").
 * Reference: lib/ref/embedding.c. Conformance:
 * tools/conformance/conform_embedding.c (the "bwd-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_embedding.h"

#include "common/kernel.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufTokens { int tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDout4 { vec4 dout4[]; };
layout(set = 0, binding = 2, std430) buffer BufDst4 { vec4 dst4[]; };

#include "common/elem_index.glsl"

/* Whether tok's row is in the bound table: all of it, or for a table too
 * large for one binding the part [row0, row0 + V) (dwpe's dispatch: all). */
bool valid(int tok)
{
    return tok >= 0 && uint(tok) >= pc.row0 && uint(tok) - pc.row0 < pc.V;
}

void main()
{
    const uint C4 = pc.C / 4u;
    uint j;
    if ((pc.flags & SVK_EMBEDDING_FLAG_POS) != 0u) {
        if (!svk_elem_index(pc.T * C4, j))
            return;
        const uint t = j / C4, q = j % C4;
        vec4 acc = dst4[pc.off_table / 4u + j];
        for (uint b = 0u; b < pc.B; b++) {
            const uint p = b * pc.T + t;
            if (valid(tokens[pc.off_tokens + p]))
                acc += dout4[pc.off_act / 4u + p * C4 + q];
        }
        dst4[pc.off_table / 4u + j] = acc;
        return;
    }
    if (!svk_elem_index(C4, j))
        return;
    const uint n = pc.B * pc.T;
    for (uint p = 0u; p < n; p++) {
        const int tok = tokens[pc.off_tokens + p];
        if (valid(tok)) {
            const uint e = pc.off_table / 4u + (uint(tok) - pc.row0) * C4 + j;
            dst4[e] += dout4[pc.off_act / 4u + p * C4 + j];
        }
    }
}
