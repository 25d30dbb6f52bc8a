/* The gradient-clipping reference (lib/ref/clip.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref.h"
#include "ref_test_util.h"

static void run_values(rt *t)
{
    /* sqrt(3^2 + 4^2 + 12^2) = 13 across three arrays, one of them empty. */
    double a[] = {3}, b[] = {4, 12}, c[] = {0};
    const double *arr[] = {a, b, c};
    const size_t sizes[] = {1, 2, 0};
    double n = svk_ref_global_norm_f64(3, arr, sizes);
    rt_check(t, n == 13, "global_norm {3}, {4, 12}, {}: %.17g (want 13)", n);

    double s = svk_ref_clip_scale_f64(13, 1);
    rt_check(t, s == 1 / (13 + 1e-6), "clip_scale(13, 1) = 1 / (13 + 1e-6): %.17g", s);
    rt_check(t, svk_ref_clip_scale_f64(0.5, 1) == 1, "clip_scale(0.5, 1) = 1 (no clipping below max)");
    rt_check(t, svk_ref_clip_scale_f64(0, 1) == 1, "clip_scale(0, 1) = 1 (zero gradients)");
    rt_check(t, svk_ref_clip_scale_f64(1e9, 0) == 1, "clip_scale(1e9, 0) = 1 (max_norm 0: off)");
    rt_check(t, svk_ref_clip_scale_f64(INFINITY, 1) == 0, "clip_scale(inf, 1) = 0");
    rt_check(t, isnan(svk_ref_clip_scale_f64(NAN, 1)), "clip_scale(NaN, 1) = NaN (poisons the update)");

    double *w[] = {a, b, c};
    svk_ref_clip_apply_f64(3, w, sizes, s);
    double after = svk_ref_global_norm_f64(3, arr, sizes);
    rt_check(t, fabs(after - 13 / (13 + 1e-6)) <= 1e-15,
             "clip_apply(1 / (13 + 1e-6)): norm after %.17g (just below max_norm 1)", after);

    float af[] = {3}, bf[] = {4, 12};
    const float *arrf[] = {af, bf};
    const size_t sizesf[] = {1, 2};
    float nf = svk_ref_global_norm_f32(2, arrf, sizesf);
    float sf = svk_ref_clip_scale_f32(nf, 1);
    rt_check(t, nf == 13 && sf == 1 / (13 + 1e-6f), "f32: global_norm 13, clip_scale %.9g", sf);
}

/* A million float terms: accumulated in double, the norm is exact to the
 * final rounding; a float running sum of 0.01f terms would be off by
 * percents once the sum dwarfs each term. */
static void run_long(rt *t)
{
    size_t n = (size_t)1 << 20;
    float *x = rt_alloc(n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        x[i] = 0.1f;
    const float *arr[] = {x, x};
    const size_t sizes[] = {n, n / 2};
    float got = svk_ref_global_norm_f32(2, arr, sizes);
    double want = sqrt(1.5 * (double)n) * (double)0.1f;
    rt_check(t, fabs(got - want) <= 1e-7 * want,
             "global_norm f32 over 1.5M terms of 0.1f: %.9g, want %.9g", got, want);
    free(x);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    run_values(&t);
    run_long(&t);
    return rt_finish(&t, "test_clip");
}
