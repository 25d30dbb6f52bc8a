/*
 * The CPU backend: each plan op is a call of the CPU reference. Written
 * once over svk_real and compiled twice (plan_cpu_f32.c, plan_cpu_f64.c):
 * the float build is the backend, the double build lets the tests check the
 * whole model's gradients against finite differences.
 * Included by those files only; SVK_REF_BITS selects the type.
 */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "real.h"

#if SVK_REF_BITS == 32
#define RUN svk_plan_cpu_run_f32
#else
#define RUN svk_plan_cpu_run_f64
#endif

/* Counts go into the output slab as int32 bits in the float build (as the
 * device writes them) and as values in the double build. */
static void set_count(svk_real *out, int idx, size_t v)
{
#if SVK_REF_BITS == 32
    int32_t i = (int32_t)v;
    memcpy(&out[idx], &i, sizeof(i));
#else
    out[idx] = (svk_real)v;
#endif
}

typedef struct cpu {
    svk_log *log;
    const svk_plan *p;
    void *const *slabs;
    const svk_step_hparams *h;
    size_t index; /* of the op running, for messages */
} cpu;

/* The svk_real view of tensor id (NULL for SVK_NONE). */
static svk_real *F(const cpu *c, uint32_t id)
{
    if (id == SVK_NONE)
        return NULL;
    const svk_plan_tensor *t = &c->p->tensors[id];
    return (svk_real *)c->slabs[t->slab] + t->offset;
}

static const int32_t *I(const cpu *c, uint32_t id)
{
    const svk_plan_tensor *t = &c->p->tensors[id];
    return (const int32_t *)c->slabs[t->slab] + t->offset;
}

static enum svk_ref_norm kind_of(const svk_plan_norm_shape *s)
{
    return s->rms ? SVK_REF_RMSNORM : SVK_REF_LAYERNORM;
}

static svk_status zero(const cpu *c, const svk_plan_op *o)
{
    memset(F(c, o->zero.dst), 0, o->zero.n * sizeof(svk_real));
    return SVK_OK;
}

static svk_status copy(const cpu *c, const svk_plan_op *o)
{
    memcpy(F(c, o->copy.dst), F(c, o->copy.src), o->copy.n * sizeof(svk_real));
    return SVK_OK;
}

static svk_status add(const cpu *c, const svk_plan_op *o)
{
    svk_real *a = F(c, o->add.dst);
    const svk_real *b = F(c, o->add.src);
    for (uint64_t k = 0; k < o->add.n; k++)
        a[k] += b[k];
    return SVK_OK;
}

static svk_status embed_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_embed_fwd *e = &o->embed_fwd;
    svk_real *out = F(c, e->output);
    const size_t bad = SVK_REF(embedding_fwd)(e->B, e->T, e->C, e->V, I(c, e->tokens), F(c, e->wte), F(c, e->wpe),
                                              F(c, e->out));
    set_count(out, SVK_OUT_VALID_TOKENS, e->B * e->T - bad);
    set_count(out, SVK_OUT_BAD_TOKENS, bad);
    return SVK_OK;
}

static svk_status embed_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_embed_bwd *e = &o->embed_bwd;
    SVK_REF(embedding_bwd)(e->B, e->T, e->C, e->V, I(c, e->tokens), F(c, e->dout), F(c, e->dwte), F(c, e->dwpe));
    return SVK_OK;
}

static svk_status norm_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_norm_fwd *n = &o->norm_fwd;
    const svk_plan_norm_shape *s = &n->shape;
    if (s->rms)
        SVK_REF(rmsnorm_fwd)(s->rows, s->width, c->p->eps, F(c, n->x), F(c, n->gamma), F(c, n->out), F(c, n->rstd));
    else
        SVK_REF(layernorm_fwd)(s->rows, s->width, c->p->eps, F(c, n->x), F(c, n->gamma), F(c, n->beta),
                               F(c, n->out), F(c, n->mean), F(c, n->rstd));
    return SVK_OK;
}

static svk_status norm_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_norm_bwd *n = &o->norm_bwd;
    const svk_plan_norm_shape *s = &n->shape;
    if (s->rms)
        SVK_REF(rmsnorm_bwd)(s->rows, s->width, F(c, n->dout), F(c, n->x), F(c, n->rstd), F(c, n->gamma),
                             F(c, n->dx), F(c, n->dgamma));
    else
        SVK_REF(layernorm_bwd)(s->rows, s->width, F(c, n->dout), F(c, n->x), F(c, n->mean), F(c, n->rstd),
                               F(c, n->gamma), F(c, n->dx), F(c, n->dgamma), F(c, n->dbeta));
    return SVK_OK;
}

static svk_status siamese_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_siamese_fwd *n = &o->siamese_fwd;
    SVK_REF(siamese_norm_fwd)(kind_of(&n->shape), n->shape.rows, n->shape.width, c->p->eps, F(c, n->x), F(c, n->y),
                              F(c, n->gamma), F(c, n->beta), F(c, n->xn), F(c, n->h), F(c, n->mean), F(c, n->rstd));
    return SVK_OK;
}

/* SVK_FUSE_RESIDUAL_GRAD of the SiameseNorm backwards: residual_bwd's
 * formula over the dx and dy just written. */
static void residual_grad(const cpu *c, const svk_plan_op *o, const svk_plan_norm_shape *s, uint32_t dx, uint32_t dy,
                          uint32_t dz, float dz_c)
{
    if (o->fuse & SVK_FUSE_RESIDUAL_GRAD)
        SVK_REF(residual_bwd)(s->rows * s->width, dz_c, F(c, dx), F(c, dy), F(c, dz));
}

static svk_status siamese_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_siamese_bwd *n = &o->siamese_bwd;
    SVK_REF(siamese_norm_bwd)(kind_of(&n->shape), n->shape.rows, n->shape.width, c->p->eps, F(c, n->dh),
                              F(c, n->dxn), F(c, n->dy_in), F(c, n->x), F(c, n->y), F(c, n->mean), F(c, n->rstd),
                              F(c, n->gamma), F(c, n->beta), F(c, n->dx), F(c, n->dy), F(c, n->dgamma),
                              F(c, n->dbeta), F(c, n->work));
    residual_grad(c, o, &n->shape, n->dx, n->dy, n->dz, n->dz_c);
    return SVK_OK;
}

static svk_status sout_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_sout_fwd *n = &o->sout_fwd;
    SVK_REF(siamese_out_fwd)(kind_of(&n->shape), n->shape.rows, n->shape.width, c->p->eps, F(c, n->x), F(c, n->y),
                             F(c, n->gamma), F(c, n->beta), F(c, n->out), F(c, n->mean), F(c, n->rstd),
                             F(c, n->work));
    return SVK_OK;
}

static svk_status sout_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_sout_bwd *n = &o->sout_bwd;
    SVK_REF(siamese_out_bwd)(kind_of(&n->shape), n->shape.rows, n->shape.width, c->p->eps, F(c, n->dout),
                             F(c, n->x), F(c, n->y), F(c, n->mean), F(c, n->rstd), F(c, n->gamma), F(c, n->beta),
                             F(c, n->dx), F(c, n->dy), F(c, n->dgamma), F(c, n->dbeta), F(c, n->work));
    residual_grad(c, o, &n->shape, n->dx, n->dy, n->dz, n->dz_c);
    return SVK_OK;
}

/* Row by row (rows ld apart), in row order: the sums of one call over
 * dense rows. BIAS_BWD's, and SVK_FUSE_BIAS_GRAD's over A. */
static void column_sums(uint64_t rows, uint64_t N, const svk_real *dout, uint64_t ld, svk_real *dbias)
{
    for (uint64_t r = 0; r < rows; r++)
        SVK_REF(bias_bwd)(1, N, dout + r * ld, dbias);
}

/* A GEMM's fusions after its product, in the order the device applies
 * them (lib/ops/gemm.h, svk_gemm_epilogue), then the bias gradient the
 * BIAS_BWD op after it would have added. lda, ldc: A's and C's leading
 * dimensions. */
static void gemm_fusions(const cpu *c, const svk_plan_op *o, uint64_t lda, uint64_t ldc)
{
    const svk_plan_gemm *g = &o->gemm;
    const svk_plan_gemm_fused *f = &g->fused;
    const uint64_t M = g->M, N = g->N;
    if (o->fuse & SVK_FUSE_RESIDUAL) {
        svk_real *cz = F(c, g->c);
        const svk_real *in = F(c, f->residual);
        for (uint64_t e = 0; e < M * N; e++)
            cz[e] = in[e] + cz[e];
    }
    if (o->fuse & SVK_FUSE_DUAL_RESIDUAL) {
        /* residual_fwd's formulas: x += z / c; y' = y + z (z was written to residual_out). */
        svk_real *x = F(c, g->c), *z = F(c, f->residual_out);
        const svk_real *y = F(c, f->residual), rc = f->scale;
        for (uint64_t e = 0; e < M * N; e++) {
            x[e] += z[e] / rc;
            z[e] = y[e] + z[e];
        }
    }
    /* The activation is laid out as C: row by row. */
    for (uint64_t r = 0; r < M && (o->fuse & (SVK_FUSE_GELU | SVK_FUSE_GELU_BWD)); r++) {
        svk_real *cr = F(c, g->c) + r * ldc;
        if (o->fuse & SVK_FUSE_GELU)
            SVK_REF(gelu_fwd)(N, cr, F(c, f->act) + r * ldc);
        else
            SVK_REF(gelu_bwd)(N, F(c, f->act) + r * ldc, cr, cr);
    }
    /* A is [K, M] (ta): dy of the Linear whose dW this is. */
    if (o->fuse & SVK_FUSE_BIAS_GRAD)
        column_sums(g->K, M, F(c, g->a), lda, F(c, f->dbias));
}

static svk_status gemm(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_gemm *g = &o->gemm;
    const uint64_t M = g->M, N = g->N, K = g->K;
    const uint64_t lda = g->ld.a ? g->ld.a : g->ta ? M : K, ldb = g->ld.b ? g->ld.b : g->tb ? K : N;
    const uint64_t ldc = g->ld.c ? g->ld.c : N;
    if (ldc != N && (o->fuse & (SVK_FUSE_RESIDUAL | SVK_FUSE_DUAL_RESIDUAL)))
        return svk_error(c->log, SVK_ERROR_INTERNAL, "plan op %zu (%s): a residual fusion with ldc %llu != N",
                         c->index, o->label, (unsigned long long)ldc);
    /* A dual residual's z goes to residual_out first (C is the x stream it updates). */
    svk_real *dst = (o->fuse & SVK_FUSE_DUAL_RESIDUAL) ? F(c, g->fused.residual_out) : F(c, g->c);
    SVK_REF(gemm)(g->ta, g->tb, M, N, K, g->alpha, F(c, g->a), lda, 0, F(c, g->b), ldb, 0, g->beta, dst, ldc, 0,
                  F(c, g->bias), 1);
    if ((o->fuse & SVK_FUSE_BIAS_GRAD) && !g->ta)
        return svk_error(c->log, SVK_ERROR_INTERNAL, "plan op %zu (%s): a bias gradient fused into an NN product",
                         c->index, o->label);
    gemm_fusions(c, o, lda, ldc);
    return SVK_OK;
}

static svk_status rope(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_rope *r = &o->rope;
    if (o->code == SVK_OP_ROPE_FWD)
        SVK_REF(rope_fwd)(r->B, r->T, r->C, r->H, r->theta, F(c, r->qkv));
    else
        SVK_REF(rope_bwd)(r->B, r->T, r->C, r->H, r->theta, F(c, r->qkv));
    return SVK_OK;
}

static svk_status attn_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_attn_fwd *a = &o->attn_fwd;
    if (a->flash)
        return svk_error(c->log, SVK_ERROR_INTERNAL, "plan op %zu (%s): flash attention on the CPU reference",
                         c->index, o->label);
    SVK_REF(attention_fwd)(a->B, a->T, a->C, a->H, F(c, a->qkv), F(c, a->out), F(c, a->att));
    return SVK_OK;
}

static svk_status attn_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_attn_bwd *a = &o->attn_bwd;
    SVK_REF(attention_bwd)(a->B, a->T, a->C, a->H, F(c, a->dout), F(c, a->qkv), F(c, a->att), F(c, a->dqkv));
    return SVK_OK;
}

static svk_status swiglu_fwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_swiglu_fwd *s = &o->swiglu_fwd;
    SVK_REF(swiglu_fwd)(s->n, F(c, s->gate), F(c, s->up), F(c, s->out));
    return SVK_OK;
}

static svk_status swiglu_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_swiglu_bwd *s = &o->swiglu_bwd;
    SVK_REF(swiglu_bwd)(s->n, F(c, s->gate), F(c, s->up), F(c, s->dout), F(c, s->dgate), F(c, s->dup));
    return SVK_OK;
}

static svk_status bias_bwd(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_bias_bwd *b = &o->bias_bwd;
    column_sums(b->rows, b->N, F(c, b->dout), b->ld ? b->ld : b->N, F(c, b->dbias));
    return SVK_OK;
}

/* The count of the step's targets goes into the output slab (first) and
 * is read back from it by later micro-batches: in the float build as int32
 * bits, exact to 2^31, as the device keeps it. */
static size_t get_count(const svk_real *out, int idx)
{
#if SVK_REF_BITS == 32
    int32_t i;
    memcpy(&i, &out[idx], sizeof(i));
    return (size_t)i;
#else
    return (size_t)out[idx];
#endif
}

static svk_status xent(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_xent *x = &o->xent;
    svk_real *out = F(c, x->output);
    svk_real *losses = F(c, x->losses);
    if (x->first) {
        size_t invalid = 0;
        set_count(out, SVK_OUT_VALID_TARGETS,
                  SVK_REF(cross_entropy_count)(x->step_rows, x->V, I(c, x->step_targets), &invalid));
        set_count(out, SVK_OUT_BAD_TARGETS, invalid);
    }
    const size_t count = get_count(out, SVK_OUT_VALID_TARGETS);
    SVK_REF(cross_entropy_rows)(x->rows, x->V, F(c, x->logits), I(c, x->targets), count, F(c, x->dlogits),
                                losses + x->row0);
    if (x->last) {
        /* In order, in double: svk_ref_cross_entropy's mean. */
        double total = 0;
        for (uint64_t r = 0; r < x->step_rows; r++)
            total += (double)losses[r];
        out[SVK_OUT_LOSS] = count ? (svk_real)(total / (double)count) : 0;
    }
    return SVK_OK;
}

static svk_status clip(const cpu *c, const svk_plan_op *o)
{
    svk_real *out = F(c, o->clip.output);
    const svk_real *g = F(c, o->clip.grads);
    size_t n = o->clip.n;
    svk_real norm = SVK_REF(global_norm)(1, &g, &n);
    svk_real *scaler = o->clip.scaler != SVK_NONE ? F(c, o->clip.scaler) : NULL;
    /* The device's order (shaders/clip_scale.comp): the norm unscaled,
     * then the clip scale, then its product with 1/S; all exact but the
     * norm's own rounding. */
    if (scaler) {
        /* Past sqrt(FLT_MAX) the device's float sum of squares is +inf
         * (svk_step_finite): so is the norm here, before unscaling can
         * bring it back into range. */
        const float raw = (float)norm;
        if (!isfinite(raw * raw))
            norm = (svk_real)INFINITY;
        norm *= scaler[SVK_LOSS_SCALER_INV];
    }
    out[SVK_OUT_GRAD_NORM] = norm;
    out[SVK_OUT_CLIP_SCALE] = SVK_REF(clip_scale)(norm, c->h ? c->h->max_norm : 0.0f);
    if (scaler) {
        out[SVK_OUT_CLIP_SCALE] *= scaler[SVK_LOSS_SCALER_INV];
        out[SVK_OUT_LOSS_SCALE] = scaler[SVK_LOSS_SCALER_S];
        const float norm_sq = (float)norm * (float)norm;
        SVK_REF(loss_scale_update)(scaler, !isfinite(norm_sq), o->clip.interval);
    }
    return SVK_OK;
}

static svk_status adamw(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_adamw *a = &o->adamw;
    const svk_step_hparams *h = c->h;
    if (!h)
        return svk_error(c->log, SVK_ERROR_INTERNAL, "plan op '%s' needs step hyperparameters", o->label);
    const svk_real *out = F(c, a->output);
    /* A non-finite step leaves p, m and v as they were, as the device does. */
    if (!svk_step_finite((float)out[SVK_OUT_LOSS], (float)out[SVK_OUT_GRAD_NORM]))
        return SVK_OK;
    SVK_REF(adamw)(a->n, F(c, a->p), F(c, a->g), F(c, a->m), F(c, a->v), out[SVK_OUT_CLIP_SCALE], h->lr, h->beta1,
                   h->beta2, h->adam_eps, h->weight_decay, a->decay, h->t);
    return SVK_OK;
}

static svk_status transpose(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_transpose *t = &o->transpose;
    svk_real *dst = F(c, t->dst);
    const svk_real *src = F(c, t->src);
    for (uint64_t r = 0; r < t->rows; r++)
        for (uint64_t k = 0; k < t->cols; k++)
            dst[k * t->rows + r] = src[r * t->cols + k];
    return SVK_OK;
}

static svk_status embed_decode(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_embed_decode *e = &o->embed_decode;
    const int32_t *step = I(c, e->step);
    SVK_REF(embedding_decode)(e->C, e->V, e->ctx, step[0], step[1], F(c, e->wte), F(c, e->wpe), F(c, e->out));
    return SVK_OK;
}

static svk_status attn_decode(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_attn_decode *a = &o->attn_decode;
    SVK_REF(attention_decode)(a->C, a->H, a->ctx, I(c, a->step)[1], a->rope ? (svk_real)a->theta : 0, F(c, a->qkv),
                              F(c, a->cache), F(c, a->out));
    return SVK_OK;
}

/* The codes lie in the packed tensor's memory as uint16 in order: on the
 * float build the device's layout, two to an element. */
static svk_status pack16(const cpu *c, const svk_plan_op *o)
{
    const svk_plan_pack16 *k = &o->pack16;
    uint16_t *codes = k->packed != SVK_NONE ? (uint16_t *)(void *)F(c, k->packed) : NULL;
    if (o->code == SVK_OP_PACK16 && k->scaler != SVK_NONE) {
        /* The loss scale is a power of two: the products are exact. */
        const svk_real s = F(c, k->scaler)[SVK_LOSS_SCALER_S];
        svk_real *x = F(c, k->x);
        for (uint64_t i = 0; i < k->n; i++)
            x[i] *= s;
    }
    if (o->code == SVK_OP_PACK16 && k->codes_only)
        SVK_REF(pack16_codes)(k->n, k->fmt, F(c, k->x), codes);
    else if (o->code == SVK_OP_PACK16)
        SVK_REF(pack16)(k->n, k->fmt, F(c, k->x), codes);
    else
        SVK_REF(unpack16)(k->n, k->fmt, codes, F(c, k->x));
    return SVK_OK;
}

typedef svk_status (*runner)(const cpu *c, const svk_plan_op *o);

static const runner runners[SVK_OP_COUNT_] = {SVK_PLAN_OPS(SVK_PLAN_OP_FN)};

svk_status RUN(svk_log *log, const svk_plan *p, void *const slabs[SVK_SLAB_COUNT], size_t begin, size_t end,
               const svk_step_hparams *h)
{
    cpu c = {log, p, slabs, h, 0};
    for (size_t i = begin; i < end && i < p->n_ops; i++) {
        const svk_plan_op *o = &p->ops[i];
        if ((unsigned)o->code >= SVK_OP_COUNT_ || !runners[o->code])
            return svk_error(log, SVK_ERROR_INTERNAL, "plan op %zu has no code", i);
        c.index = i;
        const svk_status st = runners[o->code](&c, o);
        if (st != SVK_OK)
            return st;
    }
    return SVK_OK;
}
