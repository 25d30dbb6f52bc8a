/*
 * The benchmark's multiply-add kernel (shaders/fma_peak.comp): every
 * invocation's sum of its recurrences against lib/ref/fma_peak.c, so that
 * the rate svk-bench reports is for work the device really did (all
 * invocations, all iterations). a and b are drawn per case, with a in
 * [0.90, 0.97): each chain converges slowly towards b / (1 - a), so a
 * missing or extra step moves the result by about (1 - a) of the distance
 * left, far over the tolerance.
 *
 * Tolerance 1e-5: GLSL may evaluate fma fused or as a multiply and an add
 * (lavapipe splits it), one rounding apart per step; the recurrence damps
 * each step's error by a, so the accumulated error stays within
 * 2^-24 / (1 - a) < 2^-20 of the chain's largest value.
 */
#include <stdio.h>

#include "common/push_fma_peak.h"
#include "conform.h"
#include "ops/fma_peak.h"

static const double TOL_FMA_PEAK = 1e-5;

/* Invocations: one, a prime, either side of the 256-wide workgroup, and a
 * count over 256 workgroups. */
static const uint32_t counts[] = {1, 7, 255, 257, 65537};
static const uint32_t iter_counts[] = {1, 3, 13};

static void run(cf_state *cf, uint32_t n, uint32_t iters)
{
    char shape[64];
    snprintf(shape, sizeof(shape), "n=%u iters=%u", n, iters);
    cf_case *c = cf_begin(cf, "fma_peak", "-", shape);
    if (!c)
        return;
    const float *ab = cf_random(c, 2, 0, 1);
    cf_out *o = cf_output(c, "out", n, NULL);
    if (!ab || !o)
        goto end;
    const float a = 0.90f + 0.07f * ab[0], b = 0.01f + 0.09f * ab[1];
    svk_fma_peak_args args = {.n = n, .iters = iters, .a = a, .b = b, .out = cf_tref(o)};
    if (!cf_ok(c, svk_fma_peak_record(cf_list(c), &args)) || !cf_run(c))
        goto end;
    double *ref = cf_alloc(c, n * sizeof(double));
    if (!ref)
        goto end;
    svk_ref_fma_peak_f64(n, SVK_FMA_PEAK_CHAINS, (size_t)iters * SVK_FMA_PEAK_UNROLL, a, b, ref);
    cf_compare(c, o, ref, TOL_FMA_PEAK);
end:
    cf_end(c);
}

void cf_run_fma_peak(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        for (size_t k = 0; k < sizeof(iter_counts) / sizeof(iter_counts[0]); k++)
            if (!cf->quick || counts[i] < 10000)
                run(cf, counts[i], iter_counts[k]);
}
