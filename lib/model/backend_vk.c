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
 * Submissions: an op range runs as several lists, submitted in turn, so
 * that none runs longer than the model's max_submit_ms (vk_submit.h: a
 * desktop driver's watchdog resets a GPU whose submission runs too long).
 * A step in flight is its parity's lists; waiting for it waits for each.
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
#include "model_internal.h"
#include "ops/adamw.h"
#include "ops/attention.h"
#include "ops/clip.h"
#include "ops/copy.h"
#include "ops/finite_check.h"
#include "ops/gemm.h"
#include "plan_vk.h"
#include "vk_submit.h"
#include "vk_windows.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

typedef struct vk_state {
    svk_buffer *slab[SVK_SLAB_COUNT];   /* ACT: unused (per-tensor buffers) */
    svk_vk_windows win[SVK_SLAB_ACT];   /* the parameter-shaped slabs' windows (vk_windows.h) */
    uint64_t slab_elems[SVK_SLAB_COUNT];
    svk_buffer **act;                   /* [n_tensors]: ACT tensors' buffers */
    svk_vk_windows *act_win;            /* [n_tensors]: the windows of those past one binding */
    size_t n_act;
    svk_buffer *scratch, *clip_partials;
    svk_buffer *alt[2];                 /* parity 1's inputs and outputs (parity 0's: slab[]) */
    svk_buffer *hparams[2];             /* the step's numbers, by parity */
    svk_vk_ranges ranges;               /* the op ranges' recordings, by parity (vk_submit.h) */
    svk_cmdlist *external;              /* a step recorded into the app's command buffer (parity 0) */
    int cur;                            /* the parity of the latest run: its outputs are the model's */
    /* A step reduced in buckets: its layout while its ranges are recorded
     * (record_bucket), each bucket's range in flight, and the mapped
     * buffer its gradients are copied to, packed, in the ranges' lists */
    const svk_grad_layout *layout;
    svk_vk_range *bucket_range[SVK_GRAD_BUCKETS_MAX];
    svk_buffer *stage;
    bool shape_ready;                   /* the current plan's buffers all exist */
} vk_state;

/* Frees the buffers of the current shape, after one wait for the queue
 * (svk_buffer_wait_unused): not one per buffer. */
static void free_shape(svk_ctx *ctx, vk_state *s)
{
    svk_vk_ranges_free(&s->ranges, true);
    svk_cmdlist_destroy(&s->external);
    s->cur = 0;
    svk_buffer_wait_unused(ctx, "freeing the model's buffers");
    for (size_t i = 0; s->act_win && i < s->n_act; i++)
        svk_vk_windows_free(&s->act_win[i]);
    free(s->act_win);
    s->act_win = NULL;
    for (size_t i = 0; i < s->n_act; i++)
        svk_buffer_release(&s->act[i]);
    free(s->act);
    s->act = NULL;
    s->n_act = 0;
    svk_buffer_release(&s->scratch);
    svk_buffer_release(&s->clip_partials);
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
    for (int k = 0; k < SVK_SLAB_ACT; k++) {
        svk_vk_windows_free(&s->win[k]);
        svk_buffer_release(&s->slab[k]);
    }
    svk_buffer_release(&s->hparams[0]);
    svk_buffer_release(&s->hparams[1]);
    svk_buffer_release(&s->stage);
    free(s);
    m->backend = NULL;
}

static const char *const slab_names[SVK_SLAB_COUNT] = {"params", "grads", "adam_m", "adam_v", "state", "act", "inputs",
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
    const svk_buffer *freed[4] = {s->scratch, s->clip_partials, s->alt[0], s->alt[1]};
    memset(released, 0, SVK_POOL_COUNT * sizeof(released[0]));
    for (size_t i = 0; i < s->n_act; i++)
        if (s->act[i])
            released[s->act[i]->alloc.pool] += s->act[i]->alloc.size;
    for (int i = 0; i < 4; i++)
        if (freed[i])
            released[freed[i]->alloc.pool] += freed[i]->alloc.size;
#define ADD(dst, name_, note_, bytes, memory_)                                                   \
    do {                                                                                         \
        req[n] = (svk_buffer_request){(name_), (note_), (bytes), (memory_), false, false};       \
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
        /* The training state is made at its first need (plan.h). */
        if (svk_slab_is_train_state((svk_slab)k) && !p->train_state)
            continue;
        if (s->slab[k])
            released[s->slab[k]->alloc.pool] += s->slab[k]->alloc.size;
        const uint64_t bytes = (p->slab_elems[k] ? p->slab_elems[k] : 1) * 4;
        ADD(&s->slab[k], slab_names[k], k < SVK_SLAB_ACT ? note : NULL, bytes,
            k >= SVK_SLAB_INPUT ? SVK_MEMORY_HOST_MAPPED : SVK_MEMORY_DEVICE);
        /* Past one binding, a parameter-shaped slab is bound in windows:
         * only the allocation limits cap it. */
        req[n - 1].unbound = k < SVK_SLAB_ACT && svk_vk_windows_needed(ctx, bytes);
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
        if (p->tensors[i].slab == SVK_SLAB_ACT) {
            const uint64_t bytes = (p->tensors[i].elems ? p->tensors[i].elems : 1) * 4;
            ADD(dest ? &s->act[i] : NULL, p->tensors[i].name, NULL, bytes, SVK_MEMORY_DEVICE);
            /* One past a binding (the logits of a large vocabulary) is made
             * in windows where every op on it runs in parts. */
            req[n - 1].unbound = svk_vk_windows_needed(ctx, bytes) && svk_plan_vk_splits(p, (uint32_t)i);
        }
    ADD(&s->scratch, "scratch", NULL, svk_plan_vk_scratch_elems(ctx, p) * 4, SVK_MEMORY_DEVICE);
    ADD(&s->clip_partials, "clip partials", NULL, svk_plan_vk_clip_partials_elems(ctx, p) * 4, SVK_MEMORY_DEVICE);
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
    char micro[48] = "";
    if (p->micro > 1)
        snprintf(micro, sizeof(micro), " in %u micro-batches", p->micro);
    snprintf(what, sizeof(what), "a model of %llu parameters (vocab=%u, width=%u, layers=%u) with batches B=%u T=%u%s",
             (unsigned long long)m->n_elems, p->config.vocab, p->config.width, p->config.layers, p->B, p->T, micro);
    svk_status st = svk_buffer_check_fit(m->ctx, &m->ctx->log, what, req, n, released);
    free(req);
    return st;
}

/* Creates the buffers of plan p the model lacks (after free_shape). */
static svk_status alloc_shape(svk_model *m, const svk_plan *p)
{
    vk_state *s = m->backend;
    for (int k = 0; k < SVK_SLAB_ACT; k++)
        if (s->slab[k] && s->slab_elems[k] != p->slab_elems[k]) {
            svk_vk_windows_free(&s->win[k]);
            svk_buffer_destroy(&s->slab[k]);
        }
    svk_status st = SVK_OK;
    const size_t cap = max_requests(p);
    svk_buffer_request *req = svk_calloc(cap, sizeof(*req));
    svk_buffer ***dest = svk_calloc(cap, sizeof(*dest));
    s->act = svk_calloc(p->n_tensors, sizeof(*s->act));
    s->act_win = svk_calloc(p->n_tensors, sizeof(*s->act_win));
    s->n_act = s->act ? p->n_tensors : 0;
    if (!req || !dest || !s->act || !s->act_win)
        st = svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory making the model's buffers");
    char note[160];
    uint64_t released[SVK_POOL_COUNT];
    const size_t n = st == SVK_OK ? shape_requests(m->ctx, s, p, req, dest, note, released) : 0;
    for (size_t i = 0; i < n && st == SVK_OK; i++) {
        svk_buffer_params bp = svk_buffer_params_default();
        bp.size = req[i].size;
        bp.memory = req[i].memory;
        bp.name = req[i].name;
        st = req[i].unbound ? svk_buffer_create_unbound(m->ctx, &bp, dest[i]) : svk_buffer_create(m->ctx, &bp, dest[i]);
    }
    for (int k = 0; k < SVK_SLAB_ACT && st == SVK_OK; k++)
        if (s->win[k].slab != s->slab[k]) {
            svk_vk_windows_free(&s->win[k]);
            st = svk_vk_windows_make(s->slab[k], &s->win[k]);
        }
    for (size_t i = 0; i < s->n_act && st == SVK_OK; i++)
        if (s->act[i])
            st = svk_vk_windows_make(s->act[i], &s->act_win[i]);
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

static svk_status finish_pending(svk_model *m);

static svk_status set_plan(svk_model *m, const svk_plan *p)
{
    vk_state *s = m->backend;
    if (!s) {
        s = m->backend = svk_calloc(1, sizeof(*s));
        if (!s)
            return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    svk_status st = finish_pending(m);
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

/* The inputs' or outputs' buffer of a parity. */
static svk_buffer *io_buffer(const vk_state *s, svk_slab slab, int parity)
{
    return parity ? s->alt[slab == SVK_SLAB_OUTPUT] : s->slab[slab];
}

/* What a recording of m's plan into cl binds, for a parity. */
static svk_plan_vk_rec recording(svk_model *m, svk_cmdlist *cl, int parity)
{
    const vk_state *s = m->backend;
    return (svk_plan_vk_rec){
        .p = &m->plan, .cl = cl, .log = svk_model_log(m), .opt = &m->params.optimizer, .slab = s->slab,
        .act = s->act, .input = io_buffer(s, SVK_SLAB_INPUT, parity), .output = io_buffer(s, SVK_SLAB_OUTPUT, parity),
        .prev_output = io_buffer(s, SVK_SLAB_OUTPUT, !parity), .step = s->hparams[parity], .scratch = s->scratch,
        .clip_partials = s->clip_partials, .win = s->win, .act_win = s->act_win,
    };
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

/* Records ops [begin, end) of m's plan into cl for a parity (svk_vk_record_fn);
 * op_first (NULL: not wanted) receives each op's first dispatch in cl. */
static svk_status record_ops(svk_model *m, svk_cmdlist *cl, int parity, size_t begin, size_t end, uint32_t *op_first)
{
    const svk_plan_vk_rec r = recording(m, cl, parity);
    svk_status st = SVK_OK;
    for (size_t i = begin; i < end && st == SVK_OK; i++) {
        if (op_first)
            svk_cmdlist_stats(cl, &op_first[i - begin], NULL);
        st = svk_plan_vk_record_op(&r, &r.p->ops[i]);
    }
    return st;
}

/* Waits for the lists in flight on a parity (vk_submit.h). */
static svk_status finish_parity(svk_model *m, int parity)
{
    vk_state *s = m->backend;
    return svk_vk_range_finish(m, &s->ranges, parity);
}

/* Waits for everything in flight, the older list first. */
static svk_status finish_pending(svk_model *m)
{
    vk_state *s = m->backend;
    svk_status st = finish_parity(m, !s->cur);
    return st == SVK_OK ? finish_parity(m, s->cur) : st;
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
    svk_vk_range *l = NULL;
    /* A training step submitted behind one still running takes the other
     * parity; anything else follows a settled model and reuses the
     * current one. Either way the lists that last used the parity must be
     * done before its inputs are rewritten (for the other parity's, the
     * model settled that step already, so this does not wait), and before
     * its recording is looked up: a finished timed replay is recorded
     * again with the cuts it measured (measure_cuts). */
    const bool behind = h && h->prev_in_flight;
    const int q = behind ? !s->cur : s->cur;
    if (!svk_plan_runnable(&m->plan, begin, end))
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "vulkan backend: ops [%zu, %zu) need the training state",
                         begin, end);
    svk_status st = ensure_shape(m);
    if (st == SVK_OK)
        st = behind ? finish_parity(m, q) : finish_pending(m);
    if (st == SVK_OK)
        st = svk_vk_range_get(m, &s->ranges, record_ops, begin, end, q, &l);
    if (st == SVK_OK)
        st = write_inputs(m, q, tokens, targets, h);
    if (st == SVK_OK) {
        st = svk_vk_range_submit(m, &s->ranges, l);
        if (svk_vk_range_in_flight(&s->ranges, l)) /* (from its first list on) */
            s->cur = q;
    }
    if (st != SVK_OK)
        return st;
    if (m->ctx->settings.profile != SVK_PROFILE_OFF) {
        st = finish_pending(m);
        print_profile(l->cl[0], m->ctx->settings.profile);
        return st;
    }
    return wait ? finish_pending(m) : SVK_OK;
}

/* Records ops [begin, end) as record_ops does, and where end is where a
 * bucket of the layout is complete (the last list of that bucket's range),
 * the bucket's copy into the staging buffer after them: in the list, so
 * that the host waits for that list alone, not for the queue. */
static svk_status record_bucket(svk_model *m, svk_cmdlist *cl, int parity, size_t begin, size_t end,
                                uint32_t *op_first)
{
    vk_state *s = m->backend;
    const svk_grad_layout *g = s->layout;
    svk_status st = record_ops(m, cl, parity, begin, end, op_first);
    uint32_t k = 0;
    while (k < g->n && g->end[k] != end)
        k++;
    if (st != SVK_OK || k == g->n)
        return st;
    const svk_plan_vk_rec r = recording(m, cl, parity);
    const uint32_t grads = svk_plan_slab_start(&m->plan, SVK_SLAB_GRAD);
    uint64_t to = g->first[k];
    for (size_t j = g->span_first[k]; j < g->span_first[k + 1] && st == SVK_OK; j++) {
        /* In parts that each lie in one window of a windowed slab. */
        for (uint64_t e = 0, len; e < g->span[j].n && st == SVK_OK; e += len, to += len) {
            uint64_t reach;
            const svk_tref src = svk_plan_vk_at(&r, grads, g->span[j].offset + e, &reach);
            len = g->span[j].n - e < reach ? g->span[j].n - e : reach;
            const svk_transfer t = {
                .kind = SVK_TRANSFER_COPY, .label = "grad bucket to host", .dst = {s->stage, to * 4, len * 4},
                .src = {src.buf, src.off * 4, len * 4},
            };
            st = svk_cmdlist_transfer(cl, &t);
        }
    }
    return st;
}

/* The staging buffer of the buckets' gradients, made on first use (its
 * size is the gradient slab's, which never changes). */
static svk_status ensure_stage(svk_model *m, uint64_t elems)
{
    vk_state *s = m->backend;
    if (s->stage && s->stage->size >= elems * 4)
        return SVK_OK;
    /* A larger one is bound in other recordings: they go first. */
    if (s->stage) {
        svk_vk_ranges_free(&s->ranges, false);
        svk_buffer_destroy(&s->stage);
    }
    svk_buffer_params bp = svk_buffer_params_default();
    bp.size = (elems ? elems : 1) * 4;
    bp.memory = SVK_MEMORY_HOST_MAPPED;
    bp.name = "gradient buckets";
    /* Copies, not bindings, reach it: only the allocation limits apply. */
    return svk_vk_windows_needed(m->ctx, bp.size) ? svk_buffer_create_unbound(m->ctx, &bp, &s->stage)
                                                   : svk_buffer_create(m->ctx, &bp, &s->stage);
}

static svk_status run_bucket(svk_model *m, const svk_grad_layout *g, uint32_t k, const int32_t *tokens,
                             const int32_t *targets, const svk_step_hparams *h)
{
    vk_state *s = m->backend;
    const int q = s->cur;
    svk_vk_range *l = NULL;
    svk_status st = ensure_shape(m);
    /* The first settles what ran before the step; the others go in
     * behind it on the same parity. */
    if (st == SVK_OK && k == 0)
        st = finish_pending(m);
    if (st == SVK_OK)
        st = ensure_stage(m, g->first[g->n]);
    if (st == SVK_OK) {
        s->layout = g;
        st = svk_vk_range_get(m, &s->ranges, record_bucket, k ? g->end[k - 1] : m->plan.phases.forward, g->end[k],
                              q, &l);
        s->layout = NULL;
    }
    if (st == SVK_OK && k == 0)
        st = write_inputs(m, q, tokens, targets, h);
    if (st == SVK_OK)
        st = svk_vk_range_submit(m, &s->ranges, l);
    s->bucket_range[k] = st == SVK_OK ? l : NULL;
    return st;
}

static svk_status staged(svk_model *m, const svk_grad_layout *g, uint32_t k, float *dst, float out[SVK_OUT_COUNT])
{
    vk_state *s = m->backend;
    const float *stage, *outputs;
    svk_status st = s->bucket_range[k] ? svk_vk_range_finish_through(m, &s->ranges, s->bucket_range[k]) : SVK_OK;
    s->bucket_range[k] = NULL;
    /* Mapped and coherent, and the list ends with a barrier that makes
     * its writes visible to the host (svk_cmdlist_end). */
    if (st == SVK_OK && (st = svk_buffer_map(s->stage, (void **)&stage)) == SVK_OK &&
        (st = svk_buffer_map(io_buffer(s, SVK_SLAB_OUTPUT, s->cur), (void **)&outputs)) == SVK_OK) {
        memcpy(dst, stage + g->first[k], (g->first[k + 1] - g->first[k]) * sizeof(float));
        memcpy(out, outputs + m->plan.tensors[m->plan.output].offset, SVK_OUT_COUNT * sizeof(float));
    }
    return st;
}

/* The outputs of the step before the latest run (model.c settles it while
 * the latest runs): the other parity's, once its list is done. */
static svk_status read_prev_output(svk_model *m, float out[SVK_OUT_COUNT])
{
    vk_state *s = m->backend;
    float *base;
    svk_status st = finish_parity(m, !s->cur);
    if (st == SVK_OK)
        st = svk_buffer_map(io_buffer(s, SVK_SLAB_OUTPUT, !s->cur), (void **)&base);
    if (st == SVK_OK)
        memcpy(out, base + m->plan.tensors[m->plan.output].offset, SVK_OUT_COUNT * sizeof(float));
    return st;
}

static svk_status copy(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *host, bool to_host)
{
    vk_state *s = m->backend;
    svk_status st = finish_pending(m);
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
    if (!s->slab[slab])
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "vulkan backend: the model holds no %s slab",
                         slab_names[slab]);
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
    svk_cmdlist *cl = NULL;
    svk_cmdlist_params lp = {.external = (VkCommandBuffer)vk_command_buffer};
    svk_status st = svk_cmdlist_create(m->ctx, &lp, &cl);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(cl);
    if (st == SVK_OK)
        st = record_ops(m, cl, 0, m->plan.phases.forward, m->plan.phases.end, NULL);
    if (st == SVK_OK)
        st = svk_cmdlist_end(cl);
    if (st != SVK_OK) {
        svk_cmdlist_destroy(&cl);
        return st;
    }
    /* Kept: without push descriptors it owns the descriptor sets. */
    s->external = cl;
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
    svk_status st = finish_pending(m);
    if (st == SVK_OK && (st = write_inputs(m, 0, tokens, targets, h)) == SVK_OK)
        s->cur = 0;
    return st;
}

static void forget_recordings(svk_model *m)
{
    vk_state *s = m->backend;
    if (!s)
        return;
    finish_pending(m);
    /* The cuts stay: a recording made again is cut where this one was. */
    svk_vk_ranges_free(&s->ranges, false);
}

/* A probe of a windowed slab's tensor goes in parts that each lie in one
 * window: a dense probe by elements, a strided one by rows. The part from
 * the probe's element e (in its rows x cols order) is rows x cols at
 * element *at of the tensor; returns its elements, 0 if none fits. */
static uint64_t probe_part(const svk_plan_vk_rec *r, const svk_finite_probe *q, uint64_t e, uint64_t *at,
                           uint64_t *rows, uint64_t *cols)
{
    const uint64_t ld = q->ld ? q->ld : q->cols, total = q->rows * q->cols;
    uint64_t reach;
    if (ld == q->cols || q->rows == 1) {
        *at = q->offset + e;
        svk_plan_vk_at(r, q->tensor, *at, &reach);
        *rows = 1;
        *cols = reach < total - e ? reach : total - e;
        return *cols;
    }
    const uint64_t row0 = e / q->cols;
    *at = q->offset + row0 * ld;
    svk_plan_vk_at(r, q->tensor, *at, &reach);
    const uint64_t fit = reach >= q->cols ? (reach - q->cols) / ld + 1 : 0;
    *rows = fit < q->rows - row0 ? fit : q->rows - row0;
    *cols = q->cols;
    return *rows * q->cols;
}

/* The statistics of a probe's part (from its element e) added to *acc. */
static void merge_stats(svk_ref_finite *acc, const svk_ref_finite *part, uint64_t e)
{
    acc->nan += part->nan;
    acc->inf += part->inf;
    if (acc->first == UINT64_MAX && part->first != UINT64_MAX)
        acc->first = e + part->first;
    if (part->max_abs > acc->max_abs)
        acc->max_abs = part->max_abs;
}

/* A list of its own, recorded for this run and dropped after it: ops one
 * by one, each probe a finite_check dispatch (one per part, in a windowed
 * slab) into its slots of a mapped statistics buffer. */
static svk_status check(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                        const svk_step_hparams *h, const svk_finite_probe *probes, size_t n, svk_ref_finite *out)
{
    vk_state *s = m->backend;
    const svk_plan *p = &m->plan;
    svk_status st = ensure_shape(m);
    if (st == SVK_OK)
        st = finish_pending(m);
    if (st == SVK_OK && tokens)
        st = write_inputs(m, s->cur, tokens, targets, h);
    if (st != SVK_OK)
        return st;
    svk_plan_vk_rec r = recording(m, NULL, s->cur);
    uint64_t slots = 0, at, rows, cols;
    for (size_t i = 0; i < n; i++)
        for (uint64_t e = 0, len; e < probes[i].rows * probes[i].cols; e += len, slots++)
            if (!(len = probe_part(&r, &probes[i], e, &at, &rows, &cols)))
                return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "finite check of '%s': a row lies in no window",
                                 p->tensors[probes[i].tensor].name);
    svk_buffer *stats = NULL;
    svk_buffer_params bp = svk_buffer_params_default();
    bp.size = (slots ? slots : 1) * SVK_FINITE_STATS * 4;
    bp.memory = SVK_MEMORY_HOST_MAPPED;
    bp.name = "finite-check statistics";
    svk_cmdlist *cl = NULL;
    if ((st = svk_buffer_create(m->ctx, &bp, &stats)) == SVK_OK &&
        (st = svk_cmdlist_create(m->ctx, &(svk_cmdlist_params){0}, &cl)) == SVK_OK)
        st = svk_cmdlist_begin(cl);
    r.cl = cl;
    /* Every activation starts as zeros, so that a probe never sees what an
     * earlier step (or nothing) left in a buffer. */
    for (size_t i = 0; i < s->n_act && begin < end && st == SVK_OK; i++)
        if (s->act[i])
            st = svk_fill_record(cl, (svk_tref){s->act[i], 0}, s->act[i]->size / 4, 0.0f, "finite-check zero");
    size_t i = 0;
    uint64_t slot = 0;
    for (size_t k = begin; st == SVK_OK; k++) {
        for (; i < n && probes[i].at == k && st == SVK_OK; i++) {
            const svk_finite_probe *q = &probes[i];
            for (uint64_t e = 0, len; e < q->rows * q->cols && st == SVK_OK; e += len, slot++) {
                len = probe_part(&r, q, e, &at, &rows, &cols);
                svk_finite_check_args a = {
                    .rows = rows, .cols = cols, .ld = rows > 1 ? q->ld : 0,
                    .x = svk_plan_vk_at(&r, q->tensor, at, NULL), .stats = {stats, slot * SVK_FINITE_STATS},
                    .label = p->tensors[q->tensor].name,
                };
                st = svk_finite_check_record(cl, &a);
            }
        }
        if (k >= end || st != SVK_OK)
            break;
        st = svk_plan_vk_record_op(&r, &p->ops[k]);
    }
    if (st == SVK_OK && (st = svk_cmdlist_end(cl)) == SVK_OK && (st = svk_cmdlist_submit(cl)) == SVK_OK)
        st = svk_cmdlist_wait(cl);
    uint32_t *raw = NULL;
    if (st == SVK_OK && (st = svk_buffer_map(stats, (void **)&raw)) == SVK_OK) {
        slot = 0;
        for (i = 0; i < n; i++) {
            out[i] = (svk_ref_finite){.first = UINT64_MAX};
            for (uint64_t e = 0, len; e < probes[i].rows * probes[i].cols; e += len, slot++) {
                len = probe_part(&r, &probes[i], e, &at, &rows, &cols);
                svk_ref_finite part;
                svk_finite_stats_decode(raw + slot * SVK_FINITE_STATS, len, &part);
                merge_stats(&out[i], &part, e);
            }
        }
    }
    svk_cmdlist_destroy(&cl);
    svk_buffer_destroy(&stats);
    return st;
}

/* Flash attention where svk_attention_flash_preferred says so and the
 * heads fit its kernels (D <= 256); the materialised form otherwise. The
 * blocks' Linears forward on transposed weights where the GEMMs run their
 * CPU form (gemm_texel.comp runs NN products faster than NT ones on
 * lavapipe, svk_plan_options.linear_nn); the portable form stages both
 * operands through shared memory either way. The GELU MLP's activations
 * are laid out as those GEMMs read them (svk_gemm_activation_ld), so no
 * copy packs them (docs/PERFORMANCE.md). */
static svk_status plan_options(svk_ctx *ctx, const svk_model_config *c, svk_plan_options *out)
{
    svk_status st = svk_attention_flash_preferred(ctx, &out->flash_attention);
    if (st == SVK_OK && c->width / c->heads > 256)
        out->flash_attention = false;
    svk_gemm_variant v = SVK_GEMM_VARIANT_PORTABLE;
    out->linear_nn = svk_gemm_auto_variant(ctx, &v) == SVK_OK && v == SVK_GEMM_VARIANT_CPU;
    out->mlp_ld = svk_gemm_activation_ld(ctx, svk_model_config_hidden(c));
    return st;
}

/* The buffers a new model's plan p would make (shape_requests from
 * nothing), summed, and checked as check_fit checks them, quietly: a
 * plan is a question, not a failure. */
static void estimate(svk_ctx *ctx, const svk_plan *p, svk_memory_plan *out)
{
    vk_state empty = {0};
    svk_buffer_request *req = svk_calloc(max_requests(p) + 1, sizeof(*req)); /* + staging */
    if (!req) {
        snprintf(out->why_not, sizeof(out->why_not), "out of host memory working out the plan");
        return;
    }
    char note[160];
    uint64_t released[SVK_POOL_COUNT];
    const size_t n = shape_requests(ctx, &empty, p, req, NULL, note, released);
    out->device_bytes = 0;
    for (size_t i = 0; i < n; i++)
        out->device_bytes += (req[i].size + SVK_MEM_ALIGN - 1) / SVK_MEM_ALIGN * SVK_MEM_ALIGN;
    /* Not the model's, but it takes its share of the heap: the context's
     * staging memory, which the model's first upload allocates and the
     * context keeps (lib/vk/transfer.c). Unless the context holds it
     * already, the model fits only with it. */
    const uint64_t staging = svk_transfer_staging_pending(ctx);
    size_t m = n;
    if (staging)
        req[m++] = (svk_buffer_request){.name = "staging", .note = " (the context's transfer memory)",
                                        .size = staging, .staging = true};
    out->heap = svk_mem_pool_heap(ctx, SVK_POOL_DEVICE);
    out->heap_size = ctx->vk.mem_props.memoryHeaps[out->heap].size;
    out->heap_available = svk_mem_heap_available(ctx, out->heap, 0, NULL);
    memset(released, 0, sizeof(released));
    out->fits = svk_buffer_check_fit(ctx, NULL, "the model", req, m, released) == SVK_OK;
    snprintf(out->why_not, sizeof(out->why_not), "%s", out->fits ? "" : svk_last_error());
    free(req);
}

const svk_backend_impl svk_backend_vulkan = {
    .name = "vulkan", .set_plan = set_plan, .run = run, .read = read_slab, .write = write_slab, .destroy = destroy,
    .forget_recordings = forget_recordings, .record_external = record_external,
    .plan_options = plan_options, .estimate = estimate, .prepare = prepare, .read_prev_output = read_prev_output, .check = check,
    .run_bucket = run_bucket, .staged = staged,
};
