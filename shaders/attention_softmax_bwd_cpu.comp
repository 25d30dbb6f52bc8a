#version 450
/*
 * Softmax backward, in place: the CPU form (common/row_cpu.glsl) of
 * attention_softmax_bwd.comp, with the same result: for row r, query
 * t = r % T, with p the saved probabilities and d = dP,
 *   dS_j = p_j (dP_j - sum_k p_k dP_k)  for keys j <= t,  0 for keys j > t.
 * One invocation per row (see attention_softmax_fwd_cpu.comp); the dot
 * product is compensated (rc_add); the VEC4 chunk holding key t is masked
 * as in the forward form.
 * Reference: svk_ref_attention_bwd (lib/ref/attention.c). Conformance:
 * tools/conformance/conform_attention.c (the "-cpu" rows).
 *
 * attention_softmax_bwd_texel (SVK_TEXEL) fetches p and dP through RGBA32F
 * uniform texel views of the same buffers (bindings 2 and 3); VEC4 only
 * (lib/ops/attention.c picks it where the rows are vec4-aligned and the
 * buffers can be viewed). lavapipe loads from a storage buffer lane by lane
 * under the row loop's mask, where a texel fetch is one call. dS overwrites
 * dP in place, each element after the one invocation that owns its row has
 * fetched it for the last time, so a view that does not see its own
 * dispatch's writes reads the right values. Same results, bit for bit.
 */
#extension GL_GOOGLE_include_directive : require
#include "common/variants.glsl"

#include "common/push_attention_softmax.h"

#include "common/kernel.glsl"

SVK_BUF4(0, readonly, BufP, p);
SVK_BUF4(1, SVK_RW, BufD, d);
#ifdef SVK_TEXEL
layout(set = 0, binding = 2) uniform textureBuffer p_t4;
layout(set = 0, binding = 3) uniform textureBuffer d_t4;
#define SM_LD_P(e) texelFetch(p_t4, int((e) >> 2))
#define SM_LD_D(e) texelFetch(d_t4, int((e) >> 2))
#else
#define SM_LD_P(e) RC_LD(p, p4, e)
#define SM_LD_D(e) RC_LD(d, d4, e)
#endif

#include "common/row_cpu.glsl"

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const uint T = pc.T, n = row % T + 1u;
    const uint bp = pc.off_p + row * T, bd = pc.off_d + row * T;

    float dot = 0.0, dot_c = 0.0;
    for (uint j = 0u; j < n; j += RC_STEP) {
        const bvec4 key = lessThan(uvec4(j) + uvec4(0u, 1u, 2u, 3u), uvec4(n));
        rc_add(dot, dot_c, mix(vec4(0.0), SM_LD_P(bp + j) * SM_LD_D(bd + j), key));
    }

    uint j = 0u;
    for (; j < n; j += RC_STEP) {
        const bvec4 key = lessThan(uvec4(j) + uvec4(0u, 1u, 2u, 3u), uvec4(n));
        RC_ST(d, d4, bd + j, mix(vec4(0.0), SM_LD_P(bp + j) * (SM_LD_D(bd + j) - dot), key));
    }
    for (; j < T; j += RC_STEP)
        RC_ST(d, d4, bd + j, vec4(0.0));
}
