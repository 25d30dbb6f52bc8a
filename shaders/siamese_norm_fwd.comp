#version 450
/*
 * SiameseNorm block input in one dispatch, one lane (norm_row.glsl) per row
 * computing all three norms P, Q, I (one kind, LayerNorm or RMSNorm,
 * pc.flags) without leaving the workgroup:
 *   xn = P(x)                the new post-norm stream
 *   h  = I(xn + Q(y))        the input of the shared sublayer
 * saving the statistics of all three (rstd [3, rows]: P, Q, I; LayerNorm's
 * mean [5, rows], see SVK_SIAMESE_MEAN_ROWS). With xn not written it is the
 * model output out = N_out(N_x(x) + N_y(y)).
 * Reference: svk_ref_siamese_norm_fwd, svk_ref_siamese_out_fwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c.
 *
 * LayerNorm statistics are the shifted two-pass ones of norm_fwd.comp
 * (K = the row's first element), for x and y together, then for
 * u = P(x) + Q(y): 4 row reductions (2 for RMSNorm). u is kept in h
 * between passes: each invocation reads back only elements it wrote itself,
 * so that needs no barrier and no scratch buffer.
 *
 * xn and h must not overlap x or y: every invocation reads the row's first
 * elements (the shifts) while others may already be writing theirs.
 *
 * CPU devices run the CPU form instead, siamese_norm_fwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_siamese_norm_fwd.h"

#include "common/kernel.glsl"
#include "common/siamese_norm_fwd_bindings.glsl"

#include "common/norm_row.glsl"

void nr_lane_main(const uint row, const bool on)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint C = pc.C;
    const uint bx = pc.off_x + row * C, by = pc.off_y + row * C;
    const uint bxn = pc.off_xn + row * C, bh = pc.off_h + row * C;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C, bI = pc.off_b + 2u * C;
    const bool write_xn = (pc.flags & SVK_SIAMESE_FLAG_XN) != 0u;
    const uint R = pc.rows;

    if ((pc.flags & SVK_SIAMESE_FLAG_RMS) != 0u) {
        float ssx = 0.0, ssy = 0.0;
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float vx = x[bx + i], vy = y[by + i];
                ssx += vx * vx;
                ssy += vy * vy;
            }
        const vec4 s1 = nr_row_sum(vec4(ssx, ssy, 0.0, 0.0));
        const float rsx = inversesqrt(s1.x / float(C) + pc.eps);
        const float rsy = inversesqrt(s1.y / float(C) + pc.eps);

        float ssu = 0.0;
        if (on)
            for (uint i = lx; i < C; i += WG_X) {
                const float p = x[bx + i] * rsx * g[gP + i];
                const float u = p + y[by + i] * rsy * g[gQ + i];
                if (write_xn)
                    xn[bxn + i] = p;
                h[bh + i] = u;
                ssu += u * u;
            }
        const float rsu = inversesqrt(nr_row_sum(vec4(ssu, 0.0, 0.0, 0.0)).x / float(C) + pc.eps);

        if (!on)
            return;
        for (uint i = lx; i < C; i += WG_X)
            h[bh + i] = h[bh + i] * rsu * g[gI + i];
        if (lx == 0u) {
            rstd[pc.off_rstd + row] = rsx;
            rstd[pc.off_rstd + R + row] = rsy;
            rstd[pc.off_rstd + 2u * R + row] = rsu;
        }
        return;
    }

    /* LayerNorm. Means as K + m, see norm_fwd.comp. */
    const float Kx = on ? x[bx] : 0.0, Ky = on ? y[by] : 0.0;
    float sx = 0.0, sy = 0.0;
    if (on)
        for (uint i = lx; i < C; i += WG_X) {
            sx += x[bx + i] - Kx;
            sy += y[by + i] - Ky;
        }
    const vec4 s1 = nr_row_sum(vec4(sx, sy, 0.0, 0.0));
    const float mx = s1.x / float(C), my = s1.y / float(C);

    float ssx = 0.0, ssy = 0.0;
    if (on)
        for (uint i = lx; i < C; i += WG_X) {
            const float dx = (x[bx + i] - Kx) - mx, dy = (y[by + i] - Ky) - my;
            ssx += dx * dx;
            ssy += dy * dy;
        }
    const vec4 s2 = nr_row_sum(vec4(ssx, ssy, 0.0, 0.0));
    const float rsx = inversesqrt(s2.x / float(C) + pc.eps);
    const float rsy = inversesqrt(s2.y / float(C) + pc.eps);

    /* u's shift: its first element, which every invocation can compute. */
    const float Ku = on ? (((x[bx] - Kx) - mx) * rsx * g[gP] + b[bP]) + (((y[by] - Ky) - my) * rsy * g[gQ] + b[bQ])
                        : 0.0;
    float su = 0.0;
    if (on)
        for (uint i = lx; i < C; i += WG_X) {
            const float p = ((x[bx + i] - Kx) - mx) * rsx * g[gP + i] + b[bP + i];
            const float u = p + (((y[by + i] - Ky) - my) * rsy * g[gQ + i] + b[bQ + i]);
            if (write_xn)
                xn[bxn + i] = p;
            h[bh + i] = u;
            su += u - Ku;
        }
    const float mu = nr_row_sum(vec4(su, 0.0, 0.0, 0.0)).x / float(C);

    float ssu = 0.0;
    if (on)
        for (uint i = lx; i < C; i += WG_X) {
            const float d = (h[bh + i] - Ku) - mu;
            ssu += d * d;
        }
    const float rsu = inversesqrt(nr_row_sum(vec4(ssu, 0.0, 0.0, 0.0)).x / float(C) + pc.eps);

    if (!on)
        return;
    for (uint i = lx; i < C; i += WG_X)
        h[bh + i] = ((h[bh + i] - Ku) - mu) * rsu * g[gI + i] + b[bI + i];
    if (lx == 0u) {
        mean[pc.off_mean + row] = Kx + mx;
        mean[pc.off_mean + R + row] = Ky + my;
        mean[pc.off_mean + 2u * R + row] = Ku + mu;
        mean[pc.off_mean + 3u * R + row] = mx;
        mean[pc.off_mean + 4u * R + row] = my;
        rstd[pc.off_rstd + row] = rsx;
        rstd[pc.off_rstd + R + row] = rsy;
        rstd[pc.off_rstd + 2u * R + row] = rsu;
    }
}
