/*
 * The model of docs/MODEL.md as plan ops, written once: the embedding, each
 * block's attention and MLP sublayers with the norms where the placement
 * puts them, the output and the loss, then the backward of each in reverse,
 * clipping and AdamW.
 *
 * Streams: the residual stream (x, and y for siamese) is one tensor per
 * sublayer boundary, x_0 .. x_2L, so the backward pass finds every
 * sublayer's input intact without recomputation. Sublayer k (of 2L) is
 * block k / 2's attention when k is even, its MLP when odd.
 *
 * With recomputation (svk_plan_options.recompute) only the blocks' inputs
 * (x_2l, y_2l) are kept: every block's forward writes its activations, and
 * the stream between its two sublayers, into one set of tensors, and the
 * backward runs each block's forward again from its input before the
 * block's backward (the last block's are still there). The kernels are
 * deterministic, so the recomputed activations are the same bits.
 *
 * With 16-bit precision (svk_plan.precision) the blocks likewise share one
 * set of float32 tensors; each activation a sublayer's backward reads is
 * rounded where it is made and its codes kept per sublayer (keep16:
 * PACK16), and before each sublayer's backward they are unpacked into the
 * shared set (UNPACK16). The forward pass runs the streams in float32
 * (docs/MODEL.md, "Precision"), through two tensors each used in turn,
 * keeping each boundary's 16-bit codes alone for the backward; each
 * sublayer's backward reads its input streams rounded, as the codes give
 * them back (post's stream is its sublayers' input h). With recomputation as well nothing is kept in
 * 16 bits: the recomputed activations, and the streams before each
 * sublayer's backward, are rounded the same way, to the same bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "plan_builder.h"

/* Per-sublayer activations kept for the backward pass. */
typedef struct sub_acts {
    uint32_t h;                 /* the sublayer's input [N, C] */
    uint32_t mean, rstd;        /* norm statistics: [3, N] (siamese) or [N] */
    uint32_t u;                 /* post: x + z, the norm's input */
    uint32_t qkv, att, att_out; /* attention */
    uint32_t a, g, gate, up;    /* MLP */
    /* 16-bit precision: where each is kept (SVK_NONE: not kept, or
     * float32; ROUND16: rounded, kept nowhere) */
    uint32_t h16, u16, qkv16, att16, att_out16, a16, g16, gate16, up16;
} sub_acts;

/* The most elements one AdamW op updates, or one op zeroes of the
 * gradients: more are several ops, so that a large model's step can be
 * cut into submissions that each fit the watchdog's budget (an AdamW
 * piece is about 0.1 s of lavapipe on two cores; milliseconds on a GPU). */
#define SLAB_PIECE (UINT64_C(1) << 24)

/* A 16-bit activation rounded but stored nowhere: the recomputed ones. */
#define ROUND16 (SVK_NONE - 1)

/* The gradients flowing down the streams: those of x_{k+1} and y_{k+1}
 * (dx, dy) while sublayer k's backward writes those of x_k and y_k (dx_next,
 * dy_next); then they swap. */
typedef struct stream_grads {
    uint32_t dx, dx_next, dy, dy_next;
} stream_grads;

/* The step's activations, and the micro-batch they hold. */
typedef struct acts {
    uint32_t tokens, targets;              /* the micro-batch's rows of the step's inputs */
    uint64_t row0;                         /* its first position among the step's */
    uint32_t *x, *y;                       /* [2L + 1]: the streams (y: siamese only) */
    uint32_t *x16, *y16;                   /* [2L + 1]: 16-bit streams: each boundary's codes, or SVK_NONE */
    sub_acts *sub;                         /* [2L] */
    uint32_t final_out, final_mean, final_rstd, logits;
    uint32_t dlogits;                      /* logits: their gradient replaces them in place */
    stream_grads gr;
    uint32_t dz, dh;                       /* a sublayer's output's and input's gradients */
    uint32_t s_big, s_big2, s_c, work;     /* scratch: [N, max(3C, F)] twice, [N, C], the norms' [2, N, C] */
    uint32_t x_out, y_out;                 /* recompute: where a block's recomputed output goes (unused) */
} acts;

static bool siamese(const svk_pb *b)
{
    return b->p->config.placement == SVK_PLACEMENT_SIAMESE;
}

static bool post(const svk_pb *b)
{
    return b->p->config.placement == SVK_PLACEMENT_POST;
}

static bool rms(const svk_pb *b)
{
    return b->p->config.norm == SVK_NORM_RMSNORM;
}

/* Whether activations are kept in 16 bits. */
static bool half(const svk_pb *b)
{
    return b->p->precision != 0;
}

/* Keeps activation x, just made, in 16 bits where packed says (sub_acts):
 * rounds it in place, and stores its codes unless packed is ROUND16. */
static void keep16(svk_pb *b, uint32_t x, uint32_t packed)
{
    if (packed == SVK_NONE || x == SVK_NONE)
        return;
    const svk_plan_tensor *t = &b->p->tensors[packed == ROUND16 ? x : packed];
    svk_plan_op *o = svk_pb_op(b, SVK_OP_PACK16, "%s%s", packed == ROUND16 ? "round." : "", t->name);
    o->pack16 = (svk_plan_pack16){.x = x, .packed = packed == ROUND16 ? SVK_NONE : packed, .scaler = SVK_NONE,
                                  .n = b->p->tensors[x].elems, .fmt = b->p->precision};
}

/* 16-bit precision: the gradient in the first n elements of x, just made,
 * rounded in place as the next GEMM's (or attention's, or SwiGLU's) input
 * (docs/MODEL.md, "Precision"); scaled: multiplied by the loss scale
 * first, where loss scaling is on (the logits' gradient, where every
 * gradient of the backward starts). */
static void grad16(svk_pb *b, uint32_t x, uint64_t n, bool scaled, const char *what, uint32_t l)
{
    if (!half(b))
        return;
    svk_plan_op *o = l == SVK_NONE ? svk_pb_op(b, SVK_OP_PACK16, "round.%s", what)
                                   : svk_pb_op(b, SVK_OP_PACK16, "round.blocks.%u.%s", l, what);
    o->pack16 = (svk_plan_pack16){.x = x, .packed = SVK_NONE,
                                  .scaler = scaled && b->p->loss_scaling ? b->p->loss_scaler : SVK_NONE, .n = n,
                                  .fmt = b->p->precision};
}

/* x again from its codes in packed (nothing where it is kept nowhere). */
static void unpack16(svk_pb *b, uint32_t x, uint32_t packed)
{
    if (packed == SVK_NONE || packed == ROUND16 || x == SVK_NONE)
        return;
    svk_plan_op *o = svk_pb_op(b, SVK_OP_UNPACK16, "%s.unpack", b->p->tensors[packed].name);
    o->pack16 = (svk_plan_pack16){.x = x, .packed = packed, .scaler = SVK_NONE, .n = b->p->tensors[x].elems,
                                  .fmt = b->p->precision};
}

/* A tensor for live's 16-bit codes, two to an element; ROUND16 where the
 * plan recomputes rather than keeps, and SVK_NONE where live is. */
static uint32_t codes16(svk_pb *b, uint32_t live, const char *name, uint32_t k)
{
    if (live == SVK_NONE)
        return SVK_NONE;
    if (b->p->recompute)
        return ROUND16;
    const uint64_t n = b->p->tensors[live].elems;
    return svk_pb_tensor(b, SVK_SLAB_ACT, (n + 1) / 2, -1, "%s.%u.16", name, k);
}

/* The leading dimension of the GELU MLP's [N, F] activations in GEMM ops:
 * 0 where they are dense. */
static uint64_t mlp_ld(const svk_pb *b)
{
    return b->p->mlp_ld != svk_model_config_hidden(&b->p->config) ? b->p->mlp_ld : 0;
}

/* c_l of docs/MODEL.md for sublayer k: sqrt(2 (l + 1)). */
static float residual_scale(uint32_t k)
{
    return sqrtf(2.0f * (float)(k / 2 + 1));
}

/* SiameseNorm's backward passes the streams' gradients down and, with them,
 * dz = dx / c + dy for the residual update that produced x_k and y_k, the
 * k-th sublayer inputs: that of sublayer k - 1, or for k = 0 the
 * embedding's gradient (x_0 = y_0 = e: c = 1). */
static float dz_scale(uint32_t k)
{
    return k > 0 ? residual_scale(k - 1) : 1.0f;
}

/* Flash attention's softmax statistics of sublayer k. */
static uint32_t flash_stats(svk_pb *b, uint32_t k)
{
    /* Read as vec2s: an even offset. */
    b->p->slab_elems[SVK_SLAB_ACT] += b->p->slab_elems[SVK_SLAB_ACT] % 2;
    return svk_pb_tensor(b, SVK_SLAB_ACT, 2 * b->d.B * b->d.H * b->d.T, -1, "att.stats.%u", k);
}

/* Sublayer k's norm statistics: means (LayerNorm; the device's
 * SiameseNorm keeps more rows of them than the norms) and rstd. */
static void norm_stats(svk_pb *b, uint32_t k, sub_acts *s)
{
    const uint64_t N = b->d.N;
    s->mean = rms(b) ? SVK_NONE : svk_pb_tensor(b, SVK_SLAB_ACT, (siamese(b) ? SVK_PLAN_SIAMESE_MEAN_ROWS : 1) * N,
                                                -1, "mean.%u", k);
    s->rstd = svk_pb_tensor(b, SVK_SLAB_ACT, (siamese(b) ? 3 : 1) * N, -1, "rstd.%u", k);
}

/* 16-bit precision: where sublayer k keeps what its backward reads. */
static void sublayer_codes(svk_pb *b, uint32_t k, sub_acts *s)
{
    if (!post(b))
        s->h16 = codes16(b, s->h, "h", k);
    s->u16 = codes16(b, s->u, "u", k);
    if (k % 2 == 0) {
        s->qkv16 = codes16(b, s->qkv, "qkv", k);
        s->att16 = b->p->flash_attention ? SVK_NONE : codes16(b, s->att, "att", k);
        s->att_out16 = codes16(b, s->att_out, "att_out", k);
    } else if (b->p->config.mlp == SVK_MLP_GELU) {
        s->a16 = codes16(b, s->a, "a", k);
        s->g16 = codes16(b, s->g, "g", k);
    } else { /* a is the backward's scratch */
        s->g16 = codes16(b, s->g, "g", k);
        s->gate16 = codes16(b, s->gate, "gate", k);
        s->up16 = codes16(b, s->up, "up", k);
    }
}

/* The activations of sublayer k. */
static void sublayer_tensors(svk_pb *b, uint32_t k, uint32_t x_k, sub_acts *s)
{
    const svk_pb_dims *d = &b->d;
    const uint64_t NC = d->N * d->C;
    memset(s, 0xff, sizeof(*s)); /* SVK_NONE everywhere */
    s->h = post(b) ? x_k : svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "h.%u", k);
    norm_stats(b, k, s);
    if (post(b))
        s->u = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "u.%u", k);
    if (k % 2 == 0) {
        s->qkv = svk_pb_tensor(b, SVK_SLAB_ACT, 3 * NC, -1, "qkv.%u", k);
        if (b->p->flash_attention)
            s->att = flash_stats(b, k);
        else
            s->att = svk_pb_tensor(b, SVK_SLAB_ACT, d->B * d->H * d->T * d->T, -1, "att.%u", k);
        s->att_out = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "att_out.%u", k);
    } else {
        s->a = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->FL, -1, "a.%u", k);
        s->g = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->FL, -1, "g.%u", k);
        if (b->p->config.mlp == SVK_MLP_SWIGLU) {
            s->gate = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->F, -1, "gate.%u", k);
            s->up = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->F, -1, "up.%u", k);
        }
    }
}

/* The blocks' transposed weights, the final norm's and the logits'. */
static void output_tensors(svk_pb *b, acts *a)
{
    const svk_pb_dims *d = &b->d;
    const uint64_t means = (siamese(b) ? SVK_PLAN_SIAMESE_MEAN_ROWS : 1) * d->N;
    /* One tensor for the blocks' transposed weights, each transposed just
     * before its product: the largest is qkv's [C, 3C] or the MLP's
     * [C, F] (or [F, C]). */
    if (b->p->linear_nn)
        b->wt = svk_pb_tensor(b, SVK_SLAB_ACT, (d->F > 3 * d->C ? d->F : 3 * d->C) * d->C, -1, "linear.wt");
    a->final_out = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->C, -1, "final");
    a->final_mean = !rms(b) && !post(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, means, -1, "final.mean") : SVK_NONE;
    a->final_rstd = !post(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, (siamese(b) ? 3 : 1) * d->N, -1, "final.rstd") : SVK_NONE;
    a->logits = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * d->V, -1, "logits");
}

/* The tensors after the blocks': the output's, the logits', the backward
 * pass's gradients and scratch. */
static void step_tensors(svk_pb *b, acts *a)
{
    const svk_pb_dims *d = &b->d;
    const uint64_t NC = d->N * d->C, big = (3 * d->C > d->FL ? 3 * d->C : d->FL) * d->N;
    output_tensors(b, a);
    /* Nothing reads the logits after the loss but their gradient's
     * kernel: [N, V], the largest activation of a real vocabulary, once. */
    a->dlogits = a->logits;
    a->gr.dx = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dx");
    a->gr.dx_next = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dx.next");
    a->gr.dy = siamese(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dy") : SVK_NONE;
    a->gr.dy_next = siamese(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dy.next") : SVK_NONE;
    a->dz = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dz");
    a->dh = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "dh");
    a->s_big = svk_pb_tensor(b, SVK_SLAB_ACT, big, -1, "scratch.big");
    a->s_big2 = svk_pb_tensor(b, SVK_SLAB_ACT, big, -1, "scratch.big2");
    a->s_c = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "scratch.c");
    a->work = svk_pb_tensor(b, SVK_SLAB_ACT, 2 * NC, -1, "scratch.norm");
    if (!b->decoding)
        b->p->losses = svk_pb_tensor(b, SVK_SLAB_ACT, d->N * b->p->micro, -1, "losses");
}

/* The streams in two float32 tensors each, used in turn by the sublayers'
 * forward (x_k and x_{k+1} are never the same), no boundary kept. */
static void stream_pairs(svk_pb *b, acts *a)
{
    const uint32_t S = 2 * b->p->config.layers;
    const uint64_t NC = b->d.N * b->d.C;
    const uint32_t x2[2] = {svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "x.even"),
                            svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "x.odd")};
    uint32_t y2[2] = {SVK_NONE, SVK_NONE};
    if (siamese(b)) {
        y2[0] = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "y.even");
        y2[1] = svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "y.odd");
    }
    for (uint32_t k = 0; k <= S; k++) {
        a->x[k] = x2[k % 2];
        /* y_0 = x_0 = e: one tensor, which nothing writes after the
         * embedding. */
        a->y[k] = k == 0 ? (siamese(b) ? a->x[0] : SVK_NONE) : y2[k % 2];
    }
    a->x_out = a->y_out = SVK_NONE;
}

/* 16-bit streams kept as codes: stream_pairs', and the codes of every
 * boundary the backward reads from them: all but the last sublayer's
 * input, whose float32 tensor nothing writes after it, and the output,
 * which the final norm reads in float32. */
static void stream_codes(svk_pb *b, acts *a)
{
    const uint32_t S = 2 * b->p->config.layers;
    const uint64_t NC = b->d.N * b->d.C;
    stream_pairs(b, a);
    for (uint32_t k = 0; k + 2 <= S; k++) {
        a->x16[k] = svk_pb_tensor(b, SVK_SLAB_ACT, (NC + 1) / 2, -1, "x.%u.16", k);
        if (siamese(b))
            a->y16[k] = k == 0 ? a->x16[0] : svk_pb_tensor(b, SVK_SLAB_ACT, (NC + 1) / 2, -1, "y.%u.16", k);
    }
}

/* The streams: every boundary's, or with recomputation the blocks'
 * inputs, the stream between a block's sublayers in one tensor for all;
 * for a step's 16-bit backward without recomputation, stream_codes'. */
static void stream_tensors(svk_pb *b, acts *a, bool backward)
{
    const uint32_t S = 2 * b->p->config.layers;
    const uint64_t NC = b->d.N * b->d.C;
    const bool rc = b->p->recompute;
    /* The sublayers' backward reads the streams rounded in 16 bits
     * (docs/MODEL.md, "Precision"). */
    if (backward && half(b) && !rc) {
        stream_codes(b, a);
        return;
    }
    const uint32_t x_mid = rc ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "x.mid") : SVK_NONE;
    const uint32_t y_mid = rc && siamese(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "y.mid") : SVK_NONE;
    /* y_0 = x_0 = e: one tensor, which nothing writes after the embedding. */
    for (uint32_t k = 0; k <= S; k++) {
        const bool shared = rc && k % 2 == 1;
        a->x[k] = shared ? x_mid : svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "x.%u", k);
        a->y[k] = !siamese(b) ? SVK_NONE
                  : k == 0    ? a->x[0]
                  : shared    ? y_mid
                              : svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "y.%u", k);
    }
    a->x_out = rc ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "x.recomputed") : SVK_NONE;
    a->y_out = rc && siamese(b) ? svk_pb_tensor(b, SVK_SLAB_ACT, NC, -1, "y.recomputed") : SVK_NONE;
}

/* The per-boundary and per-sublayer arrays of a, no stream kept in 16
 * bits; false when out of host memory. */
static bool alloc_arrays(svk_pb *b, acts *a)
{
    const uint32_t S = 2 * b->p->config.layers;
    a->x = svk_calloc(S + 1, sizeof(*a->x));
    a->y = svk_calloc(S + 1, sizeof(*a->y));
    a->x16 = svk_calloc(S + 1, sizeof(*a->x16));
    a->y16 = svk_calloc(S + 1, sizeof(*a->y16));
    a->sub = svk_calloc(S, sizeof(*a->sub));
    if (!a->x || !a->y || !a->x16 || !a->y16 || !a->sub)
        return false;
    for (uint32_t k = 0; k <= S; k++)
        a->x16[k] = a->y16[k] = SVK_NONE;
    return true;
}

/* Every activation of the step (backward: a training step's, which a
 * backward pass follows); false when out of host memory. */
static bool alloc_acts(svk_pb *b, acts *a, bool backward)
{
    const uint32_t S = 2 * b->p->config.layers;
    if (!alloc_arrays(b, a))
        return false;
    stream_tensors(b, a, backward);
    for (uint32_t k = 0; k < S; k++) {
        if (k < 2 || (!b->p->recompute && !half(b))) {
            sublayer_tensors(b, k, a->x[k], &a->sub[k]);
        } else {
            /* One set for every block's attention, one for its MLP. */
            a->sub[k] = a->sub[k % 2];
            if (post(b))
                a->sub[k].h = a->x[k];
            /* 16 bits without recomputation: the statistics, small,
             * are each sublayer's own. */
            if (!b->p->recompute) {
                norm_stats(b, k, &a->sub[k]);
                if (k % 2 == 0 && b->p->flash_attention)
                    a->sub[k].att = flash_stats(b, k);
            }
        }
        if (half(b))
            sublayer_codes(b, k, &a->sub[k]);
    }
    step_tensors(b, a);
    return true;
}

/* A decode plan's window forward (svk_pb_prefill): nothing reads a
 * sublayer's activations once the next sublayer has run, so every block
 * shares the first block's set, and each stream two tensors used in turn;
 * only each attention's qkv is its own, the key-value cache the decode
 * reads. */
static bool alloc_prefill(svk_pb *b, acts *a)
{
    const svk_pb_dims *d = &b->d;
    const uint32_t S = 2 * b->p->config.layers;
    const uint64_t NC = d->N * d->C;
    if (!alloc_arrays(b, a))
        return false;
    stream_pairs(b, a);
    for (uint32_t k = 0; k < S; k++) {
        if (k < 2) {
            sublayer_tensors(b, k, a->x[k], &a->sub[k]);
            continue;
        }
        a->sub[k] = a->sub[k % 2];
        if (post(b))
            a->sub[k].h = a->x[k];
        if (k % 2 == 0)
            a->sub[k].qkv = svk_pb_tensor(b, SVK_SLAB_ACT, 3 * NC, -1, "qkv.%u", k);
    }
    output_tensors(b, a);
    a->work = svk_pb_tensor(b, SVK_SLAB_ACT, 2 * NC, -1, "scratch.norm");
    a->dlogits = a->dz = a->dh = a->s_big = a->s_big2 = a->s_c = SVK_NONE;
    a->gr = (stream_grads){SVK_NONE, SVK_NONE, SVK_NONE, SVK_NONE};
    return true;
}

static void free_acts(acts *a)
{
    free(a->x);
    free(a->y);
    free(a->x16);
    free(a->y16);
    free(a->sub);
}

/* ---- forward ---- */

/* Of [0, n) in pieces of SLAB_PIECE: the length of the piece at at. */
static uint64_t piece_len(uint64_t n, uint64_t at)
{
    return n - at < SLAB_PIECE ? n - at : SLAB_PIECE;
}

/* The piece at at of tensor whole, n elements: whole itself where one
 * piece is all of it, else a view named what.<at>. */
static uint32_t piece(svk_pb *b, uint32_t whole, uint64_t n, uint64_t at, const char *what)
{
    return piece_len(n, at) == n ? whole
                                 : svk_pb_view(b, whole, at, piece_len(n, at), "%s.%llu", what, (unsigned long long)at);
}

/* The op over the piece at at of n elements: labelled name, and where
 * there are several pieces, with the piece's range. */
static svk_plan_op *piece_op(svk_pb *b, svk_plan_opcode code, const char *name, uint64_t n, uint64_t at)
{
    const uint64_t len = piece_len(n, at);
    return len == n ? svk_pb_op(b, code, "%s", name)
                    : svk_pb_op(b, code, "%s [%llu, %llu)", name, (unsigned long long)at,
                                (unsigned long long)(at + len));
}

/* The gradients start at zero (the whole slab, which starts with parameter
 * 0's, in pieces), once per step: every micro-batch's backward adds into
 * them. */
static void zero_grads(svk_pb *b)
{
    svk_plan *p = b->p;
    const uint32_t start = svk_plan_slab_start(p, SVK_SLAB_GRAD);
    const uint64_t n = p->slab_elems[SVK_SLAB_GRAD];
    for (uint64_t at = 0; at < n; at += SLAB_PIECE) {
        const uint64_t len = piece_len(n, at);
        const uint32_t dst = piece(b, start, n, at, "grads");
        piece_op(b, SVK_OP_ZERO, "zero grads", n, at)->zero = (svk_plan_zero){.dst = dst, .n = len};
    }
}

/* x_0 = wte[tokens] (+ wpe). */
static void embedding_fwd(svk_pb *b, const acts *a)
{
    svk_plan *p = b->p;
    const svk_pb_dims *d = &b->d;
    if (b->decoding) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_EMBED_DECODE, "decode.embedding");
        o->embed_decode = (svk_plan_embed_decode){
            .out = a->x[0], .step = p->decode_step, .wte = svk_pb_param(b, SVK_SLAB_PARAM, "wte.weight"),
            .wpe = svk_pb_param(b, SVK_SLAB_PARAM, "wpe.weight"), .C = d->C, .V = d->V, .ctx = p->config.ctx,
        };
        return;
    }
    svk_plan_op *o = svk_pb_op(b, SVK_OP_EMBED_FWD, "embedding");
    o->embed_fwd = (svk_plan_embed_fwd){
        .out = a->x[0], .tokens = a->tokens, .wte = svk_pb_param(b, SVK_SLAB_PARAM, "wte.weight"),
        .wpe = svk_pb_param(b, SVK_SLAB_PARAM, "wpe.weight"), .output = p->output, .B = d->B, .T = d->T,
        .C = d->C, .V = d->V,
    };
}

/* The sublayer's output projection: z = x W^T + bias, into the residual
 * streams as r says. */
static svk_plan_op *proj_fwd(svk_pb *b, const char *name, const svk_pb_residual *r, uint32_t x, uint64_t in)
{
    svk_plan_op *o = svk_pb_linear_fwd(b, name, r->c, x, b->d.N, b->d.C, in);
    o->fuse |= r->fuse;
    o->gemm.fused.residual = r->in;
    o->gemm.fused.residual_out = r->out;
    o->gemm.fused.scale = r->scale;
    return o;
}

/* qkv = Linear_qkv(h), RoPE on q and k, causal attention, Linear_proj. */
static void attention_fwd(svk_pb *b, uint32_t l, const sub_acts *s, const svk_pb_residual *r)
{
    const svk_pb_dims *d = &b->d;
    const svk_model_config *c = &b->p->config;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.attn.qkv", l);
    svk_pb_linear_fwd(b, name, s->qkv, s->h, d->N, 3 * d->C, d->C);
    if (b->decoding) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_ATTN_DECODE, "blocks.%u.attn.decode", l);
        o->attn_decode = (svk_plan_attn_decode){
            .out = s->att_out, .qkv = s->qkv, .cache = b->kv_cache[l], .step = b->p->decode_step, .C = d->C,
            .H = d->H, .ctx = c->ctx, .rope = c->pos == SVK_POS_ROPE, .theta = c->rope_theta,
        };
        snprintf(name, sizeof(name), "blocks.%u.attn.proj", l);
        proj_fwd(b, name, r, s->att_out, d->C);
        return;
    }
    if (c->pos == SVK_POS_ROPE) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_ROPE_FWD, "blocks.%u.attn.rope", l);
        o->rope = (svk_plan_rope){.qkv = s->qkv, .B = d->B, .T = d->T, .C = d->C, .H = d->H, .theta = c->rope_theta};
    }
    keep16(b, s->qkv, s->qkv16);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_ATTN_FWD, "blocks.%u.attn", l);
    o->attn_fwd = (svk_plan_attn_fwd){.out = s->att_out, .att = s->att, .qkv = s->qkv, .B = d->B, .T = d->T,
                                      .C = d->C, .H = d->H, .flash = b->p->flash_attention};
    keep16(b, s->att, s->att16);
    keep16(b, s->att_out, s->att_out16);
    snprintf(name, sizeof(name), "blocks.%u.attn.proj", l);
    proj_fwd(b, name, r, s->att_out, d->C);
}

/* Linear_proj(gelu(Linear_fc(h))), the activation in fc's GEMM. */
static void mlp_gelu_fwd(svk_pb *b, uint32_t l, const sub_acts *s, const svk_pb_residual *r)
{
    const svk_pb_dims *d = &b->d;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.mlp.fc", l);
    svk_plan_op *o = svk_pb_linear_fwd(b, name, s->a, s->h, d->N, d->F, d->C);
    o->fuse |= SVK_FUSE_GELU;
    o->gemm.fused.act = s->g;
    o->gemm.ld.c = mlp_ld(b);
    keep16(b, s->a, s->a16);
    keep16(b, s->g, s->g16);
    snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
    proj_fwd(b, name, r, s->g, d->F)->gemm.ld.a = mlp_ld(b);
}

/* Linear_proj(silu(Linear_gate(h)) * Linear_up(h)). */
static void mlp_swiglu_fwd(svk_pb *b, uint32_t l, const sub_acts *s, const svk_pb_residual *r)
{
    const svk_pb_dims *d = &b->d;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.mlp.gate", l);
    svk_pb_linear_fwd(b, name, s->gate, s->h, d->N, d->F, d->C);
    keep16(b, s->gate, s->gate16);
    snprintf(name, sizeof(name), "blocks.%u.mlp.up", l);
    svk_pb_linear_fwd(b, name, s->up, s->h, d->N, d->F, d->C);
    keep16(b, s->up, s->up16);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_SWIGLU_FWD, "blocks.%u.swiglu", l);
    o->swiglu_fwd = (svk_plan_swiglu_fwd){.out = s->g, .gate = s->gate, .up = s->up, .n = d->N * d->F};
    keep16(b, s->g, s->g16);
    snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
    proj_fwd(b, name, r, s->g, d->F);
}

/* z = F_k(h), into the streams as r says. */
static void sublayer_fwd(svk_pb *b, uint32_t k, const sub_acts *s, const svk_pb_residual *r)
{
    if (k % 2 == 0)
        attention_fwd(b, k / 2, s, r);
    else if (b->p->config.mlp == SVK_MLP_GELU)
        mlp_gelu_fwd(b, k / 2, s, r);
    else
        mlp_swiglu_fwd(b, k / 2, s, r);
}

/* The norms' name prefix of sublayer k. */
static void norm_name(char name[64], uint32_t k)
{
    snprintf(name, 64, "blocks.%u.%s", k / 2, k % 2 == 0 ? "attn_norm" : "mlp_norm");
}

/* siamese: x_{k+1} = P(x_k), h = I(x_{k+1} + Q(y_k)); z = F(h);
 * x_{k+1} += z / c_l, y_{k+1} = y_k + z (in the projection's epilogue). */
static void siamese_sublayer_fwd(svk_pb *b, const acts *a, uint32_t k)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_SIAMESE_FWD, "%s", name);
    o->siamese_fwd = (svk_plan_siamese_fwd){
        .shape = {b->d.N, b->d.C, rms(b)}, .xn = a->x[k + 1], .h = s->h, .mean = s->mean, .rstd = s->rstd,
        .x = a->x[k], .y = a->y[k], .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "%s.post.weight", name),
        .beta = svk_pb_param(b, SVK_SLAB_PARAM, "%s.post.bias", name),
    };
    keep16(b, s->h, s->h16);
    const svk_pb_residual r = {SVK_FUSE_DUAL_RESIDUAL, a->x[k + 1], a->y[k], a->y[k + 1], residual_scale(k)};
    sublayer_fwd(b, k, s, &r);
}

/* pre: x_{k+1} = x_k + F(N(x_k)). */
static void pre_sublayer_fwd(svk_pb *b, const acts *a, uint32_t k)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    svk_pb_norm_fwd(b, name, s->h, s->mean, s->rstd, a->x[k]);
    keep16(b, s->h, s->h16);
    const svk_pb_residual r = {SVK_FUSE_RESIDUAL, a->x[k + 1], a->x[k], SVK_NONE, 1.0f};
    sublayer_fwd(b, k, s, &r);
}

/* post: u = x_k + F(x_k), x_{k+1} = N(u). */
static void post_sublayer_fwd(svk_pb *b, const acts *a, uint32_t k)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    const svk_pb_residual r = {SVK_FUSE_RESIDUAL, s->u, a->x[k], SVK_NONE, 1.0f};
    sublayer_fwd(b, k, s, &r);
    keep16(b, s->u, s->u16);
    svk_pb_norm_fwd(b, name, a->x[k + 1], s->mean, s->rstd, s->u);
}

/* The final norm (siamese: N_out(N_x(x) + N_y(y)); pre: N_final(x); post:
 * none), then the logits against wte or lm_head. */
static void output_fwd(svk_pb *b, const acts *a)
{
    const svk_pb_dims *d = &b->d;
    const uint32_t S = 2 * b->p->config.layers;
    if (siamese(b)) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_SOUT_FWD, "norm_f");
        o->sout_fwd = (svk_plan_sout_fwd){
            .shape = {d->N, d->C, rms(b)}, .out = a->final_out, .mean = a->final_mean, .rstd = a->final_rstd,
            .x = a->x[S], .y = a->y[S], .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "norm_f.x.weight"),
            .beta = svk_pb_param(b, SVK_SLAB_PARAM, "norm_f.x.bias"), .work = a->work,
        };
    } else if (!post(b)) {
        svk_pb_norm_fwd(b, "norm_f", a->final_out, a->final_mean, a->final_rstd, a->x[S]);
    } else {
        svk_pb_elementwise(b, SVK_OP_COPY, "final = x", a->final_out, a->x[S], d->N * d->C);
    }
    const uint32_t lm = svk_pb_param(b, SVK_SLAB_PARAM, b->p->config.tie_embeddings ? "wte.weight" : "lm_head.weight");
    svk_pb_gemm(b, "logits", a->logits, a->final_out, lm, SVK_NONE, false, true, d->N, d->V, d->C, 0.0f);
}

/* The micro-batch's losses and logits' gradients, in place of the logits;
 * the first counts the step's targets, the last takes the step's mean
 * loss. */
static void loss(svk_pb *b, const acts *a)
{
    svk_plan *p = b->p;
    const uint64_t step_rows = b->d.N * p->micro;
    svk_plan_op *o = svk_pb_op(b, SVK_OP_XENT, "cross_entropy");
    o->xent = (svk_plan_xent){.output = p->output, .dlogits = a->dlogits, .logits = a->logits,
                              .targets = a->targets, .losses = p->losses, .step_targets = p->targets,
                              .rows = b->d.N, .V = b->d.V, .row0 = a->row0, .step_rows = step_rows,
                              .first = a->row0 == 0, .last = a->row0 + b->d.N == step_rows};
    grad16(b, a->dlogits, b->d.N * b->d.V, true, "dlogits", SVK_NONE);
}

/* An evaluation's loss, after the step's ops: the loss alone, so that the
 * logits stay for svk_model_save_logits. A step of one micro-batch only
 * (evaluations run no other). */
static void eval_loss(svk_pb *b, const acts *a)
{
    svk_plan *p = b->p;
    p->phases.eval = p->n_ops;
    if (p->micro == 1) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_XENT, "cross_entropy (evaluation)");
        o->xent = (svk_plan_xent){.output = p->output, .dlogits = SVK_NONE, .logits = a->logits,
                                  .targets = a->targets, .losses = p->losses, .step_targets = p->targets,
                                  .rows = b->d.N, .V = b->d.V, .step_rows = b->d.N, .first = true, .last = true};
    }
    p->phases.eval_end = p->n_ops;
}

/* ---- backward ---- */

/* The logits' gradients to final_out's (in s_c) and to W_out, then through
 * the final norm to the streams' (dx, dy; siamese also dz). */
static void output_bwd(svk_pb *b, const acts *a)
{
    const svk_pb_dims *d = &b->d;
    const uint32_t S = 2 * b->p->config.layers;
    const char *out_w = b->p->config.tie_embeddings ? "wte.weight" : "lm_head.weight";
    svk_pb_gemm(b, "logits.dx", a->s_c, a->dlogits, svk_pb_param(b, SVK_SLAB_PARAM, "%s", out_w), SVK_NONE, false,
                false, d->N, d->C, d->V, 0.0f);
    svk_pb_gemm(b, "logits.dW", svk_pb_param(b, SVK_SLAB_GRAD, "%s", out_w), a->dlogits, a->final_out, SVK_NONE, true,
                false, d->V, d->C, d->N, 1.0f);
    if (siamese(b)) {
        svk_plan_op *o = svk_pb_op(b, SVK_OP_SOUT_BWD, "norm_f.bwd");
        o->fuse = SVK_FUSE_RESIDUAL_GRAD;
        o->sout_bwd = (svk_plan_sout_bwd){
            .shape = {d->N, d->C, rms(b)}, .dx = a->gr.dx, .dy = a->gr.dy,
            .dgamma = svk_pb_param(b, SVK_SLAB_GRAD, "norm_f.x.weight"),
            .dbeta = svk_pb_param(b, SVK_SLAB_GRAD, "norm_f.x.bias"), .dout = a->s_c, .x = a->x[S], .y = a->y[S],
            .mean = a->final_mean, .rstd = a->final_rstd, .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "norm_f.x.weight"),
            .beta = svk_pb_param(b, SVK_SLAB_PARAM, "norm_f.x.bias"), .work = a->work, .dz = a->dz,
            .dz_c = dz_scale(S),
        };
    } else if (!post(b)) {
        svk_pb_norm_bwd(b, "norm_f", a->gr.dx, a->s_c, a->x[S], a->final_mean, a->final_rstd);
    } else {
        svk_pb_elementwise(b, SVK_OP_COPY, "dx = dfinal", a->gr.dx, a->s_c, d->N * d->C);
    }
}

/* Linear_proj's, attention's, RoPE's and Linear_qkv's gradients: dz ->
 * dh (written), parameter gradients accumulated. */
static void attention_bwd(svk_pb *b, uint32_t l, const sub_acts *s, const acts *a, uint32_t dz, uint32_t dh)
{
    const svk_pb_dims *d = &b->d;
    const svk_model_config *c = &b->p->config;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.attn.proj", l);
    svk_pb_linear_bwd(b, name, &(svk_pb_linear_grad){.dx = a->s_c, .dy = dz, .x = s->att_out, .gelu_in = SVK_NONE},
                      d->N, d->C, d->C);
    grad16(b, a->s_c, d->N * d->C, false, "attn.dout", l);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_ATTN_BWD, "blocks.%u.attn.bwd", l);
    const bool flash = b->p->flash_attention;
    o->attn_bwd = (svk_plan_attn_bwd){.dqkv = a->s_big, .dout = a->s_c, .qkv = s->qkv, .att = s->att,
                                      .out = flash ? s->att_out : SVK_NONE, .B = d->B, .T = d->T, .C = d->C,
                                      .H = d->H, .flash = flash};
    if (c->pos == SVK_POS_ROPE) {
        o = svk_pb_op(b, SVK_OP_ROPE_BWD, "blocks.%u.attn.rope.bwd", l);
        o->rope = (svk_plan_rope){.qkv = a->s_big, .B = d->B, .T = d->T, .C = d->C, .H = d->H, .theta = c->rope_theta};
    }
    grad16(b, a->s_big, d->N * 3 * d->C, false, "attn.dqkv", l);
    snprintf(name, sizeof(name), "blocks.%u.attn.qkv", l);
    svk_pb_linear_bwd(b, name, &(svk_pb_linear_grad){.dx = dh, .dy = a->s_big, .x = s->h, .gelu_in = SVK_NONE},
                      d->N, 3 * d->C, d->C);
}

/* da = (dz W_proj) gelu'(a) from the one GEMM, then fc's. */
static void mlp_gelu_bwd(svk_pb *b, uint32_t l, const sub_acts *s, const acts *a, uint32_t dz, uint32_t dh)
{
    const svk_pb_dims *d = &b->d;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
    svk_pb_linear_bwd(b, name,
                      &(svk_pb_linear_grad){.dx = a->s_big, .dy = dz, .x = s->g, .gelu_in = s->a, .ld_in = mlp_ld(b)},
                      d->N, d->C, d->F);
    grad16(b, a->s_big, d->N * d->FL, false, "mlp.da", l);
    snprintf(name, sizeof(name), "blocks.%u.mlp.fc", l);
    svk_pb_linear_bwd(b, name,
                      &(svk_pb_linear_grad){.dx = dh, .dy = a->s_big, .x = s->h, .gelu_in = SVK_NONE,
                                            .ld_out = mlp_ld(b)},
                      d->N, d->F, d->C);
}

/* ds in s_big; then dgate in s_big2 and dup in the sublayer's a (unused by
 * swiglu); dh from gate's and up's. */
static void mlp_swiglu_bwd(svk_pb *b, uint32_t l, const sub_acts *s, const acts *a, uint32_t dz, uint32_t dh)
{
    const svk_pb_dims *d = &b->d;
    char name[64];
    snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
    svk_pb_linear_bwd(b, name, &(svk_pb_linear_grad){.dx = a->s_big, .dy = dz, .x = s->g, .gelu_in = SVK_NONE},
                      d->N, d->C, d->F);
    grad16(b, a->s_big, d->N * d->F, false, "mlp.dg", l);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_SWIGLU_BWD, "blocks.%u.swiglu.bwd", l);
    o->swiglu_bwd = (svk_plan_swiglu_bwd){.dgate = a->s_big2, .dup = s->a, .gate = s->gate, .up = s->up,
                                          .dout = a->s_big, .n = d->N * d->F};
    grad16(b, a->s_big2, d->N * d->F, false, "mlp.dgate", l);
    grad16(b, s->a, d->N * d->F, false, "mlp.dup", l);
    snprintf(name, sizeof(name), "blocks.%u.mlp.gate", l);
    svk_pb_linear_bwd(b, name, &(svk_pb_linear_grad){.dx = dh, .dy = a->s_big2, .x = s->h, .gelu_in = SVK_NONE},
                      d->N, d->F, d->C);
    snprintf(name, sizeof(name), "blocks.%u.mlp.up", l);
    svk_pb_linear_bwd(b, name,
                      &(svk_pb_linear_grad){.dx = dh, .dy = s->a, .x = s->h, .gelu_in = SVK_NONE, .accumulate = true},
                      d->N, d->F, d->C);
}

/* dz [N, C] -> dh [N, C] through sublayer k, parameter gradients
 * accumulated. */
static void sublayer_bwd(svk_pb *b, uint32_t k, const acts *a, uint32_t dz, uint32_t dh)
{
    const sub_acts *s = &a->sub[k];
    if (k % 2 == 0)
        attention_bwd(b, k / 2, s, a, dz, dh);
    else if (b->p->config.mlp == SVK_MLP_GELU)
        mlp_gelu_bwd(b, k / 2, s, a, dz, dh);
    else
        mlp_swiglu_bwd(b, k / 2, s, a, dz, dh);
}

/* siamese: dz, the gradient of this sublayer's output, came with dx and dy
 * (x = x + z / c, y = y + z: dz = dx / c + dy); the norms' backward gives
 * the streams' gradients below and the next dz. */
static void siamese_sublayer_bwd(svk_pb *b, const acts *a, uint32_t k, const stream_grads *g)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    sublayer_bwd(b, k, a, a->dz, a->dh);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_SIAMESE_BWD, "%s.bwd", name);
    o->fuse = SVK_FUSE_RESIDUAL_GRAD;
    o->siamese_bwd = (svk_plan_siamese_bwd){
        .shape = {b->d.N, b->d.C, rms(b)}, .dx = g->dx_next, .dy = g->dy_next,
        .dgamma = svk_pb_param(b, SVK_SLAB_GRAD, "%s.post.weight", name),
        .dbeta = svk_pb_param(b, SVK_SLAB_GRAD, "%s.post.bias", name), .dh = a->dh, .dxn = g->dx, .dy_in = g->dy,
        .x = a->x[k], .y = a->y[k], .mean = s->mean, .rstd = s->rstd,
        .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "%s.post.weight", name),
        .beta = svk_pb_param(b, SVK_SLAB_PARAM, "%s.post.bias", name), .work = a->work, .dz = a->dz,
        .dz_c = dz_scale(k),
    };
}

/* pre: x_{k+1} = x_k + F(N(x_k)): dx_k = dx + N_bwd(F_bwd(dx)). */
static void pre_sublayer_bwd(svk_pb *b, const acts *a, uint32_t k, const stream_grads *g)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    sublayer_bwd(b, k, a, g->dx, a->dh);
    svk_pb_norm_bwd(b, name, g->dx_next, a->dh, a->x[k], s->mean, s->rstd);
    svk_pb_elementwise(b, SVK_OP_ADD, "dx += residual", g->dx_next, g->dx, b->d.N * b->d.C);
}

/* post: x_{k+1} = N(u), u = x_k + F(x_k): du = N_bwd(dx); dx_k = du +
 * F_bwd(du). */
static void post_sublayer_bwd(svk_pb *b, const acts *a, uint32_t k, const stream_grads *g)
{
    const sub_acts *s = &a->sub[k];
    char name[64];
    norm_name(name, k);
    svk_pb_norm_bwd(b, name, a->dz, g->dx, s->u, s->mean, s->rstd);
    sublayer_bwd(b, k, a, a->dz, g->dx_next);
    svk_pb_elementwise(b, SVK_OP_ADD, "dx += du", g->dx_next, a->dz, b->d.N * b->d.C);
}

/* de: the last backward's dx, or for siamese dx + dy, which the last
 * SiameseNorm backward wrote to dz. */
static void embedding_bwd(svk_pb *b, const acts *a, uint32_t dx)
{
    const svk_pb_dims *d = &b->d;
    svk_plan_op *o = svk_pb_op(b, SVK_OP_EMBED_BWD, "embedding.bwd");
    o->embed_bwd = (svk_plan_embed_bwd){
        .dwte = svk_pb_param(b, SVK_SLAB_GRAD, "wte.weight"), .dwpe = svk_pb_param(b, SVK_SLAB_GRAD, "wpe.weight"),
        .tokens = a->tokens, .dout = siamese(b) ? a->dz : dx, .B = d->B, .T = d->T, .C = d->C, .V = d->V,
    };
}

/* The gradients' global norm and clip scale, then one AdamW update per
 * parameter group of the layout (svk_plan_param_group). */
static void optimizer(svk_pb *b)
{
    svk_plan *p = b->p;
    p->phases.clip = p->n_ops;
    svk_plan_op *o = svk_pb_op(b, SVK_OP_CLIP, "clip");
    o->clip = (svk_plan_clip){.output = p->output, .grads = svk_plan_slab_start(p, SVK_SLAB_GRAD),
                              .scaler = p->loss_scaling ? p->loss_scaler : SVK_NONE,
                              .n = p->slab_elems[SVK_SLAB_GRAD], .interval = p->loss_scale_interval};
    p->phases.optimizer = p->n_ops;
    static const svk_slab slabs[4] = {SVK_SLAB_PARAM, SVK_SLAB_GRAD, SVK_SLAB_ADAM_M, SVK_SLAB_ADAM_V};
    static const char *const slab_names[2][4] = {{"adamw.p", "adamw.g", "adamw.m", "adamw.v"},
                                                 {"adamw.p.decay", "adamw.g.decay", "adamw.m.decay", "adamw.v.decay"}};
    for (int decay = 1; decay >= 0; decay--) {
        uint64_t n;
        uint32_t group[4];
        for (int k = 0; k < 4; k++)
            group[k] = svk_plan_param_group(p, decay, slabs[k], &n);
        if (group[0] == SVK_NONE)
            continue;
        const char *name = decay ? "adamw (weight decay)" : "adamw (no decay)";
        /* In pieces: each is an op, and a step is cut into submissions
         * only between ops (vk_submit.h). */
        for (uint64_t at = 0; at < n; at += SLAB_PIECE) {
            uint32_t t[4];
            for (int k = 0; k < 4; k++)
                t[k] = piece(b, group[k], n, at, slab_names[decay][k]);
            piece_op(b, SVK_OP_ADAMW, name, n, at)->adamw = (svk_plan_adamw){
                .p = t[0], .g = t[1], .m = t[2], .v = t[3], .output = p->output, .n = piece_len(n, at),
                .decay = decay};
        }
    }
}

/* Boundary k's distinct streams (y_0 is x_0) and where each keeps its
 * 16-bit codes (SVK_NONE: a stream not there, or codes kept nowhere). */
static void boundary(const acts *a, uint32_t k, uint32_t x[2], uint32_t codes[2])
{
    const bool shared = a->y[k] == a->x[k];
    x[0] = a->x[k];
    x[1] = shared ? SVK_NONE : a->y[k];
    codes[0] = a->x16[k];
    codes[1] = shared ? SVK_NONE : a->y16[k];
}

/* Boundary k's streams' 16-bit codes, where the plan keeps them
 * (stream_codes), once the sublayer before has written them. */
static void keep_streams(svk_pb *b, const acts *a, uint32_t k)
{
    uint32_t x[2], codes[2];
    boundary(a, k, x, codes);
    for (int i = 0; i < 2; i++) {
        if (codes[i] == SVK_NONE)
            continue;
        svk_plan_op *o = svk_pb_op(b, SVK_OP_PACK16, "%s", b->p->tensors[codes[i]].name);
        o->pack16 = (svk_plan_pack16){.x = x[i], .packed = codes[i], .scaler = SVK_NONE,
                                      .n = b->p->tensors[x[i]].elems, .fmt = b->p->precision, .codes_only = true};
    }
}

/* Sublayer k's input streams rounded to 16 bits before its backward
 * (docs/MODEL.md, "Precision"): back from their codes, or rounded in place where the
 * float32 tensor holds them still (the last sublayer's, and with
 * recomputation every one: nothing reads them in float32 after). */
static void round_sublayer_streams(svk_pb *b, const acts *a, uint32_t k)
{
    if (!half(b))
        return;
    uint32_t x[2], codes[2];
    boundary(a, k, x, codes);
    for (int i = 0; i < 2; i++) {
        if (x[i] == SVK_NONE)
            continue;
        if (codes[i] != SVK_NONE)
            unpack16(b, x[i], codes[i]);
        else
            keep16(b, x[i], ROUND16);
    }
}

/* The embedding, the blocks and the output. */
static void forward(svk_pb *b, const acts *a)
{
    void (*const block_fwd)(svk_pb *, const acts *, uint32_t) =
        siamese(b) ? siamese_sublayer_fwd : post(b) ? post_sublayer_fwd : pre_sublayer_fwd;
    embedding_fwd(b, a);
    keep_streams(b, a, 0);
    for (uint32_t k = 0; k < 2 * b->p->config.layers; k++) {
        block_fwd(b, a, k);
        keep_streams(b, a, k + 1);
    }
    output_fwd(b, a);
}

uint32_t svk_pb_forward(svk_pb *b)
{
    acts a = {0};
    const bool ok = alloc_acts(b, &a, false);
    if (ok)
        forward(b, &a);
    else
        b->oom = true;
    free_acts(&a);
    return ok ? a.logits : SVK_NONE;
}

typedef void (*sublayer_fwd_fn)(svk_pb *, const acts *, uint32_t);

/* Block l's forward again, from its input, before its backward: its
 * activations, into the tensors every block shares; its output goes
 * aside (the next block's input holds it already). */
static void recompute_block(svk_pb *b, acts *a, uint32_t l, sublayer_fwd_fn block_fwd)
{
    const uint32_t out = 2 * l + 2, x = a->x[out], y = a->y[out];
    a->x[out] = a->x_out;
    a->y[out] = a->y_out;
    block_fwd(b, a, 2 * l);
    block_fwd(b, a, 2 * l + 1);
    a->x[out] = x;
    a->y[out] = y;
}

/* 16-bit precision: sublayer k's activations back from their codes before
 * its backward (the last sublayer's are still in place; with
 * recomputation they are computed again). */
static void unpack_sublayer(svk_pb *b, const acts *a, uint32_t k)
{
    if (!half(b) || k + 1 == 2 * b->p->config.layers || b->p->recompute)
        return;
    const sub_acts *s = &a->sub[k];
    const uint32_t live[] = {s->h, s->u, s->qkv, s->att, s->att_out, s->a, s->g, s->gate, s->up};
    const uint32_t codes[] = {s->h16, s->u16, s->qkv16, s->att16, s->att_out16, s->a16, s->g16, s->gate16, s->up16};
    for (size_t i = 0; i < sizeof(live) / sizeof(*live); i++)
        unpack16(b, live[i], codes[i]);
}

/* One micro-batch's forward, loss and backward, the phases marked for the
 * first. */
static void micro_batch(svk_pb *b, acts *a)
{
    svk_plan *p = b->p;
    const uint32_t S = 2 * p->config.layers;
    const sublayer_fwd_fn block_fwd =
        siamese(b) ? siamese_sublayer_fwd : post(b) ? post_sublayer_fwd : pre_sublayer_fwd;
    void (*const block_bwd)(svk_pb *, const acts *, uint32_t, const stream_grads *) =
        siamese(b) ? siamese_sublayer_bwd : post(b) ? post_sublayer_bwd : pre_sublayer_bwd;
    const bool first = a->row0 == 0;
    forward(b, a);
    if (first)
        p->phases.loss = p->n_ops;
    loss(b, a);
    if (first)
        p->phases.backward = p->n_ops;
    output_bwd(b, a);
    stream_grads g = a->gr;
    for (uint32_t k = S; k-- > 0;) {
        if (p->recompute && k % 2 == 1 && k + 1 < S)
            recompute_block(b, a, k / 2, block_fwd);
        unpack_sublayer(b, a, k);
        round_sublayer_streams(b, a, k);
        block_bwd(b, a, k, &g);
        g = (stream_grads){g.dx_next, g.dx, g.dy_next, g.dy};
    }
    embedding_bwd(b, a, g.dx);
}

void svk_pb_model(svk_pb *b)
{
    svk_plan *p = b->p;
    acts a = {0};
    if (!alloc_acts(b, &a, true)) {
        free_acts(&a);
        b->oom = true;
        return;
    }
    p->logits = a.logits;
    p->phases.forward = p->n_ops;
    if (p->train_state)
        zero_grads(b);
    const uint64_t N = b->d.N;
    for (uint32_t m = 0; m < p->micro; m++) {
        a.row0 = m * N;
        a.tokens = p->micro == 1 ? p->tokens : svk_pb_view(b, p->tokens, a.row0, N, "tokens.%u", m);
        a.targets = p->micro == 1 ? p->targets : svk_pb_view(b, p->targets, a.row0, N, "targets.%u", m);
        micro_batch(b, &a);
    }
    optimizer(b);
    p->phases.end = p->n_ops;
    eval_loss(b, &a);
    free_acts(&a);
}

void svk_pb_prefill(svk_pb *b)
{
    svk_plan *p = b->p;
    acts a = {0};
    if (!alloc_prefill(b, &a)) {
        free_acts(&a);
        b->oom = true;
        return;
    }
    a.tokens = p->tokens;
    a.targets = p->targets;
    p->losses = SVK_NONE;
    p->phases.forward = p->n_ops;
    forward(b, &a);
    p->logits = a.logits;
    p->phases.loss = p->phases.backward = p->phases.clip = p->phases.optimizer = p->phases.end = p->n_ops;
    p->phases.eval = p->phases.eval_end = p->n_ops;
    /* The attentions' qkv, RoPE'd in place, are the decode's cache. */
    for (uint32_t l = 0; l < p->config.layers; l++)
        b->kv_cache[l] = a.sub[2 * l].qkv;
    free_acts(&a);
}
