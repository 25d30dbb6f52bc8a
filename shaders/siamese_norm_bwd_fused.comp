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
 * stored, and one dispatch does it all. Per row, LayerNorm:
 *   1. the sums for P's and Q's means (as K + m, see siamese_norm_bwd.comp)
 *   2. I's sums and partials
 *   3. P's and Q's sums and partials
 *   4. dx, dy (and dz)
 * each pass a loop over the invocation's elements and a row sum
 * (common/norm_row.glsl); RMSNorm skips pass 1.
 *
 * Lanes as in layernorm_bwd.comp: lane p, a row of WG_X invocations, walks
 * rows [p R, (p + 1) R) in order. dx may be dxn or dh exactly, dy may be
 * dy_in or dh: an element is read, in the last pass, by the invocation that
 * owns it before that invocation writes it.
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "bwd" rows of siamese_norm and siamese_out; "bwd-staged" are the
 * staged form).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_siamese_norm_bwd_fused.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDh { float dh[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDxn { float dxn[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufDyIn { float dyi[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufY { float y[]; };
layout(set = 0, binding = 5, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 6, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 7, std430) readonly buffer BufMean { float mean[]; };
layout(set = 0, binding = 8, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 9, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 10, std430) writeonly buffer BufDy { float dy[]; };
layout(set = 0, binding = 11, std430) buffer BufPart { float part[]; };
layout(set = 0, binding = 12, std430) writeonly buffer BufDz { float dz[]; };

#include "common/grid.glsl"
#include "common/norm_row.glsl"

void main()
{
    const uint lx = gl_LocalInvocationID.x;
    const uint first = svk_group_index() * WG_Y;
    if (first >= pc.n_part)
        return; /* a surplus group of the grid: uniform, before any barrier */
    const uint lane = first + gl_LocalInvocationID.y;
    const bool lane_on = lane < pc.n_part;
    const uint C = pc.C, R = pc.rows;
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
    for (uint j = 0u; j < pc.rows_per_part; j++) {
        const uint row = lane * pc.rows_per_part + j;
        const bool on = lane_on && row < R;
        const uint e = row * C;
        const uint bx = pc.off_x + e, by = pc.off_y + e, bdh = pc.off_dh + e;
        const float rsP = on ? rstd[pc.off_rstd + row] : 0.0;
        const float rsQ = on ? rstd[pc.off_rstd + R + row] : 0.0;
        const float rsI = on ? rstd[pc.off_rstd + 2u * R + row] : 0.0;
        float muP = 0.0, muQ = 0.0, muI = 0.0;

        /* 1. LayerNorm: P's and Q's means again, as K + m. */
        float Kx = 0.0, Ky = 0.0, mx = 0.0, my = 0.0;
        if (!rms) {
            if (on) {
                muP = mean[pc.off_mean + row];
                muQ = mean[pc.off_mean + R + row];
                muI = mean[pc.off_mean + 2u * R + row];
                Kx = x[bx];
                Ky = y[by];
            }
            float sx = 0.0, sy = 0.0;
            if (on)
                for (uint i = lx; i < C; i += WG_X) {
                    sx += x[bx + i] - Kx;
                    sy += y[by + i] - Ky;
                }
            const vec4 s1 = nr_row_sum(vec4(sx, sy, 0.0, 0.0));
            mx = s1.x / float(C);
            my = s1.y / float(C);
        }

        /* 2. I's sums and partials: xhat of u, dxhat = dh g_I. */
        float sd = 0.0, sdx = 0.0;
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                float xh;
                if (rms) {
                    xh = (x[bx + i] * rsP * g[gP + i] + y[by + i] * rsQ * g[gQ + i]) * rsI;
                } else {
                    const float p = ((x[bx + i] - Kx) - mx) * rsP * g[gP + i] + b[bP + i];
                    const float u = p + (((y[by + i] - Ky) - my) * rsQ * g[gQ + i] + b[bQ + i]);
                    xh = (u - muI) * rsI;
                }
                const float d = dh[bdh + i], dxhat = d * g[gI + i];
                sd += dxhat;
                sdx += dxhat * xh;
                const float cg = d * xh;
                part[pgI + i] = j == 0u ? cg : part[pgI + i] + cg;
                if (!rms)
                    part[pgI + pb + i] = j == 0u ? d : part[pgI + pb + i] + d;
            }
        const vec4 s2 = nr_row_sum(vec4(sd, sdx, 0.0, 0.0));
        const float mdI = rms ? 0.0 : s2.x / float(C), mdxI = s2.y / float(C);

        /* 3. P's and Q's sums and partials, from du recomputed. */
        float sdp = 0.0, sdxp = 0.0, sdq = 0.0, sdxq = 0.0;
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float xv = x[bx + i], yv = y[by + i];
                float xh;
                if (rms) {
                    xh = (xv * rsP * g[gP + i] + yv * rsQ * g[gQ + i]) * rsI;
                } else {
                    const float p = ((xv - Kx) - mx) * rsP * g[gP + i] + b[bP + i];
                    const float u = p + (((yv - Ky) - my) * rsQ * g[gQ + i] + b[bQ + i]);
                    xh = (u - muI) * rsI;
                }
                const float du = rsI * (dh[bdh + i] * g[gI + i] - mdI - xh * mdxI);
                float dvp = du;
                if (add_dxn)
                    dvp += dxn[pc.off_dxn + e + i];
                const float xhp = (xv - muP) * rsP, xhq = (yv - muQ) * rsQ;
                const float dxhp = dvp * g[gP + i], dxhq = du * g[gQ + i];
                sdp += dxhp;
                sdxp += dxhp * xhp;
                sdq += dxhq;
                sdxq += dxhq * xhq;
                const float cgp = dvp * xhp, cgq = du * xhq;
                part[pgP + i] = j == 0u ? cgp : part[pgP + i] + cgp;
                part[pgQ + i] = j == 0u ? cgq : part[pgQ + i] + cgq;
                if (!rms) {
                    part[pgP + pb + i] = j == 0u ? dvp : part[pgP + pb + i] + dvp;
                    part[pgQ + pb + i] = j == 0u ? du : part[pgQ + pb + i] + du;
                }
            }
        const vec4 s3 = nr_row_sum(vec4(sdp, sdxp, sdq, sdxq));
        const float mdP = rms ? 0.0 : s3.x / float(C), mdxP = s3.y / float(C);
        const float mdQ = rms ? 0.0 : s3.z / float(C), mdxQ = s3.w / float(C);

        /* 4. dx, dy (and dz): every input of an element read before it is
         * written. */
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float xv = x[bx + i], yv = y[by + i];
                float xh;
                if (rms) {
                    xh = (xv * rsP * g[gP + i] + yv * rsQ * g[gQ + i]) * rsI;
                } else {
                    const float p = ((xv - Kx) - mx) * rsP * g[gP + i] + b[bP + i];
                    const float u = p + (((yv - Ky) - my) * rsQ * g[gQ + i] + b[bQ + i]);
                    xh = (u - muI) * rsI;
                }
                const float du = rsI * (dh[bdh + i] * g[gI + i] - mdI - xh * mdxI);
                float dvp = du;
                if (add_dxn)
                    dvp += dxn[pc.off_dxn + e + i];
                const float xhp = (xv - muP) * rsP, xhq = (yv - muQ) * rsQ;
                /* precise, as in layernorm_bwd.comp: no fma may fuse a
                 * product into the subtraction of its own mean. */
                precise float vx = rsP * (dvp * g[gP + i] - mdP - xhp * mdxP);
                precise float vy = rsQ * (du * g[gQ + i] - mdQ - xhq * mdxQ);
                if (add_dy)
                    vy += dyi[pc.off_dy_in + e + i];
                dx[pc.off_dx + e + i] = vx;
                dy[pc.off_dy + e + i] = vy;
                if (want_dz)
                    dz[pc.off_dz + e + i] = vx / pc.dz_c + vy;
            }
    }
}
