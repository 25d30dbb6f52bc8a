/*
 * What reducing the gradients across processes costs a training step
 * (svk/grad_reduce.h, docs/DISTRIBUTED.md): per configuration, the step
 * timed without a reducer, with the whole gradient reduced after the
 * backward, and reduced in buckets as the backward completes them (the
 * library's default size, and eighths of the gradients), each row with
 * the time spent in the reducer's calls beside the step's.
 *
 * Started alone, svk-bench is one rank: the reducer's calls return at
 * once (one rank's sums are the totals), so a row prices the library's
 * side, the copies through the host and the step cut in parts. Under
 * `mpirun -np N svk-bench` the calls are svk-train's (tools/train/
 * dist_mpi.c: MPI_Allreduce in float32), every rank runs the same rows with
 * its own batch of the row's shape, and only this section runs (kernel
 * rows on ranks that share a machine would time each other). The reducer
 * time includes waiting for the slower rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dist.h"
#include "svk/grad_reduce.h"

typedef struct reduce_cfg {
    const char *name;
    const char *keys;   /* "key=value ..." over the default configuration */
    uint32_t B, T;
} reduce_cfg;

/* The step section's default and its larger model (bench_step.c), and the
 * smoke test's tiny one. */
static const reduce_cfg full_cfgs[] = {
    {"default", "", 8, 128},
    {"w256-l4", "width=256 layers=4 heads=4", 8, 128},
};
static const reduce_cfg quick_cfgs[] = {
    {"tiny", "vocab=64 ctx=16 width=32 layers=2 heads=2", 2, 16},
};

enum mode { NONE, WHOLE, BUCKETS, EIGHTHS, MODES };
static const char *const mode_names[MODES] = {"none", "whole", "buckets", "buckets/8"};

/* The calls, timed; with one rank they leave the sums as they are. */
typedef struct timed {
    svk_train_dist *dist;
    double in_s;
    uint32_t buckets;
} timed;

static int whole_fn(void *user, svk_grad_sums *s)
{
    timed *t = user;
    const double t0 = bench_now();
    const int rc = t->dist->size > 1 ? svk_train_dist_reduce(t->dist, s) : 0;
    t->in_s += bench_now() - t0;
    return rc;
}

static int bucket_fn(void *user, const svk_grad_bucket *b)
{
    timed *t = user;
    const double t0 = bench_now();
    t->buckets = b->buckets;
    const int rc = t->dist->size > 1 ? svk_train_dist_bucket(t->dist, b) : 0;
    t->in_s += bench_now() - t0;
    return rc;
}

static int finish_fn(void *user, svk_grad_sums *s)
{
    timed *t = user;
    const double t0 = bench_now();
    const int rc = t->dist->size > 1 ? svk_train_dist_finish(t->dist, s) : 0;
    t->in_s += bench_now() - t0;
    return rc;
}

static void add_reduce(bench *b, const bench_reduce_row *r)
{
    if (b->n_reduces == b->cap_reduces) {
        size_t cap = b->cap_reduces ? 2 * b->cap_reduces : 8;
        bench_reduce_row *p = realloc(b->reduces, cap * sizeof(*p));
        if (!p) {
            b->errors++;
            return;
        }
        b->reduces = p;
        b->cap_reduces = cap;
    }
    b->reduces[b->n_reduces++] = *r;
    bench_print_reduce(b, r);
}

/* One row: a model of cfg with the mode's reducer, three steps of warm-up
 * (recording, and the timed replay that cuts the submissions), then the
 * steps as a training loop runs them, until the last has completed. No
 * row is skipped for its time: under mpirun every rank must make the same
 * calls. */
static void run_row(bench *b, const reduce_cfg *cfg, enum mode mode, int32_t *tokens, int32_t *targets)
{
    bench_reduce_row r;
    memset(&r, 0, sizeof(r));
    snprintf(r.name, sizeof(r.name), "%s", cfg->name);
    snprintf(r.mode, sizeof(r.mode), "%s", mode_names[mode]);
    r.ranks = b->dist->size;
    svk_model_params mp = svk_model_params_default();
    mp.ctx = b->ctx;
    mp.seed = b->opt.seed;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", cfg->keys);
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (eq && (*eq = 0, svk_model_config_set(&mp.config, kv, eq + 1)) != SVK_OK) {
            snprintf(r.skipped, sizeof(r.skipped), "configuration: %s", svk_last_error());
            b->errors++;
            add_reduce(b, &r);
            return;
        }
    }
    timed t = {.dist = b->dist};
    svk_model *m = NULL;
    svk_status st = svk_model_create(&mp, &m);
    if (st == SVK_OK)
        r.params = svk_model_param_count(m);
    const svk_grad_reducer red = {
        .bucket = bucket_fn, .finish = finish_fn, .user = &t, .bucket_bytes = mode == EIGHTHS ? r.params * 4 / 8 : 0,
    };
    if (st == SVK_OK && mode == WHOLE)
        st = svk_model_set_grad_reduce(m, whole_fn, &t);
    else if (st == SVK_OK && mode >= BUCKETS)
        st = svk_model_set_grad_reduce_buckets(m, &red);
    float loss = 0;
    for (int i = 0; i < 3 && st == SVK_OK; i++)
        st = svk_model_train_step(m, tokens, targets, cfg->B, cfg->T, 1e-3f, &loss);
    r.steps = b->opt.steps ? b->opt.steps : 1;
    t.in_s = 0;
    const double t0 = bench_now();
    for (uint32_t i = 0; i < r.steps && st == SVK_OK; i++)
        st = svk_model_train_step(m, tokens, targets, cfg->B, cfg->T, 1e-3f, NULL);
    svk_step_info info;
    if (st == SVK_OK)
        st = svk_model_last_step(m, &info);
    const double t1 = bench_now();
    if (st != SVK_OK) {
        snprintf(r.skipped, sizeof(r.skipped), "%s", svk_last_error());
        b->errors++;
    } else {
        r.step_ms = (t1 - t0) * 1e3 / r.steps;
        r.reduce_ms = t.in_s * 1e3 / r.steps;
        r.buckets = mode == WHOLE ? 1 : t.buckets;
        r.loss = info.loss;
    }
    svk_model_destroy(&m);
    add_reduce(b, &r);
}

void bench_run_reduce(bench *b)
{
    const reduce_cfg *cfgs = b->opt.quick ? quick_cfgs : full_cfgs;
    const size_t n = b->opt.quick ? sizeof(quick_cfgs) / sizeof(quick_cfgs[0]) : sizeof(full_cfgs) / sizeof(full_cfgs[0]);
    for (size_t i = 0; i < n; i++) {
        char full[64];
        snprintf(full, sizeof(full), "reduce %s", cfgs[i].name);
        if (!bench_filter_match(b, full))
            continue;
        const size_t tokens_n = (size_t)cfgs[i].B * cfgs[i].T;
        int32_t *tokens = malloc(tokens_n * sizeof(*tokens)), *targets = malloc(tokens_n * sizeof(*targets));
        if (!tokens || !targets) {
            b->errors++;
            free(tokens);
            free(targets);
            return;
        }
        /* The tiny vocabulary bounds every configuration's; each rank's
         * batch its own, as data parallelism gives it. */
        cf_rng rng;
        cf_rng_seed(&rng, b->opt.seed + (uint64_t)b->dist->rank);
        for (size_t k = 0; k < tokens_n; k++) {
            tokens[k] = (int32_t)(cf_rng_next(&rng) % 64);
            targets[k] = (int32_t)(cf_rng_next(&rng) % 64);
        }
        for (int mode = 0; mode < MODES; mode++)
            run_row(b, &cfgs[i], (enum mode)mode, tokens, targets);
        free(tokens);
        free(targets);
    }
}
