#version 450
/*
 * Causal softmax over keys, in place, for the materialised attention path
 * (lib/ops/attention.c; reference svk_ref_attention_fwd in
 * lib/ref/attention.c). Row r of the [B, H, T, T] tensor holds the scaled
 * scores of query t = r % T against every key (the GEMM computed them all);
 * keys 0..t are turned into probabilities and keys t+1..T-1 are written 0,
 * exactly as the reference saves them.
 *
 * Numerically stable form: p_j = exp(s_j - max) / sum, so every exponent is
 * <= 0 (no overflow at any logit size) and the sum is >= 1. Pass 2 stores
 * exp(s_j - max) in place and pass 3 rescales it; each invocation touches
 * only its own elements between the passes, so no barrier is needed there.
 *
 * One workgroup per row (spread over x and y by svk_op_grid).
 *
 * CPU devices run the CPU form instead, attention_softmax_fwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_attention_softmax.h"

#include "common/kernel.glsl"

SVK_BUF(0, SVK_RW, BufP, p);

#include "common/attention_rows.glsl"

void att_row_main(const uint row, const uint tid, const uint n)
{
    const uint base = pc.off_p + row * pc.T;

    float mx = uintBitsToFloat(0xff800000u); /* -inf: the identity of max */
    for (uint j = tid; j < n; j += ATT_WG)
        mx = max(mx, p[base + j]);
    mx = att_reduce_max(mx);

    float sum = 0.0;
    for (uint j = tid; j < n; j += ATT_WG) {
        const float e = exp(p[base + j] - mx);
        p[base + j] = e;
        sum += e;
    }
    sum = att_reduce_sum(sum);

    for (uint j = tid; j < pc.T; j += ATT_WG)
        p[base + j] = j < n ? p[base + j] / sum : 0.0;
}
