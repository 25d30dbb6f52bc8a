#version 450
/*
 * Fused AdamW update of one tensor, PyTorch semantics (docs/MODEL.md, "Optimiser"),
 * in one pass: p, g, m, v are each read once and p, m, v written once.
 *   g' = scale * g                     scale from device memory (the clip
 *                                      op's output): no host round trip
 *   p -= lr * wd * p                   decoupled decay, with FLAG_DECAY only
 *   m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2
 *   p -= lr * (m / bc1) / (sqrt(v / bc2) + eps),  bc = 1 - beta^t
 * The bias corrections come from the host (computed in double from t and
 * rounded once, as the reference does), in the push constants or, with
 * FLAG_STEP_BUFFER, with lr from a small buffer the host rewrites each step
 * so that a recorded list can be replayed unchanged. The operations are in
 * the reference's order; `precise` keeps the compiler from fusing them into
 * FMAs, so the float result stays within a few roundings of the reference.
 * With FLAG_GUARD the update happens only if the step's loss and the square
 * of its gradient norm (the clip op's output) are finite, the rule of
 * svk_step_finite (lib/model/plan.h): a non-finite step leaves p, m and v
 * untouched, decided on the device, so the host never waits for the norm.
 * Finiteness is tested on the bits, which no float optimisation can assume
 * away.
 * Reference: lib/ref/adamw.c. Conformance: tools/conformance/conform_adamw.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_adamw.h"

#include "common/kernel.glsl"

#include "common/elem_index.glsl"

/* Four vec4s per invocation (lib/ops/elem_util.h says when vec4s are
 * used), lanes i, i + span, i + 2 span, i + 3 span so that neighbouring
 * invocations still touch neighbouring vec4s: the guard, step-buffer and
 * scale loads are uniform but a CPU device pays them per invocation, and
 * sharing them over 16 elements moved AdamW from 6.3 to 8.5 GB/s on
 * lavapipe (n = 4M, svk-bench --filter adamw, run side by side). */
layout(constant_id = 3) const bool VEC4 = false;

SVK_BUF4(0, SVK_RW, BufP, p);
SVK_BUF4(1, readonly, BufG, g);
SVK_BUF4(2, SVK_RW, BufM, m);
SVK_BUF4(3, SVK_RW, BufV, v);
SVK_BUF(4, readonly, BufScale, scale);
SVK_BUF(5, readonly, BufStep, step);
SVK_BUF(6, readonly, BufGuard, guard);
SVK_BUF(7, readonly, BufPrev, prev);

bool svk_is_finite(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

/* svk_step_finite (lib/model/plan.h) of a step's loss and gradient norm. */
bool step_finite(const float loss, const float norm)
{
    precise float norm_sq = norm * norm;
    return svk_is_finite(loss) && svk_is_finite(norm_sq);
}

/* One element's update, in the reference's order. */
void adamw(inout float pi, const float g_raw, inout float mi, inout float vi, const float s, const float lr,
           const float bc1, const float bc2)
{
    precise float gi = g_raw * s;
    precise float pn = pi;
    if ((pc.flags & SVK_ADAMW_FLAG_DECAY) != 0u)
        pn -= lr * pc.weight_decay * pn;
    precise float mn = pc.beta1 * mi + (1.0 - pc.beta1) * gi;
    precise float vn = pc.beta2 * vi + (1.0 - pc.beta2) * gi * gi;
    precise float mhat = mn / bc1;
    precise float vhat = vn / bc2;
    pn -= lr * mhat / (sqrt(vhat) + pc.eps);
    pi = pn;
    mi = mn;
    vi = vn;
}

void main()
{
    uint i;
    const uint n4 = pc.n / 4u, span = (n4 + 3u) / 4u;
    if (!svk_elem_index(VEC4 ? span : pc.n, i))
        return;
    if ((pc.flags & SVK_ADAMW_FLAG_GUARD) != 0u && !step_finite(guard[pc.off_guard], guard[pc.off_guard + 1u]))
        return;
    float lr = pc.lr, bc1 = pc.bc1, bc2 = pc.bc2;
    if ((pc.flags & SVK_ADAMW_FLAG_STEP_BUFFER) != 0u) {
        const bool prev_skipped = (pc.flags & SVK_ADAMW_FLAG_PREV_GUARD) != 0u &&
                                  !step_finite(prev[pc.off_prev], prev[pc.off_prev + 1u]);
        const uint bc = pc.off_step + (prev_skipped ? 3u : 1u);
        lr = step[pc.off_step];
        bc1 = step[bc];
        bc2 = step[bc + 1u];
    }
    const float s = (pc.flags & SVK_ADAMW_FLAG_SCALE) != 0u ? scale[pc.off_scale] : 1.0;

    if (VEC4) {
        for (uint u = 0u; u < 4u; u++) {
            const uint q = i + u * span;
            if (q >= n4)
                break;
            vec4 pv = p4[pc.off_p / 4u + q], mv = m4[pc.off_m / 4u + q], vv = v4[pc.off_v / 4u + q];
            const vec4 gv = g4[pc.off_g / 4u + q];
            for (uint j = 0u; j < 4u; j++)
                adamw(pv[j], gv[j], mv[j], vv[j], s, lr, bc1, bc2);
            p4[pc.off_p / 4u + q] = pv;
            m4[pc.off_m / 4u + q] = mv;
            v4[pc.off_v / 4u + q] = vv;
        }
        return;
    }
    float pi = p[pc.off_p + i], mi = m[pc.off_m + i], vi = v[pc.off_v + i];
    adamw(pi, g[pc.off_g + i], mi, vi, s, lr, bc1, bc2);
    p[pc.off_p + i] = pi;
    m[pc.off_m + i] = mi;
    v[pc.off_v + i] = vi;
}
