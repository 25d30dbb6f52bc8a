#version 450
/*
 * RMSNorm backward, the CPU form (common/row_cpu.glsl) of
 * rmsnorm_bwd.comp, the same formulas, flags and partials layout:
 *   dx = rstd (dxhat - xhat mean(dxhat xhat)),  xhat = x rstd, dxhat = dout g.
 * Lanes (one invocation each), the deterministic gain partials and in-place
 * use as in layernorm_bwd_cpu.comp.
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 *
 * Variants (shaders/meson.build):
 * rmsnorm_bwd_texel (SVK_TEXEL) fetches the rows of dout, add and x through
 * RGBA32F uniform texel views of the same buffers (bindings 7 to 9); VEC4
 * only (lib/ops/norm_param_reduce.c picks it where the rows are
 * vec4-aligned and the buffers can be viewed). lavapipe loads from a
 * storage buffer lane by lane under the row loop's mask, where a texel
 * fetch is one call. dx may be dout or the added gradient: each element is
 * fetched before the one invocation that owns its row writes it, so views
 * that do not see their own dispatch's writes read the right values. Same
 * results, bit for bit.
 * rmsnorm_bwd_split (SVK_TEXEL, SVK_SPLIT) walks each lane of partials with
 * the lanes of a subgroup instead of one invocation: for wide rows on CPU
 * devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on). Same outputs to within the sums' rounding
 * (their order differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SVK_TEXEL
#extension GL_EXT_samplerless_texture_functions : require
#endif
#ifdef SVK_SPLIT
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#include "common/push_norm_bwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufDout4 { vec4 dout4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufAdd { float add[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufAdd4 { vec4 add4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufDx4 { vec4 dx4[]; };
layout(set = 0, binding = 6, std430) buffer BufPart { float part[]; };
layout(set = 0, binding = 6, std430) buffer BufPart4 { vec4 part4[]; };
#ifdef SVK_TEXEL
layout(set = 0, binding = 7) uniform textureBuffer dout_t4;
layout(set = 0, binding = 8) uniform textureBuffer add_t4;
layout(set = 0, binding = 9) uniform textureBuffer x_t4;
#define NR_LD_DOUT(e) texelFetch(dout_t4, int((e) >> 2))
#define NR_LD_ADD(e) texelFetch(add_t4, int((e) >> 2))
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#else
#define NR_LD_DOUT(e) RC_LD(dout, dout4, e)
#define NR_LD_ADD(e) RC_LD(add, add4, e)
#define NR_LD_X(e) RC_LD(x, x4, e)
#endif

#include "common/grid.glsl"
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

/* Rows row .. row + n - 1 of a lane, n RC_ROWS or 1, the gain partial row
 * at element pg, first as in layernorm_bwd_cpu.comp. */
void lane_rows(const uint row, const uint n, const uint pg, const bool first)
{
    const uint W = pc.width;
    const bool add_dout = (RC_FLAGS & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (RC_FLAGS & SVK_NORM_FLAG_ADD_DX) != 0u;
    uint e[RC_ROWS];
    float rs[RC_ROWS];
    float sdx[RC_ROWS], sdx_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        e[k] = (row + k) * W;
        rs[k] = rstd[pc.off_rstd + row + k];
        sdx[k] = sdx_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        vec4 pgi; /* the partial with rows row .. row + k added */
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = NR_LD_X(pc.off_x + e[k] + i) * rs[k];
            rc_add(sdx[k], sdx_c[k], dv * gi * xhat);
            const vec4 cg = dv * xhat;
            if (k == 0u)
                pgi = first ? cg : RC_LD(part, part4, pg + i) + cg;
            else
                pgi += cg;
        }
        RC_ST(part, part4, pg + i, pgi);
    }

    float mean_dx[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++)
        mean_dx[k] = RS_TOTAL(sdx[k], sdx_c[k]) / float(W);
    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = NR_LD_X(pc.off_x + e[k] + i) * rs[k];
            vec4 v = rs[k] * (dv * gi - xhat * mean_dx[k]);
            if (add_dx)
                v += NR_LD_ADD(pc.off_add + e[k] + i);
            RC_ST(dx, dx4, pc.off_dx + e[k] + i, v);
        }
    }
}

#define RC_LANE_WIDTH pc.width
#define RC_LANE_UNIT RS_GROUP
#include "common/row_cpu_lanes.glsl"
