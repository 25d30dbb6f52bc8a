#version 450
/*
 * LayerNorm and RMSNorm backward, the CPU forms (common/row_cpu.glsl) of
 * norm_bwd.comp, the same formulas, flags and partials layout:
 *   layernorm_bwd_cpu: dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
 *     xhat = (x - mean) rstd,
 *   rmsnorm_bwd_cpu (SVK_RMSNORM): dx = rstd (dxhat - xhat mean(dxhat xhat)),
 *     xhat = x rstd,
 *   dxhat = dout g (dout + add with ADD_DOUT; dx + add with ADD_DX).
 * One invocation per lane: lane p walks rows [p R, (p + 1) R) in order
 * (R = rows_per_part), RC_ROWS at a time (common/row_cpu.glsl), and sums
 * their gain (and LayerNorm's bias) contributions into row p of the
 * partial blocks, which norm_param_reduce.comp then adds in lane order to
 * dg (and db): deterministic, no atomics.
 * Reference: lib/ref/layernorm.c, lib/ref/rmsnorm.c. Conformance:
 * tools/conformance/conform_norm.c (the "-cpu" rows).
 *
 * dx may equal dout, x or add: each element is read before it is written,
 * by the one invocation that owns its row.
 *
 * Variants (shaders/meson.build), of either norm:
 * <norm>_bwd_texel (SVK_TEXEL) fetches the rows of dout, add and x through
 * RGBA32F uniform texel views of the same buffers (the three bindings after
 * the storage buffers); VEC4 only (lib/ops/norm_param_reduce.c picks it
 * where the rows are vec4-aligned and the buffers can be viewed). lavapipe
 * loads from a storage buffer lane by lane under the row loop's mask, where
 * a texel fetch is one call. dx may be dout or the added gradient: each
 * element is fetched before the one invocation that owns its row writes
 * it, so views that do not see their own dispatch's writes read the right
 * values. Same results, bit for bit.
 * <norm>_bwd_split (SVK_TEXEL, SVK_SPLIT) walks each lane of partials with
 * the lanes of a subgroup instead of one invocation: for wide rows on CPU
 * devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on). Same outputs to within the sums' rounding
 * (their order differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/variants.glsl"

#include "common/push_norm_bwd.h"

#define SVK_VIEW4
#include "common/kernel.glsl"
#include "common/norm_bwd_bindings.glsl"
#ifdef SVK_TEXEL
layout(set = 0, binding = NR_B + 4) uniform textureBuffer dout_t4;
layout(set = 0, binding = NR_B + 5) uniform textureBuffer add_t4;
layout(set = 0, binding = NR_B + 6) uniform textureBuffer x_t4;
#define NR_LD_DOUT(e) texelFetch(dout_t4, int((e) >> 2))
#define NR_LD_ADD(e) texelFetch(add_t4, int((e) >> 2))
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#else
#define NR_LD_DOUT(e) RC_LD(dout, dout4, e)
#define NR_LD_ADD(e) RC_LD(add, add4, e)
#define NR_LD_X(e) RC_LD(x, x4, e)
#endif

#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

/* dout + add (with ADD_DOUT) at element e of the rows' [rows, W] layout. */
vec4 grad_at(const uint e, const bool add_dout)
{
    vec4 dv = NR_LD_DOUT(pc.off_dout + e);
    if (add_dout)
        dv += NR_LD_ADD(pc.off_add + e);
    return dv;
}

/* xhat at elements i.. of row k (of lane_rows). */
#ifdef SVK_RMSNORM
#define NR_XHAT(k, i) (NR_LD_X(pc.off_x + e[k] + (i)) * rs[k])
#else
#define NR_XHAT(k, i) ((NR_LD_X(pc.off_x + e[k] + (i)) - mu[k]) * rs[k])
#endif

/* Rows row .. row + n - 1 of a lane (n is RC_ROWS or 1, a constant once
 * inlined; common/row_cpu.glsl), whose gain partial row starts at element
 * pg (LayerNorm's bias partial row part_b further); first: row is the
 * lane's first row, so the partials start from its contribution instead of
 * their stored value. The partials take the rows' contributions in row
 * order, as one row at a time would. */
void lane_rows(const uint row, const uint n, const uint pg, const bool first)
{
#ifdef SVK_RMSNORM
    const uint W = pc.width;
#else
    const uint W = pc.width, pb = pg + pc.part_b;
#endif
    const bool add_dout = (RC_FLAGS & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (RC_FLAGS & SVK_NORM_FLAG_ADD_DX) != 0u;
    uint e[RC_ROWS];
#ifdef SVK_RMSNORM
    float rs[RC_ROWS];
    float sdx[RC_ROWS], sdx_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        e[k] = (row + k) * W;
        rs[k] = rstd[pc.off_rstd + row + k];
        sdx[k] = sdx_c[k] = 0.0;
    }
#else
    float mu[RC_ROWS], rs[RC_ROWS];
    /* The sums of dxhat and of dxhat xhat (RMSNorm's only). */
    float sd[RC_ROWS], sd_c[RC_ROWS], sdx[RC_ROWS], sdx_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        e[k] = (row + k) * W;
        mu[k] = mean[pc.off_mean + row + k];
        rs[k] = rstd[pc.off_rstd + row + k];
        sd[k] = sd_c[k] = sdx[k] = sdx_c[k] = 0.0;
    }
#endif

    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
#ifdef SVK_RMSNORM
        vec4 pgi; /* the partial with rows row .. row + k added */
#else
        vec4 pgi, pbi; /* the partials with rows row .. row + k added */
#endif
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = NR_XHAT(k, i);
            const vec4 dxhat = dv * gi;
#ifndef SVK_RMSNORM
            rc_add(sd[k], sd_c[k], dxhat);
#endif
            rc_add(sdx[k], sdx_c[k], dxhat * xhat);
            const vec4 cg = dv * xhat;
#ifdef SVK_RMSNORM
            if (k == 0u)
                pgi = first ? cg : RC_LD(part, part4, pg + i) + cg;
            else
                pgi += cg;
#else
            if (k == 0u) {
                pgi = first ? cg : RC_LD(part, part4, pg + i) + cg;
                pbi = first ? dv : RC_LD(part, part4, pb + i) + dv;
            } else {
                pgi += cg;
                pbi += dv;
            }
#endif
        }
        RC_ST(part, part4, pg + i, pgi);
#ifndef SVK_RMSNORM
        RC_ST(part, part4, pb + i, pbi);
#endif
    }

#ifdef SVK_RMSNORM
    float mean_dx[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++)
        mean_dx[k] = RS_TOTAL(sdx[k], sdx_c[k]) / float(W);
#else
    float mean_d[RC_ROWS], mean_dx[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        mean_d[k] = RS_TOTAL(sd[k], sd_c[k]) / float(W);
        mean_dx[k] = RS_TOTAL(sdx[k], sdx_c[k]) / float(W);
    }
#endif
    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = NR_XHAT(k, i);
#ifdef SVK_RMSNORM
            vec4 v = rs[k] * (dv * gi - xhat * mean_dx[k]);
#else
            /* precise: exactly 0 at width 1 (see norm_bwd.comp). */
            precise vec4 v = rs[k] * (dv * gi - mean_d[k] - xhat * mean_dx[k]);
#endif
            if (add_dx)
                v += NR_LD_ADD(pc.off_add + e[k] + i);
            RC_ST(dx, dx4, pc.off_dx + e[k] + i, v);
        }
    }
}

#define RC_LANE_WIDTH pc.width
#define RC_LANE_UNIT RS_GROUP
#include "common/row_cpu_lanes.glsl"
