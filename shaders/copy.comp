#version 450
/*
 * Fill, copy and add over n floats: dst = value, dst = src, dst += src.
 * The model's plumbing (zeroing gradients, forking the residual streams) and
 * the benchmark's copy-bandwidth yardstick. One element per invocation, or
 * with VEC4 one vec4 (lib/ops/elem_util.h says when): the memory system,
 * not arithmetic, is what this measures and what it costs.
 * Reference: plain C in tools/conformance/conform_copy.c.
 */
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/push_copy.h"
#include "common/grid.glsl"
#include "common/elem_index.glsl"

layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) buffer BufDst { float dst[]; };
layout(set = 0, binding = 0, std430) buffer BufDst4 { vec4 dst4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufSrc { float src[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufSrc4 { vec4 src4[]; };

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const uint d = pc.off_dst / 4u + i, s = pc.off_src / 4u + i;
        if (pc.mode == SVK_COPY_MODE_FILL)
            dst4[d] = vec4(pc.value);
        else if (pc.mode == SVK_COPY_MODE_COPY)
            dst4[d] = src4[s];
        else
            dst4[d] += src4[s];
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    if (pc.mode == SVK_COPY_MODE_FILL)
        dst[pc.off_dst + i] = pc.value;
    else if (pc.mode == SVK_COPY_MODE_COPY)
        dst[pc.off_dst + i] = src[pc.off_src + i];
    else
        dst[pc.off_dst + i] += src[pc.off_src + i];
}
