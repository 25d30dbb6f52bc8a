#version 450
/*
 * The mean cross-entropy loss over the counted rows:
 *   loss[0] = sum_r losses[r] / counts[0],  or 0 when counts[0] == 0,
 * from the per-row losses of cross_entropy.comp (0 for rows that do not
 * count). One workgroup: invocation k adds the contiguous rows
 * [k * per, (k + 1) * per) in order, then a shared-memory tree adds the
 * invocations' sums: a fixed order, the same bits on every run. The result
 * stays in device memory; the host reads it only when it wants to.
 * Reference: lib/ref/cross_entropy.c. Conformance: tools/conformance/conform_cross_entropy.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_cross_entropy.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/wg_reduce.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufLosses { float losses[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufCounts { int counts[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BufLoss { float loss[]; };

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint per = (pc.rows + wg - 1u) / wg;
    const uint r0 = min(lid * per, pc.rows), r1 = min(r0 + per, pc.rows);
    float sum = 0.0;
    for (uint r = r0; r < r1; r++)
        sum += losses[pc.off_losses + r];
    sum = svk_wg_sum(sum);
    if (lid == 0u) {
        const int count = counts[pc.off_counts];
        loss[pc.off_loss] = count > 0 ? sum / float(count) : 0.0;
    }
}
