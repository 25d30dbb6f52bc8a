#version 450
/*
 * Whether a tensor is finite, and if not where: over the n elements
 * x[(i / cols) * ld + i % cols], i < n, writes (=, so a recorded list
 * replays without clearing anything)
 *   stats[0] = NaNs, stats[1] = infinities,
 *   stats[2] = n - (the first non-finite i), 0 when there is none,
 *   stats[3] = the bits of the largest |x| among the finite elements.
 * The tests are on the bits, not isnan()/isinf(): Vulkan lets a compiler
 * assume floats are finite and fold those to false. Non-negative floats
 * order as their bits do, so the maximum is an integer maximum, and the
 * first index is a maximum of n - i; every reduction is on integers, so the
 * result is the same whatever the order.
 *
 * One workgroup, each invocation a strided share: this runs only when a
 * checkpoint is saved and in svk_model_find_nonfinite's replay, never in a
 * training step, and one workgroup needs no second pass or atomics.
 * Reference: lib/ref/finite_check.c. Conformance: tools/conformance/conform_finite_check.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_finite_check.h"

#include "common/kernel.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BufX { uint x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufStats { uint stats[]; };

/* nan, inf: sums; first (as n - i), max |x| bits: maxima. */
shared uvec4 red[gl_WorkGroupSize.x];

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    uvec4 s = uvec4(0u);
    for (uint i = lid; i < pc.n; i += wg) {
        const uint r = pc.ld == pc.cols ? 0u : i / pc.cols;
        const uint at = pc.ld == pc.cols ? i : r * pc.ld + (i - r * pc.cols);
        const uint mag = x[pc.off_x + at] & 0x7fffffffu;
        if (mag < 0x7f800000u) {
            s.w = max(s.w, mag);
        } else {
            if (mag == 0x7f800000u)
                s.y++;
            else
                s.x++;
            /* i only grows, so the first one an invocation sees is its least. */
            if (s.z == 0u)
                s.z = pc.n - i;
        }
    }
    red[lid] = s;
    barrier();
    uint span = 1u;
    while (span < wg)
        span <<= 1;
    for (uint k = span >> 1; k > 0u; k >>= 1) {
        if (lid < k && lid + k < wg) {
            const uvec4 o = red[lid + k], m = red[lid];
            red[lid] = uvec4(m.x + o.x, m.y + o.y, max(m.z, o.z), max(m.w, o.w));
        }
        barrier();
    }
    if (lid == 0u) {
        const uvec4 t = red[0];
        stats[pc.off_stats] = t.x;
        stats[pc.off_stats + 1u] = t.y;
        stats[pc.off_stats + 2u] = t.z;
        stats[pc.off_stats + 3u] = t.w;
    }
}
