/* The CPU backend: slabs in host memory, plans run by plan_cpu_tmpl.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/sysmem.h"
#include "model_internal.h"

typedef struct cpu_state {
    void *slabs[SVK_SLAB_COUNT];
    uint64_t elems[SVK_SLAB_COUNT];
    float *stage;        /* the buckets' gradients, packed (run_bucket) */
    uint64_t stage_cap;
} cpu_state;

static cpu_state *state(svk_model *m)
{
    if (!m->backend)
        m->backend = svk_calloc(1, sizeof(cpu_state));
    return m->backend;
}

static svk_status set_plan(svk_model *m, const svk_plan *p)
{
    cpu_state *s = state(m);
    if (!s)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (int k = 0; k < SVK_SLAB_COUNT; k++) {
        if (s->slabs[k] && s->elems[k] == p->slab_elems[k])
            continue;
        /* The training state, made at its first need (plan.h), starts
         * zero: calloc's. */
        if (svk_slab_is_train_state((svk_slab)k) && !p->train_state)
            continue;
        /* Parameter-shaped slabs never change size; activations do. */
        void *n = svk_calloc(p->slab_elems[k] ? p->slab_elems[k] : 1, 4);
        if (!n)
            return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY,
                             "out of host memory for the %llu-element slab %d", (unsigned long long)p->slab_elems[k], k);
        free(s->slabs[k]);
        s->slabs[k] = n;
        s->elems[k] = p->slab_elems[k];
    }
    return SVK_OK;
}

static svk_status run(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                      const svk_step_hparams *h, bool wait)
{
    (void)wait;
    cpu_state *s = m->backend;
    const svk_plan *p = &m->plan;
    if (!svk_plan_runnable(p, begin, end))
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "cpu backend: ops [%zu, %zu) need the training state",
                         begin, end);
    svk_plan_write_inputs(p, s->slabs[SVK_SLAB_INPUT], tokens, targets);
    return svk_plan_cpu_run_f32(svk_model_log(m), p, s->slabs, begin, end, h);
}

/* Runs a bucket's range at once (nothing overlaps here) and copies the
 * bucket out right after it, as the device does: a gradient written after
 * its bucket's range would then differ from the whole step's, and the
 * tests comparing the two would see it. */
static svk_status run_bucket(svk_model *m, const svk_grad_layout *g, uint32_t k, const int32_t *tokens,
                             const int32_t *targets, const svk_step_hparams *h)
{
    cpu_state *s = m->backend;
    const uint64_t n = g->first[g->n];
    if (s->stage_cap < n) {
        float *stage = svk_calloc(n ? n : 1, sizeof(float));
        if (!stage)
            return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY,
                             "cpu backend: out of host memory for the %llu gradients of the buckets",
                             (unsigned long long)n);
        free(s->stage);
        s->stage = stage;
        s->stage_cap = n;
    }
    const size_t begin = k ? g->end[k - 1] : m->plan.phases.forward;
    svk_status st = run(m, begin, g->end[k], k ? NULL : tokens, k ? NULL : targets, h, true);
    float *dst = s->stage + g->first[k];
    const float *grads = s->slabs[SVK_SLAB_GRAD];
    for (size_t j = g->span_first[k]; j < g->span_first[k + 1] && st == SVK_OK; j++) {
        memcpy(dst, grads + g->span[j].offset, g->span[j].n * sizeof(float));
        dst += g->span[j].n;
    }
    return st;
}

static svk_status staged(svk_model *m, const svk_grad_layout *g, uint32_t k, float *dst, float out[SVK_OUT_COUNT])
{
    cpu_state *s = m->backend;
    memcpy(dst, s->stage + g->first[k], (g->first[k + 1] - g->first[k]) * sizeof(float));
    memcpy(out, (const float *)s->slabs[SVK_SLAB_OUTPUT] + m->plan.tensors[m->plan.output].offset,
           SVK_OUT_COUNT * sizeof(float));
    return SVK_OK;
}

static svk_status copy(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *host, bool to_host)
{
    cpu_state *s = m->backend;
    if (!s || !s->slabs[slab] || offset + n > s->elems[slab])
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "cpu backend: slab %d range out of bounds", slab);
    char *base = (char *)s->slabs[slab] + offset * 4;
    if (to_host)
        memcpy(host, base, n * 4);
    else
        memcpy(base, host, n * 4);
    return SVK_OK;
}

static svk_status read_slab(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *dst)
{
    return copy(m, slab, offset, n, dst, true);
}

static svk_status write_slab(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, const void *src)
{
    return copy(m, slab, offset, n, (void *)src, false);
}

static svk_status check(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                        const svk_step_hparams *h, const svk_finite_probe *probes, size_t n, svk_ref_finite *out)
{
    cpu_state *s = m->backend;
    const svk_plan *p = &m->plan;
    if (tokens)
        svk_plan_write_inputs(p, s->slabs[SVK_SLAB_INPUT], tokens, targets);
    if (begin < end)
        memset(s->slabs[SVK_SLAB_ACT], 0, s->elems[SVK_SLAB_ACT] * 4);
    size_t i = 0;
    for (size_t k = begin;; k++) {
        for (; i < n && probes[i].at == k; i++) {
            const svk_finite_probe *q = &probes[i];
            const svk_plan_tensor *t = &p->tensors[q->tensor];
            const uint64_t first = t->offset + q->offset, span = (q->rows - 1) * q->ld + q->cols;
            if (first + span > s->elems[t->slab])
                return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL,
                                 "cpu backend: a check of '%s' runs past its slab", t->name);
            svk_ref_finite_check_f32(q->rows, q->cols, q->ld, (const float *)s->slabs[t->slab] + first, &out[i]);
        }
        if (k >= end)
            return SVK_OK;
        svk_status st = svk_plan_cpu_run_f32(svk_model_log(m), p, s->slabs, k, k + 1, h);
        if (st != SVK_OK)
            return st;
    }
}

static void destroy(svk_model *m)
{
    cpu_state *s = m->backend;
    if (!s)
        return;
    for (int k = 0; k < SVK_SLAB_COUNT; k++)
        free(s->slabs[k]);
    free(s->stage);
    free(s);
    m->backend = NULL;
}

/* Host memory: the slabs, against what the system has free. */
static void estimate(svk_ctx *ctx, const svk_plan *p, svk_memory_plan *out)
{
    (void)ctx;
    out->device_bytes = svk_plan_memory_report(p).total;
    uint64_t free_bytes = 0;
    out->heap_available = svk_sysmem_available(&free_bytes) ? free_bytes : 0;
    out->fits = !out->heap_available || out->device_bytes <= out->heap_available;
    if (!out->fits)
        snprintf(out->why_not, sizeof(out->why_not),
                 "the model needs %llu bytes of host memory, more than the %llu bytes the system has free",
                 (unsigned long long)out->device_bytes, (unsigned long long)out->heap_available);
}

const svk_backend_impl svk_backend_cpu = {
    .name = "cpu", .set_plan = set_plan, .run = run, .read = read_slab, .write = write_slab, .destroy = destroy,
    .check = check, .estimate = estimate, .run_bucket = run_bucket, .staged = staged,
};
