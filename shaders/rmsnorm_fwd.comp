#version 450
/*
 * RMSNorm forward over the last axis:
 *   out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps),
 * saving rstd per row for the backward pass.
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c.
 *
 * A sum of squares has no cancellation: one pass. (Squares overflow float
 * for |x| above ~1e19, far outside what a residual stream holds.)
 * One lane per row as in layernorm_fwd.comp; out may equal x.
 *
 * CPU devices run the CPU form instead, rmsnorm_fwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_fwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufRstd { float rstd[]; };

#include "common/grid.glsl"
#include "common/norm_row.glsl"

void main()
{
    const uint lx = gl_LocalInvocationID.x;
    const uint first = svk_group_index() * WG_Y;
    if (first >= pc.rows)
        return;
    const uint row = first + gl_LocalInvocationID.y;
    const bool on = row < pc.rows;
    const uint W = pc.width;
    const uint base = pc.off_x + row * W;

    float ss = 0.0;
    if (on)
        for (uint i = lx; i < W; i += WG_X) {
            const float v = x[base + i];
            ss += v * v;
        }
    const float ms = nr_row_sum(vec4(ss, 0.0, 0.0, 0.0)).x / float(W);
    const float rs = inversesqrt(ms + pc.eps);

    if (!on)
        return;
    const uint ob = pc.off_out + row * W;
    for (uint i = lx; i < W; i += WG_X)
        o[ob + i] = x[base + i] * rs * g[pc.off_g + i];
    if (lx == 0u && (pc.flags & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
        rstd[pc.off_rstd + row] = rs;
}
