/*
 * Gradient accumulation (svk_model_train_step_accum) on both backends: a
 * batch of B rows taken as accum micro-batches trains as the whole batch
 * does. For each placement, models made alike train the same random
 * batches (targets partly -1, so the micro-batches count different numbers
 * of targets and only the step's count gives the whole batch's gradient)
 * with accum 1, 2 and 4, each step from the same state (the reference's
 * checkpoint, optimizer included, is loaded into the others first): every
 * step's loss and gradient norm agree within 1e-5 relative, and the step counts every target of the batch. accum 1
 * is svk_model_train_step bit for bit; the activations of accum 4 take
 * about a quarter of the memory; changing accum or evaluating between
 * steps keeps the agreement; bad accum values are refused by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svk/model.h"
#include "test_util.h"

enum { V = 24, T = 8, B = 8, STEPS = 12 };

static tu_tally tally;
static uint64_t seed;

static svk_model *make_model(svk_ctx *ctx, svk_backend backend, svk_placement placement)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = V, p.config.ctx = T, p.config.width = 16, p.config.heads = 2, p.config.layers = 2;
    p.config.placement = placement;
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 7;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create (placement %d): %s", (int)placement, st == SVK_OK ? "ok" : svk_last_error());
    return st == SVK_OK ? m : NULL;
}

/* Step k's batch: random tokens, targets random or -1 (about one in
 * three), the same for every model. */
static void batch(uint32_t k, int32_t *tokens, int32_t *targets)
{
    tu_random_batch(seed, k, tokens, targets, B * T, V, 3);
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-30);
}

/* STEPS steps of each model, accum[i] micro-batches for model i, model 0
 * the reference; an evaluation after step 5 (on a plan of its own) must
 * not disturb the ones with accumulation. Each step starts from model 0's
 * state: over several steps at this learning rate, AdamW turns rounding
 * differences in gradients that are analytically zero (the key bias) into
 * whole updates, and the runs drift apart by 1e-4 whatever the split (seed
 * 363822181, placement pre). */
static void compare(const char *name, const char *dir, svk_model *const *m, const uint32_t *accum, int n)
{
    char sync[512];
    snprintf(sync, sizeof(sync), "%s/sync.safetensors", dir);
    int32_t tokens[B * T], targets[B * T];
    double worst[4] = {0};
    bool ok = true, counted = true;
    for (uint32_t k = 0; k < STEPS && ok; k++) {
        batch(k, tokens, targets);
        uint32_t valid = 0;
        for (int i = 0; i < B * T; i++)
            valid += targets[i] >= 0;
        svk_step_info ref = {0};
        if (k > 0) {
            ok = svk_model_save(m[0], sync, true) == SVK_OK;
            for (int i = 1; i < n && ok; i++)
                ok = svk_model_load(m[i], sync, true) == SVK_OK;
            remove(sync);
        }
        for (int i = 0; i < n && ok; i++) {
            float loss;
            svk_step_info info;
            ok = svk_model_train_step_accum(m[i], tokens, targets, B, T, accum[i], 1e-2f, &loss) == SVK_OK &&
                 svk_model_last_step(m[i], &info) == SVK_OK && info.loss == loss;
            if (!ok)
                break;
            counted = counted && info.valid_targets == valid && info.step == k + 1;
            if (i == 0)
                ref = info;
            else
                worst[i] = fmax(worst[i], fmax(rel(info.loss, ref.loss), rel(info.grad_norm, ref.grad_norm)));
            if (k == 5) {
                float eval;
                ok = svk_model_eval_loss(m[i], tokens, targets, B, T, &eval) == SVK_OK;
            }
        }
    }
    tu_check(&tally, ok, "%s: %d steps of every model: %s", name, STEPS, ok ? "ok" : svk_last_error());
    tu_check(&tally, counted, "%s: each step counts every target of the batch, and one update", name);
    for (int i = 1; i < n; i++)
        tu_check(&tally, worst[i] <= 1e-5, "%s: accum %u vs 1: worst relative difference of loss and norm %.3g <= 1e-5",
                 name, accum[i], worst[i]);
}

static void placements(svk_ctx *ctx, svk_backend backend, const char *be, const char *dir)
{
    static const svk_placement pl[] = {SVK_PLACEMENT_SIAMESE, SVK_PLACEMENT_PRE, SVK_PLACEMENT_POST};
    static const char *const pl_names[] = {"siamese", "pre", "post"};
    const uint32_t accum[] = {1, 2, 4};
    for (int p = 0; p < 3; p++) {
        svk_model *m[3] = {NULL};
        for (int i = 0; i < 3; i++)
            m[i] = make_model(ctx, backend, pl[p]);
        char name[64];
        snprintf(name, sizeof(name), "%s %s", be, pl_names[p]);
        if (m[0] && m[1] && m[2])
            compare(name, dir, m, accum, 3);
        for (int i = 0; i < 3; i++)
            svk_model_destroy(&m[i]);
    }
}

/* accum 1 is svk_model_train_step, bit for bit. */
static void accum_one(svk_ctx *ctx, svk_backend backend, const char *be)
{
    svk_model *a = make_model(ctx, backend, SVK_PLACEMENT_SIAMESE), *b = make_model(ctx, backend,
                                                                                     SVK_PLACEMENT_SIAMESE);
    bool same = a && b;
    int32_t tokens[B * T], targets[B * T];
    for (uint32_t k = 0; k < 4 && same; k++) {
        batch(k, tokens, targets);
        float la, lb;
        svk_step_info ia, ib;
        same = svk_model_train_step(a, tokens, targets, B, T, 1e-2f, &la) == SVK_OK &&
               svk_model_train_step_accum(b, tokens, targets, B, T, 1, 1e-2f, &lb) == SVK_OK &&
               svk_model_last_step(a, &ia) == SVK_OK && svk_model_last_step(b, &ib) == SVK_OK &&
               memcmp(&la, &lb, sizeof(la)) == 0 && memcmp(&ia.grad_norm, &ib.grad_norm, sizeof(float)) == 0;
    }
    tu_check(&tally, same, "%s: accum 1 gives svk_model_train_step's losses and norms bit for bit", be);
    svk_model_destroy(&a);
    svk_model_destroy(&b);
}

/* The activations of a step in 4 micro-batches take about a quarter of the
 * whole batch's; bad values of accum are refused, naming it. */
static void memory_and_refusals(svk_ctx *ctx, svk_backend backend, const char *be)
{
    svk_model *m = make_model(ctx, backend, SVK_PLACEMENT_SIAMESE);
    if (!m)
        return;
    int32_t tokens[B * T], targets[B * T];
    batch(0, tokens, targets);
    svk_memory_report whole = {0}, quarter = {0};
    svk_status st = svk_model_train_step_accum(m, tokens, targets, B, T, 1, 1e-3f, NULL);
    if (st == SVK_OK)
        st = svk_model_memory(m, &whole);
    if (st == SVK_OK)
        st = svk_model_train_step_accum(m, tokens, targets, B, T, 4, 1e-3f, NULL);
    if (st == SVK_OK)
        st = svk_model_memory(m, &quarter);
    tu_check(&tally, st == SVK_OK && quarter.activations * 3 < whole.activations,
             "%s: activations %llu bytes with accum 4, %llu with 1 (%s)", be,
             (unsigned long long)quarter.activations, (unsigned long long)whole.activations,
             st == SVK_OK ? "ok" : svk_last_error());
    const uint32_t bad[] = {0, 3, 16};
    for (int i = 0; i < 3; i++) {
        st = svk_model_train_step_accum(m, tokens, targets, B, T, bad[i], 1e-3f, NULL);
        char want[32];
        snprintf(want, sizeof(want), "accum=%u", bad[i]);
        tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), want),
                 "%s: accum %u with B=%d refused: %s", be, bad[i], B, svk_last_error());
    }
    svk_model_destroy(&m);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    placements(ctx, backend, be, dir);
    accum_one(ctx, backend, be);
    memory_and_refusals(ctx, backend, be);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_accum", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_accum", run_backend);
}
