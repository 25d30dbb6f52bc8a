#version 450
/*
 * RMSNorm backward from the saved rstd. With xhat = x rstd and
 * dxhat = dout g:
 *   dx = rstd (dxhat - xhat mean(dxhat xhat)),  dg += sum over rows of dout xhat.
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c.
 *
 * Lanes, deterministic gain partials, the add operand and in-place use as
 * in layernorm_bwd.comp.
 *
 * CPU devices run the CPU form instead, rmsnorm_bwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_bwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDout { float dout[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufAdd { float add[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 3, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 6, std430) buffer BufPart { float part[]; };

#include "common/grid.glsl"
#include "common/norm_row.glsl"

void main()
{
    const uint lx = gl_LocalInvocationID.x;
    const uint first = svk_group_index() * WG_Y;
    if (first >= pc.n_part)
        return;
    const uint lane = first + gl_LocalInvocationID.y;
    const bool lane_on = lane < pc.n_part;
    const uint W = pc.width;
    const bool add_dout = (pc.flags & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (pc.flags & SVK_NORM_FLAG_ADD_DX) != 0u;
    const uint pg = pc.off_part + lane * W;

    for (uint j = 0u; j < pc.rows_per_part; j++) {
        const uint row = lane * pc.rows_per_part + j;
        const bool on = lane_on && row < pc.rows;
        const uint e = row * W;
        const float rs = on ? rstd[pc.off_rstd + row] : 0.0;

        float sdx = 0.0;
        if (on)
            for (uint i = lx; i < W; i += WG_X) {
                float dv = dout[pc.off_dout + e + i];
                if (add_dout)
                    dv += add[pc.off_add + e + i];
                const float xhat = x[pc.off_x + e + i] * rs;
                sdx += dv * g[pc.off_g + i] * xhat;
                const float cg = dv * xhat;
                part[pg + i] = j == 0u ? cg : part[pg + i] + cg;
            }
        const float mean_dx = nr_row_sum(vec4(sdx, 0.0, 0.0, 0.0)).x / float(W);

        if (on)
            for (uint i = lx; i < W; i += WG_X) {
                float dv = dout[pc.off_dout + e + i];
                if (add_dout)
                    dv += add[pc.off_add + e + i];
                const float xhat = x[pc.off_x + e + i] * rs;
                float v = rs * (dv * g[pc.off_g + i] - xhat * mean_dx);
                if (add_dx)
                    v += add[pc.off_add + e + i];
                dx[pc.off_dx + e + i] = v;
            }
    }
}
