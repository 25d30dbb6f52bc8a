/*
 * GEMM conformance: shaders/gemm.comp against the CPU reference
 * (lib/ref/gemm.c) at awkward shapes, every transpose combination, batches,
 * padded leading dimensions, offsets, alpha/beta and bias.
 *
 * The oracle is the double-precision build of the reference, fed the same
 * float inputs, so the error measured is the device's alone.
 * Outputs are poisoned with NaN, surrounded by guard zones, and padding
 * columns (ldc > N) must come back untouched. Each case is also replayed
 * (the same recorded list submitted again) and must give bit-identical
 * results.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/gemm.h"
#include "ref.h"
#include "test_util.h"

/* Tolerances, ||out - ref|| / ||ref||, per kernel. float32 accumulation
 * over K terms of random sign errs by about sqrt(K) * 2^-24 relative; 1e-5
 * leaves room for K in the thousands. */
static const struct {
    const char *kernel;
    double tol;
} tolerances[] = {
    {"gemm", 1e-5},
};
#define TOL_GEMM (tolerances[0].tol)

typedef struct gemm_case {
    const char *name;
    int ta, tb;
    uint32_t M, N, K, batch;
    float alpha, beta;
    int bias;
    uint32_t pad;      /* extra elements per row of every operand */
    uint32_t offset;   /* elements before each operand in its buffer */
} gemm_case;

static const gemm_case cases[] = {
    {"1x1x1", 0, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 0},
    {"17x33x65 NN", 0, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 0},
    {"17x33x65 TN", 1, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 0},
    {"17x33x65 NT", 0, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 0},
    {"17x33x65 TT", 1, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 0},
    {"333x257x129 NN", 0, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0},
    {"333x257x129 NT", 0, 1, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0},
    {"333x257x129 TN", 1, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0},
    {"128x128x128 NN", 0, 0, 128, 128, 128, 1, 1.0f, 0.0f, 0, 0, 0},
    {"1024x384x128 NT", 0, 1, 1024, 384, 128, 1, 1.0f, 0.0f, 1, 0, 0},
    {"M=1 1x300x77", 0, 1, 1, 300, 77, 1, 1.0f, 0.0f, 0, 0, 0},
    {"N=1 300x1x77", 0, 0, 300, 1, 77, 1, 1.0f, 0.0f, 0, 0, 0},
    {"K=1 65x63x1", 0, 0, 65, 63, 1, 1, 1.0f, 0.0f, 0, 0, 0},
    {"long K 7x5x1999", 1, 0, 7, 5, 1999, 1, 1.0f, 0.0f, 0, 0, 0},
    {"alpha beta 61x67x71", 0, 0, 61, 67, 71, 1, 0.5f, -1.5f, 0, 0, 0},
    {"bias 45x131x19 NT", 0, 1, 45, 131, 19, 1, 1.0f, 0.0f, 1, 0, 0},
    {"bias beta 31x29x23 TT", 1, 1, 31, 29, 23, 1, 2.0f, 1.0f, 1, 0, 0},
    {"padded ld + offsets 37x41x43", 0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 1, 5, 13},
    {"padded TT 37x41x43", 1, 1, 37, 41, 43, 1, 1.0f, 0.5f, 0, 3, 7},
    {"batched 5x 37x29x41 NN", 0, 0, 37, 29, 41, 5, 1.0f, 0.0f, 0, 0, 0},
    {"batched 3x 64x64x16 NT padded", 0, 1, 64, 64, 16, 3, 1.0f, 0.0f, 0, 2, 3},
    {"batched 7x 13x11x66 TN bias", 1, 0, 13, 11, 66, 7, 1.0f, 0.0f, 1, 1, 1},
};

/* Guard elements on each side of every output. */
#define GUARD 67

typedef struct operand {
    uint32_t rows, cols, ld, stride, offset;
    size_t total;       /* elements in the buffer, guards included for C */
} operand;

static operand layout(uint32_t rows, uint32_t cols, uint32_t pad, uint32_t offset, uint32_t batch, uint32_t guard)
{
    operand o = {rows, cols, cols + pad, 0, offset + guard, 0};
    /* A little slack between batches too, so stride != rows*ld is tested. */
    o.stride = rows * o.ld + (pad ? pad : 0);
    o.total = (size_t)o.offset + (size_t)batch * o.stride + guard;
    return o;
}

static svk_status make_buffer(svk_ctx *ctx, const char *name, size_t elems, const float *data, svk_buffer **out)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = elems * sizeof(float);
    p.name = name;
    svk_status st = svk_buffer_create(ctx, &p, out);
    if (st == SVK_OK && data)
        st = svk_buffer_upload(*out, 0, data, p.size);
    return st;
}

static bool run_case(svk_ctx *ctx, const gemm_case *c, tu_rng *rng, tu_tally *t)
{
    uint32_t batch = c->batch;
    operand A = layout(c->ta ? c->K : c->M, c->ta ? c->M : c->K, c->pad, c->offset, batch, 0);
    operand B = layout(c->tb ? c->N : c->K, c->tb ? c->K : c->N, c->pad, c->offset, batch, 0);
    operand C = layout(c->M, c->N, c->pad, c->offset, batch, GUARD);
    size_t nbias = (size_t)c->offset + c->N;

    float *ha = malloc(A.total * sizeof(float));
    float *hb = malloc(B.total * sizeof(float));
    float *hc0 = malloc(C.total * sizeof(float));  /* what C holds before */
    float *hc = malloc(C.total * sizeof(float));   /* what the device left */
    float *hc2 = malloc(C.total * sizeof(float));  /* after the replay */
    float *hbias = malloc(nbias * sizeof(float));
    double *da = malloc(A.total * sizeof(double)), *db = malloc(B.total * sizeof(double));
    double *dc = malloc(C.total * sizeof(double)), *dbias = malloc(nbias * sizeof(double));
    bool ok = false;
    svk_buffer *ba = NULL, *bb = NULL, *bc = NULL, *bbias = NULL;
    svk_cmdlist *cl = NULL;
    if (!ha || !hb || !hc0 || !hc || !hc2 || !hbias || !da || !db || !dc || !dbias) {
        tu_check(t, false, "gemm %s: out of host memory", c->name);
        goto done;
    }
    tu_fill_uniform(rng, ha, A.total, -1.0f, 1.0f);
    tu_fill_uniform(rng, hb, B.total, -1.0f, 1.0f);
    tu_fill_uniform(rng, hbias, nbias, -1.0f, 1.0f);
    /* C: guards outside; inside, random values when beta reads them, NaN
     * otherwise (a kernel that reads C with beta == 0 fails). */
    tu_fill_guard(hc0, C.total);
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t m = 0; m < C.rows; m++)
            for (uint32_t n = 0; n < C.ld; n++) {
                size_t i = C.offset + (size_t)b * C.stride + (size_t)m * C.ld + n;
                hc0[i] = (c->beta != 0.0f && n < C.cols) ? tu_rng_uniform(rng, -1.0f, 1.0f) : tu_nan();
            }

    svk_status st;
    if ((st = make_buffer(ctx, "A", A.total, ha, &ba)) != SVK_OK || (st = make_buffer(ctx, "B", B.total, hb, &bb)) != SVK_OK ||
        (st = make_buffer(ctx, "C", C.total, hc0, &bc)) != SVK_OK ||
        (c->bias && (st = make_buffer(ctx, "bias", nbias, hbias, &bbias)) != SVK_OK)) {
        tu_check(t, false, "gemm %s: buffers: %s", c->name, svk_last_error());
        goto done;
    }
    svk_gemm_args g = {
        .trans_a = c->ta, .trans_b = c->tb, .M = c->M, .N = c->N, .K = c->K, .batch = batch,
        .alpha = c->alpha, .beta = c->beta,
        .a = ba, .b = bb, .c = bc, .bias = bbias,
        .off_a = A.offset, .off_b = B.offset, .off_c = C.offset, .off_bias = c->offset,
        .lda = A.ld, .ldb = B.ld, .ldc = C.ld,
        .stride_a = A.stride, .stride_b = B.stride, .stride_c = C.stride,
        .label = c->name,
    };
    if ((st = svk_cmdlist_create(ctx, NULL, &cl)) != SVK_OK || (st = svk_cmdlist_begin(cl)) != SVK_OK ||
        (st = svk_gemm_record(cl, &g)) != SVK_OK || (st = svk_cmdlist_end(cl)) != SVK_OK ||
        (st = svk_cmdlist_submit(cl)) != SVK_OK || (st = svk_cmdlist_wait(cl)) != SVK_OK ||
        (st = svk_buffer_download(bc, 0, hc, C.total * sizeof(float))) != SVK_OK) {
        tu_check(t, false, "gemm %s: %s: %s", c->name, svk_status_string(st), svk_last_error());
        goto done;
    }

    /* The oracle, in double, on the same float inputs. */
    for (size_t i = 0; i < A.total; i++) da[i] = ha[i];
    for (size_t i = 0; i < B.total; i++) db[i] = hb[i];
    for (size_t i = 0; i < C.total; i++) dc[i] = hc0[i];
    for (size_t i = 0; i < nbias; i++) dbias[i] = hbias[i];
    svk_ref_gemm_f64(c->ta, c->tb, c->M, c->N, c->K, c->alpha, da + A.offset, A.ld, A.stride, db + B.offset, B.ld,
                     B.stride, c->beta, dc + C.offset, C.ld, C.stride, c->bias ? dbias + c->offset : NULL, batch);

    /* Gather the M x N results of every batch for the metric, marking
     * them; every other element (guards before and after, padding columns,
     * slack between batches) must come back bit-identical. */
    size_t n = (size_t)batch * c->M * c->N, k = 0;
    float *out = malloc(n * sizeof(float));
    double *ref = malloc(n * sizeof(double));
    unsigned char *is_out = calloc(C.total, 1);
    if (!out || !ref || !is_out) {
        free(out);
        free(ref);
        free(is_out);
        tu_check(t, false, "gemm %s: out of host memory", c->name);
        goto done;
    }
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t m = 0; m < c->M; m++)
            for (uint32_t col = 0; col < c->N; col++) {
                size_t i = C.offset + (size_t)b * C.stride + (size_t)m * C.ld + col;
                is_out[i] = 1;
                out[k] = hc[i];
                ref[k++] = dc[i];
            }
    long stray = -1;
    for (size_t i = 0; i < C.total && stray < 0; i++)
        if (!is_out[i] && memcmp(&hc[i], &hc0[i], sizeof(float)))
            stray = (long)i;
    free(is_out);
    double err = tu_rel_error(out, ref, n);
    size_t w = tu_worst_index(out, ref, n);
    tu_check(t, err <= TOL_GEMM, "gemm %-30s M=%u N=%u K=%u batch=%u  rel err %.3e (tol %.0e)", c->name, c->M, c->N,
             c->K, batch, err, TOL_GEMM);
    if (err > TOL_GEMM)
        printf("     worst at %zu (batch %zu, row %zu, col %zu): got %.9g, want %.9g\n", w, w / ((size_t)c->M * c->N),
               (w / c->N) % c->M, w % c->N, (double)out[w], ref[w]);
    tu_check(t, stray < 0, "gemm %-30s guard zones, padding and batch slack untouched", c->name);
    if (stray >= 0)
        printf("     element %ld outside the output changed: %.9g -> %.9g\n", stray, (double)hc0[stray],
               (double)hc[stray]);

    /* Replay: the same recorded list, submitted again. With beta != 0 it
     * reads its own output, so reset C first. */
    if ((st = svk_buffer_upload(bc, 0, hc0, C.total * sizeof(float))) != SVK_OK ||
        (st = svk_cmdlist_submit(cl)) != SVK_OK || (st = svk_cmdlist_wait(cl)) != SVK_OK ||
        (st = svk_buffer_download(bc, 0, hc2, C.total * sizeof(float))) != SVK_OK) {
        tu_check(t, false, "gemm %s: replay: %s", c->name, svk_last_error());
    } else {
        tu_check(t, !memcmp(hc, hc2, C.total * sizeof(float)), "gemm %-30s replay bit-identical", c->name);
    }
    free(out);
    free(ref);
    ok = true;
done:
    svk_cmdlist_destroy(&cl);
    svk_buffer_destroy(&ba);
    svk_buffer_destroy(&bb);
    svk_buffer_destroy(&bc);
    svk_buffer_destroy(&bbias);
    free(ha); free(hb); free(hc0); free(hc); free(hc2); free(hbias);
    free(da); free(db); free(dc); free(dbias);
    return ok;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_gemm", &args);
    tu_tally t = {0, 0};
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    tu_rng rng;
    tu_rng_seed(&rng, args.seed);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (args.filter && !strstr(cases[i].name, args.filter))
            continue;
        run_case(ctx, &cases[i], &rng, &t);
    }
    tu_ctx_finish(&ctx, &t);
    return tu_finish(&t);
}
