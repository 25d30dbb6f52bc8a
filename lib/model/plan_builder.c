/* The pieces a plan is built from (plan_builder.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "plan_builder.h"

/* A new tensor entry named by fmt and ap, its offset not yet set; NULL
 * when out of memory. */
static svk_plan_tensor *append_tensor(svk_pb *b, svk_slab slab, uint64_t elems, int32_t param, const char *fmt,
                                      va_list ap)
{
    svk_plan *p = b->p;
    if (p->n_tensors == b->cap_t) {
        size_t cap = b->cap_t ? 2 * b->cap_t : 256;
        svk_plan_tensor *nt = svk_realloc(p->tensors, cap * sizeof(*nt));
        if (!nt) {
            b->oom = true;
            return NULL;
        }
        p->tensors = nt;
        b->cap_t = cap;
    }
    svk_plan_tensor *t = &p->tensors[p->n_tensors];
    memset(t, 0, sizeof(*t));
    /* The one-token forward's tensors (plan_decode.c) are named apart from
     * the window's, which the block builders name alike. */
    const int lead = b->decoding ? snprintf(t->name, sizeof(t->name), "decode.") : 0;
    vsnprintf(t->name + lead, sizeof(t->name) - (size_t)lead, fmt, ap);
    t->slab = slab;
    t->elems = elems;
    t->param = param;
    return t;
}

uint32_t svk_pb_tensor(svk_pb *b, svk_slab slab, uint64_t elems, int32_t param, const char *fmt, ...)
{
    svk_plan *p = b->p;
    va_list ap;
    va_start(ap, fmt);
    svk_plan_tensor *t = append_tensor(b, slab, elems, param, fmt, ap);
    va_end(ap);
    if (!t)
        return SVK_NONE;
    /* Back to back, no padding: a group of norms listed together (params.c)
     * must stay one contiguous [3, C] array. Kernels address elements
     * through offsets in their push constants, so no alignment is needed. */
    t->offset = p->slab_elems[slab];
    /* Backends take bytes = 4 * elements of a slab: that must fit too. */
    if (!svk_add_u64(p->slab_elems[slab], elems, &p->slab_elems[slab]) || p->slab_elems[slab] > UINT64_MAX / 4)
        b->overflow = b->overflow ? b->overflow : (int)slab + 1;
    return (uint32_t)p->n_tensors++;
}

uint32_t svk_pb_view(svk_pb *b, uint32_t base, uint64_t offset, uint64_t elems, const char *fmt, ...)
{
    if (base == SVK_NONE)
        return SVK_NONE;
    const svk_plan_tensor bt = b->p->tensors[base]; /* append_tensor may move the array */
    va_list ap;
    va_start(ap, fmt);
    svk_plan_tensor *t = append_tensor(b, bt.slab, elems, -1, fmt, ap);
    va_end(ap);
    if (!t)
        return SVK_NONE;
    t->offset = bt.offset + offset;
    return (uint32_t)b->p->n_tensors++;
}

svk_plan_op *svk_pb_op(svk_pb *b, svk_plan_opcode code, const char *fmt, ...)
{
    svk_plan *p = b->p;
    if (p->n_ops == b->cap_o) {
        size_t cap = b->cap_o ? 2 * b->cap_o : 512;
        svk_plan_op *no = svk_realloc(p->ops, cap * sizeof(*no));
        if (!no) {
            b->oom = true;
            return &b->sink;
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

bool svk_pb_index_params(svk_pb *b)
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

uint32_t svk_pb_param(svk_pb *b, svk_slab slab, const char *fmt, ...)
{
    char name[SVK_PARAM_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    for (size_t at = (size_t)name_hash(name) & b->mask; b->slots[at] != SVK_NONE; at = (at + 1) & b->mask)
        if (!strcmp(b->p->params[b->slots[at]].name, name))
            return svk_plan_param_tensor(b->p, b->slots[at], slab);
    return SVK_NONE;
}

svk_plan_op *svk_pb_gemm(svk_pb *b, const char *label, uint32_t c, uint32_t a, uint32_t bm, uint32_t bias, bool ta,
                         bool tb, uint64_t M, uint64_t N, uint64_t K, float beta)
{
    svk_plan_op *o = svk_pb_op(b, SVK_OP_GEMM, "%s", label);
    o->gemm = (svk_plan_gemm){
        .c = c, .a = a, .b = bm, .bias = bias, .M = M, .N = N, .K = K, .ta = ta, .tb = tb, .alpha = 1.0f,
        .beta = beta, .fused = {.act = SVK_NONE, .residual = SVK_NONE, .residual_out = SVK_NONE, .dbias = SVK_NONE},
    };
    return o;
}

svk_plan_op *svk_pb_linear_fwd(svk_pb *b, const char *name, uint32_t y, uint32_t x, uint64_t rows, uint64_t out,
                               uint64_t in)
{
    const uint32_t w = svk_pb_param(b, SVK_SLAB_PARAM, "%s.weight", name);
    const uint32_t bias = svk_pb_param(b, SVK_SLAB_PARAM, "%s.bias", name);
    if (b->wt == SVK_NONE)
        return svk_pb_gemm(b, name, y, x, w, bias, false, true, rows, out, in, 0.0f);
    svk_plan_op *o = svk_pb_op(b, SVK_OP_TRANSPOSE, "%s.wt", name);
    o->transpose = (svk_plan_transpose){.dst = b->wt, .src = w, .rows = out, .cols = in};
    return svk_pb_gemm(b, name, y, x, b->wt, bias, false, false, rows, out, in, 0.0f);
}

void svk_pb_linear_bwd(svk_pb *b, const char *name, const svk_pb_linear_grad *g, uint64_t rows, uint64_t out,
                       uint64_t in)
{
    char label[64];
    if (g->dx != SVK_NONE) {
        snprintf(label, sizeof(label), "%s.dx", name);
        svk_plan_op *o = svk_pb_gemm(b, label, g->dx, g->dy, svk_pb_param(b, SVK_SLAB_PARAM, "%s.weight", name),
                                     SVK_NONE, false, false, rows, in, out, g->accumulate ? 1.0f : 0.0f);
        o->gemm.ld.a = g->ld_out, o->gemm.ld.c = g->ld_in;
        if (g->gelu_in != SVK_NONE) {
            o->fuse |= SVK_FUSE_GELU_BWD;
            o->gemm.fused.act = g->gelu_in;
        }
    }
    snprintf(label, sizeof(label), "%s.dW", name);
    svk_plan_op *o = svk_pb_gemm(b, label, svk_pb_param(b, SVK_SLAB_GRAD, "%s.weight", name), g->dy, g->x, SVK_NONE,
                                 true, false, out, in, rows, 1.0f);
    o->gemm.ld.a = g->ld_out, o->gemm.ld.b = g->ld_in;
    const uint32_t db = svk_pb_param(b, SVK_SLAB_GRAD, "%s.bias", name);
    if (db != SVK_NONE && !b->bias_grad_apart) {
        /* db's column sums of dy in the pass dW's product makes over dy. */
        o->fuse |= SVK_FUSE_BIAS_GRAD;
        o->gemm.fused.dbias = db;
    } else if (db != SVK_NONE) {
        o = svk_pb_op(b, SVK_OP_BIAS_BWD, "%s.db", name);
        o->bias_bwd = (svk_plan_bias_bwd){.dbias = db, .dout = g->dy, .rows = rows, .N = out, .ld = g->ld_out};
    }
}

void svk_pb_norm_fwd(svk_pb *b, const char *name, uint32_t out, uint32_t mean, uint32_t rstd, uint32_t x)
{
    svk_plan_op *o = svk_pb_op(b, SVK_OP_NORM_FWD, "%s", name);
    o->norm_fwd = (svk_plan_norm_fwd){
        .shape = {b->d.N, b->d.C, b->p->config.norm == SVK_NORM_RMSNORM}, .out = out, .mean = mean, .rstd = rstd,
        .x = x, .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "%s.weight", name),
        .beta = svk_pb_param(b, SVK_SLAB_PARAM, "%s.bias", name),
    };
}

void svk_pb_norm_bwd(svk_pb *b, const char *name, uint32_t dx, uint32_t dout, uint32_t x, uint32_t mean,
                     uint32_t rstd)
{
    svk_plan_op *o = svk_pb_op(b, SVK_OP_NORM_BWD, "%s.bwd", name);
    o->norm_bwd = (svk_plan_norm_bwd){
        .shape = {b->d.N, b->d.C, b->p->config.norm == SVK_NORM_RMSNORM}, .dx = dx,
        .dgamma = svk_pb_param(b, SVK_SLAB_GRAD, "%s.weight", name),
        .dbeta = svk_pb_param(b, SVK_SLAB_GRAD, "%s.bias", name), .dout = dout, .x = x, .mean = mean, .rstd = rstd,
        .gamma = svk_pb_param(b, SVK_SLAB_PARAM, "%s.weight", name),
    };
}

void svk_pb_elementwise(svk_pb *b, svk_plan_opcode code, const char *label, uint32_t dst, uint32_t src, uint64_t n)
{
    svk_plan_op *o = svk_pb_op(b, code, "%s", label);
    o->copy = (svk_plan_elementwise){.dst = dst, .src = src, .n = n};
}
