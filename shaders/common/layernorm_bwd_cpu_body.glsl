/* The body of shaders/layernorm_bwd_cpu.comp, layernorm_bwd_texel.comp and
 * layernorm_bwd_split.comp (with RS_SPLIT: common/row_split.glsl);
 * the including shader defines how the rows are read (NR_LD_DOUT, NR_LD_ADD,
 * NR_LD_X). */
#include "common/push_norm_bwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufDout4 { vec4 dout4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufAdd { float add[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufAdd4 { vec4 add4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufMean { float mean[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 5, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 5, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 6, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 6, std430) writeonly buffer BufDx4 { vec4 dx4[]; };
layout(set = 0, binding = 7, std430) buffer BufPart { float part[]; };
layout(set = 0, binding = 7, std430) buffer BufPart4 { vec4 part4[]; };

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

/* Rows row .. row + n - 1 of a lane (n is RC_ROWS or 1, a constant once
 * inlined; common/row_cpu.glsl), whose gain partial row starts at element
 * pg; first: row is the lane's first row, so the partials start from its
 * contribution instead of their stored value. The partials take the rows'
 * contributions in row order, as one row at a time would. */
void lane_rows(const uint row, const uint n, const uint pg, const bool first)
{
    const uint W = pc.width, pb = pg + pc.part_b;
    const bool add_dout = (RC_FLAGS & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (RC_FLAGS & SVK_NORM_FLAG_ADD_DX) != 0u;
    uint e[RC_ROWS];
    float mu[RC_ROWS], rs[RC_ROWS];
    float sd[RC_ROWS], sd_c[RC_ROWS], sdx[RC_ROWS], sdx_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        e[k] = (row + k) * W;
        mu[k] = mean[pc.off_mean + row + k];
        rs[k] = rstd[pc.off_rstd + row + k];
        sd[k] = sd_c[k] = sdx[k] = sdx_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        vec4 pgi, pbi; /* the partials with rows row .. row + k added */
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = (NR_LD_X(pc.off_x + e[k] + i) - mu[k]) * rs[k];
            const vec4 dxhat = dv * gi;
            rc_add(sd[k], sd_c[k], dxhat);
            rc_add(sdx[k], sdx_c[k], dxhat * xhat);
            const vec4 cg = dv * xhat;
            if (k == 0u) {
                pgi = first ? cg : RC_LD(part, part4, pg + i) + cg;
                pbi = first ? dv : RC_LD(part, part4, pb + i) + dv;
            } else {
                pgi += cg;
                pbi += dv;
            }
        }
        RC_ST(part, part4, pg + i, pgi);
        RC_ST(part, part4, pb + i, pbi);
    }

    float mean_d[RC_ROWS], mean_dx[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < n; k++) {
        mean_d[k] = RS_TOTAL(sd[k], sd_c[k]) / float(W);
        mean_dx[k] = RS_TOTAL(sdx[k], sdx_c[k]) / float(W);
    }
    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        [[unroll]] for (uint k = 0u; k < n; k++) {
            const vec4 dv = grad_at(e[k] + i, add_dout);
            const vec4 xhat = (NR_LD_X(pc.off_x + e[k] + i) - mu[k]) * rs[k];
            /* precise: exactly 0 at width 1 (see layernorm_bwd.comp). */
            precise vec4 v = rs[k] * (dv * gi - mean_d[k] - xhat * mean_dx[k]);
            if (add_dx)
                v += NR_LD_ADD(pc.off_add + e[k] + i);
            RC_ST(dx, dx4, pc.off_dx + e[k] + i, v);
        }
    }
}

#define RC_LANE_WIDTH pc.width
#define RC_LANE_UNIT RS_GROUP
#include "common/row_cpu_lanes.glsl"
