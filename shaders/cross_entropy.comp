#version 450
/*
 * Fused softmax + cross-entropy + gradient, one workgroup per row of logits
 * (grid spread by svk_op_grid):
 *   loss[r]    = (max - l[t]) + log(sum_i exp(l[i] - max))     t = targets[r]
 *   dlogits[r] = (softmax(l) - onehot(t)) / count
 * for rows whose target is in [0, V); other rows (target -1, or invalid)
 * get loss 0 and zero dlogits. count, the number of such rows in the whole
 * batch, was computed on the device beforehand (index_check.comp into
 * counts[0]); the mean loss is cross_entropy_loss.comp's.
 *
 * Numerics: every exponent is l[i] - max <= 0, so nothing overflows even for
 * logits ~1e4, and the sum is >= 1 (the maximum's term is exactly 1), so its
 * log is finite. The loss takes the difference of two nearby large logits
 * first (exact when they are within a factor 2 of each other) instead of
 * subtracting l[t] from a large log-sum-exp, as the reference does.
 * A confident row has sum = 1 + rest with rest tiny: rounding 1 + rest to
 * float and taking its log, or forming p[t] - 1, would keep only
 * 2^-24 / rest of the loss or gradient (the float reference loses exactly
 * that). So the terms other than one maximum's are summed apart (rest, with
 * the maxima counted exactly), the loss is (max - l[t]) + log1p(rest), and
 * when t is a maximum dlogits[t] = -rest / sum / count.
 * The max and the sums are shared-memory trees (common/wg_reduce.glsl): the
 * same bits on every run, at any subgroup size.
 *
 * dlogits may be logits (in place): l[t] is read before the first barrier
 * of the sum, and in the last pass each invocation reads l[i] just before it
 * writes dlogits[i] itself.
 *
 * Reference: lib/ref/cross_entropy.c. Conformance: tools/conformance/conform_cross_entropy.c.
 *
 * CPU devices run the CPU form instead, cross_entropy_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_cross_entropy.h"

#include "common/kernel.glsl"

#include "common/wg_reduce.glsl"
#include "common/log1p.glsl"

#include "common/cross_entropy_bindings.glsl"

void main()
{
    const uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
    const uint row = svk_group_index();
    /* Uniform per workgroup: the whole group returns together. */
    if (row >= pc.rows)
        return;
    const bool write_dl = (pc.flags & SVK_CROSS_ENTROPY_FLAG_DLOGITS) != 0u;
    const uint V = pc.V;
    const uint base = pc.off_logits + row * V;
    const uint dbase = pc.off_dlogits + row * V;
    const int tgt = targets[pc.off_targets + row];
    if (tgt < 0 || uint(tgt) >= V) {
        if (write_dl)
            for (uint i = lid; i < V; i += wg)
                dlogits[dbase + i] = 0.0;
        if (lid == 0u)
            losses[pc.off_losses + row] = 0.0;
        return;
    }

    float mx = uintBitsToFloat(0xff800000u); /* -inf */
    for (uint i = lid; i < V; i += wg)
        mx = max(mx, logits[base + i]);
    mx = svk_wg_max(mx);
    const float lt = logits[base + uint(tgt)];

    /* Every term but the maxima's (each exactly 1), which are counted. */
    float rest = 0.0;
    uint n_max = 0u;
    for (uint i = lid; i < V; i += wg) {
        const float l = logits[base + i];
        if (l == mx)
            n_max++;
        else
            rest += exp(l - mx);
    }
    svk_wg_sum_fu(rest, n_max);
    /* sum = 1 + rest, one maximum's term aside. (With NaN logits n_max may
     * be 0; rest is NaN then anyway.) */
    rest += float(n_max) - 1.0;
    const float sum = 1.0 + rest;

    if (lid == 0u)
        losses[pc.off_losses + row] = (mx - lt) + log1p_pos(rest);
    if (!write_dl)
        return;
    const float count = float(counts[pc.off_counts]); /* >= 1: this row counts */
    for (uint i = lid; i < V; i += wg) {
        const float p = exp(logits[base + i] - mx) / sum;
        float d = p;
        if (i == uint(tgt))
            d = lt == mx ? -rest / sum : p - 1.0; /* p - 1 cancels only when p ~ 1 */
        dlogits[dbase + i] = d / count;
    }
}
