#version 450
/*
 * SiameseNorm backward, first stage: the gradient du of u = P(x) + Q(y),
 * the input of I, from dh:
 *   du = rstd_I (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
 *   xhat = (u - mean_I) rstd_I, dxhat = dh g_I       (LayerNorm; RMSNorm
 *   drops the mean terms), into scratch, and I's parameter-gradient partials
 * (lanes as in norm_bwd.comp). The P and Q stages are then
 * layernorm_bwd / rmsnorm_bwd dispatches reading du (lib/ops/siamese_norm.c),
 * and norm_param_reduce adds the partials of all three norms to dg, db.
 * Reference: svk_ref_siamese_norm_bwd and svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c.
 *
 * u is recomputed from x and y as the reference does, not stored by the
 * forward pass, with P's and Q's LayerNorm means as K + m: K the row's
 * first element, m the forward's shifted mean, saved beside the means
 * (SVK_SIAMESE_MEAN_ROWS, norm_fwd.comp): the saved float mean of a
 * row with a large offset is off by up to half an ulp of the offset, which
 * would shift every element of u by that much times rstd. The saved rstd
 * are exact as float (the forward pass computed them in float), and the
 * saved means are what I's xhat uses, as in the reference.
 *
 * CPU devices run the CPU form instead, siamese_norm_bwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_siamese_norm_bwd.h"

#include "common/kernel.glsl"
#include "common/siamese_norm_bwd_bindings.glsl"

#define NR_LANES pc.n_part /* a lane per partial */
#include "common/norm_row.glsl"

void nr_lane_main(const uint lane, const bool lane_on)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint C = pc.C, R = pc.rows;
    const bool rms = (pc.flags & SVK_SIAMESE_FLAG_RMS) != 0u;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C;
    const uint pg = pc.off_part + lane * C, pb = pg + pc.part_b;

    for (uint j = 0u; j < pc.rows_per_part; j++) {
        const uint row = lane * pc.rows_per_part + j;
        const bool on = lane_on && row < R;
        const uint e = row * C;
        const uint bx = pc.off_x + e, by = pc.off_y + e, bdh = pc.off_dh + e, bdu = pc.off_du + e;
        const float rsx = on ? rstd[pc.off_rstd + row] : 0.0;
        const float rsy = on ? rstd[pc.off_rstd + R + row] : 0.0;
        const float rsu = on ? rstd[pc.off_rstd + 2u * R + row] : 0.0;

        if (rms) {
            float sdx = 0.0;
            if (on)
                for (uint i = lx; i < C; i += WG_X) {
                    const float u = x[bx + i] * rsx * g[gP + i] + y[by + i] * rsy * g[gQ + i];
                    scratch[bdu + i] = u;
                    const float xhat = u * rsu, d = dh[bdh + i];
                    sdx += d * g[gI + i] * xhat;
                    const float cg = d * xhat;
                    scratch[pg + i] = j == 0u ? cg : scratch[pg + i] + cg;
                }
            const float mean_dx = nr_row_sum(vec4(sdx, 0.0, 0.0, 0.0)).x / float(C);
            if (on)
                for (uint i = lx; i < C; i += WG_X) {
                    const float xhat = scratch[bdu + i] * rsu;
                    scratch[bdu + i] = rsu * (dh[bdh + i] * g[gI + i] - xhat * mean_dx);
                }
            continue;
        }

        /* LayerNorm: P's and Q's means as the forward's K + m. */
        const float Kx = on ? x[bx] : 0.0, Ky = on ? y[by] : 0.0;
        const float mx = on ? mean[pc.off_mean + 3u * R + row] : 0.0;
        const float my = on ? mean[pc.off_mean + 4u * R + row] : 0.0;
        const float muu = on ? mean[pc.off_mean + 2u * R + row] : 0.0;

        float sd = 0.0, sdx = 0.0;
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float p = ((x[bx + i] - Kx) - mx) * rsx * g[gP + i] + b[bP + i];
                const float u = p + (((y[by + i] - Ky) - my) * rsy * g[gQ + i] + b[bQ + i]);
                scratch[bdu + i] = u;
                const float xhat = (u - muu) * rsu, d = dh[bdh + i];
                const float dxhat = d * g[gI + i];
                sd += dxhat;
                sdx += dxhat * xhat;
                const float cg = d * xhat;
                scratch[pg + i] = j == 0u ? cg : scratch[pg + i] + cg;
                scratch[pb + i] = j == 0u ? d : scratch[pb + i] + d;
            }
        const vec4 s2 = nr_row_sum(vec4(sd, sdx, 0.0, 0.0));
        const float mean_d = s2.x / float(C), mean_dx = s2.y / float(C);
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float xhat = (scratch[bdu + i] - muu) * rsu;
                const float dxhat = dh[bdh + i] * g[gI + i];
                scratch[bdu + i] = rsu * (dxhat - mean_d - xhat * mean_dx);
            }
    }
}
