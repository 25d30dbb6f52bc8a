#version 450
/*
 * Causal softmax over keys, in place: the CPU form (common/row_cpu.glsl) of
 * attention_softmax_fwd.comp, with the same result: row r of the
 * [B, H, T, T] scores, query t = r % T, becomes
 *   p_j = exp(s_j - max) / sum  for keys j <= t,  0 for keys j > t.
 * One invocation per row; neighbouring rows (t, t + 1, ...) share a SIMD
 * batch, so their loops over t + 1 keys have nearly the same length. The sum
 * is compensated (rc_add): a row of up to T terms summed in sequence.
 * With VEC4 (T and the offset multiples of 4) the chunk holding key t is
 * masked: its keys past t count as -inf for the max and 0 for the sum, and
 * are written 0.
 * Reference: svk_ref_attention_fwd (lib/ref/attention.c). Conformance:
 * tools/conformance/conform_attention.c (the "-cpu" rows).
 *
 * attention_softmax_fwd_texel (SVK_TEXEL) fetches the scores through an
 * RGBA32F uniform texel view of the same buffer (binding 1); VEC4 only
 * (lib/ops/attention.c picks it where the rows are vec4-aligned and the
 * buffer can be viewed). lavapipe loads from a storage buffer lane by lane
 * under the row loop's mask, where a texel fetch is one call. The last
 * pass stores to the rows it fetches, after its fetch of each element. Same
 * results, bit for bit.
 */
#extension GL_GOOGLE_include_directive : require
#include "common/variants.glsl"

#include "common/push_attention_softmax.h"

#include "common/kernel.glsl"

SVK_BUF4(0, SVK_RW, BufP, p);
#ifdef SVK_TEXEL
layout(set = 0, binding = 1) uniform textureBuffer p_t4;
#define SM_LD_S(e) texelFetch(p_t4, int((e) >> 2))
#else
#define SM_LD_S(e) RC_LD(p, p4, e)
#endif

#include "common/row_cpu.glsl"

/* Which elements of the chunk at key j are keys 0..n-1. */
bvec4 sm_keys(uint j, uint n)
{
    return lessThan(uvec4(j) + uvec4(0u, 1u, 2u, 3u), uvec4(n));
}

/* exp(s - mx) of the chunk of scores at element e (key j), 0 past key n-1. */
vec4 sm_exp(uint e, uint j, uint n, float mx)
{
    return mix(vec4(0.0), exp(SM_LD_S(e) - mx), sm_keys(j, n));
}

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const uint T = pc.T, n = row % T + 1u; /* keys 0..t */
    const uint base = pc.off_p + row * T;
    const vec4 neg_inf = vec4(uintBitsToFloat(0xff800000u));

    vec4 mx4 = neg_inf;
    for (uint j = 0u; j < n; j += RC_STEP)
        mx4 = max(mx4, mix(neg_inf, SM_LD_S(base + j), sm_keys(j, n)));
    const float mx = VEC4 != 0u ? max(max(mx4.x, mx4.y), max(mx4.z, mx4.w)) : mx4.x;

    float sum = 0.0, sum_c = 0.0;
    for (uint j = 0u; j < n; j += RC_STEP)
        rc_add(sum, sum_c, sm_exp(base + j, j, n, mx));

    /* The exponentials again rather than stored by the pass above and
     * loaded here: on lavapipe a store and a load cost more than exp (a
     * pass over the SIMD lanes each); the same bits. */
    uint j = 0u;
    for (; j < n; j += RC_STEP)
        RC_ST(p, p4, base + j, sm_exp(base + j, j, n, mx) / sum);
    for (; j < T; j += RC_STEP)
        RC_ST(p, p4, base + j, vec4(0.0));
}
