#version 450
/*
 * SiameseNorm dual residual update, in place: x += z / c, y += z
 * (c = sqrt(2 (l + 1)) for layer l). A division, as docs/MODEL.md and
 * the reference (lib/ref/residual.c) write it, not a multiplication by 1/c.
 * Conformance: tools/conformance/conform_norm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_residual.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

/* Four elements per invocation, as vec4s (lib/ops/elem_util.h says when). */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) buffer BufX { float x[]; };
layout(set = 0, binding = 0, std430) buffer BufX4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) buffer BufY { float y[]; };
layout(set = 0, binding = 1, std430) buffer BufY4 { vec4 y4[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufZ { float z[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufZ4 { vec4 z4[]; };

#include "common/grid.glsl"
#include "common/elem_index.glsl"

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        const vec4 v = z4[pc.off_z / 4u + i];
        x4[pc.off_x / 4u + i] += v / pc.c;
        y4[pc.off_y / 4u + i] += v;
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    const float v = z[pc.off_z + i];
    x[pc.off_x + i] += v / pc.c;
    y[pc.off_y + i] += v;
}
