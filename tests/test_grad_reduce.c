/*
 * The gradient-reduction hook (svk/grad_reduce.h) on both backends, in one
 * process: a model with a reducer trains as one without, to rounding,
 * whether the reducer leaves the sums as they are (one process) or doubles
 * them (two processes with the same rows); it is called once per optimizer
 * step, accumulation included, with every gradient and the step's counted
 * targets; a reducer that fails fails the step and applies nothing; and a
 * cleared reducer gives back the single recorded step, bit for bit. A
 * reducer in buckets (svk_model_set_grad_reduce_buckets) trains as the
 * whole one does, handed every gradient once, bucket by bucket, in order.
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

/* A bucketed reducer standing for copies processes with the same rows,
 * recording what it is handed: each step's buckets in order, back to back
 * over the whole array, then one finish call with that array. */
typedef struct bucket_reducer {
    int copies;
    int fail_bucket;     /* returned by the call for bucket 1, when non-zero */
    uint32_t buckets, finishes, bad;
    uint64_t next;       /* where the next bucket should begin */
    const float *base;   /* bucket 0's memory: the whole array's start */
} bucket_reducer;

static int on_bucket(void *user, const svk_grad_bucket *b)
{
    bucket_reducer *r = user;
    if (b->index == 0) {
        r->next = 0;
        r->base = b->grads;
        r->buckets = b->buckets;
    }
    r->bad += b->offset != r->next || b->buckets != r->buckets || b->grads != r->base + b->offset || b->count == 0;
    r->next = b->offset + b->count;
    if (r->fail_bucket && b->index == 1)
        return r->fail_bucket;
    for (uint64_t i = 0; i < b->count; i++)
        b->grads[i] *= (float)r->copies;
    return 0;
}

static int on_finish(void *user, svk_grad_sums *s)
{
    bucket_reducer *r = user;
    r->finishes++;
    r->bad += s->grads != r->base || s->count != r->next;
    s->loss_sum *= r->copies;
    s->targets *= (uint64_t)r->copies;
    return 0;
}

/* 20 steps of a model reduced whole and of one reduced in buckets of
 * bucket_bytes (small: many buckets), accum micro-batches each: the same
 * losses and norms (the same sums, in other places), and the buckets
 * cover the array once, in order, every step. */
static void buckets_against_whole(svk_ctx *ctx, svk_backend backend, const char *name, svk_placement placement,
                                  int copies, uint32_t accum, uint64_t bucket_bytes, uint32_t min_buckets)
{
    enum { LONG = 20 };
    svk_model *whole = make_model(ctx, backend, placement), *bk = make_model(ctx, backend, placement);
    reducer r = {.copies = copies};
    bucket_reducer br = {.copies = copies};
    const svk_grad_reducer red = {.bucket = on_bucket, .finish = on_finish, .user = &br, .bucket_bytes = bucket_bytes};
    bool ok = whole && bk && svk_model_set_grad_reduce(whole, reduce, &r) == SVK_OK &&
              svk_model_set_grad_reduce_buckets(bk, &red) == SVK_OK;
    double worst = 0;
    int32_t tokens[B * T], targets[B * T];
    for (uint32_t k = 0; k < LONG && ok; k++) {
        tu_random_batch(seed, k, tokens, targets, B * T, V, 3);
        svk_step_info a, b;
        ok = svk_model_train_step_accum(whole, tokens, targets, B, T, accum, 1e-2f, NULL) == SVK_OK &&
             svk_model_train_step_accum(bk, tokens, targets, B, T, accum, 1e-2f, NULL) == SVK_OK &&
             svk_model_last_step(whole, &a) == SVK_OK && svk_model_last_step(bk, &b) == SVK_OK;
        if (ok)
            worst = fmax(worst, fmax(rel(b.loss, a.loss), rel(b.grad_norm, a.grad_norm)));
    }
    tu_check(&tally, ok, "%s: %d steps: %s", name, LONG, ok ? "ok" : svk_last_error());
    tu_check(&tally, br.finishes == LONG && !br.bad && br.next == (bk ? svk_model_param_count(bk) : 0) &&
                         br.buckets >= min_buckets,
             "%s: %u buckets a step (>= %u), in order, covering the %llu gradients once, then one finish call "
             "(%u finishes, %u faults)", name, br.buckets, min_buckets,
             (unsigned long long)(bk ? svk_model_param_count(bk) : 0), br.finishes, br.bad);
    tu_check(&tally, worst <= 1e-5, "%s: worst relative difference of loss and norm from the whole reduction %.3g <= 1e-5",
             name, worst);
    svk_model_destroy(&whole);
    svk_model_destroy(&bk);
}

/* A failing bucket call fails the step, naming the bucket, with no finish
 * call and no update; the model goes on, here reduced whole. Incomplete
 * reducers are refused. */
static void bucket_failure(svk_ctx *ctx, svk_backend backend, const char *be)
{
    svk_model *m = make_model(ctx, backend, SVK_PLACEMENT_SIAMESE);
    if (!m)
        return;
    bucket_reducer br = {.copies = 1, .fail_bucket = 7};
    svk_grad_reducer red = {.bucket = on_bucket, .finish = on_finish, .user = &br, .bucket_bytes = 1024};
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(seed, 100, tokens, targets, B * T, V, 3);
    svk_status st = svk_model_set_grad_reduce_buckets(m, &red);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    tu_check(&tally, st == SVK_ERROR_INVALID_STATE && strstr(svk_last_error(), "bucket 1 of") &&
                         strstr(svk_last_error(), "returning 7") && br.finishes == 0 && svk_model_step(m) == 0,
             "%s: a failing bucket call fails the step, naming the bucket and its code, with no finish and no "
             "update: %s", be, svk_last_error());
    reducer r = {.copies = 1};
    st = svk_model_set_grad_reduce(m, reduce, &r);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    tu_check(&tally, st == SVK_OK && svk_model_step(m) == 1 && r.calls == 1,
             "%s: after it, the model trains with the whole reducer: %s", be, st == SVK_OK ? "ok" : svk_last_error());
    red.finish = NULL;
    st = svk_model_set_grad_reduce_buckets(m, &red);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "finish call is NULL"),
             "%s: a reducer without its finish call is refused: %s", be, svk_last_error());
    red.finish = on_finish;
    red.reserved[2] = 1;
    st = svk_model_set_grad_reduce_buckets(m, &red);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "reserved[2]"),
             "%s: a reducer with reserved fields set is refused: %s", be, svk_last_error());
    svk_model_destroy(&m);
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
    snprintf(name, sizeof(name), "%s siamese, buckets of 1 KiB, one process", be);
    buckets_against_whole(ctx, backend, name, SVK_PLACEMENT_SIAMESE, 1, 1, 1024, 4);
    snprintf(name, sizeof(name), "%s pre, buckets of 4 KiB, two processes, accum 2", be);
    buckets_against_whole(ctx, backend, name, SVK_PLACEMENT_PRE, 2, 2, 4096, 2);
    snprintf(name, sizeof(name), "%s siamese, default buckets, two processes", be);
    buckets_against_whole(ctx, backend, name, SVK_PLACEMENT_SIAMESE, 2, 1, 0, 1);
    bucket_failure(ctx, backend, be);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_grad_reduce", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_grad_reduce", run_backend);
}
