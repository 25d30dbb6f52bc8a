#version 450
/*
 * RMSNorm backward, the CPU form (common/row_cpu.glsl) of
 * rmsnorm_bwd.comp, the same formulas, flags and partials layout:
 *   dx = rstd (dxhat - xhat mean(dxhat xhat)),  xhat = x rstd, dxhat = dout g.
 * Lanes (one invocation each), the deterministic gain partials and in-place
 * use as in layernorm_bwd_cpu.comp.
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
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
layout(set = 0, binding = 3, std430) readonly buffer BufRstd { float rstd[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 4, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufDx4 { vec4 dx4[]; };
layout(set = 0, binding = 6, std430) buffer BufPart { float part[]; };
layout(set = 0, binding = 6, std430) buffer BufPart4 { vec4 part4[]; };

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
    const uint pg = pc.off_part + lane * W;
    const uint r0 = lane * pc.rows_per_part, r1 = min(r0 + pc.rows_per_part, pc.rows);

    for (uint row = r0; row < r1; row++) {
        const uint e = row * W;
        const uint bo = pc.off_dout + e, ba = pc.off_add + e, bx = pc.off_x + e, bd = pc.off_dx + e;
        const float rs = rstd[pc.off_rstd + row];
        const bool first = row == r0;

        vec4 sdx = vec4(0.0), sdx_c = vec4(0.0);
        for (uint i = 0u; i < W; i += RC_STEP) {
            vec4 dv = RC_LD(dout, dout4, bo + i);
            if (add_dout)
                dv += RC_LD(add, add4, ba + i);
            const vec4 xhat = RC_LD(x, x4, bx + i) * rs;
            rc_add(sdx, sdx_c, dv * RC_LD(g, g4, pc.off_g + i) * xhat);
            const vec4 cg = dv * xhat;
            RC_ST(part, part4, pg + i, first ? cg : RC_LD(part, part4, pg + i) + cg);
        }
        const float mean_dx = rc_sum(sdx) / float(W);

        for (uint i = 0u; i < W; i += RC_STEP) {
            vec4 dv = RC_LD(dout, dout4, bo + i);
            if (add_dout)
                dv += RC_LD(add, add4, ba + i);
            const vec4 xhat = RC_LD(x, x4, bx + i) * rs;
            vec4 v = rs * (dv * RC_LD(g, g4, pc.off_g + i) - xhat * mean_dx);
            if (add_dx)
                v += RC_LD(add, add4, ba + i);
            RC_ST(dx, dx4, bd + i, v);
        }
    }
}
