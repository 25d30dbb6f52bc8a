#version 450
/*
 * LayerNorm and RMSNorm forward, the CPU forms (common/row_cpu.glsl) of
 * norm_fwd.comp: one invocation per RC_ROWS rows, the same statistics (see
 * there: LayerNorm's shifted two passes) and the same outputs:
 *   layernorm_fwd_cpu: out = (x - mean) * rstd * g + b,  rstd = 1 / sqrt(var + eps),
 *   rmsnorm_fwd_cpu (SVK_RMSNORM): out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps).
 * Reference: lib/ref/layernorm.c, lib/ref/rmsnorm.c. Conformance:
 * tools/conformance/conform_norm.c (the "-cpu" rows).
 *
 * out may equal x: the invocation owning a row reads each element before it
 * writes it, and reads LayerNorm's shift K first.
 *
 * Variants (shaders/meson.build), of either norm:
 * <norm>_fwd_texel (SVK_TEXEL) fetches the rows of x through an RGBA32F
 * uniform texel view of the same buffer (the binding after the storage
 * buffers); VEC4 only (lib/ops/norm_param_reduce.c picks it where the rows
 * are vec4-aligned and the buffers can be viewed). lavapipe loads from a
 * storage buffer lane by lane under the row loop's mask, where a texel
 * fetch is one call. Same results, bit for bit.
 * <norm>_fwd_split (SVK_TEXEL, SVK_SPLIT) shares each group of rows between
 * the lanes of a subgroup instead of one invocation: for wide rows on CPU
 * devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on for LayerNorm, SVK_NORM_SPLIT_WIDE_MIN_WIDTH
 * for RMSNorm). Same outputs to within the sums' rounding (their order
 * differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/variants.glsl"

#include "common/push_norm_fwd.h"
#define SVK_VIEW4
#include "common/kernel.glsl"
#include "common/norm_fwd_bindings.glsl"
#ifdef SVK_TEXEL
layout(set = 0, binding = NR_TEXEL_BINDING) uniform textureBuffer x_t4;
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#else
#define NR_LD_X(e) RC_LD(x, x4, e)
#endif

#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

/* The elements i.. of row k as the norm scales them (LayerNorm's deviations
 * from the mean K + m, RMSNorm's x), and a scaled chunk v shifted by the
 * bias chunk bi (LayerNorm only). */
#ifdef SVK_RMSNORM
#define NR_DEV(k, i) NR_LD_X(pc.off_x + e[k] + (i))
#define NR_SHIFT(v) (v)
#else
#define NR_DEV(k, i) ((NR_LD_X(pc.off_x + e[k] + (i)) - K[k]) - m[k])
#define NR_SHIFT(v) ((v) + bi)
#endif

void main()
{
    const uint row0 = RS_GROUP * RC_ROWS;
    if (row0 >= pc.rows)
        return;
    const uint W = pc.width;
    /* This invocation's RC_ROWS rows (common/row_cpu.glsl); past the end,
     * the last row again, stored nowhere (keep). */
    uint row[RC_ROWS], e[RC_ROWS];
    bool keep[RC_ROWS];
    float ss[RC_ROWS], ss_c[RC_ROWS]; /* the sums of squares of NR_DEV */
#ifndef SVK_RMSNORM
    /* LayerNorm's mean as K + m: K the row's first element, m the mean of
     * x - K (norm_fwd.comp says why). */
    float K[RC_ROWS];
    float s[RC_ROWS], s_c[RC_ROWS];
#endif
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        row[k] = min(row0 + k, pc.rows - 1u);
        e[k] = row[k] * W;
        keep[k] = row0 + k < pc.rows;
#ifdef SVK_RMSNORM
        ss[k] = ss_c[k] = 0.0;
#else
        K[k] = x[pc.off_x + e[k]];
        s[k] = s_c[k] = 0.0;
#endif
    }

#ifndef SVK_RMSNORM
    RS_ROW_LOOP(i, W) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
            rc_add(s[k], s_c[k], NR_LD_X(pc.off_x + e[k] + i) - K[k]);
    }
    float m[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        m[k] = RS_TOTAL(s[k], s_c[k]) / float(W);
        ss[k] = ss_c[k] = 0.0;
    }
#endif

    RS_ROW_LOOP(i, W) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = NR_DEV(k, i);
            rc_add(ss[k], ss_c[k], d * d);
        }
    }
    float rs[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
        rs[k] = inversesqrt(RS_TOTAL(ss[k], ss_c[k]) / float(W) + pc.eps);

    RS_ROW_LOOP(i, W) {
#ifdef SVK_RMSNORM
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
#else
        const vec4 gi = RC_LD(g, g4, pc.off_g + i), bi = RC_LD(b, b4, pc.off_b + i);
#endif
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = NR_DEV(k, i);
            if (keep[k])
                RC_ST(o, o4, pc.off_out + e[k] + i, NR_SHIFT(d * rs[k] * gi));
        }
    }
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        if (!keep[k] || !RS_FIRST_LANE)
            continue;
#ifndef SVK_RMSNORM
        if ((RC_FLAGS & SVK_NORM_FLAG_SAVE_MEAN) != 0u)
            mean[pc.off_mean + row[k]] = K[k] + m[k];
#endif
        if ((RC_FLAGS & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
            rstd[pc.off_rstd + row[k]] = rs[k];
    }
}
