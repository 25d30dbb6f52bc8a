/*
 * A training step whose gradients are reduced across processes by the
 * caller (svk/grad_reduce.h). The plan is the same as without a reducer;
 * only its ops run in two ranges, [forward, clip) and [clip, end), each
 * recorded once and replayed, with the gradient slab and the step's loss
 * going through the host between them. A backend needs nothing new: the
 * ranges and the slab copies are what it already offers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "model_internal.h"

svk_status svk_model_set_grad_reduce(svk_model *m, svk_grad_reduce_fn fn, void *user)
{
    svk_error_clear_thread();
    if (!m)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);
    /* A step in flight was taken under the old setting: its outcome is
     * settled first, so that steps never straddle the change. */
    svk_status st = svk_model_settle(m);
    if (st != SVK_OK)
        return st;
    m->reduce_fn = fn;
    m->reduce_user = fn ? user : NULL;
    if (!fn) {
        free(m->reduce_grads);
        m->reduce_grads = NULL;
        m->reduce_cap = 0;
    }
    return SVK_OK;
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

svk_status svk_model_reduced_step(svk_model *m, const int32_t *tokens, const int32_t *targets,
                                  const svk_step_hparams *h, const char *func)
{
    const svk_plan *p = &m->plan;
    svk_log *log = svk_model_log(m);
    /* The gradient slab holds every parameter's gradient and nothing else
     * (plan.c lays the parameter-shaped slabs out back to back). */
    const uint64_t n = p->slab_elems[SVK_SLAB_GRAD];
    const uint64_t out_at = p->tensors[p->output].offset;
    float *g = grads_room(m, n);
    if (!g)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory for the %llu gradients to reduce",
                         func, (unsigned long long)n);
    float out[SVK_OUT_COUNT];
    svk_status st = m->impl->run(m, p->phases.forward, p->phases.clip, tokens, targets, h, true);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_OUTPUT, out_at, SVK_OUT_COUNT, out);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_GRAD, 0, n, g);
    if (st != SVK_OK)
        return st;
    int32_t valid;
    memcpy(&valid, &out[SVK_OUT_VALID_TARGETS], sizeof(valid));
    /* The device divided by this process's count: multiplied back, the
     * gradients are sums over the targets, which add across processes. */
    const float local = (float)valid;
    for (uint64_t i = 0; i < n; i++)
        g[i] *= local;
    svk_grad_sums sums = {
        .grads = g, .count = n, .loss_sum = valid > 0 ? (double)out[SVK_OUT_LOSS] * valid : 0.0,
        .targets = valid > 0 ? (uint64_t)valid : 0,
    };
    const int rc = m->reduce_fn(m->reduce_user, &sums);
    if (rc != 0)
        return svk_error(log, SVK_ERROR_INVALID_STATE,
                         "%s: the gradient reducer (svk_model_set_grad_reduce) failed, returning %d: no update", func,
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
