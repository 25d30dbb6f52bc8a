#version 450
/*
 * Flash attention backward, first kernel: dq and delta, for a block of
 * queries (FlashAttention-2's split of the backward, Dao 2023). With
 * s_j = scale q.k_j and the forward's stats m, l of the row,
 *   P_j = exp(s_j - m) / l                (recomputed, never stored)
 *   delta = sum_d dout_d out_d            (= sum_j P_j dP_j)
 *   dS_j = P_j (dout.v_j - delta)
 *   dq = scale sum_j dS_j k_j
 * attention_flash_bwd_dkv.comp then gives dk and dv from the same P and dS,
 * reading delta from here. Neither kernel writes what the other reads or
 * writes, so they need no atomics, and each sum runs in a fixed order: the
 * result is deterministic and independent of the subgroup size.
 * Reference: svk_ref_attention_bwd (lib/ref/attention.c), fed P.
 * Conformance: tools/conformance/conform_attention.c ("attention_flash").
 *
 * Layout as in attention_flash_fwd.comp: TPR x BQ invocations own BQ
 * consecutive queries of one (batch, head), TPR of them per query row; keys
 * are walked in tiles of BK through shared memory, up to the block's last
 * query. Row sums across the TPR invocations of a row go through shared
 * memory in a fixed order.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_attention_flash.h"

#include "common/kernel.glsl"
layout(constant_id = 3) const uint BK = 16;    /* keys per tile; a multiple of TPR */
layout(constant_id = 4) const uint DMAX = 128; /* largest head width; a multiple of TPR */

SVK_BUF(0, readonly, BufQKV, qkv);
SVK_BUF(1, readonly, BufOut, outp);
layout(set = 0, binding = 2, std430) readonly buffer BufStats { vec2 stats[]; };
SVK_BUF(3, readonly, BufDout, dout);
SVK_BUF(4, writeonly, BufDelta, delta);
SVK_BUF(5, writeonly, BufDqkv, dqkv);

const uint TPR = gl_WorkGroupSize.x;  /* invocations per query row */
const uint BQ = gl_WorkGroupSize.y;   /* query rows per workgroup */
const uint NT = TPR * BQ;
const uint RS = DMAX + 1u;            /* padded row stride: the TPR invocations of a row read
                                         different keys at the same d, in different banks */
const uint NACC = DMAX / TPR;         /* dq columns per invocation */
const uint NS = BK / TPR;             /* keys per invocation and tile */

shared float qs[BQ * RS];
shared float dos[BQ * RS];
shared float ks[BK * RS];
shared float vs[BK * RS];
shared float dss[BQ * BK];
shared float red[NT];

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
    const uint obase = b * pc.T * pc.C + h * pc.D;           /* out and dout of head h, position 0 */
    const uint q0 = qb * BQ, q = q0 + ty;
    const bool live = q < pc.T;

    for (uint i = tid; i < BQ * pc.D; i += NT) {
        const uint r = i / pc.D, d = i % pc.D;
        const bool ok = q0 + r < pc.T;
        qs[r * RS + d] = ok ? qkv[base + (q0 + r) * C3 + d] : 0.0;
        dos[r * RS + d] = ok ? dout[pc.off_dout + obase + (q0 + r) * pc.C + d] : 0.0;
    }
    /* Columns D..DMAX of the K tile are never loaded; zeros there keep the
     * unused accumulators finite. (The loop's first barrier orders this
     * before the first tile's loads.) */
    for (uint i = tid; i < BK * RS; i += NT)
        ks[i] = 0.0;

    /* delta of this row, from global memory: each invocation its columns,
     * then the row's TPR partials in order. */
    float part = 0.0;
    if (live)
        for (uint d = tx; d < pc.D; d += TPR) {
            const uint o = obase + q * pc.C + d;
            part += dout[pc.off_dout + o] * outp[pc.off_out + o];
        }
    red[tid] = part;
    barrier();
    float dl = 0.0;
    for (uint x = 0u; x < TPR; x++)
        dl += red[ty * TPR + x];
    /* m and 1 / l of this row; a dead row's are never used. */
    const vec2 st = live ? stats[pc.off_stats / 2u + bh * pc.T + q] : vec2(0.0, 1.0);
    const float m = st.x, rl = 1.0 / st.y;
    if (live && tx == 0u)
        delta[pc.off_delta + bh * pc.T + q] = dl;

    float acc[NACC];
    for (uint i = 0u; i < NACC; i++)
        acc[i] = 0.0;

    const uint kend = min(pc.T, q0 + BQ);
    for (uint k0 = 0u; k0 < kend; k0 += BK) {
        /* The previous tile's K, V and dS are no longer read. */
        barrier();
        for (uint i = tid; i < BK * pc.D; i += NT) {
            const uint kk = i / pc.D, d = i % pc.D, key = k0 + kk;
            const bool ok = key < pc.T;
            ks[kk * RS + d] = ok ? qkv[base + key * C3 + pc.C + d] : 0.0;
            vs[kk * RS + d] = ok ? qkv[base + key * C3 + 2u * pc.C + d] : 0.0;
        }
        barrier();

        /* This invocation's keys tx, tx + TPR, ...: s = q.k and dP = dout.v,
         * d outermost so that each q and dout value is read once. */
        float s[NS], dp[NS];
        for (uint j = 0u; j < NS; j++) {
            s[j] = 0.0;
            dp[j] = 0.0;
        }
        for (uint d = 0u; d < pc.D; d++) {
            const float qd = qs[ty * RS + d], dod = dos[ty * RS + d];
            for (uint j = 0u; j < NS; j++) {
                s[j] += qd * ks[(tx + j * TPR) * RS + d];
                dp[j] += dod * vs[(tx + j * TPR) * RS + d];
            }
        }
        for (uint j = 0u; j < NS; j++) {
            const uint kk = tx + j * TPR, key = k0 + kk;
            /* s - m <= 0 for a visible key: no overflow. */
            const float p = live && key <= q ? exp(s[j] * pc.scale - m) * rl : 0.0;
            dss[ty * BK + kk] = p * (dp[j] - dl);
        }
        barrier();
        for (uint kk = 0u; kk < BK; kk++) {
            const float ds = dss[ty * BK + kk];
            for (uint i = 0u; i < NACC; i++)
                acc[i] += ds * ks[kk * RS + tx + i * TPR];
        }
    }

    if (live) {
        const uint o = pc.off_dqkv + b * pc.T * C3 + q * C3 + h * pc.D;
        for (uint i = 0u; i < NACC; i++) {
            const uint d = tx + i * TPR;
            if (d < pc.D)
                dqkv[o + d] = acc[i] * pc.scale;
        }
    }
}
