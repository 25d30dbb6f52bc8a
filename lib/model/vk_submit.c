/* The Vulkan backend's op ranges as submissions that fit a time budget
 * (vk_submit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "submit_split.h"
#include "vk/vk_context.h"
#include "vk_submit.h"

/* Frees a range's lists (each waits for its submission). */
static void range_free(svk_vk_ranges *r, svk_vk_range *l)
{
    for (size_t i = 0; l->cl && i < l->n; i++)
        svk_cmdlist_destroy(&l->cl[i]);
    free(l->cl);
    free(l->cut);
    free(l->op_first);
    free(l->op_ms);
    free(l->new_cut);
    free(l->ns);
    for (int q = 0; q < 2; q++) {
        size_t kept = 0;
        for (size_t i = 0; i < r->n_inflight[q]; i++)
            if (r->inflight[q][i] != l)
                r->inflight[q][kept++] = r->inflight[q][i];
        r->n_inflight[q] = kept;
    }
    *l = (svk_vk_range){0};
}

void svk_vk_ranges_free(svk_vk_ranges *r, bool cuts)
{
    for (int i = 0; i < SVK_VK_RANGES; i++) {
        range_free(r, &r->range[i]);
        if (cuts) {
            free(r->cuts[i].cut);
            r->cuts[i] = (svk_vk_cuts){0};
        }
    }
    if (cuts)
        r->n_warm = 0;
}

/* One list of ops [begin, end); with op_first, timed dispatch by dispatch. */
static svk_status record_list(svk_model *m, svk_vk_record_fn record, int parity, size_t begin, size_t end,
                              uint32_t *op_first, svk_cmdlist **out)
{
    svk_cmdlist *cl = NULL;
    /* SVK_PROFILE=1: time every dispatch and print a per-kernel table after
     * each submission (a developer's tool; replays stay unchanged). */
    svk_cmdlist_params lp = {0};
    if ((op_first || m->ctx->settings.profile != SVK_PROFILE_OFF) && m->ctx->info.timestamps)
        lp.timestamp_capacity = (uint32_t)(16 * (end - begin) + 16);
    svk_status st = svk_cmdlist_create(m->ctx, &lp, &cl);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(cl);
    if (st == SVK_OK)
        st = record(m, cl, parity, begin, end, op_first);
    if (st == SVK_OK)
        st = svk_cmdlist_end(cl);
    if (st != SVK_OK)
        svk_cmdlist_destroy(&cl);
    *out = cl;
    return st;
}

static svk_vk_cuts *find_cuts(svk_vk_ranges *r, size_t begin, size_t end)
{
    for (int i = 0; i < SVK_VK_RANGES; i++)
        if (r->cuts[i].cut && r->cuts[i].begin == begin && r->cuts[i].end == end)
            return &r->cuts[i];
    return NULL;
}

/* Whether ops [begin, end) have had their first, untimed replay. */
static bool warm(const svk_vk_ranges *r, size_t begin, size_t end)
{
    for (size_t i = 0; i < r->n_warm; i++)
        if (r->warm[i].begin == begin && r->warm[i].end == end)
            return true;
    return false;
}

/* Where l's range is cut: as measured, where it was; else in lists of
 * SVK_SUBMIT_UNMEASURED_OPS ops, timed where the device has timestamps
 * once the range has run untimed; or whole, with max_submit_ms 0 and
 * under SVK_PROFILE (which times one list). */
static svk_status plan_cuts(svk_model *m, svk_vk_ranges *r, svk_vk_range *l)
{
    const size_t n_ops = l->end - l->begin;
    const svk_vk_cuts *c = find_cuts(r, l->begin, l->end);
    l->longest_ms = c ? c->longest_ms : -1;
    l->cut = svk_calloc(n_ops + 2, sizeof(*l->cut));
    if (!l->cut)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording a step");
    if (c) {
        memcpy(l->cut, c->cut, (c->n + 1) * sizeof(*l->cut));
        l->n = c->n;
        return SVK_OK;
    }
    if (m->params.max_submit_ms <= 0 || m->ctx->settings.profile != SVK_PROFILE_OFF || n_ops == 0) {
        l->cut[0] = l->begin;
        l->cut[1] = l->end;
        l->n = 1;
        return SVK_OK;
    }
    l->n = svk_submit_split_even(n_ops, SVK_SUBMIT_UNMEASURED_OPS, l->cut);
    for (size_t i = 0; i <= l->n; i++)
        l->cut[i] += l->begin;
    l->timing = m->ctx->info.timestamps && warm(r, l->begin, l->end);
    l->warmup = m->ctx->info.timestamps && !l->timing;
    if (l->timing && !(l->op_first = svk_calloc(n_ops, sizeof(*l->op_first))))
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording a step");
    if (!l->timing && !r->noted_count) {
        svk_log_msg(svk_model_log(m), SVK_LOG_INFO,
                    "the device's compute queue has no timestamps: steps are split into submissions of %d ops, "
                    "not measured against max_submit_ms %g", SVK_SUBMIT_UNMEASURED_OPS, m->params.max_submit_ms);
        r->noted_count = true;
    }
    return SVK_OK;
}

/* The room measure_cuts takes, made now, while a failure can still be
 * the step's. */
static svk_status measure_room(svk_model *m, svk_vk_range *l)
{
    const size_t n_ops = l->end - l->begin;
    for (size_t i = 0; i < l->n; i++) {
        uint32_t n = 0;
        svk_cmdlist_stats(l->cl[i], &n, NULL);
        l->ns_cap = n > l->ns_cap ? n : l->ns_cap;
    }
    l->op_ms = svk_calloc(n_ops ? n_ops : 1, sizeof(*l->op_ms));
    l->new_cut = svk_calloc(n_ops + 1, sizeof(*l->new_cut));
    l->ns = svk_calloc(l->ns_cap ? l->ns_cap : 1, sizeof(*l->ns));
    if (!l->op_ms || !l->new_cut || !l->ns)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording a step");
    return SVK_OK;
}

svk_status svk_vk_range_get(svk_model *m, svk_vk_ranges *r, svk_vk_record_fn record, size_t begin, size_t end,
                            int parity, svk_vk_range **out)
{
    svk_vk_range *l = NULL;
    for (int i = 0; i < SVK_VK_RANGES; i++) {
        svk_vk_range *li = &r->range[i];
        if (li->cl && li->begin == begin && li->end == end && li->parity == parity && li->record == record) {
            *out = li;
            return SVK_OK;
        }
        if (!li->cl && !l)
            l = li;
    }
    if (!l)
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "vulkan backend: more than %d op ranges",
                         SVK_VK_RANGES);
    *l = (svk_vk_range){.begin = begin, .end = end, .parity = parity, .record = record};
    svk_status st = plan_cuts(m, r, l);
    if (st == SVK_OK && !(l->cl = svk_calloc(l->n, sizeof(*l->cl))))
        st = svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording a step");
    for (size_t i = 0; i < l->n && st == SVK_OK; i++)
        st = record_list(m, record, parity, l->cut[i], l->cut[i + 1],
                         l->op_first ? l->op_first + (l->cut[i] - begin) : NULL, &l->cl[i]);
    if (st == SVK_OK && l->timing)
        st = measure_room(m, l);
    if (st != SVK_OK) {
        range_free(r, l);
        return st;
    }
    *out = l;
    return SVK_OK;
}

svk_status svk_vk_range_submit(svk_model *m, svk_vk_ranges *r, svk_vk_range *l)
{
    svk_status st = SVK_OK;
    /* For the message of a loss (svk_vk_fail): what was running. */
    m->ctx->loss.submitted = true;
    m->ctx->loss.budget_ms = m->params.max_submit_ms;
    m->ctx->loss.longest_ms = l->longest_ms;
    for (size_t i = 0; i < l->n && st == SVK_OK; i++) {
        st = svk_cmdlist_submit(l->cl[i]);
        /* A submission may fail for want of memory and go through when
         * tried again; the first is not, the range then not having run. */
        for (int again = 0; i > 0 && again < 2 && st != SVK_OK && st != SVK_ERROR_DEVICE_LOST; again++)
            st = svk_cmdlist_submit(l->cl[i]);
        if (st == SVK_OK && !svk_vk_range_in_flight(r, l))
            r->inflight[l->parity][r->n_inflight[l->parity]++] = l;
        else if (st != SVK_OK && i > 0 && st != SVK_ERROR_DEVICE_LOST)
            snprintf(m->unusable, sizeof(m->unusable),
                     "submission %zu of the %zu of its ops could not be made after those before it ran (%s)", i + 1,
                     l->n, svk_last_error());
    }
    return st;
}

/* Adds the times of list i of l's timed replay to op_ms (by op, from
 * l->begin); false if they cannot be read. */
static bool op_times(const svk_vk_range *l, size_t i, double *op_ms)
{
    uint32_t n = 0;
    svk_cmdlist_stats(l->cl[i], &n, NULL);
    double *ns = l->ns;
    bool ok = n <= l->ns_cap && svk_cmdlist_timings(l->cl[i], ns, NULL, NULL, &n) == SVK_OK;
    for (size_t j = l->cut[i]; j < l->cut[i + 1] && ok; j++) {
        const uint32_t d1 = j + 1 < l->cut[i + 1] ? l->op_first[j + 1 - l->begin] : n;
        for (uint32_t d = l->op_first[j - l->begin]; d < d1 && d < n; d++)
            op_ms[j - l->begin] += ns[d] * 1e-6;
    }
    return ok;
}

/* Cut c of l's range by the times op_ms measured, and its notes: the
 * longest op over the budget (once per model), the cut. */
static void cut_by_times(svk_model *m, svk_vk_ranges *r, const svk_vk_range *l, const double *op_ms, size_t *cut,
                         svk_vk_cuts *c)
{
    const size_t n_ops = l->end - l->begin;
    size_t longest;
    const size_t n = svk_submit_split(op_ms, n_ops, m->params.max_submit_ms, cut, &longest);
    double most = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t j = cut[i]; j < cut[i + 1]; j++)
            sum += op_ms[j];
        most = sum > most ? sum : most;
        cut[i] += l->begin;
    }
    cut[n] += l->begin;
    *c = (svk_vk_cuts){l->begin, l->end, n, cut, most};
    if (longest < n_ops && !r->warned_long) {
        svk_log_msg(svk_model_log(m), SVK_LOG_WARN,
                    "op '%s' alone took %.1f ms, over max_submit_ms %g: it cannot be split, and runs as a "
                    "submission of its own (a watchdog may still reset the device if it runs too long)",
                    m->plan.ops[l->begin + longest].label, op_ms[longest], m->params.max_submit_ms);
        r->warned_long = true;
    }
    svk_log_msg(svk_model_log(m), SVK_LOG_INFO, "ops %zu..%zu run as %zu submission(s) of at most %.1f ms "
                "measured (max_submit_ms %g)", l->begin, l->end, n, most, m->params.max_submit_ms);
}

/* After l's timed replay has finished: cuts its range by the times
 * measured, for both parities' recordings from then on, and frees l, to be
 * recorded again with them on its next use. A failure costs the
 * measurement only: l goes on as it was, untimed. */
static void measure_cuts(svk_model *m, svk_vk_ranges *r, svk_vk_range *l)
{
    const size_t n_ops = l->end - l->begin;
    l->timing = false;
    svk_vk_cuts *c = find_cuts(r, l->begin, l->end);
    for (int i = 0; i < SVK_VK_RANGES && !c; i++)
        if (!r->cuts[i].cut)
            c = &r->cuts[i];
    double *op_ms = l->op_ms;
    bool ok = c && !c->cut && op_ms && l->new_cut;
    if (ok)
        memset(op_ms, 0, n_ops * sizeof(*op_ms));
    for (size_t i = 0; i < l->n && ok; i++)
        ok = op_times(l, i, op_ms);
    if (ok) {
        cut_by_times(m, r, l, op_ms, l->new_cut, c);
        l->new_cut = NULL; /* c holds it now */
    }
    if (c && c->cut)
        range_free(r, l);
}

bool svk_vk_range_in_flight(const svk_vk_ranges *r, const svk_vk_range *l)
{
    for (int q = 0; q < 2; q++)
        for (size_t i = 0; i < r->n_inflight[q]; i++)
            if (r->inflight[q][i] == l)
                return true;
    return false;
}

/* Waits for the oldest range in flight on a parity and takes it off. */
static svk_status finish_oldest(svk_model *m, svk_vk_ranges *r, int parity)
{
    svk_vk_range *l = r->inflight[parity][0];
    svk_status st = SVK_OK;
    for (size_t i = 0; i < l->n && st == SVK_OK; i++)
        st = svk_cmdlist_wait(l->cl[i]);
    if (st != SVK_OK)
        return st;
    r->n_inflight[parity]--;
    memmove(&r->inflight[parity][0], &r->inflight[parity][1], r->n_inflight[parity] * sizeof(r->inflight[parity][0]));
    if (l->timing) {
        measure_cuts(m, r, l);
    } else if (l->warmup) {
        /* Timed on its next use. Both parities' first replays may finish
         * here: the range is noted once. */
        if (!warm(r, l->begin, l->end)) {
            if (r->n_warm == SVK_VK_RANGES) /* the oldest goes: it was timed long since */
                memmove(&r->warm[0], &r->warm[1], --r->n_warm * sizeof(r->warm[0]));
            r->warm[r->n_warm].begin = l->begin;
            r->warm[r->n_warm++].end = l->end;
        }
        range_free(r, l);
    }
    return SVK_OK;
}

svk_status svk_vk_range_finish(svk_model *m, svk_vk_ranges *r, int parity)
{
    svk_status st = SVK_OK;
    while (r->n_inflight[parity] && st == SVK_OK)
        st = finish_oldest(m, r, parity);
    return st;
}

svk_status svk_vk_range_finish_through(svk_model *m, svk_vk_ranges *r, svk_vk_range *l)
{
    svk_status st = SVK_OK;
    /* The queue runs a parity's ranges in the order submitted: those before
     * l are done when l is, and waiting for them first costs nothing. */
    while (st == SVK_OK && svk_vk_range_in_flight(r, l)) {
        const svk_vk_range *oldest = r->inflight[l->parity][0];
        st = finish_oldest(m, r, l->parity);
        if (oldest == l)
            break;
    }
    return st;
}
