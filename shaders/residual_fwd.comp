#version 450
/*
 * SiameseNorm dual residual update, in place: x += z / c, y += z
 * (c = sqrt(2 (l + 1)) for layer l). A division, as the specification and
 * the reference (lib/ref/residual.c) write it, not a multiplication by 1/c.
 * Conformance: tools/conformance/conform_norm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_residual.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) buffer BufY { float y[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufZ { float z[]; };

#include "common/grid.glsl"

void main()
{
    const uint i = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n)
        return;
    const float v = z[pc.off_z + i];
    x[pc.off_x + i] += v / pc.c;
    y[pc.off_y + i] += v;
}
