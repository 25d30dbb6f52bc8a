#version 450
/*
 * Counts the int32 indices idx[0..n) that are valid (in [0, V)) and invalid
 * (anything else, except the ignore value when one is set), and writes
 * counts[0] = valid, counts[1] = invalid (=, not +=: a recorded list can be
 * replayed without clearing anything). One workgroup; each invocation
 * counts a strided share, then a shared-memory tree adds the shares
 * (integers, so any order gives the same count).
 * Used by the embedding (tokens: the host reports invalid input) and
 * cross-entropy (targets: the count of rows the mean runs over, -1
 * ignored) ops. Conformance: conform_embedding.c, conform_cross_entropy.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_index_check.h"

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufIdx { int idx[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufCounts { int counts[]; };

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const bool has_ignore = (pc.flags & SVK_INDEX_CHECK_FLAG_IGNORE) != 0u;
    uint good = 0u, bad = 0u;
    for (uint i = lid; i < pc.n; i += wg) {
        const int v = idx[pc.off_idx + i];
        if (v >= 0 && uint(v) < pc.V)
            good++;
        else if (!has_ignore || v != pc.ignore)
            bad++;
    }
    good = svk_wg_sum_u(good);
    bad = svk_wg_sum_u(bad);
    if (lid == 0u) {
        counts[pc.off_counts] = int(good);
        counts[pc.off_counts + 1u] = int(bad);
    }
}
