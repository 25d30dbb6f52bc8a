#version 450
/*
 * First stage of the global gradient norm: partial sums of squares of one
 * tensor x[0..n), one per workgroup, into consecutive slots of a partials
 * buffer that the model shares between all its gradient tensors (each
 * tensor gets its own range of slots, lib/ops/clip.c). Workgroup g owns the
 * contiguous chunk [g * WG * PER, (g + 1) * WG * PER) and invocation k of
 * it the elements chunk + j * WG + k, j < PER (consecutive invocations read
 * consecutive addresses), summed in j order; a shared-memory tree then adds
 * the invocations. Every sum has a fixed order: the partials are the same
 * bits on every run, at any subgroup size. clip_scale.comp adds the slots.
 * Reference: lib/ref/clip.c (global_norm). Conformance: tools/conformance/conform_clip.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_clip.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"
#include "common/wg_reduce.glsl"

layout(constant_id = 3) const uint PER = 16; /* elements per invocation */

layout(set = 0, binding = 0, std430) readonly buffer BufX { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BufPartials { float partials[]; };

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint chunk = wg * PER;
    const uint g = svk_group_index();
    /* Surplus groups of the x * y grid; uniform per workgroup. */
    if (g > (pc.n - 1u) / chunk)
        return;
    const uint begin = g * chunk;
    float ss = 0.0;
    for (uint j = 0u; j < PER; j++) {
        const uint i = begin + j * wg + lid;
        if (i < pc.n) {
            const float v = x[pc.off_x + i];
            ss += v * v;
        }
    }
    ss = svk_wg_sum(ss);
    if (lid == 0u)
        partials[pc.off_partials + g] = ss;
}
