/*
 * Every kernel family but GEMM (bench_gemm.c), at the shapes a training
 * step gives it (lib/model/plan.c): the norms (layernorm, rmsnorm,
 * SiameseNorm's block-input and output norms) forward and backward, the
 * dual residual, the elementwise kernels of the MLP (GELU, SwiGLU, bias and
 * its column-sum gradient), RoPE, attention (materialised forward and
 * backward, and the fused flash forward), the embedding, the fused
 * cross-entropy, gradient clipping and AdamW; and first the machine's own
 * limits, a plain copy kernel (memory) and the fma_peak kernel (arithmetic:
 * multiply-adds in registers, nothing read).
 *
 * Memory-bound rows report GB/s of the bytes the operation must move at
 * least: each input read once and each output written once, an accumulated
 * (+=) output counted twice; intermediate scratch (a backward pass's
 * partial sums) is not counted, since a better kernel would not need it.
 * Attention reports GFLOP/s of its products counted dense, 4 B H T^2 D
 * forward and 8 B H T^2 D backward, of which the causal half is useful:
 * the materialised path computes them dense, so the figure compares with
 * GEMM's.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "ops/adamw.h"
#include "ops/attention.h"
#include "ops/bias.h"
#include "ops/clip.h"
#include "ops/colsum.h"
#include "ops/copy.h"
#include "ops/cross_entropy.h"
#include "ops/embedding.h"
#include "common/push_fma_peak.h"
#include "ops/fma_peak.h"
#include "ops/gelu.h"
#include "ops/layernorm.h"
#include "ops/residual.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "ops/siamese_norm.h"
#include "ops/swiglu.h"
#include "ops/transpose.h"

typedef enum kop {
    K_COPY, K_FMA,
    K_LN_FWD, K_LN_BWD, K_RMS_FWD, K_RMS_BWD, K_SN_FWD, K_SN_BWD, K_SO_FWD, K_SO_BWD,
    K_RES_FWD, K_RES_BWD,
    K_GELU_FWD, K_GELU_BWD, K_SWIGLU_FWD, K_SWIGLU_BWD, K_BIAS_FWD, K_BIAS_BWD,
    K_ROPE_FWD, K_ROPE_BWD,
    K_ATT_FWD, K_ATT_BWD, K_FLASH_FWD, K_FLASH_BWD,
    K_EMB_FWD, K_EMB_BWD,
    K_XENT,
    K_CLIP, K_ADAMW,
    K_TRANSPOSE,
    K_COUNT_
} kop;

/* How each operation is named in the table. row: a row kernel with a
 * portable and a CPU form (svk_op_variant), which --all-variants runs in
 * both. */
static const struct {
    const char *section, *kernel, *direction;
    bool row;
} kinfo[K_COUNT_] = {
    [K_COPY] = {"limit", "copy", "-", false},
    [K_FMA] = {"limit", "fma_peak", "-", false},
    [K_LN_FWD] = {"norm", "layernorm", "fwd", true},
    [K_LN_BWD] = {"norm", "layernorm", "bwd", true},
    [K_RMS_FWD] = {"norm", "rmsnorm", "fwd", true},
    [K_RMS_BWD] = {"norm", "rmsnorm", "bwd", true},
    [K_SN_FWD] = {"norm", "siamese_norm", "fwd", true},
    [K_SN_BWD] = {"norm", "siamese_norm", "bwd", true},
    [K_SO_FWD] = {"norm", "siamese_out", "fwd", true},
    [K_SO_BWD] = {"norm", "siamese_out", "bwd", true},
    [K_RES_FWD] = {"residual", "residual", "fwd", false},
    [K_RES_BWD] = {"residual", "residual", "bwd", false},
    [K_GELU_FWD] = {"elementwise", "gelu", "fwd", false},
    [K_GELU_BWD] = {"elementwise", "gelu", "bwd", false},
    [K_SWIGLU_FWD] = {"elementwise", "swiglu", "fwd", false},
    [K_SWIGLU_BWD] = {"elementwise", "swiglu", "bwd", false},
    [K_BIAS_FWD] = {"elementwise", "bias", "fwd", false},
    [K_BIAS_BWD] = {"elementwise", "bias", "bwd", false},
    [K_ROPE_FWD] = {"elementwise", "rope", "fwd", false},
    [K_ROPE_BWD] = {"elementwise", "rope", "bwd", false},
    [K_ATT_FWD] = {"attention", "attention", "fwd", true},
    [K_ATT_BWD] = {"attention", "attention", "bwd", true},
    [K_FLASH_FWD] = {"attention", "attention_flash", "fwd", false},
    [K_FLASH_BWD] = {"attention", "attention_flash", "bwd", false},
    [K_EMB_FWD] = {"embedding", "embedding", "fwd", false},
    [K_EMB_BWD] = {"embedding", "embedding", "bwd", false},
    [K_XENT] = {"loss", "cross_entropy", "fwd+bwd", true},
    [K_CLIP] = {"optimizer", "clip", "-", false},
    [K_ADAMW] = {"optimizer", "adamw", "-", false},
    [K_TRANSPOSE] = {"elementwise", "transpose", "-", false},
};

enum { MAX_OPERANDS = 14, MAX_SETS = 8 };

typedef enum fill { FILL_RAND, FILL_POS, FILL_ONE, FILL_INDEX } fill;

typedef struct operand {
    const char *name;
    uint64_t n;             /* elements; 0: absent (buf NULL) */
    fill how;
    float lo, hi;           /* FILL_RAND, FILL_POS */
    uint32_t V;             /* FILL_INDEX */
} operand;

/* One row's operation, its shape and its operands. */
typedef struct job {
    kop op;
    uint32_t N, C, F, V, B, T, H;
    uint64_t n;
    uint32_t iters;         /* K_FMA: loop iterations (n: invocations) */
    svk_norm_kind kind;
    uint32_t n_operands;
    operand spec[MAX_OPERANDS];
    svk_tref t[MAX_OPERANDS][MAX_SETS];
    double work;
    char shape[80];
} job;

static void add(job *j, const char *name, uint64_t n, fill how, float lo, float hi)
{
    j->spec[j->n_operands++] = (operand){name, n, how, lo, hi, 0};
}

static void add_index(job *j, const char *name, uint64_t n, uint32_t V)
{
    j->spec[j->n_operands++] = (operand){name, n, FILL_INDEX, 0, 0, V};
}

/* Activations and gradients uniform in [-1, 1); saved statistics (rstd)
 * and Adam's second moment positive; gains near 1. */
#define ACT(j, name, n) add(j, name, n, FILL_RAND, -1, 1)
#define POS(j, name, n) add(j, name, n, FILL_POS, 0.5f, 1.5f)

/* The operands and the work of one run. Operand order is the record()
 * order below. */
static void layout(job *j)
{
    const uint64_t N = j->N, C = j->C, F = j->F, V = j->V, n = j->n;
    const uint64_t NC = N * C, NF = N * F, att = (uint64_t)j->B * j->H * j->T * j->T;
    const uint64_t stats = (uint64_t)j->B * j->H * j->T; /* rows of attention */
    const double D = j->H ? (double)C / j->H : 0, dense = (double)j->B * j->H * j->T * j->T * D;
    double bytes = 0;
    j->n_operands = 0;
    switch (j->op) {
    case K_COPY:
        ACT(j, "src", n), ACT(j, "dst", n);
        bytes = 2.0 * n;
        break;
    case K_FMA:
        ACT(j, "out", n);
        j->work = 2.0 * (double)svk_fma_peak_fmas((uint32_t)n, j->iters); /* FLOPs: 2 per multiply-add */
        return;
    case K_LN_FWD:
        ACT(j, "x", NC), POS(j, "g", C), ACT(j, "b", C), ACT(j, "out", NC), ACT(j, "mean", N), POS(j, "rstd", N);
        bytes = 2.0 * NC + 2 * C + 2 * N;
        break;
    case K_LN_BWD:
        ACT(j, "dout", NC), ACT(j, "x", NC), ACT(j, "mean", N), POS(j, "rstd", N), POS(j, "g", C);
        ACT(j, "dx", NC), ACT(j, "dg", C), ACT(j, "db", C);
        ACT(j, "scratch", svk_layernorm_bwd_scratch_elems(j->N, j->C));
        bytes = 3.0 * NC + 2 * N + C + 4 * C;
        break;
    case K_RMS_FWD:
        ACT(j, "x", NC), POS(j, "g", C), ACT(j, "out", NC), POS(j, "rstd", N);
        bytes = 2.0 * NC + C + N;
        break;
    case K_RMS_BWD:
        ACT(j, "dout", NC), ACT(j, "x", NC), POS(j, "rstd", N), POS(j, "g", C), ACT(j, "dx", NC), ACT(j, "dg", C);
        ACT(j, "scratch", svk_rmsnorm_bwd_scratch_elems(j->N, j->C));
        bytes = 3.0 * NC + N + C + 2 * C;
        break;
    case K_SN_FWD:
        ACT(j, "x", NC), ACT(j, "y", NC), POS(j, "g", 3 * C), ACT(j, "b", 3 * C);
        ACT(j, "xn", NC), ACT(j, "h", NC), ACT(j, "mean", SVK_SIAMESE_MEAN_ROWS * N), POS(j, "rstd", 3 * N);
        bytes = 4.0 * NC + 6 * C + 8 * N;
        break;
    case K_SN_BWD:
        ACT(j, "dh", NC), ACT(j, "dxn", NC), ACT(j, "dy_in", NC), ACT(j, "x", NC), ACT(j, "y", NC);
        ACT(j, "mean", SVK_SIAMESE_MEAN_ROWS * N), POS(j, "rstd", 3 * N), POS(j, "g", 3 * C), ACT(j, "b", 3 * C);
        ACT(j, "dx", NC), ACT(j, "dy", NC), ACT(j, "dg", 3 * C), ACT(j, "db", 3 * C);
        ACT(j, "scratch", svk_siamese_norm_bwd_scratch_elems(SVK_NORM_LAYERNORM, j->N, j->C));
        bytes = 7.0 * NC + 8 * N + 6 * C + 12 * C;
        break;
    case K_SO_FWD:
        ACT(j, "x", NC), ACT(j, "y", NC), POS(j, "g", 3 * C), ACT(j, "b", 3 * C);
        ACT(j, "out", NC), ACT(j, "mean", SVK_SIAMESE_MEAN_ROWS * N), POS(j, "rstd", 3 * N);
        bytes = 3.0 * NC + 6 * C + 8 * N;
        break;
    case K_SO_BWD:
        ACT(j, "dout", NC), ACT(j, "x", NC), ACT(j, "y", NC), ACT(j, "mean", SVK_SIAMESE_MEAN_ROWS * N);
        POS(j, "rstd", 3 * N);
        POS(j, "g", 3 * C), ACT(j, "b", 3 * C), ACT(j, "dx", NC), ACT(j, "dy", NC), ACT(j, "dg", 3 * C),
            ACT(j, "db", 3 * C);
        ACT(j, "scratch", svk_siamese_norm_bwd_scratch_elems(SVK_NORM_LAYERNORM, j->N, j->C));
        bytes = 5.0 * NC + 8 * N + 6 * C + 12 * C;
        break;
    case K_RES_FWD:
        ACT(j, "x", NC), ACT(j, "y", NC), ACT(j, "z", NC);
        bytes = 5.0 * NC; /* x, y, z read; x, y written */
        break;
    case K_RES_BWD:
        ACT(j, "dx", NC), ACT(j, "dy", NC), ACT(j, "dz", NC);
        bytes = 3.0 * NC;
        break;
    case K_GELU_FWD:
        ACT(j, "x", NF), ACT(j, "out", NF);
        bytes = 2.0 * NF;
        break;
    case K_GELU_BWD:
        ACT(j, "x", NF), ACT(j, "dout", NF), ACT(j, "dx", NF);
        bytes = 3.0 * NF;
        break;
    case K_SWIGLU_FWD:
        ACT(j, "gate", NF), ACT(j, "up", NF), ACT(j, "out", NF);
        bytes = 3.0 * NF;
        break;
    case K_SWIGLU_BWD:
        ACT(j, "gate", NF), ACT(j, "up", NF), ACT(j, "dout", NF), ACT(j, "dgate", NF), ACT(j, "dup", NF);
        bytes = 5.0 * NF;
        break;
    case K_BIAS_FWD:
        ACT(j, "bias", F), ACT(j, "out", NF);
        bytes = 2.0 * NF + F;
        break;
    case K_BIAS_BWD:
        ACT(j, "dout", NF), ACT(j, "dbias", F), ACT(j, "scratch", svk_colsum_scratch_elems(N, F));
        bytes = 1.0 * NF + 2 * F;
        break;
    case K_ROPE_FWD:
    case K_ROPE_BWD:
        ACT(j, "qkv", 3 * NC);
        bytes = 4.0 * NC; /* q and k read and written; v untouched */
        break;
    case K_ATT_FWD:
        ACT(j, "qkv", 3 * NC), ACT(j, "out", NC), ACT(j, "att", att);
        j->work = 4 * dense;
        return;
    case K_ATT_BWD:
        ACT(j, "dout", NC), ACT(j, "qkv", 3 * NC), add(j, "att", att, FILL_RAND, 0, 1), ACT(j, "dqkv", 3 * NC);
        ACT(j, "scratch", svk_attention_scratch_elems(j->B, j->T, j->H));
        j->work = 8 * dense;
        return;
    case K_FLASH_FWD:
        ACT(j, "qkv", 3 * NC), ACT(j, "out", NC), ACT(j, "stats", 2 * stats);
        j->work = 4 * dense;
        return;
    case K_FLASH_BWD:
        /* stats: m and l, l >= 1 as the forward leaves it. */
        ACT(j, "dout", NC), ACT(j, "qkv", 3 * NC), ACT(j, "out", NC), add(j, "stats", 2 * stats, FILL_POS, 1, 2);
        ACT(j, "dqkv", 3 * NC), ACT(j, "scratch", svk_attention_flash_scratch_elems(j->B, j->T, j->H));
        j->work = 8 * dense; /* the useful work, as for the materialised backward */
        return;
    case K_EMB_FWD:
        add_index(j, "tokens", N, j->V), ACT(j, "wte", V * C), ACT(j, "wpe", (uint64_t)j->T * C), ACT(j, "out", NC);
        add(j, "counts", 2, FILL_ONE, 0, 0);
        bytes = 1.0 * N + NC + (double)j->T * C + NC;
        break;
    case K_EMB_BWD: {
        add_index(j, "tokens", N, j->V), ACT(j, "dout", NC), ACT(j, "dwte", V * C), ACT(j, "dwpe", (uint64_t)j->T * C);
        /* The rows of dwte the tokens touch, read and written; dwpe too. */
        double rows = (double)(N < V ? N : V);
        bytes = 1.0 * N + NC + 2 * rows * C + 2.0 * j->T * C;
        break;
    }
    case K_XENT:
        ACT(j, "logits", N * V), add_index(j, "targets", N, j->V), ACT(j, "dlogits", N * V), ACT(j, "losses", N);
        add(j, "counts", 2, FILL_ONE, 0, 0), ACT(j, "loss", 1);
        bytes = 2.0 * N * V + 2 * N;
        break;
    case K_CLIP: {
        uint64_t slots = svk_clip_scratch_elems(1, &n);
        ACT(j, "grads", n), ACT(j, "partials", slots), ACT(j, "out", 2);
        bytes = 1.0 * n;
        break;
    }
    case K_ADAMW:
        add(j, "p", n, FILL_RAND, -0.1f, 0.1f), add(j, "g", n, FILL_RAND, -0.01f, 0.01f);
        add(j, "m", n, FILL_RAND, -1e-3f, 1e-3f), add(j, "v", n, FILL_RAND, 0, 1e-5f);
        add(j, "scale", 1, FILL_ONE, 0, 0), add(j, "step", 3, FILL_ONE, 0, 0), add(j, "guard", 2, FILL_ONE, 0, 0);
        bytes = 7.0 * n; /* p, g, m, v read; p, m, v written */
        break;
    case K_TRANSPOSE:
        ACT(j, "src", C * F), ACT(j, "dst", C * F);
        bytes = 2.0 * C * F;
        break;
    case K_COUNT_:
        break;
    }
    j->work = 4 * bytes;
}

static svk_tref T(const job *j, uint32_t k, uint32_t set)
{
    return j->t[k][set];
}

static svk_status record(svk_cmdlist *cl, void *user, uint32_t s)
{
    const job *j = user;
    const uint32_t N = j->N, C = j->C;
    const uint64_t NC = (uint64_t)N * C, NF = (uint64_t)N * j->F;
    const char *label = kinfo[j->op].kernel;
    switch (j->op) {
    case K_COPY:
        return svk_copy_kernel_record(cl, T(j, 1, s), T(j, 0, s), j->n, "copy");
    case K_FMA: {
        /* acc = acc * 0.5 + 0.25 from starts 0 .. 79: no overflow, no
         * subnormals, whatever the count */
        svk_fma_peak_args a = {.n = (uint32_t)j->n, .iters = j->iters, .a = 0.5f, .b = 0.25f, .out = T(j, 0, s)};
        return svk_fma_peak_record(cl, &a);
    }
    case K_LN_FWD: {
        svk_layernorm_fwd_args a = {.rows = N, .width = C, .eps = 1e-5f, .x = T(j, 0, s), .g = T(j, 1, s),
                                    .b = T(j, 2, s), .out = T(j, 3, s), .mean = T(j, 4, s), .rstd = T(j, 5, s)};
        return svk_layernorm_fwd_record(cl, &a);
    }
    case K_LN_BWD: {
        svk_layernorm_bwd_args a = {.rows = N, .width = C, .dout = T(j, 0, s), .x = T(j, 1, s), .mean = T(j, 2, s),
                                    .rstd = T(j, 3, s), .g = T(j, 4, s), .dx = T(j, 5, s), .dg = T(j, 6, s),
                                    .db = T(j, 7, s), .scratch = T(j, 8, s)};
        return svk_layernorm_bwd_record(cl, &a);
    }
    case K_RMS_FWD: {
        svk_rmsnorm_fwd_args a = {.rows = N, .width = C, .eps = 1e-5f, .x = T(j, 0, s), .g = T(j, 1, s),
                                  .out = T(j, 2, s), .rstd = T(j, 3, s)};
        return svk_rmsnorm_fwd_record(cl, &a);
    }
    case K_RMS_BWD: {
        svk_rmsnorm_bwd_args a = {.rows = N, .width = C, .dout = T(j, 0, s), .x = T(j, 1, s), .rstd = T(j, 2, s),
                                  .g = T(j, 3, s), .dx = T(j, 4, s), .dg = T(j, 5, s), .scratch = T(j, 6, s)};
        return svk_rmsnorm_bwd_record(cl, &a);
    }
    case K_SN_FWD: {
        svk_siamese_norm_fwd_args a = {.kind = SVK_NORM_LAYERNORM, .rows = N, .C = C, .eps = 1e-5f,
                                       .x = T(j, 0, s), .y = T(j, 1, s), .g = T(j, 2, s), .b = T(j, 3, s),
                                       .xn = T(j, 4, s), .h = T(j, 5, s), .mean = T(j, 6, s), .rstd = T(j, 7, s)};
        return svk_siamese_norm_fwd_record(cl, &a);
    }
    case K_SN_BWD: {
        svk_siamese_norm_bwd_args a = {.kind = SVK_NORM_LAYERNORM, .rows = N, .C = C, .dh = T(j, 0, s),
                                       .dxn = T(j, 1, s), .dy_in = T(j, 2, s), .x = T(j, 3, s), .y = T(j, 4, s),
                                       .mean = T(j, 5, s), .rstd = T(j, 6, s), .g = T(j, 7, s), .b = T(j, 8, s),
                                       .dx = T(j, 9, s), .dy = T(j, 10, s), .dg = T(j, 11, s), .db = T(j, 12, s),
                                       .scratch = T(j, 13, s)};
        return svk_siamese_norm_bwd_record(cl, &a);
    }
    case K_SO_FWD: {
        svk_siamese_out_fwd_args a = {.kind = SVK_NORM_LAYERNORM, .rows = N, .C = C, .eps = 1e-5f,
                                      .x = T(j, 0, s), .y = T(j, 1, s), .g = T(j, 2, s), .b = T(j, 3, s),
                                      .out = T(j, 4, s), .mean = T(j, 5, s), .rstd = T(j, 6, s)};
        return svk_siamese_out_fwd_record(cl, &a);
    }
    case K_SO_BWD: {
        svk_siamese_out_bwd_args a = {.kind = SVK_NORM_LAYERNORM, .rows = N, .C = C, .dout = T(j, 0, s),
                                      .x = T(j, 1, s), .y = T(j, 2, s), .mean = T(j, 3, s), .rstd = T(j, 4, s),
                                      .g = T(j, 5, s), .b = T(j, 6, s), .dx = T(j, 7, s), .dy = T(j, 8, s),
                                      .dg = T(j, 9, s), .db = T(j, 10, s), .scratch = T(j, 11, s)};
        return svk_siamese_out_bwd_record(cl, &a);
    }
    case K_RES_FWD: {
        /* c of layer 0, sqrt(2): any finite nonzero value costs the same. */
        svk_residual_fwd_args a = {.n = NC, .c = 1.41421356f, .x = T(j, 0, s), .y = T(j, 1, s), .z = T(j, 2, s)};
        return svk_residual_fwd_record(cl, &a);
    }
    case K_RES_BWD: {
        svk_residual_bwd_args a = {.n = NC, .c = 1.41421356f, .dx = T(j, 0, s), .dy = T(j, 1, s), .dz = T(j, 2, s)};
        return svk_residual_bwd_record(cl, &a);
    }
    case K_GELU_FWD: {
        svk_gelu_fwd_args a = {.n = NF, .x = T(j, 0, s), .out = T(j, 1, s), .label = label};
        return svk_gelu_fwd_record(cl, &a);
    }
    case K_GELU_BWD: {
        svk_gelu_bwd_args a = {.n = NF, .x = T(j, 0, s), .dout = T(j, 1, s), .dx = T(j, 2, s), .label = label};
        return svk_gelu_bwd_record(cl, &a);
    }
    case K_SWIGLU_FWD: {
        svk_swiglu_fwd_args a = {.n = NF, .gate = T(j, 0, s), .up = T(j, 1, s), .out = T(j, 2, s), .label = label};
        return svk_swiglu_fwd_record(cl, &a);
    }
    case K_SWIGLU_BWD: {
        svk_swiglu_bwd_args a = {.n = NF, .gate = T(j, 0, s), .up = T(j, 1, s), .dout = T(j, 2, s),
                                 .dgate = T(j, 3, s), .dup = T(j, 4, s), .label = label};
        return svk_swiglu_bwd_record(cl, &a);
    }
    case K_BIAS_FWD: {
        svk_bias_fwd_args a = {.rows = N, .N = j->F, .bias = T(j, 0, s), .out = T(j, 1, s), .label = label};
        return svk_bias_fwd_record(cl, &a);
    }
    case K_BIAS_BWD: {
        svk_bias_bwd_args a = {.rows = N, .N = j->F, .dout = T(j, 0, s), .dbias = T(j, 1, s), .scratch = T(j, 2, s),
                               .label = label};
        return svk_bias_bwd_record(cl, &a);
    }
    case K_ROPE_FWD:
    case K_ROPE_BWD: {
        svk_rope_args a = {.B = j->B, .T = j->T, .C = C, .H = j->H, .theta = 10000.0f, .qkv = T(j, 0, s)};
        return j->op == K_ROPE_FWD ? svk_rope_fwd_record(cl, &a) : svk_rope_bwd_record(cl, &a);
    }
    case K_ATT_FWD: {
        svk_attention_fwd_args a = {.B = j->B, .T = j->T, .C = C, .H = j->H, .qkv = T(j, 0, s), .out = T(j, 1, s),
                                    .att = T(j, 2, s)};
        return svk_attention_fwd_record(cl, &a);
    }
    case K_ATT_BWD: {
        svk_attention_bwd_args a = {.B = j->B, .T = j->T, .C = C, .H = j->H, .dout = T(j, 0, s),
                                    .qkv = T(j, 1, s), .att = T(j, 2, s), .dqkv = T(j, 3, s),
                                    .scratch = T(j, 4, s)};
        return svk_attention_bwd_record(cl, &a);
    }
    case K_FLASH_FWD: {
        svk_attention_flash_args a = {.B = j->B, .T = j->T, .C = C, .H = j->H, .qkv = T(j, 0, s), .out = T(j, 1, s),
                                      .stats = T(j, 2, s)};
        return svk_attention_flash_fwd_record(cl, &a);
    }
    case K_FLASH_BWD: {
        svk_attention_flash_bwd_args a = {.B = j->B, .T = j->T, .C = C, .H = j->H, .dout = T(j, 0, s),
                                          .qkv = T(j, 1, s), .out = T(j, 2, s), .stats = T(j, 3, s),
                                          .dqkv = T(j, 4, s), .scratch = T(j, 5, s)};
        return svk_attention_flash_bwd_record(cl, &a);
    }
    case K_EMB_FWD: {
        svk_embedding_fwd_args a = {.B = j->B, .T = j->T, .C = C, .V = j->V, .tokens = T(j, 0, s),
                                    .wte = T(j, 1, s), .wpe = T(j, 2, s), .out = T(j, 3, s),
                                    .counts = T(j, 4, s), .label = label};
        return svk_embedding_fwd_record(cl, &a);
    }
    case K_EMB_BWD: {
        svk_embedding_bwd_args a = {.B = j->B, .T = j->T, .C = C, .V = j->V, .tokens = T(j, 0, s),
                                    .dout = T(j, 1, s), .dwte = T(j, 2, s), .dwpe = T(j, 3, s), .label = label};
        return svk_embedding_bwd_record(cl, &a);
    }
    case K_XENT: {
        svk_cross_entropy_args a = {.rows = N, .V = j->V, .logits = T(j, 0, s), .targets = T(j, 1, s),
                                    .dlogits = T(j, 2, s), .losses = T(j, 3, s), .counts = T(j, 4, s),
                                    .loss = T(j, 5, s), .label = label};
        return svk_cross_entropy_record(cl, &a);
    }
    case K_CLIP: {
        svk_tref g = T(j, 0, s);
        uint64_t n = j->n;
        svk_clip_args a = {.count = 1, .grads = &g, .sizes = &n, .partials = T(j, 1, s), .max_norm = 1.0f,
                           .out = T(j, 2, s), .label = label};
        return svk_clip_record(cl, &a);
    }
    case K_ADAMW: {
        /* As the recorded step has it (lib/model/backend_vk.c): the scale,
         * the step's numbers and the finiteness guard in device memory. */
        svk_adamw_args a = {.n = j->n, .p = T(j, 0, s), .g = T(j, 1, s), .m = T(j, 2, s), .v = T(j, 3, s),
                            .scale = T(j, 4, s), .step = T(j, 5, s), .guard = T(j, 6, s), .beta1 = 0.9f,
                            .beta2 = 0.95f, .eps = 1e-8f, .weight_decay = 0.1f, .decay = true, .label = label};
        return svk_adamw_record(cl, &a);
    }
    case K_TRANSPOSE: {
        svk_transpose_args a = {.rows = C, .cols = j->F, .src = T(j, 0, s), .dst = T(j, 1, s), .label = label};
        return svk_transpose_record(cl, &a);
    }
    case K_COUNT_:
        break;
    }
    return SVK_ERROR_INTERNAL;
}

/* Makes operand set 0 from the generator and the others as device copies
 * of it. false when a buffer could not be made (bb says why). */
static bool make_operands(bench_bufs *bb, job *j, uint32_t sets)
{
    for (uint32_t k = 0; k < j->n_operands; k++) {
        const operand *o = &j->spec[k];
        for (uint32_t s = 0; s < sets; s++) {
            svk_tref t = {NULL, 0};
            if (o->n == 0)
                t = (svk_tref){NULL, 0};
            else if (s > 0)
                t = bench_clone(bb, o->name, j->t[k][0], o->n);
            else if (o->how == FILL_INDEX)
                t = bench_index(bb, o->name, o->n, o->V);
            else if (o->how == FILL_ONE)
                t = bench_const(bb, o->name, o->n, 1.0f);
            else
                t = bench_rand(bb, o->name, o->n, o->lo, o->hi);
            j->t[k][s] = t;
        }
    }
    return !bb->failed;
}

/* The AdamW step numbers (lr, 1 - beta1^t, 1 - beta2^t) of update 10. */
static void fill_adamw_step(bench *b, job *j, uint32_t sets)
{
    float v[3];
    svk_adamw_step_values(10, 1e-3f, 0.9f, 0.95f, v);
    for (uint32_t s = 0; s < sets; s++)
        if (j->t[5][s].buf && svk_buffer_upload(j->t[5][s].buf, 0, v, sizeof(v)) != SVK_OK)
            b->errors++;
}

/* Measures one job in each variant it runs in; returns the last row's
 * value (0 when skipped). */
static double run_job(bench *b, job *j)
{
    layout(j);
    const char *forms[2] = {NULL, NULL};
    uint32_t n_forms = 1;
    if (kinfo[j->op].row && b->opt.all_variants) {
        forms[0] = "portable";
        forms[1] = "cpu";
        n_forms = 2;
    }
    const char *metric = (j->op >= K_ATT_FWD && j->op <= K_FLASH_BWD) || j->op == K_FMA ? "GFLOP/s" : "GB/s";
    bench_row rows[2];
    bool want[2] = {false, false}, any = false;
    for (uint32_t f = 0; f < n_forms; f++) {
        const char *variant = "-";
        if (kinfo[j->op].row) {
            bench_set_variant(b, forms[f]);
            svk_kernel_variant kv;
            variant = svk_op_variant(b->ctx, kinfo[j->op].kernel, &kv) != SVK_OK ? "?"
                      : kv == SVK_KERNEL_VARIANT_CPU                             ? "cpu"
                                                                                 : "portable";
        }
        want[f] = bench_row_init(b, &rows[f], kinfo[j->op].section, kinfo[j->op].kernel, kinfo[j->op].direction,
                                 variant, j->shape, metric, j->work);
        any |= want[f];
    }
    bench_set_variant(b, NULL);
    if (!any)
        return 0;
    double per_set = 0;
    for (uint32_t k = 0; k < j->n_operands; k++)
        per_set += 4.0 * (double)j->spec[k].n;
    uint32_t sets = bench_sets(b, per_set);
    bench_bufs bb;
    bench_bufs_init(&bb, b);
    bool ok = make_operands(&bb, j, sets);
    if (ok && j->op == K_ADAMW)
        fill_adamw_step(b, j, sets);
    double value = 0;
    for (uint32_t f = 0; f < n_forms; f++) {
        if (!want[f])
            continue;
        if (!ok) {
            if (!bb.limit)
                b->errors++;
            bench_skip(b, &rows[f], "%s", bb.why);
            continue;
        }
        bench_set_variant(b, forms[f]);
        bench_measure(b, &rows[f], sets, record, j);
        bench_set_variant(b, NULL);
        value = rows[f].value;
    }
    bench_bufs_free(&bb);
    return value;
}

/* vkCmdCopyBuffer of n floats, timed between timestamps of our own
 * command buffer: the driver's copy (lavapipe: a memcpy on its queue
 * thread, one core), the memory system's figure without a shader's
 * per-lane bounds-checked loads. */
static double run_copy_buffer(bench *b, uint64_t n, const char *shape)
{
    bench_row r;
    if (!bench_row_init(b, &r, "limit", "copy_buffer", "-", "-", shape, "GB/s", 8.0 * (double)n))
        return 0;
    if (!b->dev->timestamps) {
        bench_skip(b, &r, "the device's compute queue has no timestamps");
        return 0;
    }
    uint32_t sets = bench_sets(b, 8.0 * (double)n);
    bench_bufs bb;
    bench_bufs_init(&bb, b);
    svk_tref src[MAX_SETS], dst[MAX_SETS];
    for (uint32_t s = 0; s < sets; s++) {
        src[s] = s ? bench_clone(&bb, "src", src[0], n) : bench_rand(&bb, "src", n, -1, 1);
        dst[s] = s ? bench_clone(&bb, "dst", dst[0], n) : bench_rand(&bb, "dst", n, -1, 1);
    }
    /* Span 0 is the warm-up; at most 31 timed spans fit one read-back. */
    uint32_t reps = b->opt.reps < 31 ? b->opt.reps : 31;
    double ns[32];
    bench_vkcmd t = {0};
    bool ok = !bb.failed && bench_vkcmd_begin(&t, b->ctx, 2 * (reps + 1));
    for (uint32_t i = 0; ok && i <= reps; i++) {
        bench_vkcmd_stamp(&t, 2 * i, false);
        bench_vkcmd_copy(&t, dst[i % sets].buf, src[i % sets].buf, 4 * n);
        bench_vkcmd_stamp(&t, 2 * i + 1, true);
    }
    ok = ok && bench_vkcmd_end(&t) && bench_vkcmd_run(&t, ns);
    if (!ok) {
        if (bb.failed && bb.limit)
            bench_skip(b, &r, "%s", bb.why);
        else {
            b->errors++;
            bench_skip(b, &r, "%s", bb.failed ? bb.why : t.why);
        }
    } else {
        r.reps = reps;
        r.sets = sets;
        r.dispatches = 1;
        r.min_ns = r.max_ns = ns[1];
        for (uint32_t i = 2; i <= reps; i++) {
            r.min_ns = ns[i] < r.min_ns ? ns[i] : r.min_ns;
            r.max_ns = ns[i] > r.max_ns ? ns[i] : r.max_ns;
        }
        r.median_ns = bench_median(ns + 1, reps);
        r.value = r.median_ns > 0 ? r.work / r.median_ns : 0;
        bench_add_row(b, &r);
    }
    bench_vkcmd_destroy(&t);
    bench_bufs_free(&bb);
    return r.value;
}

/* Elements each way of the copy the memory-bound rows are held to: the
 * largest of bench_run_copy_limit's. */
static uint64_t copy_reference_n(const bench *b)
{
    return b->opt.quick ? 1u << 18 : 1u << 24;
}

void bench_run_copy_limit(bench *b)
{
    /* 16 and 64 MiB each way: the second far past the cache a 2-core
     * guest's share of an L3 can be. The copy shader's figure at the
     * largest size is what the memory-bound rows are held to (b->copy_gbps,
     * set last so that these rows are not held to each other). */
    const uint64_t sizes[] = {1u << 22, 1u << 24};
    uint32_t first = b->opt.quick ? 1 : 0;
    double shader = 0;
    for (uint32_t i = first; i < 2; i++) {
        job j = {.op = K_COPY, .n = i == 1 ? copy_reference_n(b) : sizes[i]};
        snprintf(j.shape, sizeof(j.shape), "n=%llu (%.0f MiB each way)", (unsigned long long)j.n,
                 (double)j.n * 4 / (1 << 20));
        double v = run_job(b, &j);
        if (v > 0)
            shader = v;
        run_copy_buffer(b, j.n, j.shape);
    }
    b->copy_gbps = shader;
}

void bench_run_fma_limit(bench *b)
{
    /* Enough work for milliseconds on the device class: about 1 GFLOP on a
     * CPU device, 69 on a GPU (about 1 ms at an H200's FP32 peak). */
    const bool cpu = b->dev->type == SVK_DEVICE_CPU;
    job j = {.op = K_FMA};
    j.n = b->opt.quick ? 4096 : cpu ? 1u << 16 : 1u << 20;
    j.iters = b->opt.quick ? 4 : cpu ? 128 : 512;
    snprintf(j.shape, sizeof(j.shape), "%llu invocations x %u x %u", (unsigned long long)j.n, j.iters,
             (unsigned)SVK_FMA_PEAK_PER_ITER);
    const double v = run_job(b, &j);
    b->fma_gflops = v > 0 ? v : 0;
}

void bench_recheck_copy_limit(bench *b)
{
    /* The largest copy again, after the kernel rows: with the one before
     * them, how far the machine's speed moved during them (the rows
     * themselves are held to the copy run among their runs, bench.beside). */
    job j = {.op = K_COPY, .n = copy_reference_n(b)};
    snprintf(j.shape, sizeof(j.shape), "n=%llu (%.0f MiB), at the end", (unsigned long long)j.n,
             (double)j.n * 4 / (1 << 20));
    const double start = b->copy_gbps;
    b->copy_gbps = 0; /* not held to itself */
    double v = run_job(b, &j);
    b->copy_gbps = start;
    b->copy_gbps_end = v > 0 ? v : 0;
}

/* Sets up bench.beside: the reference copy's operands, kept for the whole
 * kernel section. Without them (a device too small) rows are held to the
 * copy measured before them, as the report then says. */
static void beside_begin(bench *b, job *j, bench_bufs *bb)
{
    *j = (job){.op = K_COPY, .n = copy_reference_n(b)};
    layout(j);
    const uint32_t sets = bench_sets(b, 8.0 * (double)j->n);
    bench_bufs_init(bb, b);
    if (!make_operands(bb, j, sets)) {
        fprintf(stderr, "svk-bench: no copy beside the kernel rows (%s): they are held to the copy before them\n",
                bb->why);
        return;
    }
    b->beside.fn = record;
    b->beside.user = j;
    b->beside.sets = sets;
    b->beside.work = j->work;
}

static void beside_end(bench *b, bench_bufs *bb)
{
    b->beside.fn = NULL;
    b->beside.user = NULL;
    bench_bufs_free(bb);
}

static void kernel_rows(bench *b)
{
    bench_shapes sh = bench_shapes_for(b);
    /* Families over the token positions N = B*T and widths C. */
    static const kop nc_ops[] = {K_LN_FWD, K_LN_BWD, K_RMS_FWD, K_RMS_BWD, K_SN_FWD, K_SN_BWD, K_SO_FWD,
                                 K_SO_BWD, K_RES_FWD, K_RES_BWD, K_GELU_FWD, K_GELU_BWD, K_SWIGLU_FWD,
                                 K_SWIGLU_BWD, K_BIAS_FWD, K_BIAS_BWD, K_ROPE_FWD, K_ROPE_BWD, K_ATT_FWD,
                                 K_ATT_BWD, K_FLASH_FWD, K_FLASH_BWD};
    for (size_t o = 0; o < sizeof(nc_ops) / sizeof(nc_ops[0]); o++) {
        for (uint32_t ti = 0; ti < sh.n_tokens; ti++) {
            for (uint32_t wi = 0; wi < sh.n_widths; wi++) {
                job j = {.op = nc_ops[o], .N = sh.tokens[ti], .C = sh.widths[wi]};
                j.F = 4 * j.C;
                j.T = sh.seq < j.N ? sh.seq : j.N;
                j.B = j.N / j.T;
                j.H = j.C / sh.head_dim ? j.C / sh.head_dim : 1;
                if (j.op >= K_ROPE_FWD && j.op <= K_FLASH_BWD)
                    snprintf(j.shape, sizeof(j.shape), "B=%u T=%u H=%u D=%u", j.B, j.T, j.H, j.C / j.H);
                else if (j.op >= K_GELU_FWD && j.op <= K_BIAS_BWD)
                    snprintf(j.shape, sizeof(j.shape), "N=%u F=%u", j.N, j.F);
                else
                    snprintf(j.shape, sizeof(j.shape), "N=%u C=%u", j.N, j.C);
                run_job(b, &j);
            }
        }
    }
    /* The embedding over N, C and V; the loss over N and V. */
    for (kop op = K_EMB_FWD; op <= K_EMB_BWD; op++)
        for (uint32_t ti = 0; ti < sh.n_tokens; ti++)
            for (uint32_t wi = 0; wi < sh.n_widths; wi++)
                for (uint32_t vi = 0; vi < sh.n_vocabs; vi++) {
                    job j = {.op = op, .N = sh.tokens[ti], .C = sh.widths[wi], .V = sh.vocabs[vi]};
                    j.T = sh.seq < j.N ? sh.seq : j.N;
                    j.B = j.N / j.T;
                    snprintf(j.shape, sizeof(j.shape), "N=%u C=%u V=%u", j.N, j.C, j.V);
                    run_job(b, &j);
                }
    for (uint32_t ti = 0; ti < sh.n_tokens; ti++)
        for (uint32_t vi = 0; vi < sh.n_vocabs; vi++) {
            job j = {.op = K_XENT, .N = sh.tokens[ti], .V = sh.vocabs[vi]};
            snprintf(j.shape, sizeof(j.shape), "N=%u V=%u", j.N, j.V);
            run_job(b, &j);
        }
    /* The optimiser over one layer's largest tensor, mlp.fc [4C, C]. */
    for (kop op = K_CLIP; op <= K_ADAMW; op++)
        for (uint32_t wi = 0; wi < sh.n_widths; wi++) {
            job j = {.op = op, .n = 4ull * sh.widths[wi] * sh.widths[wi]};
            snprintf(j.shape, sizeof(j.shape), "n=%llu (4C^2, C=%u)", (unsigned long long)j.n, sh.widths[wi]);
            run_job(b, &j);
        }
    /* The MLP projection's weight [C, 4C], as the Linears' weights are
     * transposed before their forward products on CPU devices
     * (svk_plan_options.linear_nn). */
    for (uint32_t wi = 0; wi < sh.n_widths; wi++) {
        job j = {.op = K_TRANSPOSE, .C = sh.widths[wi], .F = 4 * sh.widths[wi]};
        snprintf(j.shape, sizeof(j.shape), "[C, 4C], C=%u", j.C);
        run_job(b, &j);
    }
}

void bench_run_kernels(bench *b)
{
    job copy;
    bench_bufs copy_bufs;
    beside_begin(b, &copy, &copy_bufs);
    kernel_rows(b);
    beside_end(b, &copy_bufs);
}
