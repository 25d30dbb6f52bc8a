#version 450
/*
 * Fused softmax + cross-entropy + gradient, the CPU form
 * (common/row_cpu.glsl) of cross_entropy.comp: one invocation per row of
 * logits, a plain loop over the row, the same results and the same
 * numerics (see there: max subtraction, the maxima's terms counted apart
 * from the rest, log1p of the rest, the target's gradient from the rest
 * when it is a maximum):
 *   loss[r]    = (max - l[t]) + log(sum_i exp(l[i] - max))     t = targets[r]
 *   dlogits[r] = (softmax(l) - onehot(t)) / count
 * for rows whose target is in [0, V), loss 0 and zero dlogits for the
 * others. The rest is a compensated sum (rc_add): one sequence of up to V
 * terms.
 *
 * dlogits may be logits (in place): l[t] is read first, and every element
 * is read, then written, by the one invocation owning its row.
 *
 * Reference: lib/ref/cross_entropy.c. Conformance:
 * tools/conformance/conform_cross_entropy.c (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_cross_entropy.h"

#define SVK_VIEW4
#include "common/kernel.glsl"

#include "common/cross_entropy_bindings.glsl"

#include "common/row_cpu.glsl"
#include "common/log1p.glsl"

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const bool write_dl = (pc.flags & SVK_CROSS_ENTROPY_FLAG_DLOGITS) != 0u;
    const uint V = pc.V;
    const uint base = pc.off_logits + row * V;
    const uint dbase = pc.off_dlogits + row * V;
    const int tgt = targets[pc.off_targets + row];
    if (tgt < 0 || uint(tgt) >= V) {
        if (write_dl)
            for (uint i = 0u; i < V; i += RC_STEP)
                RC_ST(dlogits, dlogits4, dbase + i, vec4(0.0));
        losses[pc.off_losses + row] = 0.0;
        return;
    }

    vec4 mx4 = vec4(uintBitsToFloat(0xff800000u)); /* -inf */
    for (uint i = 0u; i < V; i += RC_STEP)
        mx4 = max(mx4, RC_LD(logits, logits4, base + i));
    const float mx = VEC4 != 0u ? max(max(mx4.x, mx4.y), max(mx4.z, mx4.w)) : mx4.x;
    const float lt = logits[base + uint(tgt)];

    /* Every term but the maxima's (each exactly 1), which are counted. */
    float rest_s = 0.0, rest_c = 0.0;
    uvec4 n_max4 = uvec4(0u);
    for (uint i = 0u; i < V; i += RC_STEP) {
        const vec4 l = RC_LD(logits, logits4, base + i);
        const bvec4 top = equal(l, vec4(mx));
        n_max4 += uvec4(top);
        rc_add(rest_s, rest_c, mix(exp(l - mx), vec4(0.0), top));
    }
    const uint n_max = VEC4 != 0u ? (n_max4.x + n_max4.y) + (n_max4.z + n_max4.w) : n_max4.x;
    /* sum = 1 + rest, one maximum's term aside (see cross_entropy.comp). */
    const float rest = rest_s + (float(n_max) - 1.0);
    const float sum = 1.0 + rest;

    losses[pc.off_losses + row] = (mx - lt) + log1p_pos(rest);
    if (!write_dl)
        return;
    const float count = float(counts[pc.off_counts]); /* >= 1: this row counts */
    for (uint i = 0u; i < V; i += RC_STEP) {
        const vec4 p = exp(RC_LD(logits, logits4, base + i) - mx) / sum;
        /* The target's element: p - 1 cancels only when p ~ 1. */
        const bvec4 is_t = equal(uvec4(i) + uvec4(0u, 1u, 2u, 3u), uvec4(uint(tgt)));
        const vec4 dt = lt == mx ? vec4(-rest / sum) : p - 1.0;
        RC_ST(dlogits, dlogits4, dbase + i, mix(p, dt, is_t) / count);
    }
}
