/*
 * GEMM (shaders/gemm.comp and shaders/gemm_cpu.comp, lib/ref/gemm.c), each
 * case once per variant (rows "portable" and "cpu"): every transpose combination,
 * awkward shapes (1, primes, non-multiples of the 64x64x16 tile), batches,
 * padded leading dimensions and batch strides, alpha/beta and bias.
 * Padding columns and the slack between batches lie inside the output buffer
 * and must come back untouched, bit for bit.
 */
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "ops/gemm.h"

/* ||out - ref|| / ||ref||: float32 accumulation over K terms of random sign
 * errs by about sqrt(K) * 2^-24 relative; 1e-5 leaves room for K in the
 * thousands. */
static const double TOL_GEMM = 1e-5;

typedef struct gemm_case {
    int ta, tb;
    uint32_t M, N, K, batch;
    float alpha, beta;
    int bias;
    uint32_t pad;      /* extra elements per row of every operand, and between batches */
    int quick;         /* part of --quick */
    uint32_t outer;    /* groups of `batch` matrices (0: one), as attention's sequences of heads */
} gemm_case;

static const gemm_case cases[] = {
    {0, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {1, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {1, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {0, 1, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {1, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {0, 0, 128, 128, 128, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 1, 1024, 384, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1},
    {0, 1, 1, 300, 77, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 0, 300, 1, 77, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 0, 65, 63, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1},
    {1, 0, 7, 5, 1999, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {0, 0, 61, 67, 71, 1, 0.5f, -1.5f, 0, 0, 1, 1},
    {0, 1, 45, 131, 19, 1, 1.0f, 0.0f, 1, 0, 1, 1},
    {1, 1, 31, 29, 23, 1, 2.0f, 1.0f, 1, 0, 1, 1},
    {0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 1, 5, 1, 1},
    {1, 1, 37, 41, 43, 1, 1.0f, 0.5f, 0, 3, 0, 1},
    {0, 0, 37, 29, 41, 5, 1.0f, 0.0f, 0, 0, 1, 1},
    {0, 1, 64, 64, 16, 3, 1.0f, 0.0f, 0, 2, 0, 1},
    {1, 0, 13, 11, 66, 7, 1.0f, 0.0f, 1, 1, 1, 1},
    /* Long k loops: lavapipe silently ends a shader's loops after 65535
     * iterations in all, so a kernel that loops per element of k (or
     * does not unroll its inner loops) comes back short here. */
    {0, 0, 9, 70, 20011, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {1, 1, 9, 70, 20000, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    {0, 1, 64, 256, 4096, 1, 1.0f, 0.0f, 0, 0, 0, 1},
    /* Training shapes: dW = X^T dY over 1024 tokens, aligned. */
    {1, 0, 128, 512, 1024, 1, 1.0f, 1.0f, 0, 0, 1, 1},
    /* Two batch levels, groups of `batch` matrices a further pad apart. */
    {0, 1, 19, 19, 8, 3, 0.5f, 0.0f, 0, 1, 1, 5},
    {1, 0, 32, 32, 32, 4, 1.0f, 0.0f, 0, 0, 1, 3},
};

/* A stored operand: rows x cols with leading dimension ld, batches stride
 * apart, outer groups of them stride2 apart. */
typedef struct layout {
    uint32_t rows, cols, ld, stride, stride2;
    size_t total;
} layout;

static layout make_layout(uint32_t rows, uint32_t cols, uint32_t pad, uint32_t batch, uint32_t outer)
{
    layout l = {rows, cols, cols + pad, 0, 0, 0};
    l.stride = rows * l.ld + pad;
    l.stride2 = batch * l.stride + pad;
    l.total = (size_t)outer * l.stride2;
    return l;
}

static void run_case(cf_state *cf, const gemm_case *g, svk_gemm_variant variant)
{
    char shape[96];
    snprintf(shape, sizeof(shape), "%s%s %ux%ux%u%s%s%s%s", g->ta ? "T" : "N", g->tb ? "T" : "N", g->M, g->N, g->K,
             g->batch > 1 ? " batched" : "", g->bias ? " bias" : "", g->beta != 0 ? " beta" : "",
             g->pad ? " padded" : "");
    const uint32_t outer = g->outer ? g->outer : 1;
    if (g->batch > 1 || outer > 1) {
        size_t len = strlen(shape);
        snprintf(shape + len, sizeof(shape) - len, outer > 1 ? " x%u x%u" : " x%u", g->batch, outer);
    }
    cf_case *c = cf_begin(cf, "gemm", variant == SVK_GEMM_VARIANT_CPU ? "cpu" : "portable", shape);
    if (!c)
        return;
    layout A = make_layout(g->ta ? g->K : g->M, g->ta ? g->M : g->K, g->pad, g->batch, outer);
    layout B = make_layout(g->tb ? g->N : g->K, g->tb ? g->K : g->N, g->pad, g->batch, outer);
    layout C = make_layout(g->M, g->N, g->pad, g->batch, outer);
    float *ha = cf_random(c, A.total, -1, 1), *hb = cf_random(c, B.total, -1, 1), *hbias = cf_random(c, g->N, -1, 1);
    /* C's initial contents: random where beta reads them; NaN elsewhere
     * (inside the padding too), so reading C when beta == 0 shows. */
    float *hc = cf_alloc(c, C.total * sizeof(float));
    if (!ha || !hb || !hbias || !hc)
        goto end;
    cf_fill_nan(hc, C.total);
    if (g->beta != 0)
        for (uint32_t o = 0; o < outer; o++)
            for (uint32_t b = 0; b < g->batch; b++)
                for (uint32_t m = 0; m < g->M; m++)
                    cf_fill_uniform(&cf->rng, hc + (size_t)o * C.stride2 + (size_t)b * C.stride + (size_t)m * C.ld,
                                    g->N, -1, 1);
    svk_tref ta = cf_input(c, "A", ha, A.total), tb = cf_input(c, "B", hb, B.total);
    svk_tref tbias = g->bias ? cf_input(c, "bias", hbias, g->N) : (svk_tref){0};
    cf_out *out = cf_output(c, "C", C.total, hc);
    if (!out)
        goto end;
    svk_gemm_args args = {
        .trans_a = g->ta, .trans_b = g->tb, .M = g->M, .N = g->N, .K = g->K, .batch = g->batch,
        .alpha = g->alpha, .beta = g->beta,
        .a = ta.buf, .b = tb.buf, .c = out->buf, .bias = tbias.buf,
        .off_c = cf_tref(out).off,
        .lda = A.ld, .ldb = B.ld, .ldc = C.ld,
        .stride_a = A.stride, .stride_b = B.stride, .stride_c = C.stride,
        .outer = g->outer,
        .stride2_a = A.stride2, .stride2_b = B.stride2, .stride2_c = C.stride2,
        .variant = variant,
    };
    if (!cf_ok(c, svk_gemm_record(cf_list(c), &args)) || !cf_run(c))
        goto end;

    double *da = cf_to_double(c, ha, A.total), *db = cf_to_double(c, hb, B.total);
    double *dc = cf_to_double(c, hc, C.total), *dbias = cf_to_double(c, hbias, g->N);
    if (!da || !db || !dc || !dbias)
        goto end;
    for (uint32_t o = 0; o < outer; o++)
        svk_ref_gemm_f64(g->ta, g->tb, g->M, g->N, g->K, g->alpha, da + (size_t)o * A.stride2, A.ld, A.stride,
                         db + (size_t)o * B.stride2, B.ld, B.stride, g->beta, dc + (size_t)o * C.stride2, C.ld, C.stride,
                         g->bias ? dbias : NULL, g->batch);
    /* Padding and slack: the reference leaves them as they were (NaN); the
     * metric needs finite values, so compare them bitwise here and give the
     * metric zeros there. */
    for (size_t i = 0; i < C.total; i++) {
        size_t in_group = i % C.stride2, in_batch = in_group % C.stride, col = in_batch % C.ld;
        if (in_group < (size_t)g->batch * C.stride && in_batch < (size_t)g->M * C.ld && col < g->N)
            continue;
        if (memcmp(&out->host[i], &hc[i], sizeof(float)))
            cf_fail(c, "C: element %zu outside the result (padding or batch slack) was written", i);
        dc[i] = out->host[i] = 0;
    }
    cf_compare(c, out, dc, TOL_GEMM);
end:
    cf_end(c);
}

void cf_run_gemm(cf_state *cf)
{
    static const svk_gemm_variant variants[] = {SVK_GEMM_VARIANT_PORTABLE, SVK_GEMM_VARIANT_CPU};
    for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            if (!cf->quick || cases[i].quick)
                run_case(cf, &cases[i], variants[v]);
}
