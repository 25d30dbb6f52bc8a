/* Which elements of which tensors each plan op reads and writes: the one
 * table svk_model_find_nonfinite checks a step against (lib/model/finite.c).
 * One function per op kind, each listing its operands by their names in
 * plan_op.h; the extents follow those definitions and the device
 * operations of backend_vk.c. */
#include "plan.h"

typedef struct builder {
    const svk_plan *p;
    svk_plan_operand *out;
    uint32_t n;
} builder;

/* rows x cols elements of tensor t with stride ld (0: cols), from element
 * offset of it; nothing for an absent tensor. */
static void operand(builder *b, uint32_t t, const char *role, bool read, bool written, uint64_t offset, uint64_t rows,
                uint64_t cols, uint64_t ld)
{
    if (t == SVK_NONE || rows == 0 || cols == 0 || b->n == SVK_PLAN_MAX_OPERANDS)
        return;
    b->out[b->n++] = (svk_plan_operand){
        .tensor = t, .role = role, .read = read, .written = written, .offset = offset,
        .rows = rows, .cols = cols, .ld = ld ? ld : cols,
    };
}

/* n dense elements from the start of t. */
static void dense(builder *b, uint32_t t, const char *role, bool read, bool written, uint64_t n)
{
    operand(b, t, role, read, written, 0, 1, n, 0);
}

/* The whole of t: tensors the op owns outright (parameters, saved
 * statistics), whose extent the op's shape does not spell out. */
static void whole(builder *b, uint32_t t, const char *role, bool read, bool written)
{
    if (t != SVK_NONE)
        dense(b, t, role, read, written, b->p->tensors[t].elems);
}

#define IN true, false
#define OUT false, true
#define INOUT true, true

static void zero(builder *b, const svk_plan_op *o)
{
    dense(b, o->zero.dst, "out", OUT, o->zero.n);
}

static void copy(builder *b, const svk_plan_op *o)
{
    dense(b, o->copy.src, "src", IN, o->copy.n);
    dense(b, o->copy.dst, "dst", OUT, o->copy.n);
}

static void add(builder *b, const svk_plan_op *o)
{
    dense(b, o->add.src, "src", IN, o->add.n);
    dense(b, o->add.dst, "dst", INOUT, o->add.n);
}

/* The tokens and the count of bad ones are integers: not listed. */
static void embed_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_embed_fwd *e = &o->embed_fwd;
    whole(b, e->wte, "wte", IN);
    dense(b, e->wpe, "wpe", IN, e->T * e->C);
    dense(b, e->out, "out", OUT, e->B * e->T * e->C);
}

static void embed_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_embed_bwd *e = &o->embed_bwd;
    dense(b, e->dout, "dout", IN, e->B * e->T * e->C);
    whole(b, e->dwte, "dwte", INOUT);
    dense(b, e->dwpe, "dwpe", INOUT, e->T * e->C);
}

static void norm_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_norm_fwd *n = &o->norm_fwd;
    const uint64_t e = n->shape.rows * n->shape.width;
    dense(b, n->x, "x", IN, e);
    whole(b, n->gamma, "g", IN);
    whole(b, n->beta, "b", IN);
    dense(b, n->out, "out", OUT, e);
    whole(b, n->mean, "mean", OUT);
    whole(b, n->rstd, "rstd", OUT);
}

static void norm_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_norm_bwd *n = &o->norm_bwd;
    const uint64_t e = n->shape.rows * n->shape.width;
    dense(b, n->dout, "dout", IN, e);
    dense(b, n->x, "x", IN, e);
    whole(b, n->mean, "mean", IN);
    whole(b, n->rstd, "rstd", IN);
    whole(b, n->gamma, "g", IN);
    dense(b, n->dx, "dx", OUT, e);
    whole(b, n->dgamma, "dg", INOUT);
    whole(b, n->dbeta, "db", INOUT);
}

/* gamma and beta (and their gradients) are [3, width]: three norms'. */
static void siamese_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_siamese_fwd *n = &o->siamese_fwd;
    const uint64_t e = n->shape.rows * n->shape.width, w3 = 3 * n->shape.width;
    dense(b, n->x, "x", IN, e);
    dense(b, n->y, "y", IN, e);
    dense(b, n->gamma, "g", IN, w3);
    dense(b, n->beta, "b", IN, w3);
    dense(b, n->xn, "xn", OUT, e);
    dense(b, n->h, "h", OUT, e);
    whole(b, n->mean, "mean", OUT);
    whole(b, n->rstd, "rstd", OUT);
}

/* work is scratch: not listed. */
static void siamese_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_siamese_bwd *n = &o->siamese_bwd;
    const uint64_t e = n->shape.rows * n->shape.width, w3 = 3 * n->shape.width;
    dense(b, n->dh, "dh", IN, e);
    dense(b, n->dxn, "dxn", IN, e);
    dense(b, n->dy_in, "dy_in", IN, e);
    dense(b, n->x, "x", IN, e);
    dense(b, n->y, "y", IN, e);
    whole(b, n->mean, "mean", IN);
    whole(b, n->rstd, "rstd", IN);
    dense(b, n->gamma, "g", IN, w3);
    dense(b, n->beta, "b", IN, w3);
    dense(b, n->dx, "dx", OUT, e);
    dense(b, n->dy, "dy", OUT, e);
    dense(b, n->dgamma, "dg", INOUT, w3);
    dense(b, n->dbeta, "db", INOUT, w3);
    if (o->fuse & SVK_FUSE_RESIDUAL_GRAD)
        dense(b, n->dz, "dz", OUT, e);
}

static void sout_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_sout_fwd *n = &o->sout_fwd;
    const uint64_t e = n->shape.rows * n->shape.width, w3 = 3 * n->shape.width;
    dense(b, n->x, "x", IN, e);
    dense(b, n->y, "y", IN, e);
    dense(b, n->gamma, "g", IN, w3);
    dense(b, n->beta, "b", IN, w3);
    dense(b, n->out, "out", OUT, e);
    whole(b, n->mean, "mean", OUT);
    whole(b, n->rstd, "rstd", OUT);
}

static void sout_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_sout_bwd *n = &o->sout_bwd;
    const uint64_t e = n->shape.rows * n->shape.width, w3 = 3 * n->shape.width;
    dense(b, n->dout, "dout", IN, e);
    dense(b, n->x, "x", IN, e);
    dense(b, n->y, "y", IN, e);
    whole(b, n->mean, "mean", IN);
    whole(b, n->rstd, "rstd", IN);
    dense(b, n->gamma, "g", IN, w3);
    dense(b, n->beta, "b", IN, w3);
    dense(b, n->dx, "dx", OUT, e);
    dense(b, n->dy, "dy", OUT, e);
    dense(b, n->dgamma, "dg", INOUT, w3);
    dense(b, n->dbeta, "db", INOUT, w3);
    if (o->fuse & SVK_FUSE_RESIDUAL_GRAD)
        dense(b, n->dz, "dz", OUT, e);
}

/* A [M, K] or, with ta, [K, M]; B [K, N] or, with tb, [N, K]; the
 * fusions' operands are laid out as C. */
static void gemm(builder *b, const svk_plan_op *o)
{
    const svk_plan_gemm *g = &o->gemm;
    const svk_plan_gemm_fused *f = &g->fused;
    const uint64_t M = g->M, N = g->N, K = g->K;
    operand(b, g->a, "A", IN, 0, g->ta ? K : M, g->ta ? M : K, g->ld.a);
    operand(b, g->b, "B", IN, 0, g->tb ? N : K, g->tb ? K : N, g->ld.b);
    dense(b, g->bias, "bias", IN, N);
    if (o->fuse & SVK_FUSE_GELU_BWD)
        operand(b, f->act, "act", IN, 0, M, N, g->ld.c);
    if (o->fuse & (SVK_FUSE_RESIDUAL | SVK_FUSE_DUAL_RESIDUAL))
        operand(b, f->residual, "residual", IN, 0, M, N, g->ld.c);
    const bool c_read = g->beta != 0.0f || (o->fuse & SVK_FUSE_DUAL_RESIDUAL);
    operand(b, g->c, "C", c_read, true, 0, M, N, g->ld.c);
    if (o->fuse & SVK_FUSE_GELU)
        operand(b, f->act, "gelu", OUT, 0, M, N, g->ld.c);
    if (o->fuse & SVK_FUSE_DUAL_RESIDUAL)
        operand(b, f->residual_out, "residual_out", OUT, 0, M, N, g->ld.c);
    if (o->fuse & SVK_FUSE_BIAS_GRAD)
        dense(b, f->dbias, "dbias", INOUT, M);
}

static void rope(builder *b, const svk_plan_op *o)
{
    const svk_plan_rope *r = &o->rope;
    dense(b, r->qkv, "qkv", INOUT, r->B * r->T * 3 * r->C);
}

static void attn_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_attn_fwd *a = &o->attn_fwd;
    dense(b, a->qkv, "qkv", IN, a->B * a->T * 3 * a->C);
    dense(b, a->out, "out", OUT, a->B * a->T * a->C);
    whole(b, a->att, a->flash ? "stats" : "att", OUT);
}

static void attn_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_attn_bwd *a = &o->attn_bwd;
    dense(b, a->dout, "dout", IN, a->B * a->T * a->C);
    dense(b, a->qkv, "qkv", IN, a->B * a->T * 3 * a->C);
    whole(b, a->att, a->flash ? "stats" : "att", IN);
    if (a->flash)
        dense(b, a->out, "out", IN, a->B * a->T * a->C);
    dense(b, a->dqkv, "dqkv", OUT, a->B * a->T * 3 * a->C);
}

static void swiglu_fwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_swiglu_fwd *s = &o->swiglu_fwd;
    dense(b, s->gate, "gate", IN, s->n);
    dense(b, s->up, "up", IN, s->n);
    dense(b, s->out, "out", OUT, s->n);
}

static void swiglu_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_swiglu_bwd *s = &o->swiglu_bwd;
    dense(b, s->gate, "gate", IN, s->n);
    dense(b, s->up, "up", IN, s->n);
    dense(b, s->dout, "dout", IN, s->n);
    dense(b, s->dgate, "dgate", OUT, s->n);
    dense(b, s->dup, "dup", OUT, s->n);
}

static void bias_bwd(builder *b, const svk_plan_op *o)
{
    const svk_plan_bias_bwd *s = &o->bias_bwd;
    operand(b, s->dout, "dout", IN, 0, s->rows, s->N, s->ld);
    dense(b, s->dbias, "dbias", INOUT, s->N);
}

/* The targets are integers: not listed. The step's losses are read whole
 * by the last micro-batch, for the mean. */
static void xent(builder *b, const svk_plan_op *o)
{
    const svk_plan_xent *x = &o->xent;
    dense(b, x->logits, "logits", IN, x->rows * x->V);
    if (x->last)
        dense(b, x->losses, "losses", IN, x->row0);
    dense(b, x->dlogits, "dlogits", OUT, x->rows * x->V);
    if (x->last)
        operand(b, x->output, "loss", OUT, SVK_OUT_LOSS, 1, 1, 0);
    operand(b, x->losses, "losses", OUT, x->row0, 1, x->rows, 0);
}

static void clip(builder *b, const svk_plan_op *o)
{
    dense(b, o->clip.grads, "gradients", IN, o->clip.n);
    whole(b, o->clip.scaler, "loss scaler", INOUT);
    operand(b, o->clip.output, "gradient norm", OUT, SVK_OUT_GRAD_NORM, 1, 2, 0);
    if (o->clip.scaler != SVK_NONE)
        operand(b, o->clip.output, "loss scale", OUT, SVK_OUT_LOSS_SCALE, 1, 1, 0);
}

/* output's clip scale and guards are read too; not listed. */
static void adamw(builder *b, const svk_plan_op *o)
{
    const svk_plan_adamw *a = &o->adamw;
    dense(b, a->g, "g", IN, a->n);
    dense(b, a->p, "p", INOUT, a->n);
    dense(b, a->m, "m", INOUT, a->n);
    dense(b, a->v, "v", INOUT, a->n);
}

static void transpose(builder *b, const svk_plan_op *o)
{
    const svk_plan_transpose *t = &o->transpose;
    dense(b, t->src, "src", IN, t->rows * t->cols);
    dense(b, t->dst, "dst", OUT, t->rows * t->cols);
}

/* The token and position are integers: not listed. */
static void embed_decode(builder *b, const svk_plan_op *o)
{
    const svk_plan_embed_decode *e = &o->embed_decode;
    whole(b, e->wte, "wte", IN);
    whole(b, e->wpe, "wpe", IN);
    dense(b, e->out, "out", OUT, e->C);
}

/* The cache is read up to the position and written at it: all of it is
 * listed, as both. */
static void attn_decode(builder *b, const svk_plan_op *o)
{
    const svk_plan_attn_decode *a = &o->attn_decode;
    dense(b, a->qkv, "qkv", IN, 3 * a->C);
    dense(b, a->cache, "cache", INOUT, a->ctx * 3 * a->C);
    dense(b, a->out, "out", OUT, a->C);
}

typedef void (*lister)(builder *b, const svk_plan_op *o);

/* The codes are not floats: only x is listed. */
static void pack16(builder *b, const svk_plan_op *o)
{
    const svk_plan_pack16 *k = &o->pack16;
    if (o->code == SVK_OP_PACK16)
        operand(b, k->scaler, "loss scale", IN, SVK_LOSS_SCALER_S, 1, 1, 0);
    dense(b, k->x, "x", o->code == SVK_OP_PACK16, o->code == SVK_OP_UNPACK16 || !k->codes_only, k->n);
}

static const lister listers[SVK_OP_COUNT_] = {SVK_PLAN_OPS(SVK_PLAN_OP_FN)};

uint32_t svk_plan_op_operands(const svk_plan *p, const svk_plan_op *o, svk_plan_operand out[SVK_PLAN_MAX_OPERANDS])
{
    builder b = {p, out, 0};
    if ((unsigned)o->code < SVK_OP_COUNT_ && listers[o->code])
        listers[o->code](&b, o);
    return b.n;
}
