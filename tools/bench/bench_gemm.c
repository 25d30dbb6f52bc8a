/*
 * GEMM at the shapes of a transformer's training step (lib/model/plan.c):
 * for each Linear y [N, out] = x [N, in] W^T + b, the forward (NT, with the
 * fused bias; the CPU variant runs it NN on a transposed weight, as the
 * training step does there: svk_plan_options.linear_nn), dx = dy W (NN)
 * and dW += dy^T x (TN, accumulating), for qkv
 * (out 3C), attn.proj (C), mlp.fc (4C) and mlp.proj (in 4C); the tied
 * logits (out V) likewise without bias; and one square 1024^3 (the
 * machine's GEMM peak). Both float32 shaders (svk_gemm_variant PORTABLE
 * and CPU), and the cooperative-matrix one (COOPMAT, float16 operands)
 * where the device has it, each next to cblas_sgemm at the same shape when
 * built with OpenBLAS.
 * FLOPs: 2 M N K.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ops/gemm.h"

typedef struct gemm_shape {
    const char *what;      /* e.g. "qkv.fwd" */
    bool ta, tb;
    uint32_t M, N, K;
    bool bias;
    float beta;
    bool cpu_nn;           /* the CPU variant runs op(B) = B^T as B (a Linear's forward on W^T) */
} gemm_shape;

typedef struct gemm_ctx {
    const gemm_shape *g;
    svk_gemm_variant variant;
    svk_tref a[8], bm[8], c[8], bias[8];
    svk_tref scratch;      /* split-K's partials, packed operands (lib/ops/gemm_split.h, gemm_pack.h), as the model gives them */
    uint64_t scratch_n;
} gemm_ctx;

/* Whether variant v runs g with op(B) = B^T (a cpu_nn forward runs B). */
static bool shape_tb(const gemm_shape *g, svk_gemm_variant v)
{
    return g->tb && !(g->cpu_nn && v == SVK_GEMM_VARIANT_CPU);
}

static svk_status record(svk_cmdlist *cl, void *user, uint32_t set)
{
    const gemm_ctx *x = user;
    const gemm_shape *g = x->g;
    svk_gemm_args a = {
        .shape = {.trans_a = g->ta, .trans_b = shape_tb(g, x->variant), .M = g->M, .N = g->N, .K = g->K, .batch = 1},
        .alpha = 1.0f, .beta = g->beta,
        .a.buf = x->a[set].buf, .b.buf = x->bm[set].buf, .c.buf = x->c[set].buf,
        .bias.buf = g->bias ? x->bias[set].buf : NULL,
        .label = g->what,
        .variant = x->variant,
        .scratch = {.buf = x->scratch.buf, .off = x->scratch.off, .elems = x->scratch_n},
    };
    return svk_gemm_record(cl, &a);
}

/* The scratch g in variant v may use (0: none): split-K's partials, the
 * CPU texel form's packed operands (the model gives both). */
static uint64_t scratch_elems(bench *b, const gemm_shape *g, svk_gemm_variant v)
{
    const svk_gemm_args a = {.shape = {.trans_a = g->ta, .trans_b = shape_tb(g, v), .M = g->M, .N = g->N, .K = g->K,
                                       .batch = 1},
                             .alpha = 1.0f, .beta = g->beta, .variant = v, .label = g->what};
    return g->bias ? svk_gemm_pack_scratch_elems(b->ctx, &a) : svk_gemm_scratch_elems(b->ctx, &a);
}

#define N_VARIANTS 3
static const char *const variant_names[N_VARIANTS] = {"portable", "cpu", "coopmat"};
static const svk_gemm_variant variants[N_VARIANTS] = {SVK_GEMM_VARIANT_PORTABLE, SVK_GEMM_VARIANT_CPU,
                                                      SVK_GEMM_VARIANT_COOPMAT};

const char *bench_gemm_step_variant(const bench *b)
{
    svk_gemm_variant gv;
    if (svk_gemm_auto_variant(b->ctx, &gv) == SVK_OK)
        for (int v = 0; v < N_VARIANTS; v++)
            if (variants[v] == gv)
                return variant_names[v];
    return "?";
}

static void run_shape(bench *b, const gemm_shape *g, const char *shape)
{
    double flops = 2.0 * g->M * (double)g->N * g->K;
    char dims[64];
    snprintf(dims, sizeof(dims), "%s%s %ux%ux%u", g->ta ? "T" : "N", g->tb ? "T" : "N", g->M, g->N, g->K);
    bench_row rows[N_VARIANTS];
    bool want[N_VARIANTS], any = false;
    for (int v = 0; v < N_VARIANTS; v++) {
        if (variants[v] == SVK_GEMM_VARIANT_COOPMAT && !svk_ctx_device_info(b->ctx)->coopmat_m) {
            want[v] = false;
            continue;
        }
        want[v] = bench_row_init(b, &rows[v], "gemm", "gemm", g->what, variant_names[v], shape, "GFLOP/s", flops);
        snprintf(rows[v].dims, sizeof(rows[v].dims), "%s", dims);
        if (g->tb && !shape_tb(g, variants[v]))
            snprintf(rows[v].dims, sizeof(rows[v].dims), "NN(W^T) %ux%ux%u", g->M, g->N, g->K);
        any |= want[v];
    }
    if (!any)
        return;
    uint64_t na = (uint64_t)g->M * g->K, nb = (uint64_t)g->K * g->N, nc = (uint64_t)g->M * g->N;
    uint32_t sets = bench_sets(b, 4.0 * (double)(na + nb + nc + g->N));
    gemm_ctx x = {.g = g};
    bench_bufs bb;
    bench_bufs_init(&bb, b);
    x.a[0] = bench_rand(&bb, "A", na, -1, 1);
    x.bm[0] = bench_rand(&bb, "B", nb, -1, 1);
    x.c[0] = bench_rand(&bb, "C", nc, -1, 1);
    if (g->bias)
        x.bias[0] = bench_rand(&bb, "bias", g->N, -1, 1);
    for (int v = 0; v < N_VARIANTS; v++) {
        const uint64_t n = want[v] ? scratch_elems(b, g, variants[v]) : 0;
        x.scratch_n = n > x.scratch_n ? n : x.scratch_n;
    }
    if (x.scratch_n)
        x.scratch = bench_const(&bb, "scratch", x.scratch_n, 0.0f);
    for (uint32_t s = 1; s < sets; s++) {
        x.a[s] = bench_clone(&bb, "A", x.a[0], na);
        x.bm[s] = bench_clone(&bb, "B", x.bm[0], nb);
        x.c[s] = bench_clone(&bb, "C", x.c[0], nc);
        if (g->bias)
            x.bias[s] = bench_clone(&bb, "bias", x.bias[0], g->N);
    }
    bool timed = false;
    for (int v = 0; v < N_VARIANTS; v++) {
        if (!want[v])
            continue;
        if (bb.failed) {
            snprintf(rows[v].skipped, sizeof(rows[v].skipped), "%s", bb.why);
            if (!bb.limit)
                b->errors++;
            continue;
        }
        x.variant = variants[v];
        timed |= bench_time_row(b, &rows[v], sets, record, &x);
    }
    bench_bufs_free(&bb);
    /* OpenBLAS where libsvk ran (skipped shapes exceed the device, not the
     * host, and their figure would compare with nothing). */
    if (timed && b->blas) {
        uint32_t blas_sets = bench_sets(b, 4.0 * (double)(na + nb + nc));
        double min_ns = 0;
        double ns = bench_blas_sgemm(b, g->ta, g->tb, g->M, g->N, g->K, g->beta, blas_sets, b->opt.reps, &min_ns);
        for (int v = 0; v < N_VARIANTS && ns > 0; v++) {
            rows[v].blas_median_ns = ns;
            rows[v].blas_value = flops / ns;
        }
        /* OpenBLAS's threads spin for a while after a call: let them sleep
         * before lavapipe's threads need the cores. */
        usleep(150 * 1000);
    }
    for (int v = 0; v < N_VARIANTS; v++)
        if (want[v])
            bench_add_row(b, &rows[v]);
}

void bench_run_gemm(bench *b)
{
    bench_shapes sh = bench_shapes_for(b);
    uint32_t sq = b->opt.quick ? 128 : 1024;
    gemm_shape square = {"square", false, false, sq, sq, sq, false, 0.0f, false};
    char shape[80];
    snprintf(shape, sizeof(shape), "%u^3", sq);
    run_shape(b, &square, shape);
    for (uint32_t ti = 0; ti < sh.n_tokens; ti++) {
        uint32_t N = sh.tokens[ti];
        for (uint32_t wi = 0; wi < sh.n_widths; wi++) {
            uint32_t C = sh.widths[wi], F = 4 * C;
            snprintf(shape, sizeof(shape), "N=%u C=%u", N, C);
            struct {
                const char *name;
                uint32_t out, in;
            } lin[] = {{"qkv", 3 * C, C}, {"attn.proj", C, C}, {"mlp.fc", F, C}, {"mlp.proj", C, F}};
            for (size_t l = 0; l < sizeof(lin) / sizeof(lin[0]); l++) {
                char fwd[16], dx[16], dw[16];
                snprintf(fwd, sizeof(fwd), "%s.fwd", lin[l].name);
                snprintf(dx, sizeof(dx), "%s.dx", lin[l].name);
                snprintf(dw, sizeof(dw), "%s.dW", lin[l].name);
                gemm_shape gs[3] = {
                    {fwd, false, true, N, lin[l].out, lin[l].in, true, 0.0f, true},
                    {dx, false, false, N, lin[l].in, lin[l].out, false, 0.0f, false},
                    {dw, true, false, lin[l].out, lin[l].in, N, false, 1.0f, false},
                };
                for (int k = 0; k < 3; k++)
                    run_shape(b, &gs[k], shape);
            }
            for (uint32_t vi = 0; vi < sh.n_vocabs; vi++) {
                uint32_t V = sh.vocabs[vi];
                snprintf(shape, sizeof(shape), "N=%u C=%u V=%u", N, C, V);
                gemm_shape gs[3] = {
                    {"logits.fwd", false, true, N, V, C, false, 0.0f, false},
                    {"logits.dx", false, false, N, C, V, false, 0.0f, false},
                    {"logits.dW", true, false, V, C, N, false, 1.0f, false},
                };
                for (int k = 0; k < 3; k++)
                    run_shape(b, &gs[k], shape);
            }
        }
    }
}
