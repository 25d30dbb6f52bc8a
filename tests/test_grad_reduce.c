/*
 * The gradient-reduction hook (svk/grad_reduce.h) on both backends, in one
 * process: a model with a reducer trains as one without, to rounding,
 * whether the reducer leaves the sums as they are (one process) or doubles
 * them (two processes with the same rows); it is called once per optimizer
 * step, accumulation included, with every gradient and the step's counted
 * targets; a reducer that fails fails the step and applies nothing; and a
 * cleared reducer gives back the single recorded step, bit for bit.
 * Several processes are tests/svk_train_mpi.sh's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svk/grad_reduce.h"
#include "test_util.h"

enum { V = 24, T = 8, B = 8, STEPS = 8 };

static tu_tally tally;
static uint64_t seed;

typedef struct reducer {
    int copies;          /* processes simulated: the sums are multiplied by this */
    int fail;            /* returned instead of 0 when non-zero */
    uint32_t calls;
    uint64_t count, targets;
} reducer;

static int reduce(void *user, svk_grad_sums *s)
{
    reducer *r = user;
    r->calls++;
    r->count = s->count;
    r->targets = s->targets;
    if (r->fail)
        return r->fail;
    for (uint64_t i = 0; i < s->count; i++)
        s->grads[i] *= (float)r->copies;
    s->loss_sum *= r->copies;
    s->targets *= (uint64_t)r->copies;
    return 0;
}

static svk_model *make_model(svk_ctx *ctx, svk_backend backend, svk_placement placement)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = V, p.config.ctx = T, p.config.width = 16, p.config.heads = 2, p.config.layers = 2;
    p.config.placement = placement;
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 5;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create: %s", st == SVK_OK ? "ok" : svk_last_error());
    return st == SVK_OK ? m : NULL;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-30);
}

/* STEPS steps of a plain model and of one with reducer r, accum
 * micro-batches each: the worst relative difference of loss and norm. */
static void against_plain(svk_ctx *ctx, svk_backend backend, const char *name, svk_placement placement, int copies,
                          uint32_t accum)
{
    svk_model *plain = make_model(ctx, backend, placement), *red = make_model(ctx, backend, placement);
    reducer r = {.copies = copies};
    bool ok = plain && red && svk_model_set_grad_reduce(red, reduce, &r) == SVK_OK;
    bool counted = true;
    double worst = 0;
    int32_t tokens[B * T], targets[B * T];
    for (uint32_t k = 0; k < STEPS && ok; k++) {
        tu_random_batch(seed, k, tokens, targets, B * T, V, 3);
        uint32_t valid = 0;
        for (int i = 0; i < B * T; i++)
            valid += targets[i] >= 0;
        svk_step_info a, b;
        ok = svk_model_train_step_accum(plain, tokens, targets, B, T, accum, 1e-2f, NULL) == SVK_OK &&
             svk_model_train_step_accum(red, tokens, targets, B, T, accum, 1e-2f, NULL) == SVK_OK &&
             svk_model_last_step(plain, &a) == SVK_OK && svk_model_last_step(red, &b) == SVK_OK;
        if (!ok)
            break;
        worst = fmax(worst, fmax(rel(b.loss, a.loss), rel(b.grad_norm, a.grad_norm)));
        counted = counted && r.calls == k + 1 && r.count == svk_model_param_count(red) && r.targets == valid &&
                  b.valid_targets == valid * (uint32_t)copies && b.step == k + 1;
    }
    tu_check(&tally, ok, "%s: %d steps: %s", name, STEPS, ok ? "ok" : svk_last_error());
    tu_check(&tally, counted, "%s: one call a step, with every gradient and the step's targets (%u calls)", name,
             r.calls);
    tu_check(&tally, worst <= 1e-5, "%s: worst relative difference of loss and norm %.3g <= 1e-5", name, worst);
    svk_model_destroy(&plain);
    svk_model_destroy(&red);
}

/* A failing reducer applies nothing and leaves the model usable; cleared,
 * the model's steps are a plain model's bit for bit. */
static void failure_and_clear(svk_ctx *ctx, svk_backend backend, const char *be)
{
    svk_model *plain = make_model(ctx, backend, SVK_PLACEMENT_SIAMESE);
    svk_model *m = make_model(ctx, backend, SVK_PLACEMENT_SIAMESE);
    if (!plain || !m)
        goto out;
    reducer r = {.copies = 1, .fail = 42};
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(seed, 100, tokens, targets, B * T, V, 3);
    svk_status st = svk_model_set_grad_reduce(m, reduce, &r);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    tu_check(&tally, st == SVK_ERROR_INVALID_STATE && strstr(svk_last_error(), "returning 42") &&
                         svk_model_step(m) == 0,
             "%s: a failing reducer fails the step, naming its code, and no update is applied: %s", be,
             svk_last_error());
    bool same = svk_model_set_grad_reduce(m, NULL, NULL) == SVK_OK;
    for (uint32_t k = 0; k < 3 && same; k++) {
        tu_random_batch(seed, k, tokens, targets, B * T, V, 3);
        float la, lb;
        svk_step_info a, b;
        same = svk_model_train_step(plain, tokens, targets, B, T, 1e-2f, &la) == SVK_OK &&
               svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &lb) == SVK_OK &&
               svk_model_last_step(plain, &a) == SVK_OK && svk_model_last_step(m, &b) == SVK_OK &&
               memcmp(&la, &lb, sizeof(la)) == 0 && memcmp(&a.grad_norm, &b.grad_norm, sizeof(float)) == 0 &&
               a.step == b.step;
    }
    tu_check(&tally, same, "%s: after the reducer is cleared, the steps are a plain model's bit for bit", be);
    st = svk_model_set_grad_reduce(NULL, reduce, &r);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "model is NULL"),
             "%s: a NULL model is refused: %s", be, svk_last_error());
out:
    svk_model_destroy(&plain);
    svk_model_destroy(&m);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    (void)dir;
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char name[96];
    snprintf(name, sizeof(name), "%s siamese, one process", be);
    against_plain(ctx, backend, name, SVK_PLACEMENT_SIAMESE, 1, 1);
    snprintf(name, sizeof(name), "%s pre, two processes with the same rows", be);
    against_plain(ctx, backend, name, SVK_PLACEMENT_PRE, 2, 1);
    snprintf(name, sizeof(name), "%s siamese, two processes, accum 2", be);
    against_plain(ctx, backend, name, SVK_PLACEMENT_SIAMESE, 2, 2);
    failure_and_clear(ctx, backend, be);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_grad_reduce", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_grad_reduce", run_backend);
}
