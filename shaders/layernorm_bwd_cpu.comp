#version 450
/*
 * LayerNorm backward, the CPU form (common/row_cpu.glsl) of
 * layernorm_bwd.comp, the same formulas, flags and partials layout:
 *   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
 *   xhat = (x - mean) rstd, dxhat = dout g (dout + add with ADD_DOUT;
 *   dx + add with ADD_DX).
 * One invocation per lane: lane p walks rows [p R, (p + 1) R) in order
 * (R = rows_per_part) and sums their gain and bias contributions into row p
 * of the partial blocks, which norm_param_reduce.comp then adds in lane
 * order to dg and db: deterministic, no atomics.
 * Reference: lib/ref/layernorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 *
 * dx may equal dout, x or add: each element is read before it is written,
 * by the one invocation that owns its row.
 */
#extension GL_GOOGLE_include_directive : require

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

void main()
{
    const uint lane = rc_unit();
    if (lane >= pc.n_part)
        return;
    const uint W = pc.width;
    const bool add_dout = (pc.flags & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (pc.flags & SVK_NORM_FLAG_ADD_DX) != 0u;
    const uint pg = pc.off_part + lane * W, pb = pg + pc.part_b;
    const uint r0 = lane * pc.rows_per_part, r1 = min(r0 + pc.rows_per_part, pc.rows);

    for (uint row = r0; row < r1; row++) {
        const uint e = row * W;
        const uint bo = pc.off_dout + e, ba = pc.off_add + e, bx = pc.off_x + e, bd = pc.off_dx + e;
        const float mu = mean[pc.off_mean + row], rs = rstd[pc.off_rstd + row];
        const bool first = row == r0;

        vec4 sd = vec4(0.0), sd_c = vec4(0.0), sdx = vec4(0.0), sdx_c = vec4(0.0);
        for (uint i = 0u; i < W; i += RC_STEP) {
            vec4 dv = RC_LD(dout, dout4, bo + i);
            if (add_dout)
                dv += RC_LD(add, add4, ba + i);
            const vec4 xhat = (RC_LD(x, x4, bx + i) - mu) * rs;
            const vec4 dxhat = dv * RC_LD(g, g4, pc.off_g + i);
            rc_add(sd, sd_c, dxhat);
            rc_add(sdx, sdx_c, dxhat * xhat);
            const vec4 cg = dv * xhat;
            RC_ST(part, part4, pg + i, first ? cg : RC_LD(part, part4, pg + i) + cg);
            RC_ST(part, part4, pb + i, first ? dv : RC_LD(part, part4, pb + i) + dv);
        }
        const float mean_d = rc_sum(sd) / float(W), mean_dx = rc_sum(sdx) / float(W);

        for (uint i = 0u; i < W; i += RC_STEP) {
            vec4 dv = RC_LD(dout, dout4, bo + i);
            if (add_dout)
                dv += RC_LD(add, add4, ba + i);
            const vec4 xhat = (RC_LD(x, x4, bx + i) - mu) * rs;
            const vec4 dxhat = dv * RC_LD(g, g4, pc.off_g + i);
            vec4 v = rs * (dxhat - mean_d - xhat * mean_dx);
            if (add_dx)
                v += RC_LD(add, add4, ba + i);
            RC_ST(dx, dx4, bd + i, v);
        }
    }
}
