#version 450
/*
 * SiameseNorm backward, first stage, the CPU form (common/row_cpu.glsl) of
 * siamese_norm_bwd.comp: the same du of u = P(x) + Q(y) into scratch and
 * the same partials of I's gain and bias gradients, with u recomputed as
 * there (its LayerNorm P and Q means as the forward's K + m). One invocation
 * per lane walking its rows in order, RC_ROWS at a time (lanes as in
 * norm_bwd_cpu.comp).
 * The P and Q stages are layernorm_bwd_cpu / rmsnorm_bwd_cpu dispatches
 * reading du (lib/ops/siamese_norm.c).
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/push_siamese_norm_bwd.h"

#define SVK_VIEW4
#include "common/kernel.glsl"
#include "common/siamese_norm_bwd_bindings.glsl"

#include "common/row_cpu.glsl"

#define S_LD(e) RC_LD(scratch, scratch4, e)
#define S_ST(e, v) RC_ST(scratch, scratch4, e, v)

/* Rows row .. row + n - 1 of a lane (n is RC_ROWS or 1, a constant once
 * inlined; common/row_cpu.glsl), I's gain partial row at element pg; first:
 * row is the lane's first row (partials start from its contribution). The
 * partials take the rows' contributions in row order, as one row at a time
 * would. */
void lane_rows(const uint row, const uint n, const uint pg, const bool first)
{
    const uint C = pc.C, R = pc.rows;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C, pb = pg + pc.part_b;
    uint e[RC_ROWS];
    float rsx[RC_ROWS], rsy[RC_ROWS], rsu[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        e[k] = (row + k) * C;
        rsx[k] = rstd[pc.off_rstd + row + k];
        rsy[k] = rstd[pc.off_rstd + R + row + k];
        rsu[k] = rstd[pc.off_rstd + 2u * R + row + k];
    }

    if ((RC_FLAGS & SVK_SIAMESE_FLAG_RMS) != 0u) {
        float sdx[RC_ROWS], sdx_c[RC_ROWS];
        [[unroll]] for (uint k = 0u; k < n; k++)
            sdx[k] = sdx_c[k] = 0.0;
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 gp = RC_LD(g, g4, gP + i), gq = RC_LD(g, g4, gQ + i), gi = RC_LD(g, g4, gI + i);
            vec4 pgi; /* the partial with rows row .. row + k added */
            [[unroll]] for (uint k = 0u; k < n; k++) {
                const uint ek = e[k] + i;
                const vec4 u = RC_LD(x, x4, pc.off_x + ek) * rsx[k] * gp + RC_LD(y, y4, pc.off_y + ek) * rsy[k] * gq;
                S_ST(pc.off_du + ek, u);
                const vec4 xhat = u * rsu[k], d = RC_LD(dh, dh4, pc.off_dh + ek);
                rc_add(sdx[k], sdx_c[k], d * gi * xhat);
                const vec4 cg = d * xhat;
                if (k == 0u)
                    pgi = first ? cg : S_LD(pg + i) + cg;
                else
                    pgi += cg;
            }
            S_ST(pg + i, pgi);
        }
        float mean_dx[RC_ROWS];
        [[unroll]] for (uint k = 0u; k < n; k++)
            mean_dx[k] = sdx[k] / float(C);
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 gi = RC_LD(g, g4, gI + i);
            [[unroll]] for (uint k = 0u; k < n; k++) {
                const uint ek = e[k] + i;
                const vec4 xhat = S_LD(pc.off_du + ek) * rsu[k];
                S_ST(pc.off_du + ek, rsu[k] * (RC_LD(dh, dh4, pc.off_dh + ek) * gi - xhat * mean_dx[k]));
            }
        }
        return;
    }

    /* LayerNorm: P's and Q's means as the forward's K + m. */
    float Kx[RC_ROWS], Ky[RC_ROWS], mx[RC_ROWS], my[RC_ROWS], muu[RC_ROWS];
    float sd[RC_ROWS], sd_c[RC_ROWS], sdx[RC_ROWS], sdx_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        Kx[k] = x[pc.off_x + e[k]];
        Ky[k] = y[pc.off_y + e[k]];
        mx[k] = mean[pc.off_mean + 3u * R + row + k];
        my[k] = mean[pc.off_mean + 4u * R + row + k];
        muu[k] = mean[pc.off_mean + 2u * R + row + k];
        sd[k] = sd_c[k] = sdx[k] = sdx_c[k] = 0.0;
    }

    for (uint i = 0u; i < C; i += RC_STEP) {
        const vec4 gp = RC_LD(g, g4, gP + i), bp = RC_LD(b, b4, bP + i);
        const vec4 gq = RC_LD(g, g4, gQ + i), bq = RC_LD(b, b4, bQ + i), gi = RC_LD(g, g4, gI + i);
        vec4 pgi, pbi; /* the partials with rows row .. row + k added */
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const uint ek = e[k] + i;
            const vec4 p = ((RC_LD(x, x4, pc.off_x + ek) - Kx[k]) - mx[k]) * rsx[k] * gp + bp;
            const vec4 u = p + (((RC_LD(y, y4, pc.off_y + ek) - Ky[k]) - my[k]) * rsy[k] * gq + bq);
            S_ST(pc.off_du + ek, u);
            const vec4 xhat = (u - muu[k]) * rsu[k], d = RC_LD(dh, dh4, pc.off_dh + ek);
            const vec4 dxhat = d * gi;
            rc_add(sd[k], sd_c[k], dxhat);
            rc_add(sdx[k], sdx_c[k], dxhat * xhat);
            const vec4 cg = d * xhat;
            if (k == 0u) {
                pgi = first ? cg : S_LD(pg + i) + cg;
                pbi = first ? d : S_LD(pb + i) + d;
            } else {
                pgi += cg;
                pbi += d;
            }
        }
        S_ST(pg + i, pgi);
        S_ST(pb + i, pbi);
    }
    float mean_d[RC_ROWS], mean_dx[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        mean_d[k] = sd[k] / float(C);
        mean_dx[k] = sdx[k] / float(C);
    }
    for (uint i = 0u; i < C; i += RC_STEP) {
        const vec4 gi = RC_LD(g, g4, gI + i);
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const uint ek = e[k] + i;
            const vec4 xhat = (S_LD(pc.off_du + ek) - muu[k]) * rsu[k];
            const vec4 dxhat = RC_LD(dh, dh4, pc.off_dh + ek) * gi;
            S_ST(pc.off_du + ek, rsu[k] * (dxhat - mean_d[k] - xhat * mean_dx[k]));
        }
    }
}

void main()
{
    const uint lane = rc_unit();
    if (lane >= pc.n_part)
        return;
    const uint pg = pc.off_part + lane * pc.C;
    const uint r0 = lane * pc.rows_per_part, r1 = min(r0 + pc.rows_per_part, pc.rows);
    uint row = r0;
    for (; row + RC_ROWS <= r1; row += RC_ROWS)
        lane_rows(row, RC_ROWS, pg, row == r0);
    for (; row < r1; row++)
        lane_rows(row, 1u, pg, row == r0);
}
