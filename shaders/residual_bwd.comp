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

/* Four elements per invocation, as vec4s (lib/ops/elem_util.h says when). */
layout(constant_id = 3) const bool VEC4 = false;

layout(set = 0, binding = 0, std430) readonly buffer BufDx { float dx[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufDx4 { vec4 dx4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDy { float dy[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufDy4 { vec4 dy4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDz { float dz[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufDz4 { vec4 dz4[]; };

#include "common/grid.glsl"
#include "common/elem_index.glsl"

void main()
{
    uint i;
    if (VEC4) {
        if (!svk_elem_index(pc.n / 4u, i))
            return;
        dz4[pc.off_z / 4u + i] = dx4[pc.off_x / 4u + i] / pc.c + dy4[pc.off_y / 4u + i];
        return;
    }
    if (!svk_elem_index(pc.n, i))
        return;
    dz[pc.off_z + i] = dx[pc.off_x + i] / pc.c + dy[pc.off_y + i];
}
