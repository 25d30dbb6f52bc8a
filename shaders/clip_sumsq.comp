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
 *
 * CPU form (CPU_CHUNK > 0, the slot's element count; lib/ops/clip.c picks
 * it where svk_op_variant() does): one invocation per slot walks its chunk
 * in order, as vec4s with VEC4 (x's offset a multiple of 4), in four
 * compensated sums (Kahan, as common/row_cpu.glsl's rc_add), with no
 * shared memory and no barrier: on a CPU device a barrier splits the
 * shader into coroutines, and the portable form moved 1.3 GB/s. The same
 * slots, in a different but also fixed order.
 * Reference: lib/ref/clip.c (global_norm). Conformance: tools/conformance/conform_clip.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_clip.h"

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"

layout(constant_id = 3) const uint PER = 16; /* elements per invocation */
layout(constant_id = 4) const uint CPU_CHUNK = 0u; /* > 0: the CPU form, elements per slot */
layout(constant_id = 5) const bool VEC4 = false;

SVK_BUF4(0, readonly, BufX, x);
SVK_BUF(1, writeonly, BufPartials, partials);

/* s + v, compensated (c carries what s lost). An infinite s keeps c at 0,
 * so an overflowing sum stays +inf, as the portable form's does, instead
 * of turning NaN through inf - inf. The test is on the bits: Vulkan lets a
 * compiler fold isinf() to false (NVIDIA's turned a NaN comparison in
 * clip_scale.comp into a min()). */
void add_compensated(inout vec4 s, inout vec4 c, vec4 v)
{
    precise vec4 y = v - c;
    precise vec4 t = s + y;
    precise vec4 lost = (t - s) - y;
    c = mix(lost, vec4(0.0), equal(floatBitsToUint(t) & 0x7fffffffu, uvec4(0x7f800000u)));
    s = t;
}

void cpu_form()
{
    const uint slot = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (slot > (pc.n - 1u) / CPU_CHUNK)
        return;
    const uint begin = slot * CPU_CHUNK, end = min(begin + CPU_CHUNK, pc.n);
    vec4 s = vec4(0.0), c = vec4(0.0);
    uint i = begin;
    if (VEC4) {
        for (; i + 4u <= end; i += 4u) {
            const vec4 v = x4[(pc.off_x + i) / 4u];
            add_compensated(s, c, v * v);
        }
    }
    for (; i < end; i++) {
        const float v = x[pc.off_x + i];
        add_compensated(s, c, vec4(v * v, 0.0, 0.0, 0.0));
    }
    partials[pc.off_partials + slot] = (s.x + s.y) + (s.z + s.w);
}

void main()
{
    if (CPU_CHUNK > 0u) {
        cpu_form();
        return;
    }
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
