/*
 * Builds the step plan (plan.h) from the configuration: the model of
 * docs/MODEL.md, forward and backward, written once.
 *
 * Streams: the residual stream (x, and y for siamese) is one tensor per
 * sublayer boundary, x_0 .. x_2L, so the backward pass finds every sublayer's
 * input intact without recomputation.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "plan.h"

static bool is_post(const svk_model_config *c)
{
    return c->placement == SVK_PLACEMENT_POST;
}

typedef struct builder {
    svk_plan *p;
    svk_log *log;
    size_t cap_t, cap_o;
    bool oom;
    int overflow;         /* the slab whose size wrapped + 1, or 0 */
    uint32_t wt;          /* linear_nn: the tensor each Linear's weight is transposed into */
    bool bias_grad_apart; /* svk_plan_options.bias_grad_apart */
    uint32_t *slots;      /* the parameters' names hashed (param_id): parameter index, or SVK_NONE */
    size_t mask;          /* slots has mask + 1 entries, a power of two */
} builder;

/* The leading dimension of the GELU MLP's [N, F] activations in GEMM ops:
 * 0 where they are dense. */
static uint64_t mlp_ld(const builder *b)
{
    return b->p->mlp_ld != svk_model_config_hidden(&b->p->config) ? b->p->mlp_ld : 0;
}

static uint32_t tensor(builder *b, svk_slab slab, uint64_t elems, int32_t param, const char *fmt, ...)
    SVK_PRINTF(5, 6);
static uint32_t tensor(builder *b, svk_slab slab, uint64_t elems, int32_t param, const char *fmt, ...)
{
    svk_plan *p = b->p;
    if (p->n_tensors == b->cap_t) {
        size_t cap = b->cap_t ? 2 * b->cap_t : 256;
        svk_plan_tensor *nt = svk_realloc(p->tensors, cap * sizeof(*nt));
        if (!nt) {
            b->oom = true;
            return SVK_NONE;
        }
        p->tensors = nt;
        b->cap_t = cap;
    }
    svk_plan_tensor *t = &p->tensors[p->n_tensors];
    memset(t, 0, sizeof(*t));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof(t->name), fmt, ap);
    va_end(ap);
    t->slab = slab;
    t->elems = elems;
    t->param = param;
    /* Back to back, no padding: a group of norms listed together (params.c)
     * must stay one contiguous [3, C] array. Kernels address elements
     * through offsets in their push constants, so no alignment is needed. */
    t->offset = p->slab_elems[slab];
    /* Backends take bytes = 4 * elements of a slab: that must fit too. */
    if (!svk_add_u64(p->slab_elems[slab], elems, &p->slab_elems[slab]) || p->slab_elems[slab] > UINT64_MAX / 4)
        b->overflow = b->overflow ? b->overflow : (int)slab + 1;
    return (uint32_t)p->n_tensors++;
}

static svk_plan_op *op(builder *b, svk_plan_opcode code, const char *fmt, ...) SVK_PRINTF(3, 4);
static svk_plan_op *op(builder *b, svk_plan_opcode code, const char *fmt, ...)
{
    static svk_plan_op sink; /* absorbs writes after an allocation failure */
    svk_plan *p = b->p;
    if (p->n_ops == b->cap_o) {
        size_t cap = b->cap_o ? 2 * b->cap_o : 512;
        svk_plan_op *no = svk_realloc(p->ops, cap * sizeof(*no));
        if (!no) {
            b->oom = true;
            return &sink;
        }
        p->ops = no;
        b->cap_o = cap;
    }
    svk_plan_op *o = &p->ops[p->n_ops++];
    memset(o, 0, sizeof(*o));
    o->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->label, sizeof(o->label), fmt, ap);
    va_end(ap);
    return o;
}

uint32_t svk_plan_param_tensor(const svk_plan *p, size_t param, svk_slab slab)
{
    /* Parameters were registered first, four tensors each, in list order. */
    return (uint32_t)(param * 4 + (size_t)slab);
}

/* Where the parameters lie in their four slabs (the same layout in each):
 * every parameter with weight decay first, then the others, each group in
 * the list's order, back to back. AdamW then updates a whole slab in one
 * operation per group (two dispatches, not one per tensor, and on a GPU no
 * barrier between tensors), and parameters listed together without decay,
 * such as a group of norms that must stay one [3, C] array, stay together.
 * Checkpoints name every tensor, so the layout is not part of the format. */
static void layout_params(svk_plan *p)
{
    uint64_t decayed = 0;
    for (size_t i = 0; i < p->n_params; i++)
        if (p->params[i].decay)
            decayed += p->params[i].elems;
    uint64_t next[2] = {decayed, 0}; /* [decay]: where the group's next tensor starts */
    for (size_t i = 0; i < p->n_params; i++) {
        const bool decay = p->params[i].decay;
        for (int s = 0; s < 4; s++)
            p->tensors[svk_plan_param_tensor(p, i, (svk_slab)s)].offset = next[decay];
        next[decay] += p->params[i].elems;
    }
}

uint32_t svk_plan_param_group(const svk_plan *p, bool decay, svk_slab slab, uint64_t *elems)
{
    *elems = 0;
    uint32_t first = SVK_NONE;
    for (size_t i = 0; i < p->n_params; i++)
        if (p->params[i].decay == decay) {
            if (first == SVK_NONE)
                first = svk_plan_param_tensor(p, i, slab);
            *elems += p->params[i].elems;
        }
    return first;
}

uint32_t svk_plan_slab_start(const svk_plan *p, svk_slab slab)
{
    uint64_t n;
    const uint32_t t = svk_plan_param_group(p, true, slab, &n);
    return t != SVK_NONE ? t : svk_plan_param_group(p, false, slab, &n);
}

/* Parameters are found by name: each op names those it reads and writes,
 * some 10 per parameter. A linear search made the plan quadratic in the
 * layer count (65536 layers took over an hour); the names are hashed once
 * instead, into an open-addressed table at most half full, so a lookup is
 * a probe or two and the plan is built in time linear in its size. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static bool index_params(builder *b)
{
    const svk_plan *p = b->p;
    size_t n = 16;
    while (n < 2 * p->n_params)
        n *= 2;
    b->slots = svk_malloc(n * sizeof(*b->slots));
    if (!b->slots)
        return false;
    memset(b->slots, 0xff, n * sizeof(*b->slots)); /* SVK_NONE everywhere */
    b->mask = n - 1;
    for (size_t i = 0; i < p->n_params; i++) {
        size_t at = (size_t)name_hash(p->params[i].name) & b->mask;
        while (b->slots[at] != SVK_NONE)
            at = (at + 1) & b->mask;
        b->slots[at] = (uint32_t)i;
    }
    return true;
}

static uint32_t param_id(const builder *b, const char *name, svk_slab slab)
{
    for (size_t at = (size_t)name_hash(name) & b->mask; b->slots[at] != SVK_NONE; at = (at + 1) & b->mask)
        if (!strcmp(b->p->params[b->slots[at]].name, name))
            return svk_plan_param_tensor(b->p, b->slots[at], slab);
    return SVK_NONE;
}

static uint32_t W(builder *b, svk_slab slab, const char *fmt, ...) SVK_PRINTF(3, 4);
static uint32_t W(builder *b, svk_slab slab, const char *fmt, ...)
{
    char name[SVK_PARAM_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    return param_id(b, name, slab);
}

/* C = op(A) op(B) (+ bias), alpha 1, beta 0 or 1 (accumulate). */
static void gemm(builder *b, const char *label, uint32_t c, uint32_t a, uint32_t bm, uint32_t bias, bool ta,
                 bool tb, uint64_t M, uint64_t N, uint64_t K, float beta)
{
    svk_plan_op *o = op(b, SVK_OP_GEMM, "%s", label);
    o->gemm = (svk_plan_gemm){
        .c = c, .a = a, .b = bm, .bias = bias, .M = M, .N = N, .K = K, .ta = ta, .tb = tb, .alpha = 1.0f,
        .beta = beta, .fused = {.act = SVK_NONE, .residual = SVK_NONE, .residual_out = SVK_NONE, .dbias = SVK_NONE},
    };
}

/* Fuses into the GEMM op just added an activation (SVK_FUSE_GELU or
 * GELU_BWD) over act, or a residual update (SVK_FUSE_RESIDUAL or
 * DUAL_RESIDUAL) reading residual (and writing residual_out). */
static void gemm_epilogue(builder *b, uint32_t fuse, uint32_t act, uint32_t residual, uint32_t residual_out,
                          float scale)
{
    if (b->oom)
        return;
    svk_plan_op *o = &b->p->ops[b->p->n_ops - 1];
    o->fuse |= fuse;
    o->gemm.fused.act = act;
    o->gemm.fused.residual = residual;
    o->gemm.fused.residual_out = residual_out;
    o->gemm.fused.scale = scale;
}

/* Gives the GEMM op just added leading dimensions for A, B and C (0:
 * dense); its epilogue's aux and aux2 are laid out as C. */
static void gemm_ld(builder *b, uint64_t lda, uint64_t ldb, uint64_t ldc)
{
    if (b->oom)
        return;
    svk_plan_gemm *g = &b->p->ops[b->p->n_ops - 1].gemm;
    g->ld.a = lda, g->ld.b = ldb, g->ld.c = ldc;
}

/* Forward of a Linear: y [N, out] = x [N, in] W^T + bias; with linear_nn
 * W [out, in] is first transposed into b->wt [in, out] and the product is
 * x (W^T), NN: the same sums in the same order. */
static void linear_fwd(builder *b, const char *name, uint32_t y, uint32_t x, uint64_t rows, uint64_t out,
                       uint64_t in)
{
    const uint32_t w = W(b, SVK_SLAB_PARAM, "%s.weight", name), bias = W(b, SVK_SLAB_PARAM, "%s.bias", name);
    if (b->wt == SVK_NONE) {
        gemm(b, name, y, x, w, bias, false, true, rows, out, in, 0.0f);
        return;
    }
    svk_plan_op *o = op(b, SVK_OP_TRANSPOSE, "%s.wt", name);
    o->transpose = (svk_plan_transpose){.dst = b->wt, .src = w, .rows = out, .cols = in};
    gemm(b, name, y, x, b->wt, bias, false, false, rows, out, in, 0.0f);
}

/* The same, then act = gelu(y) in the same op (SVK_FUSE_GELU). */
static void linear_gelu_fwd(builder *b, const char *name, uint32_t y, uint32_t act, uint32_t x, uint64_t rows,
                            uint64_t out, uint64_t in)
{
    linear_fwd(b, name, y, x, rows, out, in);
    gemm_epilogue(b, SVK_FUSE_GELU, act, SVK_NONE, SVK_NONE, 0.0f);
}

/* Backward of a Linear: dx (= or +=) dy W; dW += dy^T x; db += colsum(dy).
 * gelu_in != SVK_NONE: x was gelu(gelu_in), and dx is the gradient of
 * gelu_in instead, dy W times gelu'(gelu_in) (SVK_FUSE_GELU_BWD). ld_in: the
 * leading dimension of x, dx and gelu_in ([rows, in]), ld_out that of dy
 * ([rows, out]); 0: dense. */
static void linear_bwd(builder *b, const char *name, uint32_t dx, uint32_t dy, uint32_t x, uint64_t rows,
                       uint64_t out, uint64_t in, bool accumulate_dx, uint32_t gelu_in, uint64_t ld_in,
                       uint64_t ld_out)
{
    char label[64];
    if (dx != SVK_NONE) {
        snprintf(label, sizeof(label), "%s.dx", name);
        gemm(b, label, dx, dy, W(b, SVK_SLAB_PARAM, "%s.weight", name), SVK_NONE, false, false, rows, in, out,
             accumulate_dx ? 1.0f : 0.0f);
        gemm_ld(b, ld_out, 0, ld_in);
        if (gelu_in != SVK_NONE)
            gemm_epilogue(b, SVK_FUSE_GELU_BWD, gelu_in, SVK_NONE, SVK_NONE, 0.0f);
    }
    snprintf(label, sizeof(label), "%s.dW", name);
    gemm(b, label, W(b, SVK_SLAB_GRAD, "%s.weight", name), dy, x, SVK_NONE, true, false, out, in, rows, 1.0f);
    gemm_ld(b, ld_out, ld_in, 0);
    const uint32_t db = W(b, SVK_SLAB_GRAD, "%s.bias", name);
    if (db != SVK_NONE && !b->bias_grad_apart) {
        /* db's column sums of dy in the pass dW's product makes over dy. */
        if (!b->oom) {
            svk_plan_op *g = &b->p->ops[b->p->n_ops - 1];
            g->fuse |= SVK_FUSE_BIAS_GRAD;
            g->gemm.fused.dbias = db;
        }
    } else if (db != SVK_NONE) {
        svk_plan_op *o = op(b, SVK_OP_BIAS_BWD, "%s.db", name);
        o->bias_bwd = (svk_plan_bias_bwd){.dbias = db, .dout = dy, .rows = rows, .N = out, .ld = ld_out};
    }
}

/* COPY or ADD. */
static void elementwise(builder *b, svk_plan_opcode code, const char *label, uint32_t dst, uint32_t src, uint64_t n)
{
    svk_plan_op *o = op(b, code, "%s", label);
    o->copy = (svk_plan_elementwise){.dst = dst, .src = src, .n = n};
}

/* Where a sublayer's output z goes: the residual update its last GEMM
 * makes in its epilogue (SVK_FUSE_RESIDUAL, DUAL_RESIDUAL), so z itself
 * is never stored. */
typedef struct residual_out {
    uint32_t flag;   /* SVK_FUSE_RESIDUAL: c = in + z; SVK_FUSE_DUAL_RESIDUAL: c += z / scale, out = in + z */
    uint32_t c, in, out;
    float scale;
} residual_out;

/* Per-sublayer activations kept for the backward pass. */
typedef struct sub_acts {
    uint32_t h;                 /* the sublayer's input [N, C] */
    uint32_t mean, rstd;        /* norm statistics: [3, N] (siamese) or [N] */
    uint32_t u;                 /* post: x + z, the norm's input */
    uint32_t qkv, att, att_out; /* attention */
    uint32_t a, g, gate, up;    /* MLP */
} sub_acts;

typedef struct dims {
    uint64_t B, T, N, C, H, F, V;
    uint64_t FL; /* the GELU MLP's activations' leading dimension (svk_plan.mlp_ld), >= F */
} dims;

/* Every activation of the plan is one of these products of the batch shape
 * and the configuration (the others are smaller multiples of them). They
 * are checked once, in bytes, before the builder multiplies freely: a
 * wrapped product would give a tensor far smaller than its kernels touch. */
static svk_status check_sizes(svk_log *log, const dims *d)
{
    const struct {
        const char *what;
        uint64_t f[4];
    } sizes[] = {
        {"B*T*3*width (the qkv activations)", {d->N, 3 * d->C, 4, 1}},
        {"B*T*mlp_hidden (the MLP activations)", {d->N, d->FL, 4, 1}},
        {"B*T*vocab (the logits)", {d->N, d->V, 4, 1}},
        {"B*heads*T*T (the attention scores)", {d->B, d->H, d->T, 4 * d->T}},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint64_t bytes = 1;
        bool ok = true;
        for (int k = 0; k < 4 && ok; k++)
            ok = svk_mul_u64(bytes, sizes[i].f[k], &bytes);
        if (!ok)
            return svk_error(log, SVK_ERROR_TOO_LARGE,
                             "batch B=%llu T=%llu: %s, at 4 bytes each, overflows 64 bits (width=%llu, heads=%llu, "
                             "mlp_hidden=%llu, vocab=%llu)",
                             (unsigned long long)d->B, (unsigned long long)d->T, sizes[i].what,
                             (unsigned long long)d->C, (unsigned long long)d->H, (unsigned long long)d->F,
                             (unsigned long long)d->V);
    }
    return SVK_OK;
}

/* The sublayer's output projection: z = x W^T + bias into the residual
 * streams as r says. */
static void proj_fwd(builder *b, const char *name, const residual_out *r, uint32_t x, uint64_t rows, uint64_t out,
                     uint64_t in)
{
    linear_fwd(b, name, r->c, x, rows, out, in);
    gemm_epilogue(b, r->flag, SVK_NONE, r->in, r->out, r->scale);
}

static void sublayer_fwd(builder *b, const dims *d, uint32_t l, bool attn, const sub_acts *s,
                         const residual_out *r)
{
    const svk_model_config *c = &b->p->config;
    char name[64];
    if (attn) {
        snprintf(name, sizeof(name), "blocks.%u.attn.qkv", l);
        linear_fwd(b, name, s->qkv, s->h, d->N, 3 * d->C, d->C);
        if (c->pos == SVK_POS_ROPE) {
            svk_plan_op *o = op(b, SVK_OP_ROPE_FWD, "blocks.%u.attn.rope", l);
            o->rope = (svk_plan_rope){.qkv = s->qkv, .B = d->B, .T = d->T, .C = d->C, .H = d->H, .theta = c->rope_theta};
        }
        svk_plan_op *o = op(b, SVK_OP_ATTN_FWD, "blocks.%u.attn", l);
        o->attn_fwd = (svk_plan_attn_fwd){.out = s->att_out, .att = s->att, .qkv = s->qkv, .B = d->B, .T = d->T,
                                          .C = d->C, .H = d->H, .flash = b->p->flash_attention};
        snprintf(name, sizeof(name), "blocks.%u.attn.proj", l);
        proj_fwd(b, name, r, s->att_out, d->N, d->C, d->C);
    } else if (c->mlp == SVK_MLP_GELU) {
        snprintf(name, sizeof(name), "blocks.%u.mlp.fc", l);
        linear_gelu_fwd(b, name, s->a, s->g, s->h, d->N, d->F, d->C);
        gemm_ld(b, 0, 0, mlp_ld(b));
        snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
        proj_fwd(b, name, r, s->g, d->N, d->C, d->F);
        gemm_ld(b, mlp_ld(b), 0, 0);
    } else {
        snprintf(name, sizeof(name), "blocks.%u.mlp.gate", l);
        linear_fwd(b, name, s->gate, s->h, d->N, d->F, d->C);
        snprintf(name, sizeof(name), "blocks.%u.mlp.up", l);
        linear_fwd(b, name, s->up, s->h, d->N, d->F, d->C);
        svk_plan_op *o = op(b, SVK_OP_SWIGLU_FWD, "blocks.%u.swiglu", l);
        o->swiglu_fwd = (svk_plan_swiglu_fwd){.out = s->g, .gate = s->gate, .up = s->up, .n = d->N * d->F};
        snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
        proj_fwd(b, name, r, s->g, d->N, d->C, d->F);
    }
}

/* SiameseNorm's backward passes the streams' gradients down and, with them,
 * dz = dx / c + dy for the residual update that produced x_k and y_k, the
 * k-th sublayer inputs (k of 2 L): that of sublayer k - 1 (layer (k - 1) / 2,
 * c = sqrt(2 (layer + 1)), c_l of docs/MODEL.md), or for k = 0 the embedding's
 * gradient (x_0 = y_0 = e: c = 1). */
static float dz_scale(uint32_t k)
{
    return k > 0 ? sqrtf(2.0f * (float)((k - 1) / 2 + 1)) : 1.0f;
}

/* dz [N, C] -> dh [N, C] (written), parameter gradients accumulated.
 * scratch: dqkv/da [N, max(3C, F)], datt_out [N, C], dgate/dup. */
static void sublayer_bwd(builder *b, const dims *d, uint32_t l, bool attn, const sub_acts *s, uint32_t dz,
                         uint32_t dh, uint32_t s_big, uint32_t s_big2, uint32_t s_c)
{
    const svk_model_config *c = &b->p->config;
    char name[64];
    if (attn) {
        snprintf(name, sizeof(name), "blocks.%u.attn.proj", l);
        linear_bwd(b, name, s_c, dz, s->att_out, d->N, d->C, d->C, false, SVK_NONE, 0, 0);
        svk_plan_op *o = op(b, SVK_OP_ATTN_BWD, "blocks.%u.attn.bwd", l);
        const bool flash = b->p->flash_attention;
        o->attn_bwd = (svk_plan_attn_bwd){.dqkv = s_big, .dout = s_c, .qkv = s->qkv, .att = s->att,
                                          .out = flash ? s->att_out : SVK_NONE, .B = d->B, .T = d->T, .C = d->C,
                                          .H = d->H, .flash = flash};
        if (c->pos == SVK_POS_ROPE) {
            o = op(b, SVK_OP_ROPE_BWD, "blocks.%u.attn.rope.bwd", l);
            o->rope = (svk_plan_rope){.qkv = s_big, .B = d->B, .T = d->T, .C = d->C, .H = d->H, .theta = c->rope_theta};
        }
        snprintf(name, sizeof(name), "blocks.%u.attn.qkv", l);
        linear_bwd(b, name, dh, s_big, s->h, d->N, 3 * d->C, d->C, false, SVK_NONE, 0, 0);
    } else if (c->mlp == SVK_MLP_GELU) {
        /* da = (dz W_proj) gelu'(a) from the one GEMM. */
        snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
        linear_bwd(b, name, s_big, dz, s->g, d->N, d->C, d->F, false, s->a, mlp_ld(b), 0);
        snprintf(name, sizeof(name), "blocks.%u.mlp.fc", l);
        linear_bwd(b, name, dh, s_big, s->h, d->N, d->F, d->C, false, SVK_NONE, 0, mlp_ld(b));
    } else {
        /* s_big: ds; then dgate in s_big2 and dup in s->a (free in swiglu). */
        snprintf(name, sizeof(name), "blocks.%u.mlp.proj", l);
        linear_bwd(b, name, s_big, dz, s->g, d->N, d->C, d->F, false, SVK_NONE, 0, 0);
        svk_plan_op *o = op(b, SVK_OP_SWIGLU_BWD, "blocks.%u.swiglu.bwd", l);
        o->swiglu_bwd = (svk_plan_swiglu_bwd){.dgate = s_big2, .dup = s->a, .gate = s->gate, .up = s->up,
                                              .dout = s_big, .n = d->N * d->F};
        snprintf(name, sizeof(name), "blocks.%u.mlp.gate", l);
        linear_bwd(b, name, dh, s_big2, s->h, d->N, d->F, d->C, false, SVK_NONE, 0, 0);
        snprintf(name, sizeof(name), "blocks.%u.mlp.up", l);
        linear_bwd(b, name, dh, s->a, s->h, d->N, d->F, d->C, true, SVK_NONE, 0, 0);
    }
}

static void norm_fwd(builder *b, const char *prefix, uint32_t out, uint32_t mean, uint32_t rstd, uint32_t x,
                     uint64_t rows, uint64_t width)
{
    svk_plan_op *o = op(b, SVK_OP_NORM_FWD, "%s", prefix);
    o->norm_fwd = (svk_plan_norm_fwd){
        .shape = {rows, width, b->p->config.norm == SVK_NORM_RMSNORM}, .out = out, .mean = mean, .rstd = rstd,
        .x = x, .gamma = W(b, SVK_SLAB_PARAM, "%s.weight", prefix), .beta = W(b, SVK_SLAB_PARAM, "%s.bias", prefix),
    };
}

static void norm_bwd(builder *b, const char *prefix, uint32_t dx, uint32_t dout, uint32_t x, uint32_t mean,
                     uint32_t rstd, uint64_t rows, uint64_t width)
{
    svk_plan_op *o = op(b, SVK_OP_NORM_BWD, "%s.bwd", prefix);
    o->norm_bwd = (svk_plan_norm_bwd){
        .shape = {rows, width, b->p->config.norm == SVK_NORM_RMSNORM}, .dx = dx,
        .dgamma = W(b, SVK_SLAB_GRAD, "%s.weight", prefix), .dbeta = W(b, SVK_SLAB_GRAD, "%s.bias", prefix),
        .dout = dout, .x = x, .mean = mean, .rstd = rstd, .gamma = W(b, SVK_SLAB_PARAM, "%s.weight", prefix),
    };
}

svk_status svk_plan_build(svk_log *log, const svk_model_config *c, uint32_t B, uint32_t T, const svk_plan_options *opt,
                          svk_plan *p)
{
    const svk_plan_options none = {0};
    if (!opt)
        opt = &none;
    memset(p, 0, sizeof(*p));
    if (B == 0 || T == 0 || T > c->ctx)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "batch shape B=%u T=%u: need B >= 1 and 1 <= T <= ctx=%u", B, T,
                         c->ctx);
    builder b = {.p = p, .log = log, .wt = SVK_NONE, .bias_grad_apart = opt->bias_grad_apart};
    p->config = *c;
    p->B = B;
    p->T = T;
    p->eps = c->norm_eps;
    p->flash_attention = opt->flash_attention;
    p->linear_nn = opt->linear_nn;
    dims d = {B, T, (uint64_t)B * T, c->width, c->heads, svk_model_config_hidden(c), c->vocab, 0};
    if (opt->mlp_ld && opt->mlp_ld < d.F)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "plan option mlp_ld=%llu: less than mlp_hidden=%llu",
                         (unsigned long long)opt->mlp_ld, (unsigned long long)d.F);
    /* Only the GELU MLP's products take a leading dimension. */
    d.FL = opt->mlp_ld && c->mlp == SVK_MLP_GELU ? opt->mlp_ld : d.F;
    p->mlp_ld = d.FL;
    const bool siamese = c->placement == SVK_PLACEMENT_SIAMESE, pre = c->placement == SVK_PLACEMENT_PRE;
    const bool ln = c->norm == SVK_NORM_LAYERNORM;
    const uint32_t L = c->layers, S = 2 * L; /* sublayers */
    svk_status size_st = check_sizes(log, &d);
    if (size_st != SVK_OK)
        return size_st;
    /* Tensor ids are 32-bit and a layer has fewer than 64 tensors. */
    if (L > UINT32_MAX / 64)
        return svk_error(log, SVK_ERROR_TOO_LARGE, "config layers=%u: more layers than the plan can index (at most %u)",
                         L, UINT32_MAX / 64);

    p->n_params = svk_model_param_list(c, NULL, 0);
    p->params = svk_calloc(p->n_params, sizeof(*p->params));
    if (!p->params)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building the plan");
    svk_model_param_list(c, p->params, p->n_params);
    for (size_t i = 0; i < p->n_params; i++) {
        tensor(&b, SVK_SLAB_PARAM, p->params[i].elems, (int32_t)i, "%s", p->params[i].name);
        tensor(&b, SVK_SLAB_GRAD, p->params[i].elems, (int32_t)i, "grad.%s", p->params[i].name);
        tensor(&b, SVK_SLAB_ADAM_M, p->params[i].elems, (int32_t)i, "adam_m.%s", p->params[i].name);
        tensor(&b, SVK_SLAB_ADAM_V, p->params[i].elems, (int32_t)i, "adam_v.%s", p->params[i].name);
    }
    if (!b.oom)
        layout_params(p);
    p->tokens = tensor(&b, SVK_SLAB_INPUT, d.N, -1, "tokens");
    p->targets = tensor(&b, SVK_SLAB_INPUT, d.N, -1, "targets");
    p->output = tensor(&b, SVK_SLAB_OUTPUT, SVK_OUT_COUNT, -1, "output");

    /* Activations. */
    const uint64_t NC = d.N * d.C, stats = (siamese ? 3 : 1) * d.N;
    const uint64_t means = (siamese ? SVK_PLAN_SIAMESE_MEAN_ROWS : 1) * d.N;
    uint32_t *x = svk_calloc(S + 1, sizeof(*x)), *y = svk_calloc(S + 1, sizeof(*y));
    sub_acts *sa = svk_calloc(S, sizeof(*sa));
    if (!x || !y || !sa || !index_params(&b)) {
        free(x);
        free(y);
        free(sa);
        free(b.slots);
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building the plan");
    }
    /* y_0 = x_0 = e: one tensor, which nothing writes after the embedding. */
    for (uint32_t k = 0; k <= S; k++) {
        x[k] = tensor(&b, SVK_SLAB_ACT, NC, -1, "x.%u", k);
        y[k] = !siamese ? SVK_NONE : k == 0 ? x[0] : tensor(&b, SVK_SLAB_ACT, NC, -1, "y.%u", k);
    }
    for (uint32_t k = 0; k < S; k++) {
        bool attn = k % 2 == 0;
        sub_acts *s = &sa[k];
        memset(s, 0xff, sizeof(*s)); /* SVK_NONE everywhere */
        s->h = is_post(c) ? x[k] : tensor(&b, SVK_SLAB_ACT, NC, -1, "h.%u", k);
        s->mean = ln ? tensor(&b, SVK_SLAB_ACT, means, -1, "mean.%u", k) : SVK_NONE;
        s->rstd = tensor(&b, SVK_SLAB_ACT, stats, -1, "rstd.%u", k);
        if (c->placement == SVK_PLACEMENT_POST)
            s->u = tensor(&b, SVK_SLAB_ACT, NC, -1, "u.%u", k);
        if (attn) {
            s->qkv = tensor(&b, SVK_SLAB_ACT, 3 * NC, -1, "qkv.%u", k);
            if (p->flash_attention) {
                /* Read as vec2s: an even offset. */
                p->slab_elems[SVK_SLAB_ACT] += p->slab_elems[SVK_SLAB_ACT] % 2;
                s->att = tensor(&b, SVK_SLAB_ACT, 2 * d.B * d.H * d.T, -1, "att.stats.%u", k);
            } else {
                s->att = tensor(&b, SVK_SLAB_ACT, d.B * d.H * d.T * d.T, -1, "att.%u", k);
            }
            s->att_out = tensor(&b, SVK_SLAB_ACT, NC, -1, "att_out.%u", k);
        } else {
            s->a = tensor(&b, SVK_SLAB_ACT, d.N * d.FL, -1, "a.%u", k);
            s->g = tensor(&b, SVK_SLAB_ACT, d.N * d.FL, -1, "g.%u", k);
            if (c->mlp == SVK_MLP_SWIGLU) {
                s->gate = tensor(&b, SVK_SLAB_ACT, d.N * d.F, -1, "gate.%u", k);
                s->up = tensor(&b, SVK_SLAB_ACT, d.N * d.F, -1, "up.%u", k);
            }
        }
    }
    /* One tensor for the blocks' transposed weights, each transposed just
     * before its product: the largest is qkv's [C, 3C] or the MLP's
     * [C, F] (or [F, C]). */
    if (p->linear_nn)
        b.wt = tensor(&b, SVK_SLAB_ACT, (d.F > 3 * d.C ? d.F : 3 * d.C) * d.C, -1, "linear.wt");
    const uint64_t big = (3 * d.C > d.FL ? 3 * d.C : d.FL) * d.N;
    uint32_t final_out = tensor(&b, SVK_SLAB_ACT, NC, -1, "final");
    uint32_t final_mean = ln && !is_post(c) ? tensor(&b, SVK_SLAB_ACT, means, -1, "final.mean") : SVK_NONE;
    uint32_t final_rstd = !is_post(c) ? tensor(&b, SVK_SLAB_ACT, (siamese ? 3 : 1) * d.N, -1, "final.rstd") : SVK_NONE;
    p->logits = tensor(&b, SVK_SLAB_ACT, d.N * d.V, -1, "logits");
    uint32_t dlogits = tensor(&b, SVK_SLAB_ACT, d.N * d.V, -1, "dlogits");
    uint32_t dx = tensor(&b, SVK_SLAB_ACT, NC, -1, "dx"), dx2 = tensor(&b, SVK_SLAB_ACT, NC, -1, "dx.next");
    uint32_t dy = siamese ? tensor(&b, SVK_SLAB_ACT, NC, -1, "dy") : SVK_NONE;
    uint32_t dy2 = siamese ? tensor(&b, SVK_SLAB_ACT, NC, -1, "dy.next") : SVK_NONE;
    uint32_t dz = tensor(&b, SVK_SLAB_ACT, NC, -1, "dz"), dh = tensor(&b, SVK_SLAB_ACT, NC, -1, "dh");
    uint32_t s_big = tensor(&b, SVK_SLAB_ACT, big, -1, "scratch.big");
    uint32_t s_big2 = tensor(&b, SVK_SLAB_ACT, big, -1, "scratch.big2");
    uint32_t s_c = tensor(&b, SVK_SLAB_ACT, NC, -1, "scratch.c");
    uint32_t work = tensor(&b, SVK_SLAB_ACT, 2 * NC, -1, "scratch.norm");
    const uint32_t wte = W(&b, SVK_SLAB_PARAM, "wte.weight"), wpe = W(&b, SVK_SLAB_PARAM, "wpe.weight");
    const uint32_t lm = c->tie_embeddings ? wte : W(&b, SVK_SLAB_PARAM, "lm_head.weight");
    const uint32_t dlm = c->tie_embeddings ? W(&b, SVK_SLAB_GRAD, "wte.weight") : W(&b, SVK_SLAB_GRAD, "lm_head.weight");
    char name[64];

    /* ---- forward ---- */
    p->phases.forward = p->n_ops;
    {
        /* The whole gradient slab: it starts with parameter 0's gradient. */
        svk_plan_op *o = op(&b, SVK_OP_ZERO, "zero grads");
        o->zero = (svk_plan_zero){.dst = svk_plan_slab_start(p, SVK_SLAB_GRAD), .n = p->slab_elems[SVK_SLAB_GRAD]};
        o = op(&b, SVK_OP_EMBED_FWD, "embedding");
        o->embed_fwd = (svk_plan_embed_fwd){.out = x[0], .tokens = p->tokens, .wte = wte, .wpe = wpe,
                                            .output = p->output, .B = d.B, .T = d.T, .C = d.C, .V = d.V};
    }
    for (uint32_t k = 0; k < S; k++) {
        uint32_t l = k / 2;
        bool attn = k % 2 == 0;
        const sub_acts *s = &sa[k];
        const char *which = attn ? "attn_norm" : "mlp_norm";
        snprintf(name, sizeof(name), "blocks.%u.%s", l, which);
        if (siamese) {
            /* x_{k+1} = P(x_k) (the new x stream), h = I(x_{k+1} + Q(y_k)) */
            svk_plan_op *o = op(&b, SVK_OP_SIAMESE_FWD, "%s", name);
            o->siamese_fwd = (svk_plan_siamese_fwd){
                .shape = {d.N, d.C, !ln}, .xn = x[k + 1], .h = s->h, .mean = s->mean, .rstd = s->rstd, .x = x[k],
                .y = y[k], .gamma = W(&b, SVK_SLAB_PARAM, "%s.post.weight", name),
                .beta = W(&b, SVK_SLAB_PARAM, "%s.post.bias", name),
            };
            /* x_{k+1} += z / c, y_{k+1} = y_k + z in the projection's epilogue. */
            const residual_out r = {SVK_FUSE_DUAL_RESIDUAL, x[k + 1], y[k], y[k + 1], sqrtf(2.0f * (float)(l + 1))};
            sublayer_fwd(&b, &d, l, attn, s, &r);
        } else if (pre) {
            norm_fwd(&b, name, s->h, s->mean, s->rstd, x[k], d.N, d.C);
            const residual_out r = {SVK_FUSE_RESIDUAL, x[k + 1], x[k], SVK_NONE, 1.0f}; /* x_{k+1} = x_k + z */
            sublayer_fwd(&b, &d, l, attn, s, &r);
        } else { /* post: x_{k+1} = N(x_k + F(x_k)) */
            const residual_out r = {SVK_FUSE_RESIDUAL, s->u, x[k], SVK_NONE, 1.0f}; /* u = x_k + z */
            sublayer_fwd(&b, &d, l, attn, s, &r);
            norm_fwd(&b, name, x[k + 1], s->mean, s->rstd, s->u, d.N, d.C);
        }
    }
    if (siamese) {
        svk_plan_op *o = op(&b, SVK_OP_SOUT_FWD, "norm_f");
        o->sout_fwd = (svk_plan_sout_fwd){
            .shape = {d.N, d.C, !ln}, .out = final_out, .mean = final_mean, .rstd = final_rstd, .x = x[S], .y = y[S],
            .gamma = W(&b, SVK_SLAB_PARAM, "norm_f.x.weight"), .beta = W(&b, SVK_SLAB_PARAM, "norm_f.x.bias"),
            .work = work,
        };
    } else if (pre) {
        norm_fwd(&b, "norm_f", final_out, final_mean, final_rstd, x[S], d.N, d.C);
    } else {
        elementwise(&b, SVK_OP_COPY, "final = x", final_out, x[S], NC);
    }
    gemm(&b, "logits", p->logits, final_out, lm, SVK_NONE, false, true, d.N, d.V, d.C, 0.0f);

    /* ---- loss ---- */
    p->phases.loss = p->n_ops;
    {
        svk_plan_op *o = op(&b, SVK_OP_XENT, "cross_entropy");
        o->xent = (svk_plan_xent){.output = p->output, .dlogits = dlogits, .logits = p->logits, .targets = p->targets,
                                  .rows = d.N, .V = d.V};
    }

    /* ---- backward ---- */
    p->phases.backward = p->n_ops;
    gemm(&b, "logits.dx", s_c, dlogits, lm, SVK_NONE, false, false, d.N, d.C, d.V, 0.0f);
    gemm(&b, "logits.dW", dlm, dlogits, final_out, SVK_NONE, true, false, d.V, d.C, d.N, 1.0f);
    if (siamese) {
        svk_plan_op *o = op(&b, SVK_OP_SOUT_BWD, "norm_f.bwd");
        o->fuse = SVK_FUSE_RESIDUAL_GRAD;
        o->sout_bwd = (svk_plan_sout_bwd){
            .shape = {d.N, d.C, !ln}, .dx = dx, .dy = dy, .dgamma = W(&b, SVK_SLAB_GRAD, "norm_f.x.weight"),
            .dbeta = W(&b, SVK_SLAB_GRAD, "norm_f.x.bias"), .dout = s_c, .x = x[S], .y = y[S], .mean = final_mean,
            .rstd = final_rstd, .gamma = W(&b, SVK_SLAB_PARAM, "norm_f.x.weight"),
            .beta = W(&b, SVK_SLAB_PARAM, "norm_f.x.bias"), .work = work, .dz = dz, .dz_c = dz_scale(S),
        };
    } else if (pre) {
        norm_bwd(&b, "norm_f", dx, s_c, x[S], final_mean, final_rstd, d.N, d.C);
    } else {
        elementwise(&b, SVK_OP_COPY, "dx = dfinal", dx, s_c, NC);
    }
    for (uint32_t kk = S; kk-- > 0;) {
        uint32_t l = kk / 2;
        bool attn = kk % 2 == 0;
        const sub_acts *s = &sa[kk];
        snprintf(name, sizeof(name), "blocks.%u.%s", l, attn ? "attn_norm" : "mlp_norm");
        /* dx, dy: gradients of x_{kk+1}, y_{kk+1}; produce those of x_kk, y_kk in dx2, dy2, then swap. */
        if (siamese) {
            /* dz, the gradient of this sublayer's output z, came with dx and dy
             * (x = x + z / c, y = y + z: dz = dx / c + dy). */
            sublayer_bwd(&b, &d, l, attn, s, dz, dh, s_big, s_big2, s_c);
            svk_plan_op *o = op(&b, SVK_OP_SIAMESE_BWD, "%s.bwd", name);
            o->fuse = SVK_FUSE_RESIDUAL_GRAD;
            o->siamese_bwd = (svk_plan_siamese_bwd){
                .shape = {d.N, d.C, !ln}, .dx = dx2, .dy = dy2,
                .dgamma = W(&b, SVK_SLAB_GRAD, "%s.post.weight", name),
                .dbeta = W(&b, SVK_SLAB_GRAD, "%s.post.bias", name), .dh = dh, .dxn = dx, .dy_in = dy, .x = x[kk],
                .y = y[kk], .mean = s->mean, .rstd = s->rstd, .gamma = W(&b, SVK_SLAB_PARAM, "%s.post.weight", name),
                .beta = W(&b, SVK_SLAB_PARAM, "%s.post.bias", name), .work = work, .dz = dz, .dz_c = dz_scale(kk),
            };
            uint32_t t0 = dy;
            dy = dy2;
            dy2 = t0;
        } else if (pre) {
            /* x_{k+1} = x_k + F(N(x_k)): dx_k = dx + N_bwd(F_bwd(dx)). */
            sublayer_bwd(&b, &d, l, attn, s, dx, dh, s_big, s_big2, s_c);
            norm_bwd(&b, name, dx2, dh, x[kk], s->mean, s->rstd, d.N, d.C);
            elementwise(&b, SVK_OP_ADD, "dx += residual", dx2, dx, NC);
        } else {
            /* x_{k+1} = N(u), u = x_k + F(x_k): du = N_bwd(dx); dx_k = du + F_bwd(du). */
            norm_bwd(&b, name, dz, dx, s->u, s->mean, s->rstd, d.N, d.C);
            sublayer_bwd(&b, &d, l, attn, s, dz, dx2, s_big, s_big2, s_c);
            elementwise(&b, SVK_OP_ADD, "dx += du", dx2, dz, NC);
        }
        uint32_t t0 = dx;
        dx = dx2;
        dx2 = t0;
    }
    {
        /* SiameseNorm: de = dx + dy, which the last backward norm wrote to dz. */
        svk_plan_op *o = op(&b, SVK_OP_EMBED_BWD, "embedding.bwd");
        o->embed_bwd = (svk_plan_embed_bwd){
            .dwte = W(&b, SVK_SLAB_GRAD, "wte.weight"), .dwpe = W(&b, SVK_SLAB_GRAD, "wpe.weight"),
            .tokens = p->tokens, .dout = siamese ? dz : dx, .B = d.B, .T = d.T, .C = d.C, .V = d.V,
        };
    }

    /* ---- clipping and optimiser ---- */
    p->phases.clip = p->n_ops;
    {
        svk_plan_op *o = op(&b, SVK_OP_CLIP, "clip");
        o->clip = (svk_plan_clip){.output = p->output, .grads = svk_plan_slab_start(p, SVK_SLAB_GRAD),
                                  .n = p->slab_elems[SVK_SLAB_GRAD]};
    }
    p->phases.optimizer = p->n_ops;
    /* One update per group of the layout (layout_params). */
    for (int decay = 1; decay >= 0; decay--) {
        uint64_t n;
        if (svk_plan_param_group(p, decay, SVK_SLAB_PARAM, &n) == SVK_NONE)
            continue;
        svk_plan_op *o = op(&b, SVK_OP_ADAMW, decay ? "adamw (weight decay)" : "adamw (no decay)");
        o->adamw = (svk_plan_adamw){
            .p = svk_plan_param_group(p, decay, SVK_SLAB_PARAM, &n), .g = svk_plan_param_group(p, decay, SVK_SLAB_GRAD, &n),
            .m = svk_plan_param_group(p, decay, SVK_SLAB_ADAM_M, &n), .v = svk_plan_param_group(p, decay, SVK_SLAB_ADAM_V, &n),
            .output = p->output, .n = n, .decay = decay,
        };
    }
    p->phases.end = p->n_ops;
    free(x);
    free(y);
    free(sa);
    free(b.slots);
    if (b.oom) {
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building the plan");
    }
    if (b.overflow) {
        static const char *const slab_names[SVK_SLAB_COUNT] = {"parameter", "gradient", "AdamW m", "AdamW v",
                                                               "activation", "input", "output"};
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_TOO_LARGE,
                         "batch B=%u T=%u: the %s memory of %u layers overflows 64-bit byte sizes", B, T,
                         slab_names[b.overflow - 1], L);
    }
    return SVK_OK;
}

void svk_plan_write_inputs(const svk_plan *p, int32_t *in, const int32_t *tokens, const int32_t *targets)
{
    uint64_t n = (uint64_t)p->B * p->T;
    memcpy(in + p->tensors[p->tokens].offset, tokens, n * sizeof(int32_t));
    int32_t *tg = in + p->tensors[p->targets].offset;
    if (targets)
        memcpy(tg, targets, n * sizeof(int32_t));
    else
        for (uint64_t i = 0; i < n; i++)
            tg[i] = -1;
}

void svk_plan_free(svk_plan *p)
{
    free(p->params);
    free(p->tensors);
    free(p->ops);
    memset(p, 0, sizeof(*p));
}

const char *svk_plan_opcode_name(svk_plan_opcode code)
{
    static const char *const names[SVK_OP_COUNT_] = {
        "zero", "copy", "add", "embed_fwd", "embed_bwd", "norm_fwd", "norm_bwd", "siamese_fwd", "siamese_bwd",
        "sout_fwd", "sout_bwd", "gemm", "rope_fwd", "rope_bwd", "attn_fwd", "attn_bwd",
        "swiglu_fwd", "swiglu_bwd", "bias_bwd", "xent", "clip", "adamw", "transpose",
    };
    return (unsigned)code < SVK_OP_COUNT_ ? names[code] : "?";
}
