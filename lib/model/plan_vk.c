/*
 * Plan ops as device operations: one function per op kind fills its
 * lib/ops arguments from the op's named operands (plan_op.h). Operands in
 * a slab or buffer past one binding are bound through windows
 * (vk_windows.h), and the ops that may span more than a window run in
 * parts that each lie in one.
 */
#include "plan_vk.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
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
#include "ops/pack16.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "ops/siamese_norm.h"
#include "ops/swiglu.h"
#include "ops/transpose.h"
#include "vk/vk_buffer.h"

_Static_assert(SVK_SIAMESE_MEAN_ROWS <= SVK_PLAN_SIAMESE_MEAN_ROWS,
               "the plan's SiameseNorm mean tensors must hold the rows the device kernels keep");

svk_tref svk_plan_vk_at(const svk_plan_vk_rec *r, uint32_t id, uint64_t elem, uint64_t *reach)
{
    const svk_plan_tensor *t = &r->p->tensors[id];
    svk_tref ref;
    switch (t->slab) {
    case SVK_SLAB_ACT:
        if (r->act_win && r->act_win[id].n)
            return svk_vk_windows_at(&r->act_win[id], elem, reach);
        ref = (svk_tref){r->act[id], elem};
        break;
    case SVK_SLAB_INPUT:
        ref = (svk_tref){r->input, t->offset + elem};
        break;
    case SVK_SLAB_OUTPUT:
        ref = (svk_tref){r->output, t->offset + elem};
        break;
    default:
        if (r->win)
            return svk_vk_windows_at(&r->win[t->slab], t->offset + elem, reach);
        ref = (svk_tref){r->slab[t->slab], t->offset + elem};
        break;
    }
    if (reach) {
        const uint64_t elems = ref.buf ? ref.buf->size / 4 : 0;
        *reach = ref.off < elems ? elems - ref.off : 0;
    }
    return ref;
}

svk_tref svk_plan_vk_tensor(const svk_plan_vk_rec *r, uint32_t id)
{
    if (id == SVK_NONE)
        return (svk_tref){NULL, 0};
    return svk_plan_vk_at(r, id, 0, NULL);
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

/* Element elem of tensor id, and how many of the elements up to end one
 * operand reaches from there: all of them unless its slab is windowed. */
static svk_tref part_at(const svk_plan_vk_rec *r, uint32_t id, uint64_t elem, uint64_t end, uint64_t *len)
{
    uint64_t reach;
    const svk_tref t = svk_plan_vk_at(r, id, elem, &reach);
    if (reach < *len)
        *len = reach;
    if (end - elem < *len)
        *len = end - elem;
    return t;
}

static svk_status unreachable(const svk_plan_vk_rec *r, const svk_plan_op *o, uint64_t elem)
{
    return svk_error(r->log, SVK_ERROR_INTERNAL, "plan op '%s': element %llu lies in no window of its slab", o->label,
                     (unsigned long long)elem);
}

/* ZERO, COPY and ADD over [0, n), in parts that each lie in one window. */
static svk_status elementwise(const svk_plan_vk_rec *r, const svk_plan_op *o, uint32_t dst, uint32_t src, uint64_t n)
{
    for (uint64_t e = 0; e < n;) {
        uint64_t len = UINT64_MAX;
        const svk_tref d = part_at(r, dst, e, n, &len);
        const svk_tref s = src != SVK_NONE ? part_at(r, src, e, n, &len) : (svk_tref){NULL, 0};
        if (!len)
            return unreachable(r, o, e);
        const svk_status st = o->code == SVK_OP_ZERO   ? svk_fill_record(r->cl, d, len, 0.0f, o->label)
                              : o->code == SVK_OP_COPY ? svk_copy_record(r->cl, d, s, len, o->label)
                                                       : svk_add_record(r->cl, d, s, len, o->label);
        if (st != SVK_OK)
            return st;
        e += len;
    }
    return SVK_OK;
}

static svk_status zero(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return elementwise(r, o, o->zero.dst, SVK_NONE, o->zero.n);
}

static svk_status copy(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return elementwise(r, o, o->copy.dst, o->copy.src, o->copy.n);
}

static svk_status add(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    return elementwise(r, o, o->add.dst, o->add.src, o->add.n);
}

/* The rows of a [V, C] table that one operand reaches from row row0 (at
 * most V - row0): the parts of a vocabulary table past one binding. */
static uint64_t table_part(const svk_plan_vk_rec *r, uint32_t id, uint64_t row0, uint64_t V, uint64_t C)
{
    uint64_t reach;
    svk_plan_vk_at(r, id, row0 * C, &reach);
    const uint64_t rows = reach / C;
    return rows < V - row0 ? rows : V - row0;
}

/* A table past one binding goes in parts of rows (svk_embedding_fwd_args):
 * out is zeroed first, for the rows of invalid tokens, which no part
 * writes. */
static svk_status embed_fwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_embed_fwd *e = &o->embed_fwd;
    svk_embedding_fwd_args a = {.B = e->B, .T = e->T, .C = e->C, .V = e->V, .tokens = T(e->tokens),
                                .wte = T(e->wte), .wpe = T(e->wpe), .out = T(e->out),
                                .counts = OUT(r, SVK_OUT_VALID_TOKENS), .label = o->label};
    if (table_part(r, e->wte, 0, e->V, e->C) == e->V)
        return svk_embedding_fwd_record(r->cl, &a);
    svk_status st = svk_fill_record(r->cl, a.out, e->B * e->T * e->C, 0.0f, o->label);
    for (uint64_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += a.rows) {
        if (!(a.rows = table_part(r, e->wte, row0, e->V, e->C)))
            return unreachable(r, o, row0 * e->C);
        a.row0 = row0;
        a.wte = svk_plan_vk_at(r, e->wte, row0 * e->C, NULL);
        st = svk_embedding_fwd_record(r->cl, &a);
        a.counts = (svk_tref){NULL, 0}; /* counted once */
    }
    return st;
}

static svk_status embed_bwd(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_embed_bwd *e = &o->embed_bwd;
    svk_embedding_bwd_args a = {.B = e->B, .T = e->T, .C = e->C, .V = e->V, .tokens = T(e->tokens),
                                .dout = T(e->dout), .dwte = T(e->dwte), .dwpe = T(e->dwpe), .label = o->label};
    if (table_part(r, e->dwte, 0, e->V, e->C) == e->V)
        return svk_embedding_bwd_record(r->cl, &a);
    svk_status st = SVK_OK;
    for (uint64_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += a.rows) {
        if (!(a.rows = table_part(r, e->dwte, row0, e->V, e->C)))
            return unreachable(r, o, row0 * e->C);
        a.row0 = row0;
        a.dwte = svk_plan_vk_at(r, e->dwte, row0 * e->C, NULL);
        st = svk_embedding_bwd_record(r->cl, &a);
        a.dwpe = (svk_tref){NULL, 0}; /* added once */
    }
    return st;
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

/* The dimensions of a GEMM, and how an operand lies over them: its rows
 * and columns (DIM_NONE: one row, the bias), its leading dimension. */
enum { DIM_M, DIM_N, DIM_K, DIM_COUNT, DIM_NONE = DIM_COUNT };

typedef struct gemm_operand {
    const char *what;
    uint32_t id;
    int row_dim, col_dim;
    uint64_t ld;
} gemm_operand;

/* A's, B's, C's and the bias's layout (n: 3, or 4 with a bias). */
static uint32_t gemm_operands(const svk_plan_gemm *g, gemm_operand out[4])
{
    /* A leading dimension of 0 is the dense one: the stored columns. */
    out[0] = (gemm_operand){"A", g->a, g->ta ? DIM_K : DIM_M, g->ta ? DIM_M : DIM_K,
                            g->ld.a ? g->ld.a : g->ta ? g->M : g->K};
    out[1] = (gemm_operand){"B", g->b, g->tb ? DIM_N : DIM_K, g->tb ? DIM_K : DIM_N,
                            g->ld.b ? g->ld.b : g->tb ? g->K : g->N};
    out[2] = (gemm_operand){"C", g->c, DIM_M, DIM_N, g->ld.c ? g->ld.c : g->N};
    out[3] = (gemm_operand){"bias", g->bias, DIM_NONE, DIM_N, 0};
    return g->bias != SVK_NONE ? 4 : 3;
}

/* Operand x of the part at start[] of size[]: its first element, and the
 * elements it spans from there. */
static uint64_t operand_first(const gemm_operand *x, const uint64_t start[DIM_COUNT + 1])
{
    return start[x->row_dim] * x->ld + start[x->col_dim];
}

static uint64_t operand_span(const gemm_operand *x, const uint64_t size[DIM_COUNT + 1])
{
    return (size[x->row_dim] - 1) * x->ld + size[x->col_dim];
}

/* Records the GEMM's part at start[] of size[] (the whole product: zeros
 * and its shape). A part past the first along K adds into C. */
static svk_status gemm_part(const svk_plan_vk_rec *r, const svk_plan_op *o, const uint64_t start[DIM_COUNT + 1],
                            const uint64_t size[DIM_COUNT + 1])
{
    const svk_plan_gemm *pg = &o->gemm;
    gemm_operand x[4];
    const uint32_t n = gemm_operands(pg, x);
    svk_tref ref[4] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
    for (uint32_t i = 0; i < n; i++)
        ref[i] = svk_plan_vk_at(r, x[i].id, operand_first(&x[i], start), NULL);
    svk_gemm_args g = gemm_shape(o);
    g.shape.M = (uint32_t)size[DIM_M], g.shape.N = (uint32_t)size[DIM_N], g.shape.K = (uint32_t)size[DIM_K];
    if (start[DIM_K])
        g.beta = 1.0f;
    g.a.buf = ref[0].buf, g.b.buf = ref[1].buf, g.c.buf = ref[2].buf, g.bias = ref[3];
    g.a.off = ref[0].off, g.b.off = ref[1].off, g.c.off = ref[2].off;
    /* A part's rows keep the whole operand's stride. */
    g.a.ld = (uint32_t)x[0].ld, g.b.ld = (uint32_t)x[1].ld, g.c.ld = (uint32_t)x[2].ld;
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

/* The device's binding range, for messages. */
static uint64_t binding_range(const svk_plan_vk_rec *r)
{
    return svk_buffer_max_size(r->scratch->ctx, NULL);
}

/* The GEMM over start[], size[]: recorded as it is where every operand
 * lies in one binding; otherwise cut along the stored rows of the first
 * that does not (the rows one binding holds from its first), each part in
 * turn the same way. M and N parts write their own block of C; K parts add
 * into it, after the first. */
static svk_status gemm_range(const svk_plan_vk_rec *r, const svk_plan_op *o, const uint64_t start[DIM_COUNT + 1],
                             const uint64_t size[DIM_COUNT + 1], int depth)
{
    gemm_operand x[4];
    const uint32_t n = gemm_operands(&o->gemm, x);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t reach;
        svk_plan_vk_at(r, x[i].id, operand_first(&x[i], start), &reach);
        if (operand_span(&x[i], size) <= reach)
            continue;
        const int d = x[i].row_dim == DIM_NONE ? x[i].col_dim : x[i].row_dim;
        if (depth > 8 || (o->fuse || o->gemm.bias != SVK_NONE))
            return svk_error(r->log, SVK_ERROR_TOO_LARGE,
                             "plan op '%s': operand %s spans %llu bytes, past the device's binding range (%llu "
                             "bytes), and %s",
                             o->label, x[i].what, (unsigned long long)operand_span(&x[i], size) * 4,
                             (unsigned long long)binding_range(r),
                             depth > 8 ? "its parts would not fit either" : "a GEMM with a fused epilogue or bias is "
                                                                           "not split");
        uint64_t sub_start[DIM_COUNT + 1], sub_size[DIM_COUNT + 1];
        memcpy(sub_start, start, sizeof(sub_start));
        memcpy(sub_size, size, sizeof(sub_size));
        for (uint64_t pos = start[d], end = start[d] + size[d]; pos < end;) {
            sub_start[d] = pos;
            sub_size[d] = 1;
            svk_plan_vk_at(r, x[i].id, operand_first(&x[i], sub_start), &reach);
            const uint64_t least = operand_span(&x[i], sub_size);
            uint64_t len = reach < least ? 0 : x[i].row_dim == DIM_NONE ? reach - least + 1 : (reach - least) / x[i].ld + 1;
            if (len > end - pos)
                len = end - pos;
            if (!len)
                return svk_error(r->log, SVK_ERROR_TOO_LARGE,
                                 "plan op '%s': one binding (%llu bytes) cannot hold one row of operand %s", o->label,
                                 (unsigned long long)binding_range(r), x[i].what);
            sub_size[d] = len;
            const svk_status st = gemm_range(r, o, sub_start, sub_size, depth + 1);
            if (st != SVK_OK)
                return st;
            pos += len;
        }
        return SVK_OK;
    }
    return gemm_part(r, o, start, size);
}

/* A GEMM whose operands each lie within one binding runs as it is; one
 * with an operand past it (the vocabulary table, or the logits, in a
 * windowed slab or buffer) runs in parts (gemm_range). A fused epilogue or
 * bias gradient reads whole rows, so such a GEMM is refused instead. */
static svk_status gemm(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_gemm *pg = &o->gemm;
    const uint64_t start[DIM_COUNT + 1] = {0, 0, 0, 0}, full[DIM_COUNT + 1] = {pg->M, pg->N, pg->K, 1};
    return gemm_range(r, o, start, full, 0);
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
    svk_decode_embed_args a = {.C = (uint32_t)e->C, .V = (uint32_t)e->V, .ctx = (uint32_t)e->ctx,
                               .step = T(e->step), .wte = T(e->wte), .wpe = T(e->wpe), .out = T(e->out),
                               .label = o->label};
    if (table_part(r, e->wte, 0, e->V, e->C) == e->V)
        return svk_decode_embed_record(r->cl, &a);
    svk_status st = svk_fill_record(r->cl, a.out, e->C, 0.0f, o->label);
    for (uint64_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += a.rows) {
        if (!(a.rows = (uint32_t)table_part(r, e->wte, row0, e->V, e->C)))
            return unreachable(r, o, row0 * e->C);
        a.row0 = (uint32_t)row0;
        a.wte = svk_plan_vk_at(r, e->wte, row0 * e->C, NULL);
        st = svk_decode_embed_record(r->cl, &a);
    }
    return st;
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

/* Logits past one binding go in parts of rows: the first counts the
 * step's targets (if this op does), the last takes the step's mean (if
 * this op does). */
static svk_status xent(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_xent *x = &o->xent;
    svk_tref losses = T(x->losses);
    const svk_tref step_losses = losses;
    svk_cross_entropy_args a = {
        .V = x->V, .targets = T(x->targets), .counts = OUT(r, SVK_OUT_VALID_TARGETS), .loss = OUT(r, SVK_OUT_LOSS),
        .step = {.rows = x->step_rows, .targets = T(x->step_targets), .losses = step_losses},
        .label = o->label,
    };
    const svk_tref targets = a.targets;
    for (uint64_t row = 0; row < x->rows;) {
        uint64_t reach_l, reach_d = UINT64_MAX;
        a.logits = svk_plan_vk_at(r, x->logits, row * x->V, &reach_l);
        if (x->dlogits != SVK_NONE)
            a.dlogits = svk_plan_vk_at(r, x->dlogits, row * x->V, &reach_d);
        uint64_t rows = (reach_l < reach_d ? reach_l : reach_d) / x->V;
        if (rows > x->rows - row)
            rows = x->rows - row;
        if (!rows)
            return unreachable(r, o, row * x->V);
        a.rows = rows;
        a.targets = (svk_tref){targets.buf, targets.off + row};
        a.losses = (svk_tref){losses.buf, losses.off + x->row0 + row};
        a.step.count = x->first && row == 0;
        a.step.mean = x->last && row + rows == x->rows;
        const svk_status st = svk_cross_entropy_record(r->cl, &a);
        if (st != SVK_OK)
            return st;
        row += rows;
    }
    return SVK_OK;
}

/* The parts of [0, n) of tensor id (and of the tensors at its offset in
 * the other parameter-shaped slabs, laid out alike) that each lie in one
 * window: their starts into start[] (up to cap; NULL: only counted).
 * Returns their number, 0 if an element lies in no window. */
static uint64_t sweep_parts(const svk_plan_vk_rec *r, uint32_t id, uint64_t n, uint64_t *start, uint64_t *len,
                            uint64_t cap)
{
    uint64_t k = 0;
    for (uint64_t e = 0; e < n; k++) {
        uint64_t l = UINT64_MAX;
        part_at(r, id, e, n, &l);
        if (!l)
            return 0;
        if (start && k < cap)
            start[k] = e, len[k] = l;
        e += l;
    }
    return k;
}

bool svk_plan_vk_splits(const svk_plan *p, uint32_t id)
{
    for (size_t k = 0; k < p->n_ops; k++) {
        const svk_plan_op *o = &p->ops[k];
        svk_plan_operand ops[SVK_PLAN_MAX_OPERANDS];
        const uint32_t n = svk_plan_op_operands(p, o, ops);
        bool uses = false;
        for (uint32_t i = 0; i < n; i++)
            uses = uses || ops[i].tensor == id;
        const bool splits = o->code == SVK_OP_XENT || o->code == SVK_OP_ZERO || o->code == SVK_OP_COPY ||
                            o->code == SVK_OP_ADD ||
                            (o->code == SVK_OP_GEMM && !o->fuse && o->gemm.bias == SVK_NONE);
        if (uses && !splits)
            return false;
    }
    return true;
}

uint64_t svk_plan_vk_clip_partials_elems(svk_ctx *ctx, const svk_plan *p)
{
    const uint64_t n = p->slab_elems[SVK_SLAB_GRAD];
    const uint64_t stride = svk_vk_windows_stride(ctx, n * 4);
    uint64_t total = 0;
    for (uint64_t e = 0; e < n;) {
        const uint64_t l = svk_vk_windows_piece(stride, e, n);
        total += svk_clip_slots(l);
        e += l;
    }
    return total ? total : 1;
}

static svk_status clip(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const uint64_t parts = sweep_parts(r, o->clip.grads, o->clip.n, NULL, NULL, 0);
    if (!parts)
        return unreachable(r, o, 0);
    /* A slab bound whole is one part, a windowed one a few per window:
     * the stack holds them but for the largest models, and a recording
     * then makes no host allocation here. */
    enum { ON_STACK = 64 };
    svk_tref g_stack[ON_STACK];
    uint64_t start_stack[ON_STACK], len_stack[ON_STACK];
    const bool heap = parts > ON_STACK;
    svk_tref *g = heap ? svk_calloc(parts, sizeof(*g)) : g_stack;
    uint64_t *start = heap ? svk_calloc(parts, sizeof(*start)) : start_stack;
    uint64_t *len = heap ? svk_calloc(parts, sizeof(*len)) : len_stack;
    svk_status st = SVK_OK;
    if (!g || !start || !len) {
        st = svk_error(r->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording '%s'", o->label);
    } else {
        sweep_parts(r, o->clip.grads, o->clip.n, start, len, parts);
        for (uint64_t k = 0; k < parts; k++)
            g[k] = svk_plan_vk_at(r, o->clip.grads, start[k], NULL);
        const svk_clip_args a = {.count = (uint32_t)parts, .grads = g, .sizes = len,
                                 .partials = (svk_tref){r->clip_partials, 0}, .max_norm = r->opt->max_norm,
                                 .out = OUT(r, SVK_OUT_GRAD_NORM), .state = T(o->clip.scaler),
                                 .out_scale = o->clip.scaler != SVK_NONE ? OUT(r, SVK_OUT_LOSS_SCALE) : (svk_tref){0},
                                 .interval = o->clip.interval, .label = o->label};
        st = svk_clip_record(r->cl, &a);
    }
    if (heap) {
        free(g);
        free(start);
        free(len);
    }
    return st;
}

static svk_status adamw(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_adamw *p = &o->adamw;
    const svk_optimizer *opt = r->opt;
    svk_adamw_args a = {
        .scale = OUT(r, SVK_OUT_CLIP_SCALE), .step = (svk_tref){r->step, 0},
        .guard = OUT(r, SVK_OUT_LOSS), /* loss, then the norm: SVK_OUT_GRAD_NORM follows */
        .prev_guard = PREV_OUT(r, SVK_OUT_LOSS),
        .beta1 = opt->beta1, .beta2 = opt->beta2, .eps = opt->eps, .weight_decay = opt->weight_decay,
        .decay = p->decay, .label = o->label,
    };
    /* The four slabs are laid out alike: one part covers all four. */
    for (uint64_t e = 0; e < p->n;) {
        uint64_t len = UINT64_MAX;
        a.p = part_at(r, p->p, e, p->n, &len);
        a.g = part_at(r, p->g, e, p->n, &len);
        a.m = part_at(r, p->m, e, p->n, &len);
        a.v = part_at(r, p->v, e, p->n, &len);
        if (!len)
            return unreachable(r, o, e);
        a.n = len;
        const svk_status st = svk_adamw_record(r->cl, &a);
        if (st != SVK_OK)
            return st;
        e += len;
    }
    return SVK_OK;
}

static svk_status pack16(const svk_plan_vk_rec *r, const svk_plan_op *o)
{
    const svk_plan_pack16 *k = &o->pack16;
    svk_pack16_args a = {.n = k->n, .fmt = k->fmt, .x = T(k->x), .packed = T(k->packed),
                         .codes_only = k->codes_only, .label = o->label};
    if (k->scaler != SVK_NONE)
        a.scale = svk_plan_vk_at(r, k->scaler, SVK_LOSS_SCALER_S, NULL);
    return o->code == SVK_OP_PACK16 ? svk_pack16_record(r->cl, &a) : svk_unpack16_record(r->cl, &a);
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
