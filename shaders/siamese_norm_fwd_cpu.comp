#version 450
/*
 * SiameseNorm block input (or model output), the CPU form
 * (common/row_cpu.glsl) of siamese_norm_fwd.comp: one invocation per row
 * computing all three norms with the same statistics (shifted two-pass
 * LayerNorm, see there) and the same outputs:
 *   xn = P(x) (SVK_SIAMESE_FLAG_XN),  h = I(xn + Q(y)),
 * statistics [3, rows] (P, Q, I). u = P(x) + Q(y) is kept in h between
 * passes (the invocation reads back only what it wrote).
 * Reference: svk_ref_siamese_norm_fwd, svk_ref_siamese_out_fwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). xn and h must not overlap x or y (as in the portable
 * form; lib/ops/siamese_norm.c checks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_siamese_norm_fwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufY { float y[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufY4 { vec4 y4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufB4 { vec4 b4[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufXn { float xn[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufXn4 { vec4 xn4[]; };
layout(set = 0, binding = 5, std430) buffer BufH { float h[]; };
layout(set = 0, binding = 5, std430) buffer BufH4 { vec4 h4[]; };
layout(set = 0, binding = 6, std430) writeonly buffer BufMean { float mean[]; };
layout(set = 0, binding = 7, std430) writeonly buffer BufRstd { float rstd[]; };

#include "common/grid.glsl"
#include "common/row_cpu.glsl"

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const uint C = pc.C, R = pc.rows;
    const uint bx = pc.off_x + row * C, by = pc.off_y + row * C;
    const uint bxn = pc.off_xn + row * C, bh = pc.off_h + row * C;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C, bI = pc.off_b + 2u * C;
    const bool write_xn = (pc.flags & SVK_SIAMESE_FLAG_XN) != 0u;

    if ((pc.flags & SVK_SIAMESE_FLAG_RMS) != 0u) {
        vec4 ssx = vec4(0.0), ssx_c = vec4(0.0), ssy = vec4(0.0), ssy_c = vec4(0.0);
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 vx = RC_LD(x, x4, bx + i), vy = RC_LD(y, y4, by + i);
            rc_add(ssx, ssx_c, vx * vx);
            rc_add(ssy, ssy_c, vy * vy);
        }
        const float rsx = inversesqrt(rc_sum(ssx) / float(C) + pc.eps);
        const float rsy = inversesqrt(rc_sum(ssy) / float(C) + pc.eps);

        vec4 ssu = vec4(0.0), ssu_c = vec4(0.0);
        for (uint i = 0u; i < C; i += RC_STEP) {
            const vec4 p = RC_LD(x, x4, bx + i) * rsx * RC_LD(g, g4, gP + i);
            const vec4 u = p + RC_LD(y, y4, by + i) * rsy * RC_LD(g, g4, gQ + i);
            if (write_xn)
                RC_ST(xn, xn4, bxn + i, p);
            RC_ST(h, h4, bh + i, u);
            rc_add(ssu, ssu_c, u * u);
        }
        const float rsu = inversesqrt(rc_sum(ssu) / float(C) + pc.eps);

        for (uint i = 0u; i < C; i += RC_STEP)
            RC_ST(h, h4, bh + i, RC_LD(h, h4, bh + i) * rsu * RC_LD(g, g4, gI + i));
        rstd[pc.off_rstd + row] = rsx;
        rstd[pc.off_rstd + R + row] = rsy;
        rstd[pc.off_rstd + 2u * R + row] = rsu;
        return;
    }

    /* LayerNorm. Means as K + m, see layernorm_fwd.comp. */
    const float Kx = x[bx], Ky = y[by];
    vec4 sx = vec4(0.0), sx_c = vec4(0.0), sy = vec4(0.0), sy_c = vec4(0.0);
    for (uint i = 0u; i < C; i += RC_STEP) {
        rc_add(sx, sx_c, RC_LD(x, x4, bx + i) - Kx);
        rc_add(sy, sy_c, RC_LD(y, y4, by + i) - Ky);
    }
    const float mx = rc_sum(sx) / float(C), my = rc_sum(sy) / float(C);

    vec4 ssx = vec4(0.0), ssx_c = vec4(0.0), ssy = vec4(0.0), ssy_c = vec4(0.0);
    for (uint i = 0u; i < C; i += RC_STEP) {
        const vec4 dx = (RC_LD(x, x4, bx + i) - Kx) - mx, dy = (RC_LD(y, y4, by + i) - Ky) - my;
        rc_add(ssx, ssx_c, dx * dx);
        rc_add(ssy, ssy_c, dy * dy);
    }
    const float rsx = inversesqrt(rc_sum(ssx) / float(C) + pc.eps);
    const float rsy = inversesqrt(rc_sum(ssy) / float(C) + pc.eps);

    /* u's shift: its first element, as in the portable form. */
    const float Ku = (((x[bx] - Kx) - mx) * rsx * g[gP] + b[bP]) + (((y[by] - Ky) - my) * rsy * g[gQ] + b[bQ]);
    vec4 su = vec4(0.0), su_c = vec4(0.0);
    for (uint i = 0u; i < C; i += RC_STEP) {
        const vec4 p = ((RC_LD(x, x4, bx + i) - Kx) - mx) * rsx * RC_LD(g, g4, gP + i) + RC_LD(b, b4, bP + i);
        const vec4 u = p + (((RC_LD(y, y4, by + i) - Ky) - my) * rsy * RC_LD(g, g4, gQ + i) + RC_LD(b, b4, bQ + i));
        if (write_xn)
            RC_ST(xn, xn4, bxn + i, p);
        RC_ST(h, h4, bh + i, u);
        rc_add(su, su_c, u - Ku);
    }
    const float mu = rc_sum(su) / float(C);

    vec4 ssu = vec4(0.0), ssu_c = vec4(0.0);
    for (uint i = 0u; i < C; i += RC_STEP) {
        const vec4 d = (RC_LD(h, h4, bh + i) - Ku) - mu;
        rc_add(ssu, ssu_c, d * d);
    }
    const float rsu = inversesqrt(rc_sum(ssu) / float(C) + pc.eps);

    for (uint i = 0u; i < C; i += RC_STEP)
        RC_ST(h, h4, bh + i, ((RC_LD(h, h4, bh + i) - Ku) - mu) * rsu * RC_LD(g, g4, gI + i) + RC_LD(b, b4, bI + i));
    mean[pc.off_mean + row] = Kx + mx;
    mean[pc.off_mean + R + row] = Ky + my;
    mean[pc.off_mean + 2u * R + row] = Ku + mu;
    rstd[pc.off_rstd + row] = rsx;
    rstd[pc.off_rstd + R + row] = rsy;
    rstd[pc.off_rstd + 2u * R + row] = rsu;
}
