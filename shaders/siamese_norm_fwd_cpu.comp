#version 450
/*
 * SiameseNorm block input (or model output), the CPU form
 * (common/row_cpu.glsl) of siamese_norm_fwd.comp: one invocation per
 * RC_ROWS rows computing all three norms with the same statistics (shifted
 * two-pass LayerNorm, see there) and the same outputs:
 *   xn = P(x) (SVK_SIAMESE_FLAG_XN),  h = I(xn + Q(y)),
 * statistics of siamese_norm_fwd.comp (P, Q, I; LayerNorm's m too). u = P(x) + Q(y) is kept in h between
 * passes (the invocation reads back only what it wrote).
 * Reference: svk_ref_siamese_norm_fwd, svk_ref_siamese_out_fwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). xn and h must not overlap x or y (as in the portable
 * form; lib/ops/siamese_norm.c checks).
 *
 * Variants (shaders/meson.build):
 * siamese_norm_fwd_texel (SVK_TEXEL) reads the rows of x and y through
 * RGBA32F uniform texel views (bindings 8 and 9, the same buffers as
 * bindings 0 and 1), four elements per fetch; VEC4 only (lib/ops picks it
 * where the rows are vec4-aligned and both buffers can be viewed). lavapipe
 * runs a storage-buffer load whose address differs per lane as a loop over
 * the SIMD lanes, under the row loop's lane mask; a texel fetch is one call
 * of a gather. The reads of h (u, written by this invocation earlier in the
 * same dispatch) stay storage loads: a texel view need not see a write of
 * the same dispatch. Same results, bit for bit.
 * siamese_norm_fwd_split (SVK_TEXEL, SVK_SPLIT) shares each group of rows
 * between the lanes of a subgroup instead of one invocation: for wide rows
 * on CPU devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on). Same outputs to within the sums' rounding
 * (their order differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/variants.glsl"

#include "common/push_siamese_norm_fwd.h"

#define SVK_VIEW4
#include "common/kernel.glsl"
#include "common/siamese_norm_fwd_bindings.glsl"
#ifdef SVK_TEXEL
layout(set = 0, binding = 8) uniform textureBuffer x_t4;
layout(set = 0, binding = 9) uniform textureBuffer y_t4;
#define SN_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define SN_LD_Y(e) texelFetch(y_t4, int((e) >> 2))
#else
#define SN_LD_X(e) RC_LD(x, x4, e)
#define SN_LD_Y(e) RC_LD(y, y4, e)
#endif

#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

void main()
{
    const uint row0 = RS_GROUP * RC_ROWS;
    if (row0 >= pc.rows)
        return;
    const uint C = pc.C, R = pc.rows;
    const uint gP = pc.off_g, gQ = pc.off_g + C, gI = pc.off_g + 2u * C;
    const uint bP = pc.off_b, bQ = pc.off_b + C, bI = pc.off_b + 2u * C;
    const bool write_xn = (RC_FLAGS & SVK_SIAMESE_FLAG_XN) != 0u;
    /* This invocation's RC_ROWS rows (common/row_cpu.glsl); past the end,
     * the last row again, stored nowhere (keep). */
    uint row[RC_ROWS], e[RC_ROWS];
    bool keep[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        row[k] = min(row0 + k, R - 1u);
        e[k] = row[k] * C;
        keep[k] = row0 + k < R;
    }

    if ((RC_FLAGS & SVK_SIAMESE_FLAG_RMS) != 0u) {
        float ssx[RC_ROWS], ssx_c[RC_ROWS], ssy[RC_ROWS], ssy_c[RC_ROWS];
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
            ssx[k] = ssx_c[k] = ssy[k] = ssy_c[k] = 0.0;
        RS_ROW_LOOP(i, C) {
            [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
                const vec4 vx = SN_LD_X(pc.off_x + e[k] + i), vy = SN_LD_Y(pc.off_y + e[k] + i);
                rc_add(ssx[k], ssx_c[k], vx * vx);
                rc_add(ssy[k], ssy_c[k], vy * vy);
            }
        }
        float rsx[RC_ROWS], rsy[RC_ROWS];
        float ssu[RC_ROWS], ssu_c[RC_ROWS];
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            rsx[k] = inversesqrt(RS_TOTAL(ssx[k], ssx_c[k]) / float(C) + pc.eps);
            rsy[k] = inversesqrt(RS_TOTAL(ssy[k], ssy_c[k]) / float(C) + pc.eps);
            ssu[k] = ssu_c[k] = 0.0;
        }

        RS_ROW_LOOP(i, C) {
            const vec4 gp = RC_LD(g, g4, gP + i), gq = RC_LD(g, g4, gQ + i);
            [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
                const vec4 p = SN_LD_X(pc.off_x + e[k] + i) * rsx[k] * gp;
                const vec4 u = p + SN_LD_Y(pc.off_y + e[k] + i) * rsy[k] * gq;
                if (keep[k]) {
                    if (write_xn)
                        RC_ST(xn, xn4, pc.off_xn + e[k] + i, p);
                    RC_ST(h, h4, pc.off_h + e[k] + i, u);
                }
                rc_add(ssu[k], ssu_c[k], u * u);
            }
        }
        float rsu[RC_ROWS];
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
            rsu[k] = inversesqrt(RS_TOTAL(ssu[k], ssu_c[k]) / float(C) + pc.eps);

        RS_ROW_LOOP(i, C) {
            const vec4 gi = RC_LD(g, g4, gI + i);
            [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
                if (keep[k])
                    RC_ST(h, h4, pc.off_h + e[k] + i, RC_LD(h, h4, pc.off_h + e[k] + i) * rsu[k] * gi);
        }
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            if (keep[k] && RS_FIRST_LANE) {
                rstd[pc.off_rstd + row[k]] = rsx[k];
                rstd[pc.off_rstd + R + row[k]] = rsy[k];
                rstd[pc.off_rstd + 2u * R + row[k]] = rsu[k];
            }
        }
        return;
    }

    /* LayerNorm. Means as K + m, see norm_fwd.comp. */
    float Kx[RC_ROWS], Ky[RC_ROWS];
    float sx[RC_ROWS], sx_c[RC_ROWS], sy[RC_ROWS], sy_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        Kx[k] = x[pc.off_x + e[k]];
        Ky[k] = y[pc.off_y + e[k]];
        sx[k] = sx_c[k] = sy[k] = sy_c[k] = 0.0;
    }
    RS_ROW_LOOP(i, C) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            rc_add(sx[k], sx_c[k], SN_LD_X(pc.off_x + e[k] + i) - Kx[k]);
            rc_add(sy[k], sy_c[k], SN_LD_Y(pc.off_y + e[k] + i) - Ky[k]);
        }
    }
    float mx[RC_ROWS], my[RC_ROWS];
    float ssx[RC_ROWS], ssx_c[RC_ROWS], ssy[RC_ROWS], ssy_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        mx[k] = RS_TOTAL(sx[k], sx_c[k]) / float(C);
        my[k] = RS_TOTAL(sy[k], sy_c[k]) / float(C);
        ssx[k] = ssx_c[k] = ssy[k] = ssy_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, C) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 dx = (SN_LD_X(pc.off_x + e[k] + i) - Kx[k]) - mx[k];
            const vec4 dy = (SN_LD_Y(pc.off_y + e[k] + i) - Ky[k]) - my[k];
            rc_add(ssx[k], ssx_c[k], dx * dx);
            rc_add(ssy[k], ssy_c[k], dy * dy);
        }
    }
    float rsx[RC_ROWS], rsy[RC_ROWS], Ku[RC_ROWS];
    float su[RC_ROWS], su_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        rsx[k] = inversesqrt(RS_TOTAL(ssx[k], ssx_c[k]) / float(C) + pc.eps);
        rsy[k] = inversesqrt(RS_TOTAL(ssy[k], ssy_c[k]) / float(C) + pc.eps);
        /* u's shift: its first element, as in the portable form. */
        Ku[k] = (((x[pc.off_x + e[k]] - Kx[k]) - mx[k]) * rsx[k] * g[gP] + b[bP]) +
                (((y[pc.off_y + e[k]] - Ky[k]) - my[k]) * rsy[k] * g[gQ] + b[bQ]);
        su[k] = su_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, C) {
        const vec4 gp = RC_LD(g, g4, gP + i), bp = RC_LD(b, b4, bP + i);
        const vec4 gq = RC_LD(g, g4, gQ + i), bq = RC_LD(b, b4, bQ + i);
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 p = ((SN_LD_X(pc.off_x + e[k] + i) - Kx[k]) - mx[k]) * rsx[k] * gp + bp;
            const vec4 u = p + (((SN_LD_Y(pc.off_y + e[k] + i) - Ky[k]) - my[k]) * rsy[k] * gq + bq);
            if (keep[k]) {
                if (write_xn)
                    RC_ST(xn, xn4, pc.off_xn + e[k] + i, p);
                RC_ST(h, h4, pc.off_h + e[k] + i, u);
            }
            rc_add(su[k], su_c[k], u - Ku[k]);
        }
    }
    float mu[RC_ROWS];
    float ssu[RC_ROWS], ssu_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        mu[k] = RS_TOTAL(su[k], su_c[k]) / float(C);
        ssu[k] = ssu_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, C) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = (RC_LD(h, h4, pc.off_h + e[k] + i) - Ku[k]) - mu[k];
            rc_add(ssu[k], ssu_c[k], d * d);
        }
    }
    float rsu[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
        rsu[k] = inversesqrt(RS_TOTAL(ssu[k], ssu_c[k]) / float(C) + pc.eps);

    RS_ROW_LOOP(i, C) {
        const vec4 gi = RC_LD(g, g4, gI + i), bi = RC_LD(b, b4, bI + i);
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = (RC_LD(h, h4, pc.off_h + e[k] + i) - Ku[k]) - mu[k];
            if (keep[k])
                RC_ST(h, h4, pc.off_h + e[k] + i, d * rsu[k] * gi + bi);
        }
    }
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        if (keep[k] && RS_FIRST_LANE) {
            mean[pc.off_mean + row[k]] = Kx[k] + mx[k];
            mean[pc.off_mean + R + row[k]] = Ky[k] + my[k];
            mean[pc.off_mean + 2u * R + row[k]] = Ku[k] + mu[k];
            mean[pc.off_mean + 3u * R + row[k]] = mx[k];
            mean[pc.off_mean + 4u * R + row[k]] = my[k];
            rstd[pc.off_rstd + row[k]] = rsx[k];
            rstd[pc.off_rstd + R + row[k]] = rsy[k];
            rstd[pc.off_rstd + 2u * R + row[k]] = rsu[k];
        }
    }
}
