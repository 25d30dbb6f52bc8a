/*
 * Plan ops as device operations: one function per op kind fills its
 * lib/ops arguments from the op's named operands (plan_op.h).
 */
#include "plan_vk.h"

#include "ops/adamw.h"
#include "ops/attention.h"
#include "ops/bias.h"
#include "ops/clip.h"
#include "ops/colsum.h"
#include "ops/copy.h"
#include "ops/cross_entropy.h"
#include "ops/decode.h"
#include "ops/embedding.h"
#include "ops/gemm.h"
#include "ops/layernorm.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "ops/siamese_norm.h"
#include "ops/swiglu.h"
#include "ops/transpose.h"
#include "vk/vk_buffer.h"

_Static_assert(SVK_SIAMESE_MEAN_ROWS <= SVK_PLAN_SIAMESE_MEAN_ROWS,
               "the plan's SiameseNorm mean tensors must hold the rows the device kernels keep");

svk_tref svk_plan_vk_tensor(const svk_plan_vk_rec *r, uint32_t id)
{
    if (id == SVK_NONE)
        return (svk_tref){NULL, 0};
    const svk_plan_tensor *t = &r->p->tensors[id];
    switch (t->slab) {
    case SVK_SLAB_ACT:
        return (svk_tref){r->act[id], 0};
    case SVK_SLAB_INPUT:
        return (svk_tref){r->input, t->offset};
    case SVK_SLAB_OUTPUT:
        return (svk_tref){r->output, t->offset};
    default:
        return (svk_tref){r->slab[t->slab], t->offset};
    }
}

#define T(id) svk_plan_vk_tensor(r, (id))

/* An element of this step's outputs. */
static svk_tref OUT(const svk_plan_vk_rec *r, uint32_t element)
{
    svk_tref t = T(r->p->output);
    t.off += element;
    return t;
}

/* An output of the previous step, which ran on the other parity. */
static svk_tref PREV_OUT(const svk_plan_vk_rec *r, uint32_t element)
{
    return (svk_tref){r->prev_output, r->p->tensors[r->p->output].offset + element};
}

static svk_tref scratch(const svk_plan_vk_rec *r)
{
    return (svk_tref){r->scratch, 0};
}

static svk_norm_kind kind_of(const svk_plan_norm_shape *s)
{
    return s->rms ? SVK_NORM_RMSNORM : SVK_NORM_LAYERNORM;
}

static svk_status zero(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return svk_fill_record(r->cl, T(o->zero.dst), o->zero.n, 0.0f, o->label);
}

static svk_status copy(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return svk_copy_record(r->cl, T(o->copy.dst), T(o->copy.src), o->copy.n, o->label);
}

static svk_status add(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return svk_add_record(r->cl, T(o->add.dst), T(o->add.src), o->add.n, o->label);
}

static svk_status embed_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_embed_fwd *e = &o->embed_fwd;
    const svk_embedding_fwd_args a = {.B = e->B, .T = e->T, .C = e->C, .V = e->V, .tokens = T(e->tokens),
                                      .wte = T(e->wte), .wpe = T(e->wpe), .out = T(e->out),
                                      .counts = OUT(r, SVK_OUT_VALID_TOKENS), .label = o->label};
    return svk_embedding_fwd_record(r->cl, &a);
}

static svk_status embed_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_embed_bwd *e = &o->embed_bwd;
    const svk_embedding_bwd_args a = {.B = e->B, .T = e->T, .C = e->C, .V = e->V, .tokens = T(e->tokens),
                                      .dout = T(e->dout), .dwte = T(e->dwte), .dwpe = T(e->dwpe), .label = o->label};
    return svk_embedding_bwd_record(r->cl, &a);
}

static svk_status norm_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_norm_fwd *n = &o->norm_fwd;
    const uint32_t rows = (uint32_t)n->shape.rows, width = (uint32_t)n->shape.width;
    if (n->shape.rms) {
        const svk_rmsnorm_fwd_args a = {.rows = rows, .width = width, .eps = r->p->eps, .x = T(n->x),
                                        .g = T(n->gamma), .out = T(n->out), .rstd = T(n->rstd), .label = o->label};
        return svk_rmsnorm_fwd_record(r->cl, &a);
    }
    const svk_layernorm_fwd_args a = {.rows = rows, .width = width, .eps = r->p->eps, .x = T(n->x), .g = T(n->gamma),
                                      .b = T(n->beta), .out = T(n->out), .mean = T(n->mean), .rstd = T(n->rstd),
                                      .label = o->label};
    return svk_layernorm_fwd_record(r->cl, &a);
}

static svk_status norm_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_norm_bwd *n = &o->norm_bwd;
    const uint32_t rows = (uint32_t)n->shape.rows, width = (uint32_t)n->shape.width;
    if (n->shape.rms) {
        const svk_rmsnorm_bwd_args a = {.rows = rows, .width = width, .dout = T(n->dout), .x = T(n->x),
                                        .rstd = T(n->rstd), .g = T(n->gamma), .dx = T(n->dx), .dg = T(n->dgamma),
                                        .scratch = scratch(r), .label = o->label};
        return svk_rmsnorm_bwd_record(r->cl, &a);
    }
    const svk_layernorm_bwd_args a = {.rows = rows, .width = width, .dout = T(n->dout), .x = T(n->x),
                                      .mean = T(n->mean), .rstd = T(n->rstd), .g = T(n->gamma), .dx = T(n->dx),
                                      .dg = T(n->dgamma), .db = T(n->dbeta), .scratch = scratch(r),
                                      .label = o->label};
    return svk_layernorm_bwd_record(r->cl, &a);
}

static svk_status siamese_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_siamese_fwd *n = &o->siamese_fwd;
    const svk_siamese_norm_fwd_args a = {
        .kind = kind_of(&n->shape), .rows = (uint32_t)n->shape.rows, .C = (uint32_t)n->shape.width,
        .eps = r->p->eps, .x = T(n->x), .y = T(n->y), .g = T(n->gamma), .b = T(n->beta), .xn = T(n->xn),
        .h = T(n->h), .mean = T(n->mean), .rstd = T(n->rstd), .label = o->label};
    return svk_siamese_norm_fwd_record(r->cl, &a);
}

/* dz where the op fuses its residual's gradient (SVK_FUSE_RESIDUAL_GRAD),
 * else none. */
static svk_tref residual_grad(const svk_plan_vk_rec *r, const svk_plan_op *o, uint32_t dz)
{
    return (o->fuse & SVK_FUSE_RESIDUAL_GRAD) ? T(dz) : (svk_tref){NULL, 0};
}

static svk_status siamese_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_siamese_bwd *n = &o->siamese_bwd;
    const svk_siamese_norm_bwd_args a = {
        .kind = kind_of(&n->shape), .rows = (uint32_t)n->shape.rows, .C = (uint32_t)n->shape.width,
        .dh = T(n->dh), .dxn = T(n->dxn), .dy_in = T(n->dy_in), .x = T(n->x), .y = T(n->y), .mean = T(n->mean),
        .rstd = T(n->rstd), .g = T(n->gamma), .b = T(n->beta), .dx = T(n->dx), .dy = T(n->dy), .dg = T(n->dgamma),
        .db = T(n->dbeta), .scratch = scratch(r), .dz = residual_grad(r, o, n->dz), .dz_c = n->dz_c,
        .label = o->label};
    return svk_siamese_norm_bwd_record(r->cl, &a);
}

static svk_status sout_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_sout_fwd *n = &o->sout_fwd;
    const svk_siamese_out_fwd_args a = {
        .kind = kind_of(&n->shape), .rows = (uint32_t)n->shape.rows, .C = (uint32_t)n->shape.width,
        .eps = r->p->eps, .x = T(n->x), .y = T(n->y), .g = T(n->gamma), .b = T(n->beta), .out = T(n->out),
        .mean = T(n->mean), .rstd = T(n->rstd), .label = o->label};
    return svk_siamese_out_fwd_record(r->cl, &a);
}

static svk_status sout_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_sout_bwd *n = &o->sout_bwd;
    const svk_siamese_out_bwd_args a = {
        .kind = kind_of(&n->shape), .rows = (uint32_t)n->shape.rows, .C = (uint32_t)n->shape.width,
        .dout = T(n->dout), .x = T(n->x), .y = T(n->y), .mean = T(n->mean), .rstd = T(n->rstd), .g = T(n->gamma),
        .b = T(n->beta), .dx = T(n->dx), .dy = T(n->dy), .dg = T(n->dgamma), .db = T(n->dbeta),
        .scratch = scratch(r), .dz = residual_grad(r, o, n->dz), .dz_c = n->dz_c, .label = o->label};
    return svk_siamese_out_bwd_record(r->cl, &a);
}

/* A plan GEMM's shape, factors and epilogue, without its operands: what
 * sizes its scratch (svk_plan_vk_scratch_elems) and what gemm() completes. */
static svk_gemm_args gemm_shape(const svk_plan_op *o)
{
    const svk_plan_gemm *g = &o->gemm;
    const uint32_t f = o->fuse;
    return (svk_gemm_args){
        .shape = {.trans_a = g->ta, .trans_b = g->tb, .M = (uint32_t)g->M, .N = (uint32_t)g->N, .K = (uint32_t)g->K,
                  .batch = 1},
        .a.ld = (uint32_t)g->ld.a, .b.ld = (uint32_t)g->ld.b, .c.ld = (uint32_t)g->ld.c,
        .alpha = g->alpha, .beta = g->beta,
        .epi.kind = (f & SVK_FUSE_GELU)             ? SVK_GEMM_EPILOGUE_GELU
                    : (f & SVK_FUSE_GELU_BWD)       ? SVK_GEMM_EPILOGUE_GELU_BWD
                    : (f & SVK_FUSE_RESIDUAL)       ? SVK_GEMM_EPILOGUE_RESIDUAL
                    : (f & SVK_FUSE_DUAL_RESIDUAL)  ? SVK_GEMM_EPILOGUE_DUAL_RESIDUAL
                                                    : SVK_GEMM_EPILOGUE_NONE,
        .epi.res_c = g->fused.scale,
    };
}

static svk_status gemm(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_gemm *pg = &o->gemm;
    const svk_tref c = T(pg->c), a = T(pg->a), b = T(pg->b), bias = T(pg->bias);
    svk_gemm_args g = gemm_shape(o);
    g.a.buf = a.buf, g.b.buf = b.buf, g.c.buf = c.buf, g.bias = bias;
    g.a.off = a.off, g.b.off = b.off, g.c.off = c.off;
    g.label = o->label;
    /* Room for split-K partials (gemm_split.h) or the bias gradient's
     * column sums, sized by svk_plan_vk_scratch_elems. */
    g.scratch.buf = r->scratch;
    g.scratch.elems = r->scratch ? r->scratch->size / 4 : 0;
    if (o->fuse & SVK_FUSE_BIAS_GRAD) {
        /* On CPU devices the sums come from the kernel's k loop: a pass over
         * dy and two dispatches fewer than a BIAS_BWD op of its own. */
        const svk_tref db = T(pg->fused.dbias);
        g.sum_a.buf = db.buf;
        g.sum_a.off = db.off;
    }
    /* The epilogue's first operand: the activation, or the residual stream. */
    const svk_tref aux = T((o->fuse & (SVK_FUSE_GELU | SVK_FUSE_GELU_BWD)) ? pg->fused.act : pg->fused.residual);
    const svk_tref aux2 = T(pg->fused.residual_out);
    if (g.epi.kind != SVK_GEMM_EPILOGUE_NONE) {
        g.epi.aux = aux;
        g.epi.aux2 = aux2;
    }
    return svk_gemm_record(r->cl, &g);
}

static svk_status rope(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_rope *p = &o->rope;
    const svk_rope_args a = {.B = (uint32_t)p->B, .T = (uint32_t)p->T, .C = (uint32_t)p->C, .H = (uint32_t)p->H,
                             .theta = p->theta, .qkv = T(p->qkv), .label = o->label};
    return o->code == SVK_OP_ROPE_FWD ? svk_rope_fwd_record(r->cl, &a) : svk_rope_bwd_record(r->cl, &a);
}

static svk_status attn_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_attn_fwd *p = &o->attn_fwd;
    const uint32_t B = (uint32_t)p->B, Tn = (uint32_t)p->T, C = (uint32_t)p->C, H = (uint32_t)p->H;
    if (p->flash) {
        const svk_attention_flash_args a = {.B = B, .T = Tn, .C = C, .H = H, .qkv = T(p->qkv), .out = T(p->out),
                                            .stats = T(p->att), .label = o->label};
        return svk_attention_flash_fwd_record(r->cl, &a);
    }
    const svk_attention_fwd_args a = {.B = B, .T = Tn, .C = C, .H = H, .qkv = T(p->qkv), .out = T(p->out),
                                      .att = T(p->att), .label = o->label};
    return svk_attention_fwd_record(r->cl, &a);
}

static svk_status attn_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_attn_bwd *p = &o->attn_bwd;
    const uint32_t B = (uint32_t)p->B, Tn = (uint32_t)p->T, C = (uint32_t)p->C, H = (uint32_t)p->H;
    if (p->flash) {
        const svk_attention_flash_bwd_args a = {.B = B, .T = Tn, .C = C, .H = H, .dout = T(p->dout),
                                                .qkv = T(p->qkv), .out = T(p->out), .stats = T(p->att),
                                                .dqkv = T(p->dqkv), .scratch = scratch(r), .label = o->label};
        return svk_attention_flash_bwd_record(r->cl, &a);
    }
    const svk_attention_bwd_args a = {.B = B, .T = Tn, .C = C, .H = H, .dout = T(p->dout), .qkv = T(p->qkv),
                                      .att = T(p->att), .dqkv = T(p->dqkv), .scratch = scratch(r),
                                      .label = o->label};
    return svk_attention_bwd_record(r->cl, &a);
}

static svk_status swiglu_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_swiglu_fwd *s = &o->swiglu_fwd;
    const svk_swiglu_fwd_args a = {.n = s->n, .gate = T(s->gate), .up = T(s->up), .out = T(s->out),
                                   .label = o->label};
    return svk_swiglu_fwd_record(r->cl, &a);
}

static svk_status swiglu_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_swiglu_bwd *s = &o->swiglu_bwd;
    const svk_swiglu_bwd_args a = {.n = s->n, .gate = T(s->gate), .up = T(s->up), .dout = T(s->dout),
                                   .dgate = T(s->dgate), .dup = T(s->dup), .label = o->label};
    return svk_swiglu_bwd_record(r->cl, &a);
}

static svk_status transpose(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_transpose *t = &o->transpose;
    const svk_transpose_args a = {.rows = (uint32_t)t->rows, .cols = (uint32_t)t->cols, .src = T(t->src),
                                  .dst = T(t->dst), .label = o->label};
    return svk_transpose_record(r->cl, &a);
}

static svk_status embed_decode(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_embed_decode *e = &o->embed_decode;
    const svk_decode_embed_args a = {.C = (uint32_t)e->C, .V = (uint32_t)e->V, .ctx = (uint32_t)e->ctx,
                                     .step = T(e->step), .wte = T(e->wte), .wpe = T(e->wpe), .out = T(e->out),
                                     .label = o->label};
    return svk_decode_embed_record(r->cl, &a);
}

static svk_status attn_decode(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_attn_decode *p = &o->attn_decode;
    const svk_decode_attention_args a = {.C = (uint32_t)p->C, .H = (uint32_t)p->H, .ctx = (uint32_t)p->ctx,
                                         .rope = p->rope, .theta = p->theta, .step = T(p->step), .qkv = T(p->qkv),
                                         .cache = T(p->cache), .out = T(p->out), .label = o->label};
    return svk_decode_attention_record(r->cl, &a);
}

static svk_status bias_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_bias_bwd *b = &o->bias_bwd;
    const svk_bias_bwd_args a = {.rows = b->rows, .N = b->N, .ld = b->ld, .dout = T(b->dout), .dbias = T(b->dbias),
                                 .scratch = scratch(r), .label = o->label};
    return svk_bias_bwd_record(r->cl, &a);
}

static svk_status xent(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_xent *x = &o->xent;
    svk_tref losses = T(x->losses);
    const svk_tref step_losses = losses;
    losses.off += x->row0;
    const svk_cross_entropy_args a = {
        .rows = x->rows, .V = x->V, .logits = T(x->logits), .targets = T(x->targets), .dlogits = T(x->dlogits),
        .losses = losses, .counts = OUT(r, SVK_OUT_VALID_TARGETS), .loss = OUT(r, SVK_OUT_LOSS),
        .step = {.rows = x->step_rows, .targets = T(x->step_targets), .losses = step_losses, .count = x->first,
                 .mean = x->last},
        .label = o->label,
    };
    return svk_cross_entropy_record(r->cl, &a);
}

static svk_status clip(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    svk_tref g = T(o->clip.grads);
    uint64_t n = o->clip.n;
    const svk_clip_args a = {.count = 1, .grads = &g, .sizes = &n, .partials = (svk_tref){r->clip_partials, 0},
                             .max_norm = r->opt->max_norm, .out = OUT(r, SVK_OUT_GRAD_NORM), .label = o->label};
    return svk_clip_record(r->cl, &a);
}

static svk_status adamw(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_adamw *p = &o->adamw;
    const svk_optimizer *opt = r->opt;
    const svk_adamw_args a = {
        .n = p->n, .p = T(p->p), .g = T(p->g), .m = T(p->m), .v = T(p->v),
        .scale = OUT(r, SVK_OUT_CLIP_SCALE), .step = (svk_tref){r->step, 0},
        .guard = OUT(r, SVK_OUT_LOSS), /* loss, then the norm: SVK_OUT_GRAD_NORM follows */
        .prev_guard = PREV_OUT(r, SVK_OUT_LOSS),
        .beta1 = opt->beta1, .beta2 = opt->beta2, .eps = opt->eps, .weight_decay = opt->weight_decay,
        .decay = p->decay, .label = o->label,
    };
    return svk_adamw_record(r->cl, &a);
}

typedef svk_status (*recorder)(const svk_plan_vk_rec *r, const svk_plan_op *o);

static const recorder recorders[SVK_OP_COUNT_] = {SVK_PLAN_OPS(SVK_PLAN_OP_FN)};

svk_status svk_plan_vk_record_op(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    if ((unsigned)o->code < SVK_OP_COUNT_ && recorders[o->code])
        return recorders[o->code](r, o);
    return svk_error(r->log, SVK_ERROR_INTERNAL, "plan op '%s' has no device operation", o->label);
}

/* The scratch floats op o needs; 0 for those that need none. */
static uint64_t op_scratch(svk_ctx *ctx, const svk_plan_op *o)
{
    switch (o->code) {
    case SVK_OP_NORM_BWD: {
        const svk_plan_norm_shape *s = &o->norm_bwd.shape;
        return s->rms ? svk_rmsnorm_bwd_scratch_elems((uint32_t)s->rows, (uint32_t)s->width)
                      : svk_layernorm_bwd_scratch_elems((uint32_t)s->rows, (uint32_t)s->width);
    }
    case SVK_OP_SIAMESE_BWD:
    case SVK_OP_SOUT_BWD: {
        const svk_plan_norm_shape *s = o->code == SVK_OP_SIAMESE_BWD ? &o->siamese_bwd.shape : &o->sout_bwd.shape;
        return svk_siamese_norm_bwd_scratch_elems(kind_of(s), (uint32_t)s->rows, (uint32_t)s->width);
    }
    case SVK_OP_ATTN_BWD: {
        const svk_plan_attn_bwd *a = &o->attn_bwd;
        return a->flash ? svk_attention_flash_scratch_elems((uint32_t)a->B, (uint32_t)a->T, (uint32_t)a->H)
                        : svk_attention_scratch_elems((uint32_t)a->B, (uint32_t)a->T, (uint32_t)a->H);
    }
    case SVK_OP_BIAS_BWD:
        return svk_colsum_scratch_elems(o->bias_bwd.rows, o->bias_bwd.N);
    case SVK_OP_GEMM: {
        /* Split-K's partials, where the GEMM would split (gemm_split.h),
         * or the CPU texel form's packed operands (gemm_pack.h); a bias
         * never splits, but gemm_shape has no buffer to say so. A fused
         * bias gradient's column sums, where the kernel does not add them
         * itself, use the room before the product does. */
        const svk_gemm_args g = gemm_shape(o);
        const uint64_t n = o->gemm.bias != SVK_NONE ? svk_gemm_pack_scratch_elems(ctx, &g)
                                                    : svk_gemm_scratch_elems(ctx, &g);
        const uint64_t sums = (o->fuse & SVK_FUSE_BIAS_GRAD) ? svk_colsum_scratch_elems(o->gemm.K, o->gemm.M) : 0;
        return n > sums ? n : sums;
    }
    default:
        return 0;
    }
}

uint64_t svk_plan_vk_scratch_elems(svk_ctx *ctx, const svk_plan *p)
{
    uint64_t need = 1;
    for (size_t i = 0; i < p->n_ops; i++) {
        const uint64_t n = op_scratch(ctx, &p->ops[i]);
        if (n > need)
            need = n;
    }
    return need;
}
