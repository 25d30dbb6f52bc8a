/*
 * The Vulkan backend: the plan's tensors in device buffers, its op ranges
 * recorded once per batch shape into command lists that every step
 * replays. Per step the host writes only the tokens, the targets and five
 * numbers (learning rate and AdamW's bias corrections) into mapped memory.
 *
 * Double buffering: the inputs, the outputs and the step's numbers exist
 * twice (parities 0 and 1), each op range is recorded once per parity, and
 * a training step submitted while the previous one still runs takes the
 * other parity, so the host writes step n + 1's batch while the device runs
 * step n and the queue never waits for the host. Step n + 1's AdamW reads
 * step n's outputs to learn whether n was applied (its update count; see
 * svk_adamw_args.prev_guard). The lists' leading barrier
 * (svk_cmdlist_begin) orders each step after the one before it on the queue.
 *
 * Buffers: the parameter, gradient and moment slabs are one buffer each
 * (the gradient zeroing and norm run over the whole slab; SiameseNorm's
 * [3, C] gain groups are contiguous in it); every activation is a buffer of
 * its own, so no single binding has to span them all; inputs, outputs and
 * the step's numbers are host-mapped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "model.h"
#include "ops/adamw.h"
#include "ops/attention.h"
#include "ops/bias.h"
#include "ops/clip.h"
#include "ops/colsum.h"
#include "ops/copy.h"
#include "ops/cross_entropy.h"
#include "ops/embedding.h"
#include "ops/finite_check.h"
#include "ops/gemm.h"
#include "ops/layernorm.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "ops/siamese_norm.h"
#include "ops/swiglu.h"
#include "ops/transpose.h"
#include "vk/buffer.h"
#include "vk/context.h"

/* A recorded range of the plan, for one parity of the double-buffered
 * inputs and outputs. */
typedef struct vk_list {
    size_t begin, end;
    int parity;
    svk_cmdlist *cl;
} vk_list;

#define MAX_LISTS 8

typedef struct vk_state {
    svk_buffer *slab[SVK_SLAB_COUNT];   /* ACT: unused (per-tensor buffers) */
    uint64_t slab_elems[SVK_SLAB_COUNT];
    svk_buffer **act;                   /* [n_tensors]: ACT tensors' buffers */
    size_t n_act;
    svk_buffer *scratch, *clip_partials, *losses;
    svk_buffer *alt[2];                 /* parity 1's inputs and outputs (parity 0's: slab[]) */
    svk_buffer *hparams[2];             /* the step's numbers, by parity */
    vk_list lists[MAX_LISTS];
    svk_cmdlist *external;              /* a step recorded into the app's command buffer (parity 0) */
    svk_cmdlist *inflight[2];           /* by parity: submitted, not yet waited for */
    int cur;                            /* the parity of the latest run: its outputs are the model's */
    bool shape_ready;                   /* the current plan's buffers all exist */
} vk_state;

/* Frees the buffers of the current shape, after one wait for the queue
 * (svk_buffer_wait_unused): not one per buffer. */
static void free_shape(svk_ctx *ctx, vk_state *s)
{
    for (int i = 0; i < MAX_LISTS; i++)
        svk_cmdlist_destroy(&s->lists[i].cl);
    svk_cmdlist_destroy(&s->external);
    s->inflight[0] = s->inflight[1] = NULL;
    s->cur = 0;
    svk_buffer_wait_unused(ctx, "freeing the model's buffers");
    for (size_t i = 0; i < s->n_act; i++)
        svk_buffer_release(&s->act[i]);
    free(s->act);
    s->act = NULL;
    s->n_act = 0;
    svk_buffer_release(&s->scratch);
    svk_buffer_release(&s->clip_partials);
    svk_buffer_release(&s->losses);
    svk_buffer_release(&s->alt[0]);
    svk_buffer_release(&s->alt[1]);
    s->shape_ready = false;
    for (int k = SVK_SLAB_ACT; k < SVK_SLAB_COUNT; k++) {
        svk_buffer_release(&s->slab[k]);
        s->slab_elems[k] = 0;
    }
}

static void destroy(svk_model *m)
{
    vk_state *s = m->backend;
    if (!s)
        return;
    free_shape(m->ctx, s); /* the queue is idle from here on */
    for (int k = 0; k < SVK_SLAB_ACT; k++)
        svk_buffer_release(&s->slab[k]);
    svk_buffer_release(&s->hparams[0]);
    svk_buffer_release(&s->hparams[1]);
    free(s);
    m->backend = NULL;
}

/* A plan GEMM's shape, factors and epilogue, without its operands: what
 * sizes its split-K scratch (scratch_elems) and what record_op completes. */
static svk_gemm_args plan_gemm(const svk_plan_op *o)
{
    const uint32_t epi = o->flags & (SVK_FLAG_GELU | SVK_FLAG_GELU_BWD | SVK_FLAG_RESIDUAL | SVK_FLAG_DUAL_RESIDUAL);
    return (svk_gemm_args){
        .trans_a = (o->flags & SVK_FLAG_TA) != 0, .trans_b = (o->flags & SVK_FLAG_TB) != 0,
        .M = (uint32_t)o->dims[0], .N = (uint32_t)o->dims[1], .K = (uint32_t)o->dims[2], .batch = 1,
        .lda = (uint32_t)o->ld[0], .ldb = (uint32_t)o->ld[1], .ldc = (uint32_t)o->ld[2],
        .alpha = o->f[0], .beta = o->f[1],
        .epilogue = epi == 0                     ? SVK_GEMM_EPILOGUE_NONE
                    : epi == SVK_FLAG_GELU       ? SVK_GEMM_EPILOGUE_GELU
                    : epi == SVK_FLAG_GELU_BWD   ? SVK_GEMM_EPILOGUE_GELU_BWD
                    : epi == SVK_FLAG_RESIDUAL   ? SVK_GEMM_EPILOGUE_RESIDUAL
                                                 : SVK_GEMM_EPILOGUE_DUAL_RESIDUAL,
        .res_c = o->f[2],
    };
}

/* Whether op i + 1 of p (i + 1 < end) is the bias gradient of op i, a
 * Linear's weight gradient (plan.c's linear_bwd: dW += dy^T x, then
 * db += colsum(dy)): the GEMM then adds the column sums itself
 * (svk_gemm_args.sum_a; on CPU devices in its k loop, a pass over dy and
 * two dispatches fewer), and op i + 1 records nothing. */
static bool bias_in_gemm(const svk_plan *p, size_t i, size_t end)
{
    if (i + 1 >= end)
        return false;
    const svk_plan_op *g = &p->ops[i], *b = &p->ops[i + 1];
    return g->code == SVK_OP_GEMM && b->code == SVK_OP_BIAS_BWD && g->flags == SVK_FLAG_TA &&
           g->t[3] == SVK_NONE && g->t[1] == b->t[1] && g->dims[2] == b->dims[0] && g->dims[0] == b->dims[1] &&
           g->ld[0] == b->ld[0];
}

/* The scratch floats the largest op of the plan needs on ctx's device. */
static uint64_t scratch_elems(svk_ctx *ctx, const svk_plan *p)
{
    uint64_t need = 1;
    for (size_t i = 0; i < p->n_ops; i++) {
        const svk_plan_op *o = &p->ops[i];
        const uint64_t *d = o->dims;
        uint64_t n = 0;
        svk_norm_kind kind = (o->flags & SVK_FLAG_RMS) ? SVK_NORM_RMSNORM : SVK_NORM_LAYERNORM;
        switch (o->code) {
        case SVK_OP_NORM_BWD:
            n = kind == SVK_NORM_RMSNORM ? svk_rmsnorm_bwd_scratch_elems((uint32_t)d[0], (uint32_t)d[1])
                                         : svk_layernorm_bwd_scratch_elems((uint32_t)d[0], (uint32_t)d[1]);
            break;
        case SVK_OP_SIAMESE_BWD:
        case SVK_OP_SOUT_BWD:
            n = svk_siamese_norm_bwd_scratch_elems(kind, (uint32_t)d[0], (uint32_t)d[1]);
            break;
        case SVK_OP_ATTN_BWD:
            n = (o->flags & SVK_FLAG_FLASH)
                    ? svk_attention_flash_scratch_elems((uint32_t)d[0], (uint32_t)d[1], (uint32_t)d[3])
                    : svk_attention_scratch_elems((uint32_t)d[0], (uint32_t)d[1], (uint32_t)d[3]);
            break;
        case SVK_OP_BIAS_BWD:
            n = svk_colsum_scratch_elems(d[0], d[1]);
            break;
        case SVK_OP_GEMM: {
            /* Split-K's partials, where the GEMM would split (gemm_split.h),
             * or the CPU texel form's packed operands (gemm_pack.h); a bias
             * (t[3]) never splits, but plan_gemm has no buffer to say so. */
            const svk_gemm_args g = plan_gemm(o);
            n = o->t[3] != SVK_NONE ? svk_gemm_pack_scratch_elems(ctx, &g) : svk_gemm_scratch_elems(ctx, &g);
            break;
        }
        default:
            break;
        }
        if (n > need)
            need = n;
    }
    return need;
}

static const char *const slab_names[SVK_SLAB_COUNT] = {"params", "grads", "adam_m", "adam_v", "act", "inputs",
                                                       "outputs"};

/* Room shape_requests needs. */
static size_t max_requests(const svk_plan *p)
{
    return p->n_tensors + SVK_SLAB_COUNT + 4;
}

/* The one list of the buffers plan p needs that the model does not have:
 * check_fit sizes it up before anything changes, alloc_shape creates it.
 * Fills req (and dest, where each buffer goes, unless NULL) and the bytes
 * of the current buffers that free_shape and alloc_shape would free, by
 * pool; note receives the parameter slabs' note. Returns the number of
 * requests (at most max_requests(p)). */
static size_t shape_requests(svk_ctx *ctx, vk_state *s, const svk_plan *p, svk_buffer_request *req, svk_buffer ***dest,
                             char note[160], uint64_t released[SVK_POOL_COUNT])
{
    size_t n = 0;
    const svk_buffer *freed[5] = {s->scratch, s->clip_partials, s->losses, s->alt[0], s->alt[1]};
    memset(released, 0, SVK_POOL_COUNT * sizeof(released[0]));
    for (size_t i = 0; i < s->n_act; i++)
        if (s->act[i])
            released[s->act[i]->alloc.pool] += s->act[i]->alloc.size;
    for (int i = 0; i < 5; i++)
        if (freed[i])
            released[freed[i]->alloc.pool] += freed[i]->alloc.size;
#define ADD(dst, name_, note_, bytes, memory_)                                                   \
    do {                                                                                         \
        req[n] = (svk_buffer_request){(name_), (note_), (bytes), (memory_)};                     \
        if (dest)                                                                                \
            dest[n] = (dst);                                                                     \
        n++;                                                                                     \
    } while (0)
    /* A parameter-shaped slab is one buffer, so a model can be too large
     * for a binding with no one tensor that is: the note names the largest. */
    size_t largest = 0;
    for (size_t i = 1; i < p->n_params; i++)
        if (p->params[i].elems > p->params[largest].elems)
            largest = i;
    snprintf(note, 160, " (all %zu parameter tensors; the largest, '%s', is %llu bytes)", p->n_params,
             p->n_params ? p->params[largest].name : "",
             p->n_params ? (unsigned long long)p->params[largest].elems * 4 : 0ull);
    for (int k = 0; k < SVK_SLAB_COUNT; k++) {
        /* The parameter-shaped slabs keep their contents across shapes. */
        if (k == SVK_SLAB_ACT || (k < SVK_SLAB_ACT && s->slab[k] && s->slab_elems[k] == p->slab_elems[k]))
            continue;
        if (s->slab[k])
            released[s->slab[k]->alloc.pool] += s->slab[k]->alloc.size;
        ADD(&s->slab[k], slab_names[k], k < SVK_SLAB_ACT ? note : NULL, (p->slab_elems[k] ? p->slab_elems[k] : 1) * 4,
            k >= SVK_SLAB_INPUT ? SVK_MEMORY_HOST_MAPPED : SVK_MEMORY_DEVICE);
    }
    /* Parity 1's inputs and outputs (free_shape frees both parities). */
    ADD(&s->alt[0], "inputs.1", NULL, (p->slab_elems[SVK_SLAB_INPUT] ? p->slab_elems[SVK_SLAB_INPUT] : 1) * 4,
        SVK_MEMORY_HOST_MAPPED);
    ADD(&s->alt[1], "outputs.1", NULL, (p->slab_elems[SVK_SLAB_OUTPUT] ? p->slab_elems[SVK_SLAB_OUTPUT] : 1) * 4,
        SVK_MEMORY_HOST_MAPPED);
    for (int q = 0; q < 2; q++)
        if (!s->hparams[q])
            ADD(&s->hparams[q], q ? "step.1" : "step", NULL, 5 * 4, SVK_MEMORY_HOST_MAPPED);
    for (size_t i = 0; i < p->n_tensors; i++)
        if (p->tensors[i].slab == SVK_SLAB_ACT)
            ADD(dest ? &s->act[i] : NULL, p->tensors[i].name, NULL,
                (p->tensors[i].elems ? p->tensors[i].elems : 1) * 4, SVK_MEMORY_DEVICE);
    uint64_t grads = p->slab_elems[SVK_SLAB_GRAD];
    ADD(&s->scratch, "scratch", NULL, scratch_elems(ctx, p) * 4, SVK_MEMORY_DEVICE);
    ADD(&s->clip_partials, "clip partials", NULL, svk_clip_scratch_elems(1, &grads) * 4, SVK_MEMORY_DEVICE);
    ADD(&s->losses, "losses", NULL, (uint64_t)p->B * p->T * 4, SVK_MEMORY_DEVICE);
#undef ADD
    return n;
}

/* Whether the buffers of plan p fit the device, decided before anything is
 * freed or allocated: a model or batch shape too large is refused with the
 * numbers (svk_buffer_check_fit), and the model goes on as it was. Without
 * this, lavapipe (whose heap is host memory, not enforced) would allocate
 * far past its heap, and a GPU would fail part way, after the current
 * shape's buffers were gone. */
static svk_status check_fit(svk_model *m, const svk_plan *p)
{
    vk_state *s = m->backend;
    svk_buffer_request *req = svk_calloc(max_requests(p), sizeof(*req));
    if (!req)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory checking the model's size");
    char note[160], what[160];
    uint64_t released[SVK_POOL_COUNT];
    size_t n = shape_requests(m->ctx, s, p, req, NULL, note, released);
    snprintf(what, sizeof(what), "a model of %llu parameters (vocab=%u, width=%u, layers=%u) with batches B=%u T=%u",
             (unsigned long long)m->n_elems, p->config.vocab, p->config.width, p->config.layers, p->B, p->T);
    svk_status st = svk_buffer_check_fit(m->ctx, what, req, n, released);
    free(req);
    return st;
}

/* Creates the buffers of plan p the model lacks (after free_shape). */
static svk_status alloc_shape(svk_model *m, const svk_plan *p)
{
    vk_state *s = m->backend;
    for (int k = 0; k < SVK_SLAB_ACT; k++)
        if (s->slab[k] && s->slab_elems[k] != p->slab_elems[k])
            svk_buffer_destroy(&s->slab[k]);
    svk_status st = SVK_OK;
    const size_t cap = max_requests(p);
    svk_buffer_request *req = svk_calloc(cap, sizeof(*req));
    svk_buffer ***dest = svk_calloc(cap, sizeof(*dest));
    s->act = svk_calloc(p->n_tensors, sizeof(*s->act));
    s->n_act = s->act ? p->n_tensors : 0;
    if (!req || !dest || !s->act)
        st = svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory making the model's buffers");
    char note[160];
    uint64_t released[SVK_POOL_COUNT];
    const size_t n = st == SVK_OK ? shape_requests(m->ctx, s, p, req, dest, note, released) : 0;
    for (size_t i = 0; i < n && st == SVK_OK; i++) {
        svk_buffer_params bp = svk_buffer_params_default();
        bp.size = req[i].size;
        bp.memory = req[i].memory;
        bp.name = req[i].name;
        st = svk_buffer_create(m->ctx, &bp, dest[i]);
    }
    free(req);
    free(dest);
    for (int k = 0; k < SVK_SLAB_COUNT; k++)
        s->slab_elems[k] = s->slab[k] ? p->slab_elems[k] : 0;
    s->shape_ready = st == SVK_OK;
    return st;
}

/* The current plan's buffers, made again if a failed change of shape left
 * them missing. */
static svk_status ensure_shape(svk_model *m)
{
    vk_state *s = m->backend;
    if (s->shape_ready)
        return SVK_OK;
    free_shape(m->ctx, s);
    svk_status st = alloc_shape(m, &m->plan);
    if (st != SVK_OK)
        free_shape(m->ctx, s);
    return st;
}

static svk_status finish_pending(vk_state *s);

static svk_status set_plan(svk_model *m, const svk_plan *p)
{
    vk_state *s = m->backend;
    if (!s) {
        s = m->backend = svk_calloc(1, sizeof(*s));
        if (!s)
            return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    svk_status st = finish_pending(s);
    if (st != SVK_OK)
        return st;
    st = check_fit(m, p);
    if (st != SVK_OK)
        return st;
    free_shape(m->ctx, s);
    if ((st = alloc_shape(m, p)) == SVK_OK)
        return SVK_OK;
    /* The driver refused what the check let through (memory others use,
     * or fragmentation). The model keeps its current plan (model.c installs
     * p only on success), so its buffers come back; if they cannot now,
     * ensure_shape tries again before the next use. The first failure is
     * the one reported: the creations clear the thread's message, so it is
     * put back, there and in the context's slot, without a second call to
     * the log callback (log NULL). */
    free_shape(m->ctx, s);
    if (m->has_plan) {
        char first[SVK_ERROR_MAX];
        snprintf(first, sizeof(first), "%s", svk_last_error());
        ensure_shape(m);
        svk_error(NULL, st, "%s", first);
        memcpy(svk_model_log(m)->last, first, sizeof(first));
    }
    return st;
}

typedef struct rec {
    svk_model *m;
    const svk_plan *p;
    vk_state *s;
    svk_cmdlist *cl;
    int parity;
} rec;

/* The inputs' or outputs' buffer of a parity. */
static svk_buffer *io_buffer(const vk_state *s, svk_slab slab, int parity)
{
    return parity ? s->alt[slab == SVK_SLAB_OUTPUT] : s->slab[slab];
}

static svk_tref T(const rec *r, uint32_t id)
{
    if (id == SVK_NONE)
        return (svk_tref){NULL, 0};
    const svk_plan_tensor *t = &r->p->tensors[id];
    if (t->slab == SVK_SLAB_ACT)
        return (svk_tref){r->s->act[id], 0};
    if (t->slab >= SVK_SLAB_INPUT)
        return (svk_tref){io_buffer(r->s, t->slab, r->parity), t->offset};
    return (svk_tref){r->s->slab[t->slab], t->offset};
}

static svk_tref OUT(const rec *r, uint32_t element)
{
    svk_tref t = T(r, r->p->output);
    t.off += element;
    return t;
}

/* An output of the previous step, which ran on the other parity. */
static svk_tref PREV_OUT(const rec *r, uint32_t element)
{
    return (svk_tref){io_buffer(r->s, SVK_SLAB_OUTPUT, !r->parity), r->p->tensors[r->p->output].offset + element};
}

static svk_tref scratch(const rec *r)
{
    return (svk_tref){r->s->scratch, 0};
}

/* bias_op: the BIAS_BWD op that follows o, added by o's GEMM
 * (bias_in_gemm), or NULL. */
static svk_status record_op(const rec *r, const svk_plan_op *o, const svk_plan_op *bias_op)
{
    const uint32_t *t = o->t;
    const uint64_t *d = o->dims;
    svk_cmdlist *cl = r->cl;
    const float eps = r->p->eps;
    const svk_norm_kind kind = (o->flags & SVK_FLAG_RMS) ? SVK_NORM_RMSNORM : SVK_NORM_LAYERNORM;
    const char *label = o->label;
    switch (o->code) {
    case SVK_OP_ZERO:
        return svk_fill_record(cl, T(r, t[0]), d[0], 0.0f, label);
    case SVK_OP_COPY:
        return svk_copy_record(cl, T(r, t[0]), T(r, t[1]), d[0], label);
    case SVK_OP_ADD:
        return svk_add_record(cl, T(r, t[0]), T(r, t[1]), d[0], label);
    case SVK_OP_EMBED_FWD: {
        svk_embedding_fwd_args a = {.B = d[0], .T = d[1], .C = d[2], .V = d[3], .tokens = T(r, t[1]),
                                    .wte = T(r, t[2]), .wpe = T(r, t[3]), .out = T(r, t[0]),
                                    .counts = OUT(r, SVK_OUT_VALID_TOKENS), .label = label};
        return svk_embedding_fwd_record(cl, &a);
    }
    case SVK_OP_EMBED_BWD: {
        svk_embedding_bwd_args a = {.B = d[0], .T = d[1], .C = d[2], .V = d[3], .tokens = T(r, t[2]),
                                    .dout = T(r, t[3]), .dwte = T(r, t[0]), .dwpe = T(r, t[1]), .label = label};
        return svk_embedding_bwd_record(cl, &a);
    }
    case SVK_OP_NORM_FWD:
        if (kind == SVK_NORM_RMSNORM) {
            svk_rmsnorm_fwd_args a = {.rows = (uint32_t)d[0], .width = (uint32_t)d[1], .eps = eps, .x = T(r, t[3]),
                                      .g = T(r, t[4]), .out = T(r, t[0]), .rstd = T(r, t[2]), .label = label};
            return svk_rmsnorm_fwd_record(cl, &a);
        } else {
            svk_layernorm_fwd_args a = {.rows = (uint32_t)d[0], .width = (uint32_t)d[1], .eps = eps,
                                        .x = T(r, t[3]), .g = T(r, t[4]), .b = T(r, t[5]), .out = T(r, t[0]),
                                        .mean = T(r, t[1]), .rstd = T(r, t[2]), .label = label};
            return svk_layernorm_fwd_record(cl, &a);
        }
    case SVK_OP_NORM_BWD:
        if (kind == SVK_NORM_RMSNORM) {
            svk_rmsnorm_bwd_args a = {.rows = (uint32_t)d[0], .width = (uint32_t)d[1], .dout = T(r, t[3]),
                                      .x = T(r, t[4]), .rstd = T(r, t[6]), .g = T(r, t[7]), .dx = T(r, t[0]),
                                      .dg = T(r, t[1]), .scratch = scratch(r), .label = label};
            return svk_rmsnorm_bwd_record(cl, &a);
        } else {
            svk_layernorm_bwd_args a = {.rows = (uint32_t)d[0], .width = (uint32_t)d[1], .dout = T(r, t[3]),
                                        .x = T(r, t[4]), .mean = T(r, t[5]), .rstd = T(r, t[6]), .g = T(r, t[7]),
                                        .dx = T(r, t[0]), .dg = T(r, t[1]), .db = T(r, t[2]),
                                        .scratch = scratch(r), .label = label};
            return svk_layernorm_bwd_record(cl, &a);
        }
    case SVK_OP_SIAMESE_FWD: {
        svk_siamese_norm_fwd_args a = {.kind = kind, .rows = (uint32_t)d[0], .C = (uint32_t)d[1], .eps = eps,
                                       .x = T(r, t[4]), .y = T(r, t[5]), .g = T(r, t[6]), .b = T(r, t[7]),
                                       .xn = T(r, t[0]), .h = T(r, t[1]), .mean = T(r, t[2]), .rstd = T(r, t[3]),
                                       .label = label};
        return svk_siamese_norm_fwd_record(cl, &a);
    }
    case SVK_OP_SIAMESE_BWD: {
        svk_siamese_norm_bwd_args a = {.kind = kind, .rows = (uint32_t)d[0], .C = (uint32_t)d[1],
                                       .dh = T(r, t[4]), .dxn = T(r, t[5]), .dy_in = T(r, t[6]), .x = T(r, t[7]),
                                       .y = T(r, t[8]), .mean = T(r, t[9]), .rstd = T(r, t[10]), .g = T(r, t[11]),
                                       .b = T(r, t[12]), .dx = T(r, t[0]), .dy = T(r, t[1]), .dg = T(r, t[2]),
                                       .db = T(r, t[3]), .scratch = scratch(r), .dz = T(r, t[14]),
                                       .dz_c = o->f[0], .label = label};
        return svk_siamese_norm_bwd_record(cl, &a);
    }
    case SVK_OP_SOUT_FWD: {
        svk_siamese_out_fwd_args a = {.kind = kind, .rows = (uint32_t)d[0], .C = (uint32_t)d[1], .eps = eps,
                                      .x = T(r, t[3]), .y = T(r, t[4]), .g = T(r, t[5]), .b = T(r, t[6]),
                                      .out = T(r, t[0]), .mean = T(r, t[1]), .rstd = T(r, t[2]), .label = label};
        return svk_siamese_out_fwd_record(cl, &a);
    }
    case SVK_OP_SOUT_BWD: {
        svk_siamese_out_bwd_args a = {.kind = kind, .rows = (uint32_t)d[0], .C = (uint32_t)d[1],
                                      .dout = T(r, t[4]), .x = T(r, t[5]), .y = T(r, t[6]), .mean = T(r, t[7]),
                                      .rstd = T(r, t[8]), .g = T(r, t[9]), .b = T(r, t[10]), .dx = T(r, t[0]),
                                      .dy = T(r, t[1]), .dg = T(r, t[2]), .db = T(r, t[3]),
                                      .scratch = scratch(r), .dz = T(r, t[12]), .dz_c = o->f[0],
                                      .label = label};
        return svk_siamese_out_bwd_record(cl, &a);
    }
    case SVK_OP_GEMM: {
        svk_tref c = T(r, t[0]), a = T(r, t[1]), b = T(r, t[2]), bias = T(r, t[3]);
        svk_gemm_args g = plan_gemm(o);
        g.a = a.buf, g.b = b.buf, g.c = c.buf, g.bias = bias.buf;
        g.off_a = a.off, g.off_b = b.off, g.off_c = c.off, g.off_bias = bias.off;
        g.label = label;
        /* Room for split-K partials (gemm_split.h) or the bias's column
         * sums, sized by scratch_elems (the BIAS_BWD op counts the latter). */
        g.scratch = r->s->scratch;
        g.scratch_elems = r->s->scratch ? r->s->scratch->size / 4 : 0;
        if (bias_op) {
            const svk_tref db = T(r, bias_op->t[0]);
            g.sum_a = db.buf;
            g.off_sum_a = db.off;
        }
        if (g.epilogue != SVK_GEMM_EPILOGUE_NONE) {
            const svk_tref aux = T(r, t[4]), aux2 = T(r, t[5]);
            g.aux = aux.buf;
            g.off_aux = aux.off;
            g.aux2 = aux2.buf;
            g.off_aux2 = aux2.off;
        }
        return svk_gemm_record(cl, &g);
    }
    case SVK_OP_ROPE_FWD:
    case SVK_OP_ROPE_BWD: {
        svk_rope_args a = {.B = (uint32_t)d[0], .T = (uint32_t)d[1], .C = (uint32_t)d[2], .H = (uint32_t)d[3],
                           .theta = o->f[0], .qkv = T(r, t[0]), .label = label};
        return o->code == SVK_OP_ROPE_FWD ? svk_rope_fwd_record(cl, &a) : svk_rope_bwd_record(cl, &a);
    }
    case SVK_OP_ATTN_FWD: {
        if (o->flags & SVK_FLAG_FLASH) {
            svk_attention_flash_args a = {.B = (uint32_t)d[0], .T = (uint32_t)d[1], .C = (uint32_t)d[2],
                                          .H = (uint32_t)d[3], .qkv = T(r, t[2]), .out = T(r, t[0]),
                                          .stats = T(r, t[1]), .label = label};
            return svk_attention_flash_fwd_record(cl, &a);
        }
        svk_attention_fwd_args a = {.B = (uint32_t)d[0], .T = (uint32_t)d[1], .C = (uint32_t)d[2],
                                    .H = (uint32_t)d[3], .qkv = T(r, t[2]), .out = T(r, t[0]), .att = T(r, t[1]),
                                    .label = label};
        return svk_attention_fwd_record(cl, &a);
    }
    case SVK_OP_ATTN_BWD: {
        if (o->flags & SVK_FLAG_FLASH) {
            svk_attention_flash_bwd_args a = {.B = (uint32_t)d[0], .T = (uint32_t)d[1], .C = (uint32_t)d[2],
                                              .H = (uint32_t)d[3], .dout = T(r, t[1]), .qkv = T(r, t[2]),
                                              .out = T(r, t[4]), .stats = T(r, t[3]), .dqkv = T(r, t[0]),
                                              .scratch = scratch(r), .label = label};
            return svk_attention_flash_bwd_record(cl, &a);
        }
        svk_attention_bwd_args a = {.B = (uint32_t)d[0], .T = (uint32_t)d[1], .C = (uint32_t)d[2],
                                    .H = (uint32_t)d[3], .dout = T(r, t[1]), .qkv = T(r, t[2]), .att = T(r, t[3]),
                                    .dqkv = T(r, t[0]), .scratch = scratch(r), .label = label};
        return svk_attention_bwd_record(cl, &a);
    }
    case SVK_OP_SWIGLU_FWD: {
        svk_swiglu_fwd_args a = {.n = d[0], .gate = T(r, t[1]), .up = T(r, t[2]), .out = T(r, t[0]), .label = label};
        return svk_swiglu_fwd_record(cl, &a);
    }
    case SVK_OP_SWIGLU_BWD: {
        svk_swiglu_bwd_args a = {.n = d[0], .gate = T(r, t[2]), .up = T(r, t[3]), .dout = T(r, t[4]),
                                 .dgate = T(r, t[0]), .dup = T(r, t[1]), .label = label};
        return svk_swiglu_bwd_record(cl, &a);
    }
    case SVK_OP_TRANSPOSE: {
        svk_transpose_args a = {.rows = (uint32_t)d[0], .cols = (uint32_t)d[1], .src = T(r, t[1]),
                                .dst = T(r, t[0]), .label = label};
        return svk_transpose_record(cl, &a);
    }
    case SVK_OP_BIAS_BWD: {
        svk_bias_bwd_args a = {.rows = d[0], .N = d[1], .ld = o->ld[0], .dout = T(r, t[1]), .dbias = T(r, t[0]),
                               .scratch = scratch(r), .label = label};
        return svk_bias_bwd_record(cl, &a);
    }
    case SVK_OP_XENT: {
        svk_cross_entropy_args a = {.rows = d[0], .V = d[1], .logits = T(r, t[2]), .targets = T(r, t[3]),
                                    .dlogits = T(r, t[1]), .losses = (svk_tref){r->s->losses, 0},
                                    .counts = OUT(r, SVK_OUT_VALID_TARGETS), .loss = OUT(r, SVK_OUT_LOSS),
                                    .label = label};
        return svk_cross_entropy_record(cl, &a);
    }
    case SVK_OP_CLIP: {
        svk_tref g = T(r, t[1]);
        uint64_t n = d[0];
        svk_clip_args a = {.count = 1, .grads = &g, .sizes = &n, .partials = (svk_tref){r->s->clip_partials, 0},
                           .max_norm = r->m->params.optimizer.max_norm, .out = OUT(r, SVK_OUT_GRAD_NORM),
                           .label = label};
        return svk_clip_record(cl, &a);
    }
    case SVK_OP_ADAMW: {
        const svk_optimizer *opt = &r->m->params.optimizer;
        svk_adamw_args a = {
            .n = d[0], .p = T(r, t[0]), .g = T(r, t[1]), .m = T(r, t[2]), .v = T(r, t[3]),
            .scale = OUT(r, SVK_OUT_CLIP_SCALE), .step = (svk_tref){r->s->hparams[r->parity], 0},
            .guard = OUT(r, SVK_OUT_LOSS), /* loss, then the norm: SVK_OUT_GRAD_NORM follows */
            .prev_guard = PREV_OUT(r, SVK_OUT_LOSS),
            .beta1 = opt->beta1, .beta2 = opt->beta2, .eps = opt->eps, .weight_decay = opt->weight_decay,
            .decay = (o->flags & SVK_FLAG_DECAY) != 0, .label = label,
        };
        return svk_adamw_record(cl, &a);
    }
    case SVK_OP_COUNT_:
        break;
    }
    return svk_error(svk_model_log(r->m), SVK_ERROR_INTERNAL, "plan op '%s' has no device operation", label);
}

/* Prints the GPU time of the last submission of cl, summed by label
 * (SVK_PROFILE=1: the plan's ops, those over 1% of the time; SVK_PROFILE=op:
 * every op) or by kernel (SVK_PROFILE=kernel: every shader and transfer
 * command), or every dispatch in order with its kernel and label
 * (SVK_PROFILE=dispatch: an op of several dispatches, such as attention's,
 * shown part by part). mode: the context's $SVK_PROFILE. */
static void print_profile(svk_cmdlist *cl, svk_profile_mode mode)
{
    enum { MAX = 8192 };
    static double ns[MAX];
    static const char *labels[MAX], *kernels[MAX];
    uint32_t n = MAX;
    if (svk_cmdlist_timings(cl, ns, labels, kernels, &n) != SVK_OK)
        return;
    const bool by_kernel = mode == SVK_PROFILE_KERNEL, every_op = mode == SVK_PROFILE_EVERY_OP;
    const char **key = by_kernel ? kernels : labels;
    double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += ns[i];
    fprintf(stderr, "svk profile: %u dispatches, %.3f ms of GPU time\n", n, total * 1e-6);
    if (mode == SVK_PROFILE_DISPATCH) {
        for (uint32_t i = 0; i < n; i++)
            fprintf(stderr, "  %6.3f ms  %-30s %s\n", ns[i] * 1e-6, kernels[i] ? kernels[i] : "-",
                    labels[i] ? labels[i] : "-");
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!key[i])
            continue;
        double sum = 0;
        uint32_t count = 0;
        const char *li = key[i];
        for (uint32_t j = i; j < n; j++)
            if (key[j] && !strcmp(key[j], li)) {
                sum += ns[j];
                count++;
                if (j != i)
                    key[j] = NULL;
            }
        if (by_kernel || every_op || sum > 0.01 * total)
            fprintf(stderr, "  %6.2f ms %5.1f%%  x%-4u %s\n", sum * 1e-6, 100 * sum / total, count, li);
    }
}

/* Records ops [begin, end) of r's plan, a Linear's bias gradient inside
 * its weight-gradient GEMM where they are neighbours (bias_in_gemm); st:
 * the status so far (nothing is recorded unless SVK_OK). */
static svk_status record_ops(const rec *r, size_t begin, size_t end, svk_status st)
{
    const svk_plan *p = r->p;
    for (size_t i = begin; i < end && st == SVK_OK; i++) {
        const bool fused = bias_in_gemm(p, i, end);
        st = record_op(r, &p->ops[i], fused ? &p->ops[i + 1] : NULL);
        i += fused;
    }
    return st;
}

/* The recorded list of ops [begin, end), made on first use. */
static svk_status list_for(svk_model *m, size_t begin, size_t end, int parity, svk_cmdlist **out)
{
    vk_state *s = m->backend;
    int free_slot = -1;
    for (int i = 0; i < MAX_LISTS; i++) {
        if (s->lists[i].cl && s->lists[i].begin == begin && s->lists[i].end == end &&
            s->lists[i].parity == parity) {
            *out = s->lists[i].cl;
            return SVK_OK;
        }
        if (!s->lists[i].cl && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "vulkan backend: more than %d op ranges", MAX_LISTS);
    rec r = {m, &m->plan, s, NULL, parity};
    /* SVK_PROFILE=1: time every dispatch and print a per-kernel table after
     * each submission (a developer's tool; replays stay unchanged). */
    svk_cmdlist_params lp = {0};
    if (m->ctx->settings.profile != SVK_PROFILE_OFF && m->ctx->info.timestamps)
        lp.timestamp_capacity = (uint32_t)(8 * (end - begin) + 16);
    svk_status st = svk_cmdlist_create(m->ctx, &lp, &r.cl);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(r.cl);
    st = record_ops(&r, begin, end, st);
    if (st == SVK_OK)
        st = svk_cmdlist_end(r.cl);
    if (st != SVK_OK) {
        svk_cmdlist_destroy(&r.cl);
        return st;
    }
    s->lists[free_slot] = (vk_list){begin, end, parity, r.cl};
    *out = r.cl;
    return SVK_OK;
}

/* Waits for the list in flight on a parity. A failed wait keeps it in
 * flight: the step still runs, and a later wait may succeed
 * (svk_model_settle retries). */
static svk_status finish_parity(vk_state *s, int parity)
{
    if (!s->inflight[parity])
        return SVK_OK;
    svk_status st = svk_cmdlist_wait(s->inflight[parity]);
    if (st == SVK_OK)
        s->inflight[parity] = NULL;
    return st;
}

/* Waits for everything in flight, the older list first. */
static svk_status finish_pending(vk_state *s)
{
    svk_status st = finish_parity(s, !s->cur);
    return st == SVK_OK ? finish_parity(s, s->cur) : st;
}

/* The batch and the step's numbers, into parity q's mapped memory, which
 * nothing in flight reads. */
static svk_status write_inputs(svk_model *m, int q, const int32_t *tokens, const int32_t *targets,
                               const svk_step_hparams *h)
{
    vk_state *s = m->backend;
    const svk_plan *p = &m->plan;
    int32_t *in;
    float *hp;
    svk_status st;
    if ((st = svk_buffer_map(io_buffer(s, SVK_SLAB_INPUT, q), (void **)&in)) != SVK_OK ||
        (st = svk_buffer_map(s->hparams[q], (void **)&hp)) != SVK_OK)
        return st;
    svk_plan_write_inputs(p, in, tokens, targets);
    /* AdamW reads lr and the bias corrections from here (no re-recording
     * per step), computed in double as the reference does: those of h->t,
     * then those of h->t - 1 should the step still in flight on the other
     * parity turn out to be skipped (prev_guard). */
    if (h)
        svk_adamw_step_values_prev(h->t, h->prev_in_flight, h->lr, h->beta1, h->beta2, hp);
    return SVK_OK;
}

static svk_status run(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                      const svk_step_hparams *h, bool wait)
{
    vk_state *s = m->backend;
    svk_cmdlist *cl = NULL;
    /* A training step submitted behind one still running takes the other
     * parity; anything else follows a settled model and reuses the
     * current one. Either way the list that last used the parity must be
     * done before its inputs are rewritten (for the other parity's, the
     * model settled that step already, so this does not wait). */
    const bool behind = h && h->prev_in_flight;
    const int q = behind ? !s->cur : s->cur;
    svk_status st = ensure_shape(m);
    if (st == SVK_OK)
        st = list_for(m, begin, end, q, &cl);
    if (st == SVK_OK)
        st = behind ? finish_parity(s, q) : finish_pending(s);
    if (st != SVK_OK)
        return st;
    if ((st = write_inputs(m, q, tokens, targets, h)) != SVK_OK || (st = svk_cmdlist_submit(cl)) != SVK_OK)
        return st;
    s->inflight[q] = cl;
    s->cur = q;
    if (m->ctx->settings.profile != SVK_PROFILE_OFF) {
        st = finish_pending(s);
        print_profile(cl, m->ctx->settings.profile);
        return st;
    }
    return wait ? finish_pending(s) : SVK_OK;
}

/* The outputs of the step before the latest run (model.c settles it while
 * the latest runs): the other parity's, once its list is done. */
static svk_status read_prev_output(svk_model *m, float out[SVK_OUT_COUNT])
{
    vk_state *s = m->backend;
    float *base;
    svk_status st = finish_parity(s, !s->cur);
    if (st == SVK_OK)
        st = svk_buffer_map(io_buffer(s, SVK_SLAB_OUTPUT, !s->cur), (void **)&base);
    if (st == SVK_OK)
        memcpy(out, base + m->plan.tensors[m->plan.output].offset, SVK_OUT_COUNT * sizeof(float));
    return st;
}

static svk_status copy(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *host, bool to_host)
{
    vk_state *s = m->backend;
    svk_status st = finish_pending(s);
    if (st != SVK_OK)
        return st;
    /* The per-shape buffers may be missing after a failed change of shape
     * (set_plan); the parameter-shaped slabs never are. */
    if (slab >= SVK_SLAB_ACT && (st = ensure_shape(m)) != SVK_OK)
        return st;
    if (slab == SVK_SLAB_ACT) {
        /* Offsets into the virtual ACT slab name one tensor: find it. */
        for (size_t i = 0; i < m->plan.n_tensors; i++) {
            const svk_plan_tensor *t = &m->plan.tensors[i];
            if (t->slab == SVK_SLAB_ACT && t->offset == offset && t->elems >= n)
                return to_host ? svk_buffer_download(s->act[i], 0, host, n * 4)
                               : svk_buffer_upload(s->act[i], 0, host, n * 4);
        }
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "vulkan backend: no activation at offset %llu",
                         (unsigned long long)offset);
    }
    if (slab == SVK_SLAB_OUTPUT || slab == SVK_SLAB_INPUT) {
        /* Mapped, coherent, and written on the device only by lists that
         * end with a shader-write -> host-read barrier (svk_cmdlist_end),
         * whose fence finish_pending waited for: read in place. Reading a
         * step's loss then needs no transfer, so it cannot fail after the
         * step has been applied (a failure there would leave the model
         * updated while reporting an error). */
        char *base;
        if ((st = svk_buffer_map(io_buffer(s, slab, s->cur), (void **)&base)) != SVK_OK)
            return st;
        if (to_host)
            memcpy(host, base + offset * 4, n * 4);
        else
            memcpy(base + offset * 4, host, n * 4);
        return SVK_OK;
    }
    return to_host ? svk_buffer_download(s->slab[slab], offset * 4, host, n * 4)
                   : svk_buffer_upload(s->slab[slab], offset * 4, host, n * 4);
}

static svk_status read_slab(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *dst)
{
    return copy(m, slab, offset, n, dst, true);
}

static svk_status write_slab(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, const void *src)
{
    return copy(m, slab, offset, n, (void *)src, false);
}

static svk_status record_external(svk_model *m, void *vk_command_buffer)
{
    vk_state *s = m->backend;
    svk_cmdlist_destroy(&s->external);
    rec r = {m, &m->plan, s, NULL, 0};
    svk_cmdlist_params lp = {.external = (VkCommandBuffer)vk_command_buffer};
    svk_status st = svk_cmdlist_create(m->ctx, &lp, &r.cl);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(r.cl);
    st = record_ops(&r, m->plan.phases.forward, m->plan.phases.end, st);
    if (st == SVK_OK)
        st = svk_cmdlist_end(r.cl);
    if (st != SVK_OK) {
        svk_cmdlist_destroy(&r.cl);
        return st;
    }
    /* Kept: without push descriptors it owns the descriptor sets. */
    s->external = r.cl;
    return SVK_OK;
}

static svk_status prepare(svk_model *m, const int32_t *tokens, const int32_t *targets, const svk_step_hparams *h)
{
    vk_state *s = m->backend;
    if (!s->external)
        return svk_error(svk_model_log(m), SVK_ERROR_INVALID_STATE,
                         "svk_model_prepare_train_step: no step is recorded (svk_model_record_train_step)");
    /* The recording reads parity 0 (record_external); the model settled
     * every step before, so the step's count is known (prev_in_flight is
     * false) and parity 0's outputs become the model's. */
    svk_status st = finish_pending(s);
    if (st == SVK_OK && (st = write_inputs(m, 0, tokens, targets, h)) == SVK_OK)
        s->cur = 0;
    return st;
}

static void forget_recordings(svk_model *m)
{
    vk_state *s = m->backend;
    if (!s)
        return;
    finish_pending(s);
    for (int i = 0; i < MAX_LISTS; i++)
        svk_cmdlist_destroy(&s->lists[i].cl);
}

/* A list of its own, recorded for this run and dropped after it: ops one
 * by one (no bias folded into its GEMM, so that every op's outputs exist
 * when its probes look), each probe a finite_check dispatch into its slot
 * of a mapped statistics buffer. */
static svk_status check(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                        const svk_step_hparams *h, const svk_finite_probe *probes, size_t n, svk_ref_finite *out)
{
    vk_state *s = m->backend;
    const svk_plan *p = &m->plan;
    svk_status st = ensure_shape(m);
    if (st == SVK_OK)
        st = finish_pending(s);
    if (st == SVK_OK && tokens)
        st = write_inputs(m, s->cur, tokens, targets, h);
    if (st != SVK_OK)
        return st;
    svk_buffer *stats = NULL;
    svk_buffer_params bp = svk_buffer_params_default();
    bp.size = (n ? n : 1) * SVK_FINITE_STATS * 4;
    bp.memory = SVK_MEMORY_HOST_MAPPED;
    bp.name = "finite-check statistics";
    rec r = {m, p, s, NULL, s->cur};
    if ((st = svk_buffer_create(m->ctx, &bp, &stats)) == SVK_OK &&
        (st = svk_cmdlist_create(m->ctx, &(svk_cmdlist_params){0}, &r.cl)) == SVK_OK)
        st = svk_cmdlist_begin(r.cl);
    /* Every activation starts as zeros, so that a probe never sees what an
     * earlier step (or nothing) left in a buffer. */
    for (size_t i = 0; i < s->n_act && begin < end && st == SVK_OK; i++)
        if (s->act[i])
            st = svk_fill_record(r.cl, (svk_tref){s->act[i], 0}, s->act[i]->size / 4, 0.0f, "finite-check zero");
    size_t i = 0;
    for (size_t k = begin; st == SVK_OK; k++) {
        for (; i < n && probes[i].at == k && st == SVK_OK; i++) {
            const svk_finite_probe *q = &probes[i];
            svk_tref x = T(&r, q->tensor);
            x.off += q->offset;
            svk_finite_check_args a = {
                .rows = q->rows, .cols = q->cols, .ld = q->ld, .x = x,
                .stats = {stats, i * SVK_FINITE_STATS}, .label = p->tensors[q->tensor].name,
            };
            st = svk_finite_check_record(r.cl, &a);
        }
        if (k >= end || st != SVK_OK)
            break;
        st = record_op(&r, &p->ops[k], NULL);
    }
    if (st == SVK_OK && (st = svk_cmdlist_end(r.cl)) == SVK_OK && (st = svk_cmdlist_submit(r.cl)) == SVK_OK)
        st = svk_cmdlist_wait(r.cl);
    uint32_t *raw = NULL;
    if (st == SVK_OK && (st = svk_buffer_map(stats, (void **)&raw)) == SVK_OK)
        for (i = 0; i < n; i++)
            svk_finite_stats_decode(raw + i * SVK_FINITE_STATS, probes[i].rows * probes[i].cols, &out[i]);
    svk_cmdlist_destroy(&r.cl);
    svk_buffer_destroy(&stats);
    return st;
}

/* Flash attention where svk_attention_flash_preferred says so and the
 * heads fit its kernels (D <= 256); the materialised form otherwise. The
 * blocks' Linears forward on transposed weights where the GEMMs run their
 * CPU form (gemm_texel.comp runs NN products faster than NT ones on
 * lavapipe, svk_plan_options.linear_nn); the portable form stages both
 * operands through shared memory either way. The GELU
 * MLP's activations laid out as those GEMMs read them
 * (svk_gemm_activation_ld): 0.3-0.5 ms of copies less per layer in the
 * default step on lavapipe. */
static svk_status plan_options(svk_model *m, svk_plan_options *out)
{
    const svk_model_config *c = &m->params.config;
    svk_status st = svk_attention_flash_preferred(m->ctx, &out->flash_attention);
    if (st == SVK_OK && c->width / c->heads > 256)
        out->flash_attention = false;
    svk_gemm_variant v = SVK_GEMM_VARIANT_PORTABLE;
    out->linear_nn = svk_gemm_auto_variant(m->ctx, &v) == SVK_OK && v == SVK_GEMM_VARIANT_CPU;
    out->mlp_ld = svk_gemm_activation_ld(m->ctx, svk_model_config_hidden(c));
    return st;
}

const svk_backend_impl svk_backend_vulkan = {
    .name = "vulkan", .set_plan = set_plan, .run = run, .read = read_slab, .write = write_slab, .destroy = destroy,
    .forget_recordings = forget_recordings, .record_external = record_external,
    .plan_options = plan_options, .prepare = prepare, .read_prev_output = read_prev_output, .check = check,
};
