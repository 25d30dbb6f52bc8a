/*
 * Submissions bounded in time (svk_model_params.max_submit_ms) and lost
 * devices (docs/RELIABILITY.md, rows 3a and 3d):
 *  - a step cut into many submissions (a budget of a microsecond: every op
 *    alone) gives the losses, an evaluation and a checkpoint equal to the
 *    bit to one submission per step (max_submit_ms 0) and to the default
 *    budget, with steps overlapping (loss not read) and waited for; the
 *    op over the budget is logged once, as a warning; after the first
 *    steps (which measure) a step is one submission at max_submit_ms 0,
 *    one an op at the tiny budget and fewer at the default.
 *  - VK_ERROR_DEVICE_LOST injected in the middle of a step's submissions
 *    (on a vkQueueSubmit, then on a vkWaitForFences): the step returns
 *    SVK_ERROR_DEVICE_LOST with a message that names the likely cause (a
 *    watchdog) and the budget, svk_ctx_device_lost says so, nothing
 *    reaches the device after, and a new context and model loaded from the
 *    checkpoint saved before the loss go on with the clean run's losses
 *    and end with its checkpoint, byte for byte.
 * Faults come from tests/fault_vk.c (count only, until armed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_vk.h"
#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = 8, V = 16, STEPS = 6, LOSE_AT = 3 };
#define TINY_BUDGET 0.001 /* ms: shorter than any op */

static tu_tally tally;
static int32_t tokens[STEPS][B * T], targets[STEPS][B * T];
static char dir[64];
static int long_warnings;

/* tu_log_fn's counting, and the warning of an op over the budget. */
static void log_fn(void *user, svk_log_level level, const char *msg)
{
    tu_log_fn(user, level, msg);
    if (level == SVK_LOG_WARN && strstr(msg, "cannot be split"))
        long_warnings++;
}

static svk_ctx *make_ctx(void)
{
    svk_ctx_params cp = svk_ctx_params_default();
    cp.flags = SVK_CTX_NO_PIPELINE_CACHE;
    cp.log_fn = log_fn;
    svk_ctx *ctx = NULL;
    svk_status st = svk_ctx_create(&cp, &ctx);
    tu_check(&tally, st == SVK_OK, "creating a context: %s", st == SVK_OK ? "ok" : svk_last_error());
    return ctx;
}

static svk_model *make_model(svk_ctx *ctx, double budget)
{
    svk_model_params mp = svk_model_params_default();
    mp.config.vocab = V;
    mp.config.ctx = T;
    mp.config.width = 8;
    mp.config.heads = 2;
    mp.config.layers = 2;
    mp.ctx = ctx;
    mp.max_submit_ms = budget;
    svk_model *m = NULL;
    if (svk_model_create(&mp, &m) != SVK_OK)
        tu_check(&tally, false, "creating a model (max_submit_ms %g): %s", budget, svk_last_error());
    return m;
}

/* What a run gives: each odd step's loss (even steps are not waited for,
 * so the next goes in behind them), an evaluation, the final checkpoint. */
typedef struct trace {
    float loss[STEPS];
    float eval;
    unsigned char *ckpt;
    size_t size;
    uint64_t submits[STEPS]; /* vkQueueSubmit calls of each step */
} trace;

/* Steps from .. STEPS - 1 of the run into t; false (the status in *st) at
 * the first call that fails. */
static bool train(svk_model *m, int from, trace *t, svk_status *st)
{
    for (int s = from; s < STEPS; s++) {
        const uint64_t before = fv_count(FV_QUEUE_SUBMIT);
        *st = svk_model_train_step(m, tokens[s], targets[s], B, T, 1e-2f, s % 2 ? &t->loss[s] : NULL);
        t->submits[s] = fv_count(FV_QUEUE_SUBMIT) - before;
        if (*st != SVK_OK)
            return false;
    }
    char path[128];
    snprintf(path, sizeof(path), "%s/end.safetensors", dir);
    if ((*st = svk_model_eval_loss(m, tokens[0], targets[0], B, T, &t->eval)) != SVK_OK ||
        (*st = svk_model_save(m, path, true)) != SVK_OK)
        return false;
    bool ok = tu_read_file(path, &t->ckpt, &t->size);
    unlink(path);
    return ok;
}

static bool same(const trace *a, const trace *b, int from)
{
    for (int s = from; s < STEPS; s++)
        if (memcmp(&a->loss[s], &b->loss[s], sizeof(float)))
            return false;
    return !memcmp(&a->eval, &b->eval, sizeof(float)) && a->size == b->size && !memcmp(a->ckpt, b->ckpt, a->size);
}

/* The same run at budgets 0 (one submission), tiny and the default. */
static void budgets(trace *tiny)
{
    const double budget[3] = {0, TINY_BUDGET, SVK_MAX_SUBMIT_MS_DEFAULT};
    trace t[3];
    memset(t, 0, sizeof(t));
    for (int i = 0; i < 3; i++) {
        fv_arm(FV_QUEUE_SUBMIT, 0, VK_SUCCESS);
        long_warnings = 0;
        svk_ctx *ctx = make_ctx();
        svk_model *m = ctx ? make_model(ctx, budget[i]) : NULL;
        svk_status st = SVK_ERROR_INTERNAL;
        bool ok = m && train(m, 0, &t[i], &st);
        tu_check(&tally, ok, "max_submit_ms %g: %d steps, an evaluation, a save: %s", budget[i], STEPS,
                 ok ? "ok" : svk_last_error());
        svk_model_destroy(&m);
        tu_ctx_finish(&ctx, &tally);
        if (i == 1)
            tu_check(&tally, long_warnings == 1, "max_submit_ms %g: the op over it logged once (%d times)", budget[i],
                     long_warnings);
        printf("     max_submit_ms %g: submissions a step:", budget[i]);
        for (int s = 0; s < STEPS; s++)
            printf(" %llu", (unsigned long long)t[i].submits[s]);
        printf("\n");
    }
    /* (the default's cut is measured: one submission here, more on a
     * loaded machine or under the sanitizers, but never one an op) */
    tu_check(&tally, t[0].submits[STEPS - 1] == 1 && t[1].submits[STEPS - 1] > 20 &&
                         t[2].submits[STEPS - 1] < t[1].submits[STEPS - 1],
             "a measured step is one submission at max_submit_ms 0, one an op at %g, fewer at the default (%llu, "
             "%llu, %llu)", TINY_BUDGET, (unsigned long long)t[0].submits[STEPS - 1],
             (unsigned long long)t[1].submits[STEPS - 1], (unsigned long long)t[2].submits[STEPS - 1]);
    tu_check(&tally, t[2].submits[0] > 1, "the default budget's first step (measured) is several submissions (%llu)",
             (unsigned long long)t[2].submits[0]);
    tu_check(&tally, same(&t[0], &t[1], 0) && same(&t[0], &t[2], 0),
             "losses, evaluation and checkpoint equal to the bit at max_submit_ms 0, %g and %g", TINY_BUDGET,
             SVK_MAX_SUBMIT_MS_DEFAULT);
    *tiny = t[1];
    free(t[0].ckpt);
    free(t[2].ckpt);
}

/* A loss at the k-th call of kind in step LOSE_AT, then recovery from the
 * checkpoint of the steps before it, compared with the clean run. */
static void lose(fv_kind kind, uint64_t k, const trace *clean)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/before.safetensors", dir);
    fv_arm(kind, 0, VK_SUCCESS);
    svk_ctx *ctx = make_ctx();
    svk_model *m = ctx ? make_model(ctx, TINY_BUDGET) : NULL;
    trace t;
    memset(&t, 0, sizeof(t));
    svk_status st = SVK_ERROR_INTERNAL;
    for (int s = 0; m && s < LOSE_AT; s++)
        st = svk_model_train_step(m, tokens[s], targets[s], B, T, 1e-2f, s % 2 ? &t.loss[s] : NULL);
    if (st == SVK_OK)
        st = svk_model_save(m, path, true);
    tu_check(&tally, st == SVK_OK, "%s: the steps before the loss and a save: %s", fv_kind_name(kind),
             st == SVK_OK ? "ok" : svk_last_error());
    fv_arm(kind, k, VK_ERROR_DEVICE_LOST);
    st = m ? svk_model_train_step(m, tokens[LOSE_AT], targets[LOSE_AT], B, T, 1e-2f, &t.loss[LOSE_AT]) : st;
    const char *msg = svk_last_error();
    tu_check(&tally, fv_fired() && st == SVK_ERROR_DEVICE_LOST && strstr(msg, "watchdog") &&
                         strstr(msg, "max_submit_ms 0.001") && svk_ctx_device_lost(ctx),
             "%s: call %llu lost in the middle of a step: %s, \"%s\"", fv_kind_name(kind), (unsigned long long)k,
             svk_status_string(st), msg);
    st = m ? svk_model_train_step(m, tokens[LOSE_AT], targets[LOSE_AT], B, T, 1e-2f, NULL) : st;
    tu_check(&tally, st == SVK_ERROR_DEVICE_LOST, "%s: the next step: %s", fv_kind_name(kind), svk_status_string(st));
    svk_model_destroy(&m);
    tu_ctx_finish(&ctx, &tally);
    tu_check(&tally, fv_touches_after_lost() == 0, "%s: %llu call(s) reached the device after the loss (last: %s)",
             fv_kind_name(kind), (unsigned long long)fv_touches_after_lost(), fv_last_touch());

    /* Recovery: a new context, the checkpoint, the rest of the run. */
    fv_arm(kind, 0, VK_SUCCESS);
    ctx = make_ctx();
    m = ctx ? make_model(ctx, TINY_BUDGET) : NULL;
    st = m ? svk_model_load(m, path, true) : st;
    bool ok = st == SVK_OK && train(m, LOSE_AT, &t, &st);
    tu_check(&tally, ok && same(&t, clean, LOSE_AT),
             "%s: a new context and the checkpoint go on as the clean run (losses, evaluation, final checkpoint): %s",
             fv_kind_name(kind), ok ? "compared" : svk_last_error());
    svk_model_destroy(&m);
    tu_ctx_finish(&ctx, &tally);
    free(t.ckpt);
    unlink(path);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_watchdog", &args);
    fv_install();
    snprintf(dir, sizeof(dir), "/tmp/svk-watchdog-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    for (int s = 0; s < STEPS; s++)
        tu_fixed_batch(tokens[s], targets[s], B * T, V - s);
    trace tiny;
    memset(&tiny, 0, sizeof(tiny));
    budgets(&tiny);
    if (tiny.ckpt) {
        /* The 5th submission and the 3rd wait of a step of one op each:
         * ops before them have run, ops after them have not. */
        lose(FV_QUEUE_SUBMIT, 5, &tiny);
        lose(FV_WAIT_FOR_FENCES, 3, &tiny);
    }
    free(tiny.ckpt);
    rmdir(dir);
    return tu_finish(&tally);
}
