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

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"

SVK_BUF(0, readonly, BufLosses, losses);
layout(set = 0, binding = 1, std430) readonly buffer BufCounts { int counts[]; };
SVK_BUF(2, writeonly, BufLoss, loss);

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
