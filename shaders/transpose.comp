#version 450
/*
 * Transpose: dst [cols, rows] = src [rows, cols]^T (src with leading
 * dimension ld, dst packed). The model uses it for weights whose forward
 * product the device runs faster as NN than as NT (lib/model/plan.c,
 * svk_plan_options.mlp_proj_nn); a copy, so the result is exact.
 * Reference: plain C in tools/conformance/conform_transpose.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_transpose.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"
#include "common/elem_index.glsl"

layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufSrc { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufDst { float dst[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufDst4 { vec4 dst4[]; };

void main()
{
    /* Invocation o writes dst[o] (with VEC4 dst[4 o .. 4 o + 3], rows a
     * multiple of 4 and dst on a vec4): neighbours write neighbours and
     * read down a column of src, ld apart. A CPU device stores lane by
     * lane, so a vec4 is a quarter of the store passes. */
    uint o;
    if (VEC4) {
        if (!svk_elem_index(pc.rows / 4u * pc.cols, o))
            return;
        const uint j = o / (pc.rows / 4u), i = 4u * (o % (pc.rows / 4u));
        const uint s = pc.off_src + i * pc.ld + j;
        dst4[pc.off_dst / 4u + o] = vec4(src[s], src[s + pc.ld], src[s + 2u * pc.ld], src[s + 3u * pc.ld]);
        return;
    }
    if (!svk_elem_index(pc.rows * pc.cols, o))
        return;
    const uint j = o / pc.rows, i = o % pc.rows; /* dst[j, i] = src[i, j] */
    dst[pc.off_dst + o] = src[pc.off_src + i * pc.ld + j];
}
