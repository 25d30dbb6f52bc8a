#version 450
/*
 * RMSNorm forward, the CPU form (common/row_cpu.glsl) of rmsnorm_fwd.comp:
 * one invocation per RC_ROWS rows,
 *   out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps).
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). out may equal x (each element is read, then written).
 *
 * Variants (shaders/meson.build):
 * rmsnorm_fwd_texel (SVK_TEXEL) fetches the rows of x through an RGBA32F
 * uniform texel view of the same buffer (binding 4); VEC4 only
 * (lib/ops/norm_param_reduce.c picks it where the rows are vec4-aligned and
 * the buffers can be viewed). lavapipe loads from a storage buffer lane by
 * lane under the row loop's mask, where a texel fetch is one call. Same
 * results, bit for bit.
 * rmsnorm_fwd_split (SVK_TEXEL, SVK_SPLIT) shares each group of rows
 * between the lanes of a subgroup instead of one invocation: for wide rows
 * on CPU devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it, at widths from
 * SVK_NORM_SPLIT_WIDE_MIN_WIDTH on). Same outputs to within the sums'
 * rounding (their order differs).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SVK_TEXEL
#extension GL_EXT_samplerless_texture_functions : require
#endif
#ifdef SVK_SPLIT
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#include "common/push_norm_fwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufOut4 { vec4 o4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufRstd { float rstd[]; };
#ifdef SVK_TEXEL
layout(set = 0, binding = 4) uniform textureBuffer x_t4;
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#else
#define NR_LD_X(e) RC_LD(x, x4, e)
#endif

#include "common/grid.glsl"
#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

void main()
{
    const uint row0 = RS_GROUP * RC_ROWS;
    if (row0 >= pc.rows)
        return;
    const uint W = pc.width;
    /* Rows and keep as in layernorm_fwd_cpu.comp. */
    uint row[RC_ROWS], e[RC_ROWS];
    bool keep[RC_ROWS];
    float ss[RC_ROWS], ss_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        row[k] = min(row0 + k, pc.rows - 1u);
        e[k] = row[k] * W;
        keep[k] = row0 + k < pc.rows;
        ss[k] = ss_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, W) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 v = NR_LD_X(pc.off_x + e[k] + i);
            rc_add(ss[k], ss_c[k], v * v);
        }
    }
    float rs[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
        rs[k] = inversesqrt(RS_TOTAL(ss[k], ss_c[k]) / float(W) + pc.eps);

    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i);
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 v = NR_LD_X(pc.off_x + e[k] + i) * rs[k] * gi;
            if (keep[k])
                RC_ST(o, o4, pc.off_out + e[k] + i, v);
        }
    }
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
        if (keep[k] && RS_FIRST_LANE && (RC_FLAGS & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
            rstd[pc.off_rstd + row[k]] = rs[k];
}
