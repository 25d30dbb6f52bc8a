/*
 * Transpose: an exact operation, so the device must match the plain-C
 * result bit for bit (tolerance 0). src's padding (ld > cols) and what
 * lies before src's offset hold NaN, which must stay out of dst.
 * shaders/transpose.comp on every device; shapes whose rows are a multiple
 * of 4 run again with dst on a vec4 (its VEC4 path). On CPU devices those
 * whose cols, ld and src offset are multiples of 4 too run as 4 x 4 blocks
 * through a texel view (transpose_texel.comp), and once more with
 * texel buffers off ("ssbo"), transpose.comp's VEC4 path.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "conform.h"
#include "ops/transpose.h"

static const double TOL_EXACT = 0.0;

typedef struct transpose_case {
    uint32_t rows, cols, pad;
    uint32_t src_off; /* elements before src in its buffer */
    int quick;
} transpose_case;

/* One element, a row, a column, primes around the 64-wide workgroup, the
 * default model's weights (mlp.proj [C, 4C], qkv [3C, C], attn.proj
 * [C, C]) and a larger one, padded rows. Whole 4 x 4 blocks: one, 11 x 13
 * (more blocks than a workgroup, a prime count of them in each
 * direction), padded rows (ld 24, and ld 14 for the fallback), src at an
 * offset on a vec4 and off one. */
static const transpose_case cases[] = {
    {1, 1, 0, 0, 1},     {1, 67, 0, 0, 1},      {67, 1, 0, 0, 1},    {13, 17, 0, 0, 1},   {61, 65, 3, 0, 1},
    {128, 512, 0, 0, 1}, {384, 128, 0, 0, 1},   {128, 128, 0, 0, 0}, {256, 1024, 0, 0, 0}, {1031, 7, 5, 0, 0},
    {3, 4099, 0, 0, 0},  {4, 9, 0, 0, 1},       {8, 3, 2, 0, 1},     {4, 4, 0, 0, 1},     {44, 52, 0, 0, 1},
    {12, 20, 4, 0, 1},   {8, 12, 2, 0, 1},      {44, 52, 0, 8, 1},   {44, 52, 4, 3, 1},
};

static void run(cf_state *cf, const transpose_case *t, bool vec4, bool ssbo)
{
    char shape[80], off[24] = "";
    if (t->src_off)
        snprintf(off, sizeof(off), " src+%u", t->src_off);
    snprintf(shape, sizeof(shape), "%ux%u%s%s%s%s", t->rows, t->cols, t->pad ? " padded" : "", off,
             vec4 ? " vec4" : "", ssbo ? " ssbo" : "");
    cf_case *c = cf_begin(cf, "transpose", "fwd", shape);
    if (!c)
        return;
    const uint32_t ld = t->cols + t->pad;
    const size_t n_src = (size_t)(t->rows - 1) * ld + t->cols, n = (size_t)t->rows * t->cols;
    float *buf = cf_random(c, t->src_off + n_src, -100, 100);
    if (!buf)
        goto end;
    float *src = buf + t->src_off;
    for (size_t i = 0; i < t->src_off; i++)
        buf[i] = NAN;
    for (size_t i = 0; i < n_src; i++)
        if (i % ld >= t->cols)
            src[i] = NAN;
    cf_out *o = cf_output_at(c, "dst", n, NULL, vec4);
    if (!o)
        goto end;
    svk_tref in = cf_input(c, "src", buf, t->src_off + n_src);
    in.off = t->src_off;
    svk_transpose_args a = {.rows = t->rows, .cols = t->cols, .ld = ld, .src = in, .dst = cf_tref(o)};
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
    const svk_ctx_tuning saved = cf_tuning(cf);
    svk_ctx_tuning ssbo = saved;
    ssbo.texel = SVK_TUNE_TEXEL_OFF;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const transpose_case *t = &cases[i];
        if (cf->quick && !t->quick)
            continue;
        for (int vec4 = 0; vec4 < 1 + (t->rows % 4 == 0); vec4++)
            run(cf, t, vec4, false);
        if (t->rows % 4 == 0 && t->cols % 4 == 0 && t->pad % 4 == 0 && t->src_off % 4 == 0) {
            cf_tune(cf, &ssbo);
            run(cf, t, true, true);
            cf_tune(cf, &saved);
        }
    }
}
