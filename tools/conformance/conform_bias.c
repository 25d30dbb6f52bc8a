/*
 * Bias add and its gradient, the column sums of lib/ops/colsum.c
 * (shaders/bias_fwd.comp, colsum.comp and its variant colsum_texel;
 * lib/ref/bias.c), the gradient in both forms (portable, cpu): rows of
 * width 1 and >= 8192, rows around the 32-row block and the 1024-block cap
 * (where the block grows), padded leading dimensions through
 * svk_colsum_record, values offset by 1e4 (the sums' relative error grows
 * with the offset over the sum), and accumulation into random initial
 * gradients.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "ops/bias.h"
#include "ops/colsum.h"

/* bias_fwd: one addition per element; Vulkan float addition is correctly
 * rounded, so each element is within 2^-24 (6e-8) relative of the double
 * sum of the same inputs. */
static const double TOL_BIAS_FWD = 1e-7;
/* Column sums, measured against each column's sum of |terms| (the initial
 * gradient's included; cf_compare_scaled): a column whose terms cancel to
 * near 0 (width-1 rows make that one column) would otherwise fail by
 * chance. Each stage is a sequential float sum, of at most 32 rows (more
 * only past 32768 rows, up to rows / 1024) then of at most 1024 partials,
 * plus the accumulation: each addition errs by at most 2^-24 of the running
 * sum, itself at most the sum of |terms|. With random signs the errors
 * add like a random walk: ~1e-8 measured for zero-mean terms; with the 1e4
 * offset the running sums grow steadily, and 1024 partials of ~3e5 give
 * about 2^-24 sqrt(1024 / 3) ~ 1e-6 (measured 6e-7 to 8e-7 at 32769 rows).
 * 5e-6 leaves a factor 5 over that and still fails a kernel that drops a
 * single row of 40000 (2.5e-5). */
static const double TOL_COLSUM = 5e-6;

typedef struct bias_case {
    uint32_t rows, N;
    uint32_t pad;     /* colsum only: ld = N + pad */
    float offset;     /* added to every dout value */
    int quick;
    int vec4;         /* dbias on a vec4 (cf_output_at): colsum's vec4 path where N and ld allow */
} bias_case;

static const bias_case cases[] = {
    {1, 1, 0, 0, 1, 0},
    {1, 7, 0, 0, 1, 0},
    {7, 1, 0, 0, 1, 0},
    {32, 64, 0, 0, 1, 0},
    {33, 65, 0, 0, 1, 0},
    {257, 129, 0, 0, 1, 0},
    {1000, 3, 2, 0, 1, 0},
    {64, 8192, 0, 0, 0, 0},
    {8193, 1, 0, 0, 1, 0},
    {8192, 768, 0, 0, 0, 0},
    {2049, 37, 5, 1e4f, 1, 0},
    {40000, 5, 0, 0, 0, 0},
    {32769, 17, 3, 1e4f, 0, 0},
    /* colsum's vec4 path (N and ld multiples of 4). */
    {1, 4, 0, 0, 1, 1},
    {32, 64, 0, 0, 1, 1},
    {257, 128, 4, 0, 1, 1},
    {2049, 36, 4, 1e4f, 1, 1},
    {8192, 768, 0, 0, 0, 1},
    {40000, 8, 0, 0, 0, 1},
};

static void bias_fwd(cf_state *cf, const bias_case *b)
{
    char shape[96];
    snprintf(shape, sizeof(shape), "%ux%u", b->rows, b->N);
    cf_case *c = cf_begin(cf, "bias", "fwd", shape);
    if (!c)
        return;
    size_t n = (size_t)b->rows * b->N;
    float *bias = cf_random(c, b->N, -1, 1), *out0 = cf_random(c, n, -1, 1);
    if (!bias || !out0)
        goto end;
    for (size_t i = 0; i < n; i++)
        out0[i] += b->offset;
    svk_tref tb = cf_input(c, "bias", bias, b->N);
    cf_out *out = cf_output(c, "out", n, out0);
    if (!out)
        goto end;
    svk_bias_fwd_args a = {.rows = b->rows, .N = b->N, .bias = tb, .out = cf_tref(out)};
    if (!cf_ok(c, svk_bias_fwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *db = cf_to_double(c, bias, b->N), *ref = cf_to_double(c, out0, n);
    if (!db || !ref)
        goto end;
    svk_ref_bias_fwd_f64(b->rows, b->N, db, ref);
    cf_compare(c, out, ref, TOL_BIAS_FWD);
end:
    cf_end(c);
}

/* bias_bwd, or with use_colsum svk_colsum_record over a padded [rows, ld]
 * source (the reference then runs on the packed copy). */
static void bias_bwd(cf_state *cf, const bias_case *b, int use_colsum, bool cpu)
{
    char shape[96];
    uint32_t ld = b->N + (use_colsum ? b->pad : 0);
    snprintf(shape, sizeof(shape), "%ux%u%s%s%s", b->rows, b->N, ld > b->N ? " padded" : "",
             b->offset != 0 ? " +1e4" : "", b->vec4 ? " vec4" : "");
    const char *dir = use_colsum ? (cpu ? "cpu" : "-") : (cpu ? "bwd-cpu" : "bwd");
    cf_case *c = cf_begin(cf, use_colsum ? "colsum" : "bias", dir, shape);
    if (!c)
        return;
    size_t n = (size_t)b->rows * ld, packed = (size_t)b->rows * b->N;
    float *src = cf_random(c, n, -1, 1), *dst0 = cf_random(c, b->N, -1, 1);
    float *pk = cf_alloc(c, packed * sizeof(float));
    if (!src || !dst0 || !pk)
        goto end;
    for (size_t r = 0; r < b->rows; r++)
        for (size_t j = 0; j < b->N; j++) {
            src[r * ld + j] += b->offset;
            pk[r * b->N + j] = src[r * ld + j];
        }
    uint64_t ns = svk_colsum_scratch_elems(b->rows, b->N);
    svk_tref tsrc = cf_input(c, "dout", src, n);
    svk_tref scratch = ns ? cf_input(c, "scratch", NULL, ns) : (svk_tref){0};
    cf_out *dst = cf_output_at(c, "dbias", b->N, dst0, b->vec4);
    if (!dst)
        goto end;
    svk_status st;
    if (use_colsum) {
        svk_colsum_args a = {.rows = b->rows, .N = b->N, .ld = ld, .src = tsrc, .dst = cf_tref(dst),
                             .scratch = scratch};
        st = svk_colsum_record(cf_list(c), &a);
    } else {
        svk_bias_bwd_args a = {.rows = b->rows, .N = b->N, .dout = tsrc, .dbias = cf_tref(dst), .scratch = scratch};
        st = svk_bias_bwd_record(cf_list(c), &a);
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *dsrc = cf_to_double(c, pk, packed), *ref = cf_to_double(c, dst0, b->N);
    double *asrc = cf_to_double(c, pk, packed), *scale = cf_to_double(c, dst0, b->N);
    if (!dsrc || !ref || !asrc || !scale)
        goto end;
    svk_ref_bias_bwd_f64(b->rows, b->N, dsrc, ref);
    for (size_t i = 0; i < packed; i++)
        asrc[i] = fabs(asrc[i]);
    for (uint32_t j = 0; j < b->N; j++)
        scale[j] = fabs(scale[j]);
    svk_ref_bias_bwd_f64(b->rows, b->N, asrc, scale);
    cf_compare_scaled(c, dst, ref, scale, TOL_COLSUM);
end:
    cf_end(c);
}

void cf_run_bias(cf_state *cf)
{
    /* The gradient in both forms (the tuning's variant): "bwd" and "-" the
     * portable colsum.comp, "bwd-cpu" and "cpu" the CPU devices' choice
     * (colsum_texel where the vec4 path applies and src can be viewed
     * as a texel buffer). The caller's tuning is restored. */
    const svk_ctx_tuning saved = cf_tuning(cf);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const bias_case *b = &cases[i];
        if (cf->quick && !b->quick)
            continue;
        bias_fwd(cf, b);
        for (int cpu = 0; cpu < 2; cpu++) {
            cf_tune_variant(cf, &saved, cpu ? "cpu" : "portable");
            bias_bwd(cf, b, 0, cpu);
            if (b->pad)
                bias_bwd(cf, b, 1, cpu);
        }
        cf_tune(cf, &saved);
    }
}
