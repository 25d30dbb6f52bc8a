#version 450
/*
 * Softmax backward for the materialised attention path (lib/ops/attention.c;
 * reference svk_ref_attention_bwd). Row r of the [B, H, T, T] tensors, query
 * t = r % T: with p the saved probabilities and d = dP = dO V^T (computed by
 * a GEMM over every key), writes in place
 *     dS_j = p_j (dP_j - sum_k p_k dP_k)   for keys j <= t,
 *     dS_j = 0                             for keys j > t,
 * the zeros making the following GEMMs (dQ = dS K, dK = dS^T Q) causal.
 * The 1 / sqrt(D) factor is applied by those GEMMs (alpha).
 *
 * One workgroup per row (spread over x and y by svk_op_grid).
 *
 * CPU devices run the CPU form instead, attention_softmax_bwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_attention_softmax.h"

#include "common/kernel.glsl"

SVK_BUF(0, readonly, BufP, p);
SVK_BUF(1, SVK_RW, BufD, d);

#include "common/attention_rows.glsl"

void att_row_main(const uint row, const uint tid, const uint n)
{
    const uint bp = pc.off_p + row * pc.T, bd = pc.off_d + row * pc.T;

    float dot = 0.0;
    for (uint j = tid; j < n; j += ATT_WG)
        dot += p[bp + j] * d[bd + j];
    dot = att_reduce_sum(dot);

    for (uint j = tid; j < pc.T; j += ATT_WG)
        d[bd + j] = j < n ? p[bp + j] * (d[bd + j] - dot) : 0.0;
}
