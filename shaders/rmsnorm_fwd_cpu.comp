#version 450
/*
 * RMSNorm forward, the CPU form (common/row_cpu.glsl) of rmsnorm_fwd.comp:
 * one invocation per row,
 *   out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps).
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). out may equal x (each element is read, then written).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_fwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut4 { vec4 o4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufRstd { float rstd[]; };

#include "common/grid.glsl"
#include "common/row_cpu.glsl"

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const uint W = pc.width;
    const uint bx = pc.off_x + row * W, bo = pc.off_out + row * W;

    vec4 ss = vec4(0.0), ss_c = vec4(0.0);
    for (uint i = 0u; i < W; i += RC_STEP) {
        const vec4 v = RC_LD(x, x4, bx + i);
        rc_add(ss, ss_c, v * v);
    }
    const float rs = inversesqrt(rc_sum(ss) / float(W) + pc.eps);

    for (uint i = 0u; i < W; i += RC_STEP)
        RC_ST(o, o4, bo + i, RC_LD(x, x4, bx + i) * rs * RC_LD(g, g4, pc.off_g + i));
    if ((pc.flags & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
        rstd[pc.off_rstd + row] = rs;
}
