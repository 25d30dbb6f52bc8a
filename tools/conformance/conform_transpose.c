/*
 * Transpose: an exact operation, so the device must match the plain-C
 * result bit for bit (tolerance 0). src's padding (ld > cols) holds NaN,
 * which must stay out of dst. One kernel on every device
 * (shaders/transpose.comp); shapes whose rows are a multiple of 4 run
 * again with dst on a vec4 (its VEC4 path).
 */
#include <math.h>
#include <stdio.h>

#include "conform.h"
#include "ops/transpose.h"

static const double TOL_EXACT = 0.0;

typedef struct transpose_case {
    uint32_t rows, cols, pad;
    int quick;
} transpose_case;

/* One element, a row, a column, primes around the 64-wide workgroup, the
 * default model's mlp.proj weight [C, 4C] and a larger one, padded rows. */
static const transpose_case cases[] = {
    {1, 1, 0, 1},     {1, 67, 0, 1},    {67, 1, 0, 1},     {13, 17, 0, 1},   {61, 65, 3, 1},
    {128, 512, 0, 1}, {256, 1024, 0, 0}, {1031, 7, 5, 0},  {3, 4099, 0, 0},  {4, 9, 0, 1},
    {8, 3, 2, 1},
};

static void run(cf_state *cf, const transpose_case *t, bool vec4)
{
    char shape[64];
    snprintf(shape, sizeof(shape), "%ux%u%s%s", t->rows, t->cols, t->pad ? " padded" : "", vec4 ? " vec4" : "");
    cf_case *c = cf_begin(cf, "transpose", "fwd", shape);
    if (!c)
        return;
    const uint32_t ld = t->cols + t->pad;
    const size_t n_src = (size_t)(t->rows - 1) * ld + t->cols, n = (size_t)t->rows * t->cols;
    float *src = cf_random(c, n_src, -100, 100);
    if (!src)
        goto end;
    for (size_t i = 0; i < n_src; i++)
        if (i % ld >= t->cols)
            src[i] = NAN;
    cf_out *o = cf_output_at(c, "dst", n, NULL, vec4);
    if (!o)
        goto end;
    svk_transpose_args a = {
        .rows = t->rows, .cols = t->cols, .ld = ld, .src = cf_input(c, "src", src, n_src), .dst = cf_tref(o),
    };
    if (!cf_ok(c, svk_transpose_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *ref = cf_alloc(c, n * sizeof(double));
    if (!ref)
        goto end;
    for (uint32_t j = 0; j < t->cols; j++)
        for (uint32_t i = 0; i < t->rows; i++)
            ref[(size_t)j * t->rows + i] = src[(size_t)i * ld + j];
    cf_compare(c, o, ref, TOL_EXACT);
end:
    cf_end(c);
}

void cf_run_transpose(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int vec4 = 0; vec4 < 1 + (cases[i].rows % 4 == 0); vec4++)
            if (!cf->quick || cases[i].quick)
                run(cf, &cases[i], vec4);
}
