#version 450
/*
 * Flash attention backward, second kernel: dk and dv, for a block of keys.
 * With the notation of attention_flash_bwd_dq.comp (which must run first:
 * it writes delta),
 *   dv_j = sum_{i >= j} P_ij dout_i,
 *   dk_j = scale sum_{i >= j} dS_ij q_i,  dS_ij = P_ij (dout_i.v_j - delta_i),
 * P and dS recomputed from q, k, v, the forward's stats and delta: nothing of size
 * [B, H, T, T] exists. Each sum runs over the queries in order: the result
 * is deterministic and independent of the subgroup size.
 * Reference: svk_ref_attention_bwd (lib/ref/attention.c), fed P.
 * Conformance: tools/conformance/conform_attention.c ("attention_flash").
 *
 * A workgroup of TPR x BKR invocations owns BKR consecutive keys of one
 * (batch, head), TPR of them per key row; queries from the block's first
 * key to T are walked in tiles of BQ through shared memory (causality:
 * earlier queries see none of these keys).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_attention_flash.h"

#include "common/kernel.glsl"
layout(constant_id = 3) const uint BQ = 16;    /* queries per tile; a multiple of TPR */
layout(constant_id = 4) const uint DMAX = 128; /* largest head width; a multiple of TPR */

SVK_BUF(0, readonly, BufQKV, qkv);
layout(set = 0, binding = 1, std430) readonly buffer BufStats { vec2 stats[]; };
SVK_BUF(2, readonly, BufDout, dout);
SVK_BUF(3, readonly, BufDelta, delta);
SVK_BUF(4, writeonly, BufDqkv, dqkv);

const uint TPR = gl_WorkGroupSize.x;  /* invocations per key row */
const uint BKR = gl_WorkGroupSize.y;  /* key rows per workgroup */
const uint NT = TPR * BKR;
const uint RS = DMAX + 1u;            /* padded row stride (banks, as in the dq kernel) */
const uint NACC = DMAX / TPR;         /* dk and dv columns per invocation */
const uint NS = BQ / TPR;             /* queries per invocation and tile */

shared float ks[BKR * RS];
shared float vs[BKR * RS];
shared float qs[BQ * RS];
shared float dos[BQ * RS];
shared vec2 sts[BQ];                  /* m and 1 / l per query */
shared float dls[BQ];
shared float ps[BKR * BQ];
shared float dss[BKR * BQ];

void main()
{
    const uint group = svk_group_index();
    if (group >= pc.B * pc.H * pc.blocks)
        return; /* the whole workgroup: no barrier is skipped by part of it */
    const uint kb = group % pc.blocks, bh = group / pc.blocks;
    const uint b = bh / pc.H, h = bh % pc.H;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint tid = ty * TPR + tx;
    const uint C3 = 3u * pc.C;
    const uint base = pc.off_qkv + b * pc.T * C3 + h * pc.D; /* q of head h, position 0 */
    const uint obase = pc.off_dout + b * pc.T * pc.C + h * pc.D;
    const uint k0 = kb * BKR, key = k0 + ty;
    const bool live = key < pc.T;

    for (uint i = tid; i < BKR * pc.D; i += NT) {
        const uint r = i / pc.D, d = i % pc.D;
        const bool ok = k0 + r < pc.T;
        ks[r * RS + d] = ok ? qkv[base + (k0 + r) * C3 + pc.C + d] : 0.0;
        vs[r * RS + d] = ok ? qkv[base + (k0 + r) * C3 + 2u * pc.C + d] : 0.0;
    }
    /* Columns D..DMAX of the query tiles are never loaded; zeros there keep
     * the unused accumulators finite (ordered by the loop's first barrier). */
    for (uint i = tid; i < BQ * RS; i += NT) {
        qs[i] = 0.0;
        dos[i] = 0.0;
    }

    float dk[NACC], dv[NACC];
    for (uint i = 0u; i < NACC; i++) {
        dk[i] = 0.0;
        dv[i] = 0.0;
    }

    for (uint q0 = k0; q0 < pc.T; q0 += BQ) {
        /* The previous tile's queries, P and dS are no longer read. */
        barrier();
        for (uint i = tid; i < BQ * pc.D; i += NT) {
            const uint r = i / pc.D, d = i % pc.D, qr = q0 + r;
            const bool ok = qr < pc.T;
            qs[r * RS + d] = ok ? qkv[base + qr * C3 + d] : 0.0;
            dos[r * RS + d] = ok ? dout[obase + qr * pc.C + d] : 0.0;
        }
        for (uint r = tid; r < BQ; r += NT) {
            const bool ok = q0 + r < pc.T;
            const vec2 st = ok ? stats[pc.off_stats / 2u + bh * pc.T + q0 + r] : vec2(0.0, 1.0);
            sts[r] = vec2(st.x, 1.0 / st.y);
            dls[r] = ok ? delta[pc.off_delta + bh * pc.T + q0 + r] : 0.0;
        }
        barrier();

        /* This invocation's queries tx, tx + TPR, ...: s = q.k, dP = dout.v. */
        float s[NS], dp[NS];
        for (uint j = 0u; j < NS; j++) {
            s[j] = 0.0;
            dp[j] = 0.0;
        }
        for (uint d = 0u; d < pc.D; d++) {
            const float kd = ks[ty * RS + d], vd = vs[ty * RS + d];
            for (uint j = 0u; j < NS; j++) {
                s[j] += kd * qs[(tx + j * TPR) * RS + d];
                dp[j] += vd * dos[(tx + j * TPR) * RS + d];
            }
        }
        for (uint j = 0u; j < NS; j++) {
            const uint r = tx + j * TPR, qr = q0 + r;
            const float p = live && key <= qr && qr < pc.T ? exp(s[j] * pc.scale - sts[r].x) * sts[r].y : 0.0;
            ps[ty * BQ + r] = p;
            dss[ty * BQ + r] = p * (dp[j] - dls[r]);
        }
        barrier();
        for (uint r = 0u; r < BQ; r++) {
            const float p = ps[ty * BQ + r], ds = dss[ty * BQ + r];
            for (uint i = 0u; i < NACC; i++) {
                dv[i] += p * dos[r * RS + tx + i * TPR];
                dk[i] += ds * qs[r * RS + tx + i * TPR];
            }
        }
    }

    if (live) {
        const uint o = pc.off_dqkv + b * pc.T * C3 + key * C3 + h * pc.D;
        for (uint i = 0u; i < NACC; i++) {
            const uint d = tx + i * TPR;
            if (d < pc.D) {
                dk[i] *= pc.scale;
                dqkv[o + pc.C + d] = dk[i];
                dqkv[o + 2u * pc.C + d] = dv[i];
            }
        }
    }
}
