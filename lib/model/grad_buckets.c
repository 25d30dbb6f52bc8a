/* The buckets of a step's gradients (grad_buckets.h), from what each op
 * writes (plan_operands.c): no builder has to say where a gradient ends,
 * so new ops, fusions and accumulation are covered as they come. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "grad_buckets.h"

typedef struct param_done {
    uint64_t offset, n; /* its gradient in the slab */
    size_t done;        /* the last op of [forward, clip) writing any of it */
} param_done;

static int by_done(const void *pa, const void *pb)
{
    const param_done *a = pa, *b = pb;
    if (a->done != b->done)
        return a->done < b->done ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int by_offset(const void *pa, const void *pb)
{
    const param_done *a = pa, *b = pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

void svk_grad_layout_free(svk_grad_layout *g)
{
    free(g->end);
    free(g->first);
    free(g->span_first);
    free(g->span);
    *g = (svk_grad_layout){0};
}

/* Each parameter's last writer in [forward, clip). An operand's extent is
 * taken whole, from its first element to its last (a strided one
 * included), so a gradient is never thought done before it is. No earlier
 * than the step's last loss op: the first bucket then also brings the
 * step's loss and counted targets, which the reducer needs with it. */
static void last_writers(const svk_plan *p, param_done *pd)
{
    size_t floor = p->phases.forward;
    for (size_t k = p->phases.forward; k < p->phases.clip; k++)
        if (p->ops[k].code == SVK_OP_XENT)
            floor = k;
    for (size_t i = 0; i < p->n_params; i++) {
        const svk_plan_tensor *t = &p->tensors[svk_plan_param_tensor(p, i, SVK_SLAB_GRAD)];
        pd[i] = (param_done){t->offset, t->elems, floor};
    }
    svk_plan_operand o[SVK_PLAN_MAX_OPERANDS];
    for (size_t k = p->phases.forward; k < p->phases.clip; k++) {
        const uint32_t n = svk_plan_op_operands(p, &p->ops[k], o);
        for (uint32_t j = 0; j < n; j++) {
            const svk_plan_tensor *t = &p->tensors[o[j].tensor];
            if (!o[j].written || t->slab != SVK_SLAB_GRAD)
                continue;
            const uint64_t a = t->offset + o[j].offset, b = a + (o[j].rows - 1) * o[j].ld + o[j].cols;
            for (size_t i = 0; i < p->n_params; i++)
                if (pd[i].offset < b && a < pd[i].offset + pd[i].n && k > pd[i].done)
                    pd[i].done = k;
        }
    }
}

/* The bucket each parameter (in completion order) falls in: a bucket
 * closes after the parameters one op completes once it holds bytes, so
 * that it ends between ops; the last takes the rest. Returns the count. */
static uint32_t cut(const param_done *pd, size_t np, uint64_t bytes, uint32_t *bucket)
{
    uint32_t b = 0;
    uint64_t held = 0;
    for (size_t i = 0; i < np; i++) {
        bucket[i] = b;
        held += pd[i].n * 4;
        const bool op_ends = i + 1 == np || pd[i + 1].done != pd[i].done;
        if (op_ends && held >= bytes && i + 1 < np) {
            b++;
            held = 0;
        }
    }
    return b + 1;
}

svk_status svk_grad_layout_build(svk_log *log, const svk_plan *p, uint64_t bucket_bytes, svk_grad_layout *out)
{
    *out = (svk_grad_layout){0};
    const size_t np = p->n_params;
    const uint64_t total_bytes = p->slab_elems[SVK_SLAB_GRAD] * 4;
    param_done *pd = svk_calloc(np ? np : 1, sizeof(*pd));
    uint32_t *bucket = svk_calloc(np ? np : 1, sizeof(*bucket));
    uint64_t bytes = bucket_bytes;
    if (!bytes)
        bytes = total_bytes / 4 > SVK_GRAD_BUCKET_BYTES_MIN ? total_bytes / 4 : SVK_GRAD_BUCKET_BYTES_MIN;
    /* No more than SVK_GRAD_BUCKETS_MAX: every bucket but the last holds
     * at least bytes. */
    const uint64_t least = (total_bytes + SVK_GRAD_BUCKETS_MAX - 2) / (SVK_GRAD_BUCKETS_MAX - 1);
    bytes = bytes > least ? bytes : least;
    if (pd && bucket) {
        last_writers(p, pd);
        qsort(pd, np, sizeof(*pd), by_done);
        out->n = np ? cut(pd, np, bytes, bucket) : 1;
        out->end = svk_calloc(out->n, sizeof(*out->end));
        out->first = svk_calloc(out->n + 1, sizeof(*out->first));
        out->span_first = svk_calloc(out->n + 1, sizeof(*out->span_first));
        out->span = svk_calloc(np ? np : 1, sizeof(*out->span));
    }
    if (!pd || !bucket || !out->end || !out->first || !out->span_first || !out->span) {
        free(pd);
        free(bucket);
        svk_grad_layout_free(out);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory cutting the gradients into buckets");
    }
    size_t i = 0, spans = 0;
    for (uint32_t b = 0; b < out->n; b++) {
        const size_t i0 = i;
        while (i < np && bucket[i] == b)
            i++;
        out->end[b] = b + 1 < out->n ? pd[i - 1].done + 1 : p->phases.clip;
        /* Within a bucket, in slab order: neighbours in the slab make one
         * span, one copy. */
        qsort(pd + i0, i - i0, sizeof(*pd), by_offset);
        out->span_first[b] = spans;
        for (size_t j = i0; j < i; j++) {
            svk_grad_span *last = spans > out->span_first[b] ? &out->span[spans - 1] : NULL;
            if (last && last->offset + last->n == pd[j].offset)
                last->n += pd[j].n;
            else
                out->span[spans++] = (svk_grad_span){pd[j].offset, pd[j].n};
            out->first[b + 1] += pd[j].n;
        }
        out->first[b + 1] += out->first[b];
    }
    out->span_first[out->n] = spans;
    free(pd);
    free(bucket);
    return SVK_OK;
}
