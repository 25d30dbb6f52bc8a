/* NaN and infinity in a model: the save's check of the state, and
 * svk_model_find_nonfinite's replay of a step with every operand checked.
 * Both build a list of probes (finite.h) and hand it to the backend, which
 * looks where the tensors live: a device downloads four integers a probe,
 * never the tensors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "model_internal.h"

typedef struct probe_list {
    svk_finite_probe *v;
    size_t n, cap;
    bool oom;
} probe_list;

static void push(probe_list *l, svk_finite_probe q)
{
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        svk_finite_probe *v = svk_realloc(l->v, cap * sizeof(*v));
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = q;
}

/* rows x cols elements (stride ld) from element offset of tensor t, looked
 * at before op `at`, as probes of at most SVK_FINITE_PROBE_MAX elements:
 * whole rows where the rows are strided and short enough, else pieces of
 * one row or of the dense whole. Returns how many probes it added. */
static size_t add_operand(probe_list *l, size_t at, uint32_t t, uint64_t offset, uint64_t rows, uint64_t cols,
                          uint64_t ld)
{
    const size_t before = l->n;
    if (ld == cols) {
        ld = cols *= rows;
        rows = 1;
    }
    if (cols <= SVK_FINITE_PROBE_MAX) {
        const uint64_t per = SVK_FINITE_PROBE_MAX / cols;
        for (uint64_t r = 0; r < rows; r += per)
            push(l, (svk_finite_probe){at, t, offset + r * ld, rows - r < per ? rows - r : per, cols, ld});
    } else {
        for (uint64_t r = 0; r < rows; r++)
            for (uint64_t c = 0; c < cols; c += SVK_FINITE_PROBE_MAX)
                push(l, (svk_finite_probe){at, t, offset + r * ld + c, 1,
                                           cols - c < SVK_FINITE_PROBE_MAX ? cols - c : SVK_FINITE_PROBE_MAX, cols});
    }
    return l->n - before;
}

/* The statistics of probes [0, n) of one operand as one: counts added, the
 * first index counted over the probes' elements in order. */
static svk_ref_finite merge(const svk_finite_probe *q, const svk_ref_finite *r, size_t n)
{
    svk_ref_finite m = {0, 0, UINT64_MAX, 0};
    uint64_t base = 0;
    for (size_t i = 0; i < n; i++) {
        m.nan += r[i].nan;
        m.inf += r[i].inf;
        if (m.first == UINT64_MAX && r[i].first != UINT64_MAX)
            m.first = base + r[i].first;
        if (r[i].max_abs > m.max_abs)
            m.max_abs = r[i].max_abs;
        base += q[i].rows * q[i].cols;
    }
    return m;
}

/* The state's slabs as a checkpoint names them. */
static const svk_slab state_slabs[3] = {SVK_SLAB_PARAM, SVK_SLAB_ADAM_M, SVK_SLAB_ADAM_V};
static const char *const state_prefix[3] = {"", "optimizer.m.", "optimizer.v."};
static const char *const state_what[3] = {"the weights", "the AdamW first moments", "the AdamW second moments"};

svk_status svk_model_check_state_finite(svk_model *m, bool optimizer, const char *what)
{
    svk_log *log = svk_model_log(m);
    const svk_plan *p = &m->plan;
    /* A model that has not trained holds no moments: they are zero. */
    const int kinds = optimizer && p->train_state ? 3 : 1;
    /* Per slab, its two parameter groups (with and without weight decay):
     * each lies back to back in the slab (svk_plan_param_group). */
    probe_list l = {0};
    size_t count[3][2] = {{0}};
    for (int k = 0; k < kinds; k++)
        for (int g = 0; g < 2; g++) {
            uint64_t elems;
            const uint32_t t = svk_plan_param_group(p, g == 0, state_slabs[k], &elems);
            if (t != SVK_NONE && elems)
                count[k][g] = add_operand(&l, 0, t, 0, 1, elems, elems);
        }
    svk_ref_finite *r = l.oom ? NULL : svk_calloc(l.n ? l.n : 1, sizeof(*r));
    svk_status st = r ? m->impl->check(m, 0, 0, NULL, NULL, NULL, l.v, l.n, r)
                      : svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory checking %s", what);
    size_t at = 0;
    for (int k = 0; k < kinds && st == SVK_OK; k++) {
        uint64_t nan = 0, inf = 0;
        const char *bad = NULL;
        uint64_t bad_elem = 0;
        for (int g = 0; g < 2; g++) {
            const svk_ref_finite s = merge(l.v + at, r + at, count[k][g]);
            if (s.first != UINT64_MAX && !bad) {
                /* The group's element s.first, as a parameter and an element of it. */
                const uint64_t pos = p->tensors[l.v[at].tensor].offset + s.first;
                for (size_t i = 0; i < p->n_params && !bad; i++) {
                    const svk_plan_tensor *t = &p->tensors[svk_plan_param_tensor(p, i, state_slabs[k])];
                    if (pos >= t->offset && pos < t->offset + t->elems) {
                        bad = p->params[i].name;
                        bad_elem = pos - t->offset;
                    }
                }
            }
            nan += s.nan;
            inf += s.inf;
            at += count[k][g];
        }
        if (nan + inf)
            st = svk_error(log, SVK_ERROR_NONFINITE,
                           "refusing to save %s: %s hold %" PRIu64 " NaN and %" PRIu64 " infinite values, the first in "
                           "tensor '%s%s' at element %" PRIu64 " (a diverged run?); nothing was written",
                           what, state_what[k], nan, inf, state_prefix[k], bad ? bad : "?", bad_elem);
    }
    free(r);
    free(l.v);
    return st;
}

/* One operand of one op of the replay, and where its probes are. */
typedef struct operand_rec {
    size_t op;
    svk_plan_operand o;
    size_t first_probe, n_probes;
} operand_rec;

static void describe(const svk_plan *p, const operand_rec *a, const svk_finite_probe *q, const svk_ref_finite *r,
                     svk_nonfinite_operand *out)
{
    const svk_ref_finite s = merge(q + a->first_probe, r + a->first_probe, a->n_probes);
    memset(out, 0, sizeof(*out));
    snprintf(out->tensor, sizeof(out->tensor), "%s", p->tensors[a->o.tensor].name);
    snprintf(out->role, sizeof(out->role), "%s", a->o.role);
    out->elements = a->o.rows * a->o.cols;
    out->nan = s.nan;
    out->inf = s.inf;
    out->first = s.first;
    out->max_abs = (float)s.max_abs;
}

static const char *phase_of(const svk_plan *p, size_t k)
{
    return k < p->phases.loss ? "forward" : k < p->phases.backward ? "loss" : k < p->phases.clip ? "backward" : "clip";
}

svk_status svk_model_find_nonfinite(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B,
                                    uint32_t T, svk_nonfinite_report *report)
{
    svk_error_clear_thread();
    if (!m)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, targets);
    SVK_CHECK_PTR(log, report);
    memset(report, 0, sizeof(*report));
    report->layer = -1;
    svk_status st = svk_model_begin_batch(m, tokens, targets, B, T, __func__);
    if (st != SVK_OK)
        return st;
    const svk_plan *p = &m->plan;
    const size_t begin = p->phases.forward, end = p->phases.optimizer;
    /* An op's inputs are looked at just before it runs, its outputs just
     * after (before the next op): appended in op order, the probes come
     * sorted by when they are looked at, as the backends want them. */
    probe_list l = {0};
    operand_rec *recs = svk_calloc((end - begin) * SVK_PLAN_MAX_OPERANDS + 1, sizeof(*recs));
    size_t n_recs = 0;
    for (size_t k = begin; k < end && recs; k++) {
        svk_plan_operand ops[SVK_PLAN_MAX_OPERANDS];
        const uint32_t n = svk_plan_op_operands(p, &p->ops[k], ops);
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t j = 0; j < n; j++) {
                if (pass == 0 ? !ops[j].read : !ops[j].written)
                    continue;
                operand_rec *a = &recs[n_recs++];
                a->op = k;
                a->o = ops[j];
                a->o.written = pass == 1; /* this record: the operand as an output */
                a->first_probe = l.n;
                a->n_probes = add_operand(&l, k + (size_t)pass, ops[j].tensor, ops[j].offset, ops[j].rows,
                                          ops[j].cols, ops[j].ld);
            }
    }
    svk_ref_finite *r = !recs || l.oom ? NULL : svk_calloc(l.n ? l.n : 1, sizeof(*r));
    if (!r) {
        free(recs);
        free(l.v);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", __func__);
    }
    const svk_optimizer *o = &m->params.optimizer;
    const svk_step_hparams h = {.t = m->step + 1, .beta1 = o->beta1, .beta2 = o->beta2, .adam_eps = o->eps,
                                .weight_decay = o->weight_decay, .max_norm = o->max_norm};
    m->logits_kept = false; /* the replay's backward takes their place */
    st = m->impl->check(m, begin, end, tokens, targets, &h, l.v, l.n, r);
    /* The first op with a non-finite output; its inputs are the records of
     * the same op read before it ran. */
    for (size_t i = 0; i < n_recs && st == SVK_OK && !report->found; i++) {
        const operand_rec *a = &recs[i];
        if (!a->o.written)
            continue;
        const svk_ref_finite s = merge(l.v + a->first_probe, r + a->first_probe, a->n_probes);
        if (s.nan + s.inf == 0)
            continue;
        const svk_plan_op *op = &p->ops[a->op];
        report->found = true;
        report->op_index = (uint32_t)a->op;
        snprintf(report->op, sizeof(report->op), "%s", op->label);
        snprintf(report->kind, sizeof(report->kind), "%s", svk_plan_opcode_name(op->code));
        snprintf(report->phase, sizeof(report->phase), "%s", phase_of(p, a->op));
        unsigned layer;
        if (sscanf(op->label, "blocks.%u.", &layer) == 1)
            report->layer = (int32_t)layer;
        describe(p, a, l.v, r, &report->output);
        for (size_t j = 0; j < n_recs; j++)
            if (recs[j].op == a->op && !recs[j].o.written && report->n_inputs < 16)
                describe(p, &recs[j], l.v, r, &report->inputs[report->n_inputs++]);
    }
    free(r);
    free(recs);
    free(l.v);
    return st;
}
