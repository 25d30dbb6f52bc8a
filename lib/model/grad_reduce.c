/*
 * A training step whose gradients are reduced across processes by the
 * caller (svk/grad_reduce.h). The plan is the same as without a reducer;
 * only its ops run in parts, each recorded once and replayed. Whole:
 * [forward, clip), the gradient slab and the step's loss through the host,
 * then [clip, end); a backend needs nothing new for it. In buckets
 * (grad_buckets.h): [forward, clip) cut where buckets are complete, every
 * part submitted at once and each bucket handed over as its part finishes
 * (the backend's run_bucket and staged), then the same [clip, end).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "model_internal.h"

/* Installs a reducer: fn whole, or in buckets (bucket non-NULL, fn its
 * finish call); fn NULL clears both. */
static svk_status set_reducer(svk_model *m, svk_grad_reduce_fn fn, svk_grad_bucket_fn bucket, uint64_t bucket_bytes,
                              void *user)
{
    /* A step in flight was taken under the old setting: its outcome is
     * settled first, so that steps never straddle the change. */
    svk_status st = svk_model_settle(m);
    if (st != SVK_OK)
        return st;
    /* Other buckets are other ranges to record: the old ones go. */
    if ((bucket_bytes != m->bucket_bytes || !bucket) && m->layout.n) {
        svk_grad_layout_free(&m->layout);
        if (m->impl->forget_recordings)
            m->impl->forget_recordings(m);
    }
    m->reduce_fn = fn;
    m->bucket_fn = fn ? bucket : NULL;
    m->bucket_bytes = bucket_bytes;
    m->reduce_user = fn ? user : NULL;
    if (!fn) {
        free(m->reduce_grads);
        m->reduce_grads = NULL;
        m->reduce_cap = 0;
    }
    return SVK_OK;
}

svk_status svk_model_set_grad_reduce(svk_model *m, svk_grad_reduce_fn fn, void *user)
{
    svk_error_clear_thread();
    if (!m)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);
    return set_reducer(m, fn, NULL, 0, user);
}

svk_status svk_model_set_grad_reduce_buckets(svk_model *m, const svk_grad_reducer *r)
{
    svk_error_clear_thread();
    if (!m)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);
    if (!r)
        return set_reducer(m, NULL, NULL, 0, NULL);
    if (!r->bucket || !r->finish)
        return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: the reducer's %s call is NULL (both are required)",
                         __func__, !r->bucket ? "bucket" : "finish");
    for (size_t i = 0; i < sizeof(r->reserved) / sizeof(r->reserved[0]); i++)
        if (r->reserved[i])
            return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: reserved[%zu] is %llu, not zero", __func__,
                             i, (unsigned long long)r->reserved[i]);
    return set_reducer(m, r->finish, r->bucket, r->bucket_bytes, r->user);
}

/* The host copy of the gradient slab, grown to n elements. */
static float *grads_room(svk_model *m, uint64_t n)
{
    if (m->reduce_cap < n) {
        float *g = svk_calloc(n ? n : 1, sizeof(float));
        if (!g)
            return NULL;
        free(m->reduce_grads);
        m->reduce_grads = g;
        m->reduce_cap = n;
    }
    return m->reduce_grads;
}

/* The step's count of this process's targets, from its outputs. */
static int32_t valid_targets(const float out[SVK_OUT_COUNT])
{
    int32_t valid;
    memcpy(&valid, &out[SVK_OUT_VALID_TARGETS], sizeof(valid));
    return valid;
}

/* The device divided the gradients g [n] by this process's count: times
 * it, they are sums over the targets, which add across processes. */
static void to_sums(float *g, uint64_t n, const float out[SVK_OUT_COUNT])
{
    const float local = (float)valid_targets(out);
    for (uint64_t i = 0; i < n; i++)
        g[i] *= local;
}

/* A bucketed step's forward and backward: every bucket's range
 * submitted, then each bucket, as the device completes it, into its place
 * in g (the packed array), multiplied by this process's count, and handed
 * to the reducer. out: the step's outputs, from the first bucket's run,
 * which holds every loss op. */
static svk_status bucketed(svk_model *m, const int32_t *tokens, const int32_t *targets, const svk_step_hparams *h,
                           float *g, float out[SVK_OUT_COUNT], const char *func)
{
    const svk_grad_layout *L = &m->layout;
    svk_status st = SVK_OK;
    for (uint32_t k = 0; k < L->n && st == SVK_OK; k++)
        st = m->impl->run_bucket(m, L, k, tokens, targets, h);
    for (uint32_t k = 0; k < L->n && st == SVK_OK; k++) {
        float *b = g + L->first[k], o[SVK_OUT_COUNT];
        const uint64_t count = L->first[k + 1] - L->first[k];
        if ((st = m->impl->staged(m, L, k, b, o)) != SVK_OK)
            break;
        if (k == 0)
            memcpy(out, o, sizeof(o));
        to_sums(b, count, out);
        const svk_grad_bucket gb = {.grads = b, .offset = L->first[k], .count = count, .index = k, .buckets = L->n};
        const int rc = m->bucket_fn(m->reduce_user, &gb);
        if (rc != 0)
            return svk_error(svk_model_log(m), SVK_ERROR_INVALID_STATE,
                             "%s: the gradient reducer's bucket call (svk_model_set_grad_reduce_buckets) failed on "
                             "bucket %u of %u, returning %d: no update", func, k, L->n, rc);
    }
    return st;
}

/* The packed array g back in the gradient slab's order, into slab. */
static void unpack(const svk_grad_layout *L, const float *g, float *slab)
{
    for (uint32_t k = 0; k < L->n; k++) {
        const float *from = g + L->first[k];
        for (size_t j = L->span_first[k]; j < L->span_first[k + 1]; j++) {
            memcpy(slab + L->span[j].offset, from, L->span[j].n * sizeof(float));
            from += L->span[j].n;
        }
    }
}

svk_status svk_model_reduced_step(svk_model *m, const int32_t *tokens, const int32_t *targets,
                                  const svk_step_hparams *h, const char *func)
{
    const svk_plan *p = &m->plan;
    svk_log *log = svk_model_log(m);
    /* The gradient slab holds every parameter's gradient and nothing else
     * (plan.c lays the parameter-shaped slabs out back to back). */
    const uint64_t n = p->slab_elems[SVK_SLAB_GRAD];
    const uint64_t out_at = p->tensors[p->output].offset;
    const bool buckets = m->bucket_fn != NULL;
    svk_status st = SVK_OK;
    if (buckets && !m->layout.n && (st = svk_grad_layout_build(log, p, m->bucket_bytes, &m->layout)) != SVK_OK)
        return st;
    /* Bucketed: the packed array, then the slab's order to write back. */
    float *g = grads_room(m, buckets ? 2 * n : n);
    if (!g)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory for the %llu gradients to reduce",
                         func, (unsigned long long)n);
    float out[SVK_OUT_COUNT];
    if (buckets) {
        st = bucketed(m, tokens, targets, h, g, out, func);
    } else {
        st = m->impl->run(m, p->phases.forward, p->phases.clip, tokens, targets, h, true);
        if (st == SVK_OK)
            st = m->impl->read(m, SVK_SLAB_OUTPUT, out_at, SVK_OUT_COUNT, out);
        if (st == SVK_OK)
            st = m->impl->read(m, SVK_SLAB_GRAD, 0, n, g);
        if (st == SVK_OK)
            to_sums(g, n, out);
    }
    if (st != SVK_OK)
        return st;
    const int32_t valid = valid_targets(out);
    svk_grad_sums sums = {
        .grads = g, .count = n, .loss_sum = valid > 0 ? (double)out[SVK_OUT_LOSS] * valid : 0.0,
        .targets = valid > 0 ? (uint64_t)valid : 0,
    };
    const int rc = m->reduce_fn(m->reduce_user, &sums);
    if (rc != 0)
        return svk_error(log, SVK_ERROR_INVALID_STATE,
                         "%s: the gradient reducer (%s) failed, returning %d: no update", func,
                         buckets ? "svk_model_set_grad_reduce_buckets's finish call" : "svk_model_set_grad_reduce",
                         rc);
    if (sums.targets > INT32_MAX)
        return svk_error(log, SVK_ERROR_INVALID_STATE,
                         "%s: the gradient reducer returned %llu counted targets, more than the %d a step counts", func,
                         (unsigned long long)sums.targets, INT32_MAX);
    /* Divided as one process with the whole batch divides its logits'
     * gradients: by the count of all the step's targets, in float. No
     * target anywhere: the gradients are zeros, left as they are. */
    if (sums.targets) {
        const float total = (float)sums.targets;
        for (uint64_t i = 0; i < n; i++)
            g[i] /= total;
    }
    if (buckets) {
        unpack(&m->layout, g, g + n);
        g += n;
    }
    const int32_t all = (int32_t)sums.targets;
    out[SVK_OUT_LOSS] = sums.targets ? (float)(sums.loss_sum / (double)sums.targets) : 0.0f;
    memcpy(&out[SVK_OUT_VALID_TARGETS], &all, sizeof(all));
    /* AdamW skips a step from the loss and gradient norm in the outputs,
     * which are now the totals: every process skips the same steps. */
    if ((st = m->impl->write(m, SVK_SLAB_GRAD, 0, n, g)) != SVK_OK ||
        (st = m->impl->write(m, SVK_SLAB_OUTPUT, out_at, SVK_OUT_VALID_TARGETS + 1, out)) != SVK_OK)
        return st;
    return m->impl->run(m, p->phases.clip, p->phases.end, NULL, NULL, h, false);
}
