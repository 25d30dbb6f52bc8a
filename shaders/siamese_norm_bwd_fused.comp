#version 450
/*
 * SiameseNorm backward in one dispatch, the portable form (GPUs): what the
 * staged form (siamese_norm_bwd, then layernorm_bwd / rmsnorm_bwd for Q and
 * P, then residual_bwd for dz; lib/ops/siamese_norm.c) computes, with its
 * formulas and its partials layout, and what the fused CPU form
 * (siamese_norm_bwd_fused_cpu.comp) computes with lanes of one invocation:
 *   u = P(x) + Q(y), recomputed as the forward did; h = I(u)
 *   du = I's backward of dh
 *   dx = P's backward of du (+ dxn),  dy = Q's backward of du (+ dy_in)
 * and the lanes' gain and bias partials of P, Q and I, which
 * norm_param_reduce.comp then adds to dg and db in lane order; with
 * SVK_SIAMESE_FLAG_DZ also dz = dx / dz_c + dy (residual_bwd.comp's
 * formula, from the same floats).
 *
 * Why: on a GPU the staged form's four dispatches per norm are each too
 * small to fill the device (a few microseconds of memory traffic at the
 * training step's shapes) and each waits for the one before: measured on
 * an H200, the norm backward was most of SiameseNorm's cost over the
 * pre-norm step. Here du is recomputed wherever it is needed, never
 * stored, and one dispatch does it all. Per row:
 *   1. I's sums and partials
 *   2. P's and Q's sums and partials
 *   3. dx, dy (and dz)
 * each pass a loop over the invocation's elements, the first two with a
 * row sum (common/norm_row.glsl). P's and Q's LayerNorm means are the
 * forward's K + m (SVK_SIAMESE_MEAN_ROWS, see siamese_norm_bwd.comp), not
 * summed again: a pass and a row sum fewer.
 *
 * Lanes as in norm_bwd.comp: lane p, a row of WG_X invocations, walks
 * rows [p R, (p + 1) R) in order, NR of them at once: their loads are
 * independent and one row sum (16 values) serves all of them, where rows
 * walked one by one left the device waiting on each row's chain of loads
 * and barriers (measured on an H200: 38 us per dispatch at 1024 x 128, of
 * which a few are memory traffic). The partials still take the rows'
 * contributions in row order, so the sums are those of one row at a time.
 * dx may be dxn or dh exactly, dy may be dy_in or dh: an element is read,
 * in the last pass, by the invocation that owns it before that invocation
 * writes it.
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "bwd" rows of siamese_norm and siamese_out; "bwd-staged" are the
 * staged form).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/push_siamese_norm_bwd_fused.h"

#include "common/kernel.glsl"
#include "common/siamese_norm_bwd_fused_bindings.glsl"

#define NR_LANES pc.n_part /* a lane per partial */
#include "common/norm_row.glsl"

/* Rows a lane walks at once. */
const uint NR = 4u;

shared vec4 red16[WG_X * WG_Y * 4u];

/* The sums of v[0..3] over the WG_X invocations of this lane, returned to
 * all of them: nr_row_sum's tree (common/norm_row.glsl), four vec4s at a
 * time, with its rules (every invocation of the workgroup calls it the same
 * number of times; inactive ones pass zeros). */
void row_sum16(inout vec4 v[4])
{
    const uint lx = gl_LocalInvocationID.x;
    const uint at = (gl_LocalInvocationID.y * WG_X + lx) * 4u, base = gl_LocalInvocationID.y * WG_X * 4u;
    [[unroll]] for (uint q = 0u; q < 4u; q++)
        red16[at + q] = v[q];
    barrier();
    uint span = 1u;
    while (span < WG_X)
        span <<= 1u;
    for (uint s = span >> 1u; s > 0u; s >>= 1u) {
        if (lx < s && lx + s < WG_X)
            [[unroll]] for (uint q = 0u; q < 4u; q++)
                red16[at + q] += red16[at + 4u * s + q];
        barrier();
    }
    [[unroll]] for (uint q = 0u; q < 4u; q++)
        v[q] = red16[base + q];
    /* The next call overwrites what slower invocations may still read. */
    barrier();
}

/* main's recomputation of the forward at one element of row k (of the
 * rows a lane walks at once), written once for its three steps; macros, as
 * they read main's per-row arrays and the gains gp, gq, gi and biases bp,
 * bq at the element's column.
 * SN_XHAT_I: I's xhat (xh) from x and y at the element (xv, yv), u rebuilt
 * in the forward's order. */
#define SN_XHAT_I(k) \
    float xh; \
    if (rms) { \
        xh = (xv * rsP[k] * gp + yv * rsQ[k] * gq) * rsI[k]; \
    } else { \
        const float p = ((xv - Kx[k]) - mx[k]) * rsP[k] * gp + bp; \
        const float u = p + (((yv - Ky[k]) - my[k]) * rsQ[k] * gq + bq); \
        xh = (u - muI[k]) * rsI[k]; \
    }

/* SN_DU, steps 2 and 3 (from I's sums mdI, mdxI), at element ek: xv, yv,
 * xh, du = d/du, dvp (du and the dxn passed in, P's gradient) and P's and
 * Q's xhat (xhp, xhq). */
#define SN_DU(k, ek) \
    const float xv = x[pc.off_x + ek], yv = y[pc.off_y + ek]; \
    SN_XHAT_I(k) \
    const float du = rsI[k] * (dh[pc.off_dh + ek] * gi - mdI[k] - xh * mdxI[k]); \
    float dvp = du; \
    if (add_dxn) \
        dvp += dxn[pc.off_dxn + ek]; \
    const float xhp = (xv - muP[k]) * rsP[k], xhq = (yv - muQ[k]) * rsQ[k];

void nr_lane_main(const uint lane, const bool lane_on)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint C = pc.C, R = pc.rows, RP = pc.rows_per_part;
    const bool rms = (pc.flags & SVK_SIAMESE_FLAG_RMS) != 0u;
    const bool add_dxn = (pc.flags & SVK_SIAMESE_FLAG_ADD_DXN) != 0u;
    const bool add_dy = (pc.flags & SVK_SIAMESE_FLAG_ADD_DY) != 0u;
    const bool want_dz = (pc.flags & SVK_SIAMESE_FLAG_DZ) != 0u;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C;
    /* This lane's row of each norm's gain block; bias blocks part_b after. */
    const uint pgP = pc.off_part + lane * C, pgQ = pgP + pc.part_norm, pgI = pgP + 2u * pc.part_norm;
    const uint pb = pc.part_b;

    /* The same trip count in every lane: the row sums hold barriers. */
    for (uint j0 = 0u; j0 < RP; j0 += NR) {
        bool on[NR];
        uint e[NR];
        float rsP[NR], rsQ[NR], rsI[NR], muP[NR], muQ[NR], muI[NR];
        float Kx[NR], Ky[NR], mx[NR], my[NR];
        [[unroll]] for (uint k = 0u; k < NR; k++) {
            const uint row = lane * RP + j0 + k;
            on[k] = lane_on && j0 + k < RP && row < R;
            e[k] = row * C;
            rsP[k] = on[k] ? rstd[pc.off_rstd + row] : 0.0;
            rsQ[k] = on[k] ? rstd[pc.off_rstd + R + row] : 0.0;
            rsI[k] = on[k] ? rstd[pc.off_rstd + 2u * R + row] : 0.0;
            const bool ln = on[k] && !rms;
            muP[k] = ln ? mean[pc.off_mean + row] : 0.0;
            muQ[k] = ln ? mean[pc.off_mean + R + row] : 0.0;
            muI[k] = ln ? mean[pc.off_mean + 2u * R + row] : 0.0;
            Kx[k] = ln ? x[pc.off_x + e[k]] : 0.0;
            Ky[k] = ln ? y[pc.off_y + e[k]] : 0.0;
            mx[k] = ln ? mean[pc.off_mean + 3u * R + row] : 0.0;
            my[k] = ln ? mean[pc.off_mean + 4u * R + row] : 0.0;
        }

        /* 1. I's sums and partials: xhat of u, dxhat = dh g_I. */
        float sd[NR], sdx[NR];
        [[unroll]] for (uint k = 0u; k < NR; k++)
            sd[k] = sdx[k] = 0.0;
        for (uint i = lx; i < C; i += WG_X) {
            const float gp = g[gP + i], gq = g[gQ + i], gi = g[gI + i];
            const float bp = rms ? 0.0 : b[bP + i], bq = rms ? 0.0 : b[bQ + i];
            float pg = 0.0, pbias = 0.0;
            [[unroll]] for (uint k = 0u; k < NR; k++)
                if (on[k]) {
                    const float xv = x[pc.off_x + e[k] + i], yv = y[pc.off_y + e[k] + i];
                    SN_XHAT_I(k)
                    const float d = dh[pc.off_dh + e[k] + i], dxhat = d * gi;
                    sd[k] += dxhat;
                    sdx[k] += dxhat * xh;
                    const float cg = d * xh;
                    if (k == 0u) {
                        pg = j0 == 0u ? cg : part[pgI + i] + cg;
                        pbias = j0 == 0u ? d : (rms ? 0.0 : part[pgI + pb + i]) + d;
                    } else {
                        pg += cg;
                        pbias += d;
                    }
                }
            if (on[0]) {
                part[pgI + i] = pg;
                if (!rms)
                    part[pgI + pb + i] = pbias;
            }
        }
        vec4 s2[4] = {vec4(sd[0], sdx[0], sd[1], sdx[1]), vec4(sd[2], sdx[2], sd[3], sdx[3]), vec4(0.0), vec4(0.0)};
        row_sum16(s2);
        float mdI[NR], mdxI[NR];
        [[unroll]] for (uint k = 0u; k < NR; k++) {
            mdI[k] = rms ? 0.0 : s2[k / 2u][2u * (k % 2u)] / float(C);
            mdxI[k] = s2[k / 2u][2u * (k % 2u) + 1u] / float(C);
        }

        /* 2. P's and Q's sums and partials, from du recomputed. */
        vec4 s3[4];
        [[unroll]] for (uint k = 0u; k < NR; k++)
            s3[k] = vec4(0.0); /* sdp, sdxp, sdq, sdxq of row k */
        for (uint i = lx; i < C; i += WG_X) {
            const float gp = g[gP + i], gq = g[gQ + i], gi = g[gI + i];
            const float bp = rms ? 0.0 : b[bP + i], bq = rms ? 0.0 : b[bQ + i];
            float cp = 0.0, cq = 0.0, cbp = 0.0, cbq = 0.0;
            [[unroll]] for (uint k = 0u; k < NR; k++)
                if (on[k]) {
                    const uint ek = e[k] + i;
                    SN_DU(k, ek)
                    const float dxhp = dvp * gp, dxhq = du * gq;
                    s3[k] += vec4(dxhp, dxhp * xhp, dxhq, dxhq * xhq);
                    const float cgp = dvp * xhp, cgq = du * xhq;
                    if (k == 0u) {
                        cp = j0 == 0u ? cgp : part[pgP + i] + cgp;
                        cq = j0 == 0u ? cgq : part[pgQ + i] + cgq;
                        cbp = j0 == 0u ? dvp : (rms ? 0.0 : part[pgP + pb + i]) + dvp;
                        cbq = j0 == 0u ? du : (rms ? 0.0 : part[pgQ + pb + i]) + du;
                    } else {
                        cp += cgp;
                        cq += cgq;
                        cbp += dvp;
                        cbq += du;
                    }
                }
            if (on[0]) {
                part[pgP + i] = cp;
                part[pgQ + i] = cq;
                if (!rms) {
                    part[pgP + pb + i] = cbp;
                    part[pgQ + pb + i] = cbq;
                }
            }
        }
        row_sum16(s3);

        /* 3. dx, dy (and dz): every input of an element read before it is
         * written. */
        for (uint i = lx; i < C; i += WG_X) {
            const float gp = g[gP + i], gq = g[gQ + i], gi = g[gI + i];
            const float bp = rms ? 0.0 : b[bP + i], bq = rms ? 0.0 : b[bQ + i];
            [[unroll]] for (uint k = 0u; k < NR; k++)
                if (on[k]) {
                    const uint ek = e[k] + i;
                    SN_DU(k, ek)
                    const float mdP = rms ? 0.0 : s3[k].x / float(C), mdxP = s3[k].y / float(C);
                    const float mdQ = rms ? 0.0 : s3[k].z / float(C), mdxQ = s3[k].w / float(C);
                    /* precise, as in norm_bwd.comp: no fma may fuse a
                     * product into the subtraction of its own mean. */
                    precise float vx = rsP[k] * (dvp * gp - mdP - xhp * mdxP);
                    precise float vy = rsQ[k] * (du * gq - mdQ - xhq * mdxQ);
                    if (add_dy)
                        vy += dyi[pc.off_dy_in + ek];
                    dx[pc.off_dx + ek] = vx;
                    dy[pc.off_dy + ek] = vy;
                    if (want_dz)
                        dz[pc.off_dz + ek] = vx / pc.dz_c + vy;
                }
        }
    }
}
