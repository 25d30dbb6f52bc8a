#version 450
/*
 * Backward of the SiameseNorm dual residual update: dz = dx / c + dy
 * (written). The gradients of the old x and y equal those of the new ones,
 * so dx and dy pass on unchanged and are only read here.
 * Reference: lib/ref/residual.c. Conformance: tools/conformance/conform_norm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_residual.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDy { float dy[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDz { float dz[]; };

#include "common/grid.glsl"

void main()
{
    const uint i = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n)
        return;
    dz[pc.off_z + i] = dx[pc.off_x + i] / pc.c + dy[pc.off_y + i];
}
