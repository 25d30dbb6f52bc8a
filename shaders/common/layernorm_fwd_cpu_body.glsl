/* The body of shaders/layernorm_fwd_cpu.comp, layernorm_fwd_texel.comp and
 * layernorm_fwd_split.comp; the including shader defines how the rows are
 * read (NR_LD_X), and RS_SPLIT for the split form (common/row_split.glsl). */
#include "common/push_norm_fwd.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG { float g[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufG4 { vec4 g4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufB { float b[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufB4 { vec4 b4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufOut { float o[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BufOut4 { vec4 o4[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BufMean { float mean[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BufRstd { float rstd[]; };

#include "common/grid.glsl"
#include "common/row_cpu.glsl"
#include "common/row_split.glsl"

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
    float K[RC_ROWS];
    float s[RC_ROWS], s_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        row[k] = min(row0 + k, pc.rows - 1u);
        e[k] = row[k] * W;
        keep[k] = row0 + k < pc.rows;
        K[k] = x[pc.off_x + e[k]];
        s[k] = s_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, W) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
            rc_add(s[k], s_c[k], NR_LD_X(pc.off_x + e[k] + i) - K[k]);
    }
    float m[RC_ROWS];
    float ss[RC_ROWS], ss_c[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        m[k] = RS_TOTAL(s[k], s_c[k]) / float(W);
        ss[k] = ss_c[k] = 0.0;
    }

    RS_ROW_LOOP(i, W) {
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = (NR_LD_X(pc.off_x + e[k] + i) - K[k]) - m[k];
            rc_add(ss[k], ss_c[k], d * d);
        }
    }
    float rs[RC_ROWS];
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++)
        rs[k] = inversesqrt(RS_TOTAL(ss[k], ss_c[k]) / float(W) + pc.eps);

    RS_ROW_LOOP(i, W) {
        const vec4 gi = RC_LD(g, g4, pc.off_g + i), bi = RC_LD(b, b4, pc.off_b + i);
        [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
            const vec4 d = (NR_LD_X(pc.off_x + e[k] + i) - K[k]) - m[k];
            if (keep[k])
                RC_ST(o, o4, pc.off_out + e[k] + i, d * rs[k] * gi + bi);
        }
    }
    [[unroll]] for (uint k = 0u; k < RC_ROWS; k++) {
        if (!keep[k] || !RS_FIRST_LANE)
            continue;
        if ((RC_FLAGS & SVK_NORM_FLAG_SAVE_MEAN) != 0u)
            mean[pc.off_mean + row[k]] = K[k] + m[k];
        if ((RC_FLAGS & SVK_NORM_FLAG_SAVE_RSTD) != 0u)
            rstd[pc.off_rstd + row[k]] = rs[k];
    }
}
