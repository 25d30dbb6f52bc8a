#version 450
/*
 * Fused causal attention forward, flash style (Dao et al., "FlashAttention",
 * 2022; the online softmax of Milakov & Gimelshein, 2018): out only, the
 * [B, H, T, T] probabilities are never stored. Same result as
 * svk_ref_attention_fwd's out (lib/ref/attention.c) up to rounding.
 *
 * A workgroup of TPR x BQ invocations owns BQ consecutive queries of one
 * (batch, head); the TPR invocations of a query row y share its work. Keys
 * are walked in tiles of BK staged through shared memory, only up to the
 * block's last query (causality: later tiles would be fully masked). Per
 * tile, each row keeps the running maximum m, the running sum l of
 * exp(s - m) and the unnormalised output acc; a new maximum rescales l and
 * acc by exp(m_old - m_new) <= 1, so no exponent is ever positive. Every
 * row's first tile holds key 0, which is always visible, so m is finite
 * from then on and masked keys contribute an explicit 0.
 *
 * Reductions across the TPR invocations of a row go through shared memory
 * in a fixed order (no subgroup operations, no atomics): the result depends
 * on the specialisation constants only, not on the subgroup size.
 *
 * Shared-memory rows of Q and K are padded to DMAX + 1 floats so that the
 * invocations of one row, which read different keys at the same d, hit
 * different banks.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_attention_flash.h"

#include "common/kernel.glsl"
layout(constant_id = 3) const uint BK = 16;    /* keys per tile; a multiple of TPR */
layout(constant_id = 4) const uint DMAX = 128; /* largest head width; a multiple of TPR */

SVK_BUF(0, readonly, BufQKV, qkv);
SVK_BUF(1, writeonly, BufOut, outp);
layout(set = 0, binding = 2, std430) writeonly buffer BufStats { vec2 stats[]; };

const uint TPR = gl_WorkGroupSize.x;  /* invocations per query row */
const uint BQ = gl_WorkGroupSize.y;   /* query rows per workgroup */
const uint NT = TPR * BQ;
const uint QS = DMAX + 1u;            /* padded row strides */
const uint KS = DMAX + 1u;
const uint NACC = DMAX / TPR;         /* output columns per invocation */
const uint NS = BK / TPR;             /* scores per invocation and tile */
const float BIG = 3.0e38;             /* stands for infinity in the running max */

shared float qs[BQ * QS];
shared float ks[BK * KS];
shared float vs[BK * DMAX];
shared float ps[BQ * BK];
shared float red_m[NT];
shared float red_l[NT];

void main()
{
    const uint group = svk_group_index();
    if (group >= pc.B * pc.H * pc.blocks)
        return; /* the whole workgroup: no barrier is skipped by part of it */
    const uint qb = group % pc.blocks, bh = group / pc.blocks;
    const uint b = bh / pc.H, h = bh % pc.H;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint tid = ty * TPR + tx;
    const uint C3 = 3u * pc.C;
    const uint base = pc.off_qkv + b * pc.T * C3 + h * pc.D; /* q of head h, position 0 */
    const uint q0 = qb * BQ, q = q0 + ty;

    for (uint i = tid; i < BQ * pc.D; i += NT) {
        const uint r = i / pc.D, d = i % pc.D;
        qs[r * QS + d] = q0 + r < pc.T ? qkv[base + (q0 + r) * C3 + d] : 0.0;
    }

    /* Columns D..DMAX of the V tile are never loaded; zeros there keep
     * the unused accumulators finite. (The loop's first barrier orders this
     * before the first tile's loads.) */
    for (uint i = tid; i < BK * DMAX; i += NT)
        vs[i] = 0.0;

    float m = -BIG, l = 0.0;
    float acc[NACC];
    for (uint i = 0u; i < NACC; i++)
        acc[i] = 0.0;

    const uint kend = min(pc.T, q0 + BQ);
    for (uint k0 = 0u; k0 < kend; k0 += BK) {
        /* The previous tile's K, V and P are no longer read. */
        barrier();
        for (uint i = tid; i < BK * pc.D; i += NT) {
            const uint kk = i / pc.D, d = i % pc.D, key = k0 + kk;
            const bool ok = key < pc.T;
            ks[kk * KS + d] = ok ? qkv[base + key * C3 + pc.C + d] : 0.0;
            vs[kk * DMAX + d] = ok ? qkv[base + key * C3 + 2u * pc.C + d] : 0.0;
        }
        barrier();

        /* This invocation's scores: keys tx, tx + TPR, ...; d outermost so
         * that each q value is read once for all of them. */
        float s[NS];
        for (uint j = 0u; j < NS; j++)
            s[j] = 0.0;
        for (uint d = 0u; d < pc.D; d++) {
            const float qd = qs[ty * QS + d];
            for (uint j = 0u; j < NS; j++)
                s[j] += qd * ks[(tx + j * TPR) * KS + d];
        }
        float mt = -BIG;
        for (uint j = 0u; j < NS; j++) {
            const uint key = k0 + tx + j * TPR;
            s[j] = key <= q && key < pc.T ? s[j] * pc.scale : -BIG;
            mt = max(mt, s[j]);
        }
        red_m[tid] = mt;
        barrier();
        for (uint x = 0u; x < TPR; x++)
            mt = max(mt, red_m[ty * TPR + x]);
        const float m_new = max(m, mt);
        /* Before the first tile acc and l are 0 and m is the sentinel:
         * the factor is 0 by choice, not by exp() of -3e38. */
        const float alpha = m == -BIG ? 0.0 : exp(m - m_new);

        float lt = 0.0;
        for (uint j = 0u; j < NS; j++) {
            const uint kk = tx + j * TPR, key = k0 + kk;
            const float pj = key <= q && key < pc.T ? exp(s[j] - m_new) : 0.0;
            ps[ty * BK + kk] = pj;
            lt += pj;
        }
        red_l[tid] = lt;
        barrier();
        lt = 0.0;
        for (uint x = 0u; x < TPR; x++)
            lt += red_l[ty * TPR + x];
        l = l * alpha + lt;
        m = m_new;

        for (uint i = 0u; i < NACC; i++)
            acc[i] *= alpha;
        for (uint kk = 0u; kk < BK; kk++) {
            const float pk = ps[ty * BK + kk];
            for (uint i = 0u; i < NACC; i++)
                acc[i] += pk * vs[kk * DMAX + tx + i * TPR];
        }
    }

    if (q < pc.T) {
        const uint o = pc.off_out + (b * pc.T + q) * pc.C + h * pc.D;
        for (uint i = 0u; i < NACC; i++) {
            const uint d = tx + i * TPR;
            if (d < pc.D)
                outp[o + d] = acc[i] / l;
        }
        if (tx == 0u)
            stats[pc.off_stats / 2u + bh * pc.T + q] = vec2(m, l);
    }
}
