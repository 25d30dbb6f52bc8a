#version 450
/*
 * SiameseNorm backward, first stage, the CPU form (common/row_cpu.glsl) of
 * siamese_norm_bwd.comp: the same du of u = P(x) + Q(y) into scratch and
 * the same partials of I's gain and bias gradients, with u (and its
 * LayerNorm P and Q means, as K + m) recomputed as there. One invocation
 * per lane walking its rows in order (lanes as in layernorm_bwd_cpu.comp).
 * The P and Q stages are layernorm_bwd_cpu / rmsnorm_bwd_cpu dispatches
 * reading du (lib/ops/siamese_norm.c).
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_siamese_norm_bwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDh { float dh[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufDh4 { vec4 dh4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufY { float y[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufY4 { vec4 y4[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufB4 { vec4 b4[]; };
layout(set = 0, binding = 5, std430) readonly buffer BufMean { float mean[]; };
layout(set = 0, binding = 6, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 7, std430) buffer BufScratch { float scratch[]; };
layout(set = 0, binding = 7, std430) buffer BufScratch4 { vec4 scratch4[]; };

#include "common/grid.glsl"
#include "common/row_cpu.glsl"

#define S_LD(e) RC_LD(scratch, scratch4, e)
#define S_ST(e, v) RC_ST(scratch, scratch4, e, v)

void main()
{
    const uint lane = rc_unit();
    if (lane >= pc.n_part)
        return;
    const uint C = pc.C, R = pc.rows;
    const bool rms = (pc.flags & SVK_SIAMESE_FLAG_RMS) != 0u;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C;
    const uint pg = pc.off_part + lane * C, pb = pg + pc.part_b;
    const uint r0 = lane * pc.rows_per_part, r1 = min(r0 + pc.rows_per_part, R);

    for (uint row = r0; row < r1; row++) {
        const uint e = row * C;
        const uint bx = pc.off_x + e, by = pc.off_y + e, bdh = pc.off_dh + e, bdu = pc.off_du + e;
        const float rsx = rstd[pc.off_rstd + row];
        const float rsy = rstd[pc.off_rstd + R + row];
        const float rsu = rstd[pc.off_rstd + 2u * R + row];
        const bool first = row == r0;

        if (rms) {
            vec4 sdx = vec4(0.0), sdx_c = vec4(0.0);
            for (uint i = 0u; i < C; i += RC_STEP) {
                const vec4 u = RC_LD(x, x4, bx + i) * rsx * RC_LD(g, g4, gP + i) +
                               RC_LD(y, y4, by + i) * rsy * RC_LD(g, g4, gQ + i);
                S_ST(bdu + i, u);
                const vec4 xhat = u * rsu, d = RC_LD(dh, dh4, bdh + i);
                rc_add(sdx, sdx_c, d * RC_LD(g, g4, gI + i) * xhat);
                const vec4 cg = d * xhat;
                S_ST(pg + i, first ? cg : S_LD(pg + i) + cg);
            }
            const float mean_dx = rc_sum(sdx) / float(C);
            for (uint i = 0u; i < C; i += RC_STEP) {
                const vec4 xhat = S_LD(bdu + i) * rsu;
                S_ST(bdu + i, rsu * (RC_LD(dh, dh4, bdh + i) * RC_LD(g, g4, gI + i) - xhat * mean_dx));
            }
            continue;
        }

        /* LayerNorm: P's and Q's means again, as K + m. */
        const float Kx = x[bx], Ky = y[by];
        vec4 sx = vec4(0.0), sx_c = vec4(0.0), sy = vec4(0.0), sy_c = vec4(0.0);
        for (uint i = 0u; i < C; i += RC_STEP) {
            rc_add(sx, sx_c, RC_LD(x, x4, bx + i) - Kx);
            rc_add(sy, sy_c, RC_LD(y, y4, by + i) - Ky);
        }
        const float mx = rc_sum(sx) / float(C), my = rc_sum(sy) / float(C);
        const float muu = mean[pc.off_mean + 2u * R + row];

        vec4 sd = vec4(0.0), sd_c = vec4(0.0), sdx = vec4(0.0), sdx_c = vec4(0.0);
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 p = ((RC_LD(x, x4, bx + i) - Kx) - mx) * rsx * RC_LD(g, g4, gP + i) + RC_LD(b, b4, bP + i);
            const vec4 u = p + (((RC_LD(y, y4, by + i) - Ky) - my) * rsy * RC_LD(g, g4, gQ + i) + RC_LD(b, b4, bQ + i));
            S_ST(bdu + i, u);
            const vec4 xhat = (u - muu) * rsu, d = RC_LD(dh, dh4, bdh + i);
            const vec4 dxhat = d * RC_LD(g, g4, gI + i);
            rc_add(sd, sd_c, dxhat);
            rc_add(sdx, sdx_c, dxhat * xhat);
            const vec4 cg = d * xhat;
            S_ST(pg + i, first ? cg : S_LD(pg + i) + cg);
            S_ST(pb + i, first ? d : S_LD(pb + i) + d);
        }
        const float mean_d = rc_sum(sd) / float(C), mean_dx = rc_sum(sdx) / float(C);
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 xhat = (S_LD(bdu + i) - muu) * rsu;
            const vec4 dxhat = RC_LD(dh, dh4, bdh + i) * RC_LD(g, g4, gI + i);
            S_ST(bdu + i, rsu * (dxhat - mean_d - xhat * mean_dx));
        }
    }
}
