#version 450
/*
 * SiameseNorm backward in one dispatch, a CPU form (common/row_cpu.glsl)
 * for devices that allow 13 storage buffers per shader stage. It computes
 * what the staged CPU form (siamese_norm_bwd_cpu, then layernorm_bwd_cpu /
 * rmsnorm_bwd_cpu for Q and P; lib/ops/siamese_norm.c) computes, with the
 * same partials layout and formulas (P's and Q's means of du's terms
 * rearranged, below; the partials are the same bits):
 *   u = P(x) + Q(y), recomputed as the forward did; h = I(u)
 *   du = I's backward of dh
 *   dx = P's backward of du (+ dxn),  dy = Q's backward of du (+ dy_in)
 * and the lanes' gain and bias partials of P, Q and I, which
 * norm_param_reduce.comp then adds to dg and db in lane order; with
 * SVK_SIAMESE_FLAG_DZ also dz = dx / dz_c + dy, the residual gradient of
 * the sublayer below (residual_bwd.comp's formula, from the same floats).
 *
 * Why: on lavapipe these kernels pay per row stream (one vec4 access per
 * four elements of a row, a loop over the SIMD lanes each), not per byte.
 * The staged form writes du to scratch and reads it back, and each of its
 * three row kernels reads its inputs twice: 22 streams per row. Here du is
 * recomputed from x, y and dh wherever it is needed, which is arithmetic,
 * and P's and Q's sums, linear in I's, are taken beside them:
 *   1. I's, P's and Q's sums (x, y, dh, dxn), a group of rows at a time
 *   2. dx and dy, the six partials (x, y, dh, dxn, dy_in; dx, dy and dz
 *      written), two groups at a time, so that each partial is read and
 *      written once per two groups
 * 11 streams, and one dispatch instead of three; dz is one more, against
 * three and a dispatch for residual_bwd. P's and Q's LayerNorm means are
 * the forward's K + m (SVK_SIAMESE_MEAN_ROWS), not summed again: a pass
 * over x and y fewer.
 *
 * Lanes as in norm_bwd_cpu.comp: lane p walks rows [p R, (p + 1) R)
 * in order (common/row_cpu_lanes.glsl, RC_LANE_ROWS two groups: pass 1
 * RC_ROWS rows at a time, pass 2 up to twice that); the partials take the rows' contributions in row order. dx may
 * be dxn or dh exactly, dy may be dy_in or dh: a row's
 * element is read before it is written, in the last pass, by the one
 * invocation that owns the row.
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "bwd-cpu" rows; "bwd-cpu-staged" are the staged form).
 *
 * Variants (shaders/meson.build):
 * siamese_norm_bwd_fused_texel (SVK_TEXEL) reads the rows of dh, dxn,
 * dy_in, x and y through RGBA32F uniform texel views (bindings 13 to 17,
 * the same buffers as bindings 0 to 4), four elements per fetch; VEC4 only
 * (lib/ops picks it where the rows are vec4-aligned and the buffers can be
 * viewed). lavapipe runs a storage-buffer load whose address differs per
 * lane as a loop over the SIMD lanes, under the row loop's lane mask; a
 * texel fetch is one call of a gather. dx may be dxn or dh, and dy dy_in
 * or dh: each element is fetched (in every pass) before the one invocation
 * that owns its row writes it, in the last pass, so a view that does not
 * see the writes of its own dispatch reads the right values. Same results,
 * bit for bit.
 * siamese_norm_bwd_fused_split (SVK_TEXEL, SVK_SPLIT) walks each lane of
 * partials with the lanes of a subgroup instead of one invocation, each of
 * them taking every RS_LANES-th vec4 of the rows and of the partials: for
 * wide rows on CPU devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_WIDE_MIN_WIDTH on). Same outputs to within the sums'
 * rounding (their order differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/variants.glsl"

#include "common/push_siamese_norm_bwd_fused.h"

#define SVK_VIEW4
#include "common/kernel.glsl"
#include "common/siamese_norm_bwd_fused_bindings.glsl"
#ifdef SVK_TEXEL
layout(set = 0, binding = 13) uniform textureBuffer dh_t4;
layout(set = 0, binding = 14) uniform textureBuffer dxn_t4;
layout(set = 0, binding = 15) uniform textureBuffer dyi_t4;
layout(set = 0, binding = 16) uniform textureBuffer x_t4;
layout(set = 0, binding = 17) uniform textureBuffer y_t4;
#define SN_LD_DH(e) texelFetch(dh_t4, int((e) >> 2))
#define SN_LD_DXN(e) texelFetch(dxn_t4, int((e) >> 2))
#define SN_LD_DYI(e) texelFetch(dyi_t4, int((e) >> 2))
#define SN_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define SN_LD_Y(e) texelFetch(y_t4, int((e) >> 2))
#else
#define SN_LD_DH(e) RC_LD(dh, dh4, e)
#define SN_LD_DXN(e) RC_LD(dxn, dxn4, e)
#define SN_LD_DYI(e) RC_LD(dyi, dyi4, e)
#define SN_LD_X(e) RC_LD(x, x4, e)
#define SN_LD_Y(e) RC_LD(y, y4, e)
#endif

#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

const bool RMS = (RC_FLAGS & SVK_SIAMESE_FLAG_RMS) != 0u;
const bool ADD_DXN = (RC_FLAGS & SVK_SIAMESE_FLAG_ADD_DXN) != 0u;
const bool ADD_DY = (RC_FLAGS & SVK_SIAMESE_FLAG_ADD_DY) != 0u;
const bool DZ = (RC_FLAGS & SVK_SIAMESE_FLAG_DZ) != 0u;

#define P_LD(e) RC_LD(part, part4, e)
#define P_ST(e, v) RC_ST(part, part4, e, v)

/* The rows being walked, in slots: pass 1 takes a group of up to RC_ROWS
 * of them, pass 2 up to two groups (SN_SLOTS) at once, so that each
 * partial is read and written once per two groups (the partials are
 * storage accesses, on lavapipe a loop over the SIMD lanes each; measured,
 * their read-modify-writes were 12-24% of the kernel with one group). */
const uint SN_SLOTS = 2u * RC_ROWS;
uint e_[SN_SLOTS];                           /* first element of the row */
float rsP[SN_SLOTS], rsQ[SN_SLOTS], rsI[SN_SLOTS];
float muP[SN_SLOTS], muQ[SN_SLOTS], muI[SN_SLOTS]; /* the saved means (LayerNorm) */
float Kx[SN_SLOTS], mx[SN_SLOTS], Ky[SN_SLOTS], my[SN_SLOTS]; /* P's, Q's means as the forward's K + m */
float mdI[SN_SLOTS], mdxI[SN_SLOTS];          /* I's mean(dxhat), mean(dxhat xhat) */
float mdP[SN_SLOTS], mdxP[SN_SLOTS], mdQ[SN_SLOTS], mdxQ[SN_SLOTS]; /* P's and Q's, from pass 1's sums */

/* The parameters of the chunk at element i of a row. */
struct params {
    vec4 gp, bp, gq, bq, gi;
};

params params_at(const uint i)
{
    const uint C = pc.C;
    params q;
    q.gp = RC_LD(g, g4, pc.off_g + i);
    q.gq = RC_LD(g, g4, pc.off_g + C + i);
    q.gi = RC_LD(g, g4, pc.off_g + 2u * C + i);
    if (!RMS) {
        q.bp = RC_LD(b, b4, pc.off_b + i);
        q.bq = RC_LD(b, b4, pc.off_b + C + i);
    } else {
        q.bp = q.bq = vec4(0.0);
    }
    return q;
}

/* I's normalised input at a chunk of row k, u = P(x) + Q(y) recomputed as
 * siamese_norm_bwd_cpu.comp does (the forward's formulas). */
vec4 xhat_i(const uint k, const vec4 xv, const vec4 yv, const params q)
{
    if (RMS)
        return (xv * rsP[k] * q.gp + yv * rsQ[k] * q.gq) * rsI[k];
    const vec4 p = ((xv - Kx[k]) - mx[k]) * rsP[k] * q.gp + q.bp;
    const vec4 u = p + (((yv - Ky[k]) - my[k]) * rsQ[k] * q.gq + q.bq);
    return (u - muI[k]) * rsI[k];
}

/* P's and Q's normalised inputs at a chunk of row k (x, y). */
vec4 xhat_p(const uint k, const vec4 xv)
{
    return RMS ? xv * rsP[k] : (xv - muP[k]) * rsP[k];
}

vec4 xhat_q(const uint k, const vec4 yv)
{
    return RMS ? yv * rsQ[k] : (yv - muQ[k]) * rsQ[k];
}

/* du, the gradient of u, at a chunk of row k (after pass 1's sums); xh:
 * xhat_i there. */
vec4 du_at(const uint k, const vec4 xh, const vec4 d, const params q)
{
    if (RMS)
        return rsI[k] * (d * q.gi - xh * mdxI[k]);
    return rsI[k] * (d * q.gi - mdI[k] - xh * mdxI[k]);
}

/* Rows row .. row + n - 1 into slots s0 .. s0 + n - 1 (s0 and n constants
 * once inlined): where they start, their saved statistics. */
void load_rows(const uint row, const uint n, const uint s0)
{
    const uint C = pc.C, R = pc.rows;
    [[unroll]] for (uint j = 0u; j < n; j++) {
        const uint k = s0 + j;
        e_[k] = (row + j) * C;
        rsP[k] = rstd[pc.off_rstd + row + j];
        rsQ[k] = rstd[pc.off_rstd + R + row + j];
        rsI[k] = rstd[pc.off_rstd + 2u * R + row + j];
        if (!RMS) {
            muP[k] = mean[pc.off_mean + row + j];
            muQ[k] = mean[pc.off_mean + R + row + j];
            muI[k] = mean[pc.off_mean + 2u * R + row + j];
            Kx[k] = x[pc.off_x + e_[k]];
            Ky[k] = y[pc.off_y + e_[k]];
            mx[k] = mean[pc.off_mean + 3u * R + row + j];
            my[k] = mean[pc.off_mean + 4u * R + row + j];
        }
    }
}

/* Pass 1 over slots s0 .. s0 + n - 1 (one group): the rows' sums, and
 * from them mdI .. mdxQ. */
void pass1(const uint s0, const uint n)
{
    const uint C = pc.C;
    /* The sums of all three norms. P's and Q's sums are over du (times
     * their gains, and their normalised inputs), and du needs I's sums,
     * which this same pass takes; but du is linear in them,
     * du = rsI (d gI - mdI - xh mdxI), so each of P's and Q's sums is a
     * combination of sums this pass can take without them (g, xn: P's or
     * Q's gain and normalised input):
     *   sum(du g)    = rsI (sum(d gI g)    - mdI sum(g)    - mdxI sum(xh g)),
     *   sum(du g xn) = rsI (sum(d gI g xn) - mdI sum(g xn) - mdxI sum(xh g xn)),
     * and dxn's share of P's as sum(dxn g), sum(dxn g xn). A pass over x, y,
     * dh and dxn fewer than taking P's and Q's sums over du in a pass of
     * their own (measured on lavapipe: 11 row streams, not 14; the
     * kernel 1.13x faster in the default step).
     * I's sums and the gains' are compensated (rc_add) as everywhere; P's
     * and Q's twelve are plain sums. Their error reaches dx and dy through
     * P's and Q's means, each divided by C: about an ulp of the terms
     * (d gI g), the size of the rounding du itself carries, whether or not
     * the combination cancels. Compensating them as well was slower than
     * the pass it replaces (twice the accumulators, which spill). */
    {
        /* I: sum(d gI), sum(d gI xh). P (Q): p1 sum(d gI g), p2 sum(xh g),
         * p3 sum(d gI g xn), p4 sum(g xn), p5 sum(xh g xn); P's dxn: p6
         * sum(dxn g), p7 sum(dxn g xn). The means' sums only for
         * LayerNorm; sgp, sgq: sum(g), the same for every row. */
        float sd[RC_ROWS], sd_c[RC_ROWS], sdx[RC_ROWS], sdx_c[RC_ROWS];
        vec4 p1[RC_ROWS], p2[RC_ROWS], p3[RC_ROWS], p4[RC_ROWS], p5[RC_ROWS], p6[RC_ROWS], p7[RC_ROWS];
        vec4 q1[RC_ROWS], q2[RC_ROWS], q3[RC_ROWS], q4[RC_ROWS], q5[RC_ROWS];
        float sgp = 0.0, sgp_c = 0.0, sgq = 0.0, sgq_c = 0.0;
        [[unroll]] for (uint j = 0u; j < n; j++) {
            sd[j] = sd_c[j] = sdx[j] = sdx_c[j] = 0.0;
            p1[j] = p2[j] = p3[j] = p4[j] = p5[j] = p6[j] = p7[j] = vec4(0.0);
            q1[j] = q2[j] = q3[j] = q4[j] = q5[j] = vec4(0.0);
        }
        RS_ROW_LOOP(i, C) {
            const params q = params_at(i);
            if (!RMS) {
                rc_add(sgp, sgp_c, q.gp);
                rc_add(sgq, sgq_c, q.gq);
            }
            [[unroll]] for (uint j = 0u; j < n; j++) {
                const uint k = s0 + j, ek = e_[k] + i;
                const vec4 xv = SN_LD_X(pc.off_x + ek), yv = SN_LD_Y(pc.off_y + ek);
                const vec4 xh = xhat_i(k, xv, yv, q);
                const vec4 d = SN_LD_DH(pc.off_dh + ek), dxhat = d * q.gi;
                const vec4 xhp = xhat_p(k, xv), xhq = xhat_q(k, yv);
                const vec4 gxp = q.gp * xhp, gxq = q.gq * xhq;
                if (!RMS) {
                    rc_add(sd[j], sd_c[j], dxhat);
                    p1[j] += dxhat * q.gp;
                    p2[j] += xh * q.gp;
                    p4[j] += gxp;
                    q1[j] += dxhat * q.gq;
                    q2[j] += xh * q.gq;
                    q4[j] += gxq;
                }
                rc_add(sdx[j], sdx_c[j], dxhat * xh);
                p3[j] += dxhat * gxp;
                p5[j] += xh * gxp;
                q3[j] += dxhat * gxq;
                q5[j] += xh * gxq;
                if (ADD_DXN) {
                    const vec4 dn = SN_LD_DXN(pc.off_dxn + ek);
                    if (!RMS)
                        p6[j] += dn * q.gp;
                    p7[j] += dn * gxp;
                }
            }
        }
        /* Split, each sum is the subgroup's (RS_TOTAL, RS_ALL). */
        const float fC = float(C), Sgp = RS_TOTAL(sgp, sgp_c), Sgq = RS_TOTAL(sgq, sgq_c);
#define SN_S(v) RS_ALL(rc_sum(v))
        [[unroll]] for (uint j = 0u; j < n; j++) {
            const uint k = s0 + j;
            mdI[k] = RMS ? 0.0 : RS_TOTAL(sd[j], sd_c[j]) / fC;
            mdxI[k] = RS_TOTAL(sdx[j], sdx_c[j]) / fC;
            const float a = mdI[k], c = mdxI[k];
            mdP[k] = RMS ? 0.0 : (rsI[k] * ((SN_S(p1[j]) - a * Sgp) - c * SN_S(p2[j])) + SN_S(p6[j])) / fC;
            mdQ[k] = RMS ? 0.0 : (rsI[k] * ((SN_S(q1[j]) - a * Sgq) - c * SN_S(q2[j]))) / fC;
            mdxP[k] = (rsI[k] * ((SN_S(p3[j]) - a * SN_S(p4[j])) - c * SN_S(p5[j])) + SN_S(p7[j])) / fC;
            mdxQ[k] = (rsI[k] * ((SN_S(q3[j]) - a * SN_S(q4[j])) - c * SN_S(q5[j]))) / fC;
        }
#undef SN_S
    }
}

/* Pass 2 over slots 0 .. n - 1 (one or two groups): dx and dy, and all six
 * partials, each read and written once; pg: the lane's row of P's gain
 * block; first: slot 0 is the lane's first row (the partials start from
 * its contribution). The partials take the rows in row order, as one row
 * at a time would. */
void pass2(const uint n, const uint pg, const bool first)
{
    const uint C = pc.C;
    const uint pgQ = pg + pc.part_norm, pgI = pg + 2u * pc.part_norm, pb = pc.part_b;
    RS_ROW_LOOP(i, C) {
        const params q = params_at(i);
        vec4 pgp, pbp, pgq, pbq, pgi, pbi;
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const uint ek = e_[k] + i;
            const vec4 xv = SN_LD_X(pc.off_x + ek), yv = SN_LD_Y(pc.off_y + ek);
            const vec4 d = SN_LD_DH(pc.off_dh + ek);
            const vec4 xh = xhat_i(k, xv, yv, q);
            const vec4 du = du_at(k, xh, d, q);
            vec4 dvp = du;
            if (ADD_DXN)
                dvp += SN_LD_DXN(pc.off_dxn + ek);
            const vec4 xhp = xhat_p(k, xv), xhq = xhat_q(k, yv);
            vec4 vx, vy;
            if (RMS) {
                vx = rsP[k] * (dvp * q.gp - xhp * mdxP[k]);
                vy = rsQ[k] * (du * q.gq - xhq * mdxQ[k]);
            } else {
                vx = rsP[k] * (dvp * q.gp - mdP[k] - xhp * mdxP[k]);
                vy = rsQ[k] * (du * q.gq - mdQ[k] - xhq * mdxQ[k]);
            }
            if (ADD_DY)
                vy += SN_LD_DYI(pc.off_dy_in + ek);
            const vec4 cgp = dvp * xhp, cgq = du * xhq, cgi = d * xh;
            if (k == 0u) {
                pgp = first ? cgp : P_LD(pg + i) + cgp;
                pgq = first ? cgq : P_LD(pgQ + i) + cgq;
                pgi = first ? cgi : P_LD(pgI + i) + cgi;
                if (!RMS) {
                    pbp = first ? dvp : P_LD(pg + pb + i) + dvp;
                    pbq = first ? du : P_LD(pgQ + pb + i) + du;
                    pbi = first ? d : P_LD(pgI + pb + i) + d;
                }
            } else {
                pgp += cgp;
                pgq += cgq;
                pgi += cgi;
                if (!RMS) {
                    pbp += dvp;
                    pbq += du;
                    pbi += d;
                }
            }
            RC_ST(dx, dx4, pc.off_dx + ek, vx);
            RC_ST(dy, dy4, pc.off_dy + ek, vy);
            if (DZ)
                RC_ST(dz, dz4, pc.off_dz + ek, vx / pc.dz_c + vy);
        }
        P_ST(pg + i, pgp);
        P_ST(pgQ + i, pgq);
        P_ST(pgI + i, pgi);
        if (!RMS) {
            P_ST(pg + pb + i, pbp);
            P_ST(pgQ + pb + i, pbq);
            P_ST(pgI + pb + i, pbi);
        }
    }
}

/* Rows row .. row + n - 1 of a lane (n is SN_SLOTS, RC_ROWS or 1, a
 * constant once inlined; common/row_cpu_lanes.glsl walks the lane): pass 1
 * for each group of RC_ROWS, then one pass 2 for all of them. */
void lane_rows(const uint row, const uint n, const uint pg, const bool first)
{
    if (n == SN_SLOTS) {
        load_rows(row, RC_ROWS, 0u);
        pass1(0u, RC_ROWS);
        load_rows(row + RC_ROWS, RC_ROWS, RC_ROWS);
        pass1(RC_ROWS, RC_ROWS);
    } else {
        load_rows(row, n, 0u);
        pass1(0u, n);
    }
    pass2(n, pg, first);
}

#define RC_LANE_WIDTH pc.C
#define RC_LANE_ROWS SN_SLOTS
#define RC_LANE_UNIT RS_GROUP
#include "common/row_cpu_lanes.glsl"
