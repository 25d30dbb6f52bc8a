/*
 * The whole training step (forward, loss, backward, clipping, AdamW)
 * through the public model API, for the default configuration, the same
 * with placement=pre (SiameseNorm's overhead is the ratio of the two), and
 * two larger ones. Per configuration:
 *  - tokens/s and wall ms of replayed steps: svk_model_train_step without
 *    a loss (no wait), as a training loop calls it, `steps` times, until the
 *    last has completed;
 *  - host CPU ms per replayed step: the calling thread's CPU time inside
 *    svk_model_train_step, each step submitted once the one before has
 *    completed (svk_model_last_step, not counted), so that the call never
 *    waits: what replaying costs (recording happened in the warm-up;
 *    lavapipe's own threads run the kernels and are not counted). Timing
 *    the loop above instead would count the driver's fence waits, which
 *    NVIDIA's spends partly spinning: 0.3 to 0.6 ms a step on an H200.
 *    Then its ratio to the GPU time;
 *  - GPU ms per step: the step recorded once into a command buffer of ours
 *    (svk_model_record_train_step, svk/vulkan.h) between two timestamps,
 *    submitted `steps` times, the median difference: the step as the device
 *    runs it, barriers and gaps between dispatches included;
 *  - device memory: what the context allocated for the model (its pools'
 *    bytes in use, before and after creation and the first step), next to
 *    svk_model_memory() and to a lower bound, min_bytes() below.
 * Then SiameseNorm's overhead, the siamese step's GPU time over the
 * pre-norm step's, from the two kept alive and timed alternately, pair by
 * pair: on a shared machine whose speed drifts by tens of percent within a
 * minute, the ratio of two medians taken a minute apart is mostly the
 * drift; within a pair, both steps see the same machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "svk/vulkan.h"
#include "vk/vk_context.h"

/* A lower bound on the device memory of a training step that saves its
 * activations (no recomputation), as llm.c's list of saved activations:
 * parameters, gradients and both Adam moments (4 P floats), plus what the
 * backward pass reads, per sublayer the norm's input streams (x; y too for
 * siamese) and statistics, the sublayer input h, then attention's qkv,
 * softmax statistics [B, H, T, 2] (flash attention's; the materialised
 * form, which lavapipe's step uses, saves the probabilities [B, H, T, T]
 * instead) and head outputs, or the MLP's pre-activation
 * and activation ([N, F] each; SwiGLU's gate, up and product); at the end
 * the final streams, statistics and output, and the logits (their gradient
 * in place). Gradient workspaces are left out, so no plan can go below it. */
static uint64_t min_activations(const svk_model_config *c, uint64_t B, uint64_t T)
{
    const uint64_t N = B * T, C = c->width, F = svk_model_config_hidden(c), V = c->vocab, H = c->heads;
    const bool siamese = c->placement == SVK_PLACEMENT_SIAMESE, ln = c->norm == SVK_NORM_LAYERNORM;
    const uint64_t NC = N * C, stats = (siamese ? 3 : 1) * N * (ln ? 2 : 1);
    const uint64_t streams = (siamese ? 2 : 1) * NC;
    uint64_t per_layer = 2 * (streams + stats + NC);                  /* both sublayers' norms and h */
    per_layer += 3 * NC + 2 * B * H * T + NC;                         /* attention */
    per_layer += (c->mlp == SVK_MLP_SWIGLU ? 3 : 2) * N * F;          /* MLP */
    uint64_t final = streams + stats + NC + N * V;
    return per_layer * c->layers + final;
}

typedef struct step_cfg {
    const char *name;
    const char *keys;       /* "key=value ..." over the default configuration */
    uint32_t B, T;
    uint32_t accum;         /* micro-batches a step (svk_model_train_step_accum); 0: 1 */
    bool recompute;         /* svk_model_params.recompute */
    svk_precision precision; /* svk_model_params.precision */
} step_cfg;

/* Full run: 1024 token positions per step in each; the larger two are as
 * large as lavapipe runs in seconds per step (the default takes one to two
 * on two cores). Heads of width 64 there; the default keeps its 32. The
 * default's step with recomputation prices it (its time over the
 * default's), and 32 rows in 4 micro-batches of the default's 8 show what
 * accumulation costs a token; its steps with 16-bit activations price
 * those. */
static const step_cfg full_cfgs[] = {
    {"default", "", 8, 128, 1, false, SVK_PRECISION_FP32},
    {"default/pre", "placement=pre", 8, 128, 1, false, SVK_PRECISION_FP32},
    {"default/recompute", "", 8, 128, 1, true, SVK_PRECISION_FP32},
    {"default/bf16", "", 8, 128, 1, false, SVK_PRECISION_BF16},
    {"default/fp16", "", 8, 128, 1, false, SVK_PRECISION_FP16},
    {"default/accum4", "", 32, 128, 4, false, SVK_PRECISION_FP32},
    {"w256-l4", "width=256 layers=4 heads=4", 8, 128, 1, false, SVK_PRECISION_FP32},
    {"w256-l6-t256", "width=256 layers=6 heads=4 ctx=256", 4, 256, 1, false, SVK_PRECISION_FP32},
};
static const step_cfg quick_cfgs[] = {
    {"tiny", "vocab=64 ctx=16 width=32 layers=2 heads=2", 2, 16, 1, false, SVK_PRECISION_FP32},
    {"tiny/pre", "vocab=64 ctx=16 width=32 layers=2 heads=2 placement=pre", 2, 16, 1, false, SVK_PRECISION_FP32},
    {"tiny/recompute", "vocab=64 ctx=16 width=32 layers=2 heads=2", 2, 16, 1, true, SVK_PRECISION_FP32},
    {"tiny/bf16", "vocab=64 ctx=16 width=32 layers=2 heads=2", 2, 16, 1, false, SVK_PRECISION_BF16},
    {"tiny/accum2", "vocab=64 ctx=16 width=32 layers=2 heads=2", 4, 16, 2, false, SVK_PRECISION_FP32},
};

static bool apply_keys(const char *keys, svk_model_config *c, char *why, size_t why_size)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", keys);
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = 0;
        if (svk_model_config_set(c, kv, eq + 1) != SVK_OK) {
            snprintf(why, why_size, "%s", svk_last_error());
            return false;
        }
    }
    return true;
}

/* The step recorded once into a command buffer of ours, between two
 * timestamps. */
static bool record_timed(bench_vkcmd *t, svk_ctx *ctx, svk_model *m, uint32_t B, uint32_t T)
{
    if (!bench_vkcmd_begin(t, ctx, 2))
        return false;
    bench_vkcmd_stamp(t, 0, false);
    if (svk_model_record_train_step(m, t->cmd, B, T) != SVK_OK) {
        snprintf(t->why, sizeof(t->why), "svk_model_record_train_step: %s", svk_last_error());
        return false;
    }
    bench_vkcmd_stamp(t, 1, true);
    return bench_vkcmd_end(t);
}

static void skip_step(bench *b, bench_step_row *s, bool error, const char *fmt, const char *detail)
{
    snprintf(s->skipped, sizeof(s->skipped), fmt, detail);
    if (error)
        b->errors++;
}

static void add_step(bench *b, const bench_step_row *s)
{
    if (b->n_steps == b->cap_steps) {
        size_t cap = b->cap_steps ? 2 * b->cap_steps : 8;
        bench_step_row *p = realloc(b->steps, cap * sizeof(*p));
        if (!p) {
            b->errors++;
            return;
        }
        b->steps = p;
        b->cap_steps = cap;
    }
    b->steps[b->n_steps++] = *s;
    bench_print_step(b, s);
}

/* A configuration's model and its timed step, kept for the paired
 * overhead measurement. */
typedef struct kept_step {
    svk_model *m;
    bench_vkcmd tc;
    int32_t *tokens, *targets;
    uint32_t B, T;
    bool ok;
} kept_step;

static void kept_destroy(kept_step *k)
{
    bench_vkcmd_destroy(&k->tc);
    svk_model_destroy(&k->m);
    free(k->tokens);
    free(k->targets);
    memset(k, 0, sizeof(*k));
}

/* keep: NULL, or where to keep the model and its timed step (instead of
 * destroying them) when the GPU timing worked. */
static void run_config(bench *b, const step_cfg *cfg, kept_step *keep)
{
    bench_step_row s;
    memset(&s, 0, sizeof(s));
    snprintf(s.name, sizeof(s.name), "%s", cfg->name);
    char full[64];
    snprintf(full, sizeof(full), "step %s", cfg->name);
    if (!bench_filter_match(b, full))
        return;
    s.config = svk_model_config_default();
    s.B = b->opt.batch ? b->opt.batch : cfg->B;
    s.T = b->opt.seq ? b->opt.seq : cfg->T;
    char why[256] = "";
    if (!apply_keys(cfg->keys, &s.config, why, sizeof(why))) {
        skip_step(b, &s, true, "configuration: %s", why);
        add_step(b, &s);
        return;
    }
    if (s.T > s.config.ctx)
        s.config.ctx = s.T;
    /* The GEMMs' variant names the step's kernels: the row kernels follow
     * the same device rule, and the GEMMs run on cooperative matrices
     * where $SVK_GEMM_COOPMAT=1 asks and the device has them. */
    snprintf(s.variant, sizeof(s.variant), "%s", bench_gemm_step_variant(b));

    const uint64_t mem0 = b->ctx->memory.bytes_in_use;
    svk_model_params mp = svk_model_params_default();
    mp.config = s.config;
    mp.ctx = b->ctx;
    mp.seed = b->opt.seed;
    mp.recompute = cfg->recompute;
    mp.precision = cfg->precision;
    const uint32_t accum = cfg->accum ? cfg->accum : 1;
    if (b->opt.batch && b->opt.batch % accum) {
        skip_step(b, &s, true, "%s", "--batch does not split into the row's micro-batches");
        add_step(b, &s);
        return;
    }
    svk_model *m = NULL;
    const size_t n = (size_t)s.B * s.T;
    int32_t *tokens = malloc(n * sizeof(*tokens)), *targets = malloc(n * sizeof(*targets));
    double *gpu = calloc(b->opt.steps ? b->opt.steps : 1, sizeof(*gpu));
    bench_vkcmd tc = {0};
    svk_status st = tokens && targets && gpu ? svk_model_create(&mp, &m) : SVK_ERROR_OUT_OF_HOST_MEMORY;
    if (st != SVK_OK) {
        bool limit = st == SVK_ERROR_TOO_LARGE || st == SVK_ERROR_OUT_OF_DEVICE_MEMORY;
        skip_step(b, &s, !limit, "svk_model_create: %s", svk_last_error());
        goto done;
    }
    s.params = svk_model_param_count(m);
    for (size_t i = 0; i < n; i++) {
        tokens[i] = (int32_t)(cf_rng_next(&b->rng) % s.config.vocab);
        targets[i] = (int32_t)(cf_rng_next(&b->rng) % s.config.vocab);
    }
    const float lr = 1e-3f;
    /* Warm-up: records the step's lists and compiles their pipelines. */
    float loss = 0;
    double warm0 = bench_now();
    if ((st = svk_model_train_step_accum(m, tokens, targets, s.B, s.T, accum, lr, &loss)) != SVK_OK) {
        skip_step(b, &s, true, "svk_model_train_step_accum: %s", svk_last_error());
        goto done;
    }
    double warm_s = bench_now() - warm0;
    s.mem_used = b->ctx->memory.bytes_in_use - mem0;
    svk_memory_report mr;
    if (svk_model_memory(m, &mr) == SVK_OK) {
        s.mem_total = mr.total;
        s.mem_params = mr.params;
        s.mem_grads = mr.grads;
        s.mem_optimizer = mr.optimizer;
        s.mem_activations = mr.activations;
        s.mem_io = mr.io;
    }
    /* The bound holds a step that keeps its activations in float32: one
     * micro-batch's; recomputation and 16-bit activations go below it (0: no
     * bound). */
    const bool below = cfg->recompute || cfg->precision != SVK_PRECISION_FP32;
    s.min_activations = below ? 0 : 4 * min_activations(&s.config, s.B / accum, s.T);
    s.mem_min = below ? 0 : 16 * s.params + s.min_activations;

    if (warm_s > b->opt.max_step_s) {
        snprintf(s.skipped, sizeof(s.skipped), "the warm-up step took %.1f s (--max-step %g): not timed", warm_s,
                 b->opt.max_step_s);
        goto done;
    }
    /* Replayed steps, as a training loop runs them. */
    s.steps = b->opt.steps ? b->opt.steps : 1;
    double t0 = bench_now();
    for (uint32_t i = 0; i < s.steps && st == SVK_OK; i++)
        st = svk_model_train_step_accum(m, tokens, targets, s.B, s.T, accum, lr, NULL);
    svk_step_info info;
    if (st == SVK_OK)
        st = svk_model_last_step(m, &info);
    double t1 = bench_now();
    /* The replay's own CPU time, no wait inside the call (see above). */
    double cpu = 0;
    for (uint32_t i = 0; i < s.steps && st == SVK_OK; i++) {
        const double c0 = bench_thread_cpu();
        st = svk_model_train_step_accum(m, tokens, targets, s.B, s.T, accum, lr, NULL);
        cpu += bench_thread_cpu() - c0;
        if (st == SVK_OK)
            st = svk_model_last_step(m, &info);
    }
    if (st != SVK_OK) {
        skip_step(b, &s, true, "replayed steps: %s", svk_last_error());
        goto done;
    }
    s.wall_ms = (t1 - t0) * 1e3 / s.steps;
    s.tokens_per_s = (double)n * s.steps / (t1 - t0);
    s.host_cpu_ms = cpu * 1e3 / s.steps;
    s.final_loss = info.loss;

    /* GPU time of the step as recorded, between two timestamps. */
    if (accum > 1) {
        /* svk_model_record_train_step records whole-batch steps only. */
        snprintf(s.skipped, sizeof(s.skipped), "a step in micro-batches: GPU ms not measured (wall ms is)");
    } else if (!b->dev->timestamps) {
        snprintf(s.skipped, sizeof(s.skipped), "no timestamps on the device's compute queue: GPU ms not measured");
    } else if (!record_timed(&tc, b->ctx, m, s.B, s.T)) {
        skip_step(b, &s, true, "GPU timing: %s", tc.why);
    } else {
        uint32_t reps = 0;
        for (; reps < s.steps; reps++) {
            if ((st = svk_model_prepare_train_step(m, tokens, targets, lr)) != SVK_OK) {
                skip_step(b, &s, true, "svk_model_prepare_train_step: %s", svk_last_error());
                break;
            }
            if (!bench_vkcmd_run(&tc, &gpu[reps])) {
                skip_step(b, &s, true, "GPU timing: %s", tc.why);
                break;
            }
        }
        if (reps == s.steps) {
            s.gpu_reps = reps;
            s.gpu_min_ms = gpu[0];
            for (uint32_t i = 1; i < reps; i++)
                s.gpu_min_ms = gpu[i] < s.gpu_min_ms ? gpu[i] : s.gpu_min_ms;
            s.gpu_min_ms *= 1e-6;
            s.gpu_ms = bench_median(gpu, reps) * 1e-6;
            s.host_over_gpu = s.gpu_ms > 0 ? s.host_cpu_ms / s.gpu_ms : 0;
            /* The last prepared step is read, so the model is settled before
             * it is destroyed or kept. */
            svk_model_last_step(m, &info);
            if (keep) {
                *keep = (kept_step){m, tc, tokens, targets, s.B, s.T, true};
                m = NULL;
                memset(&tc, 0, sizeof(tc));
                tokens = targets = NULL;
            }
        }
    }
done:
    bench_vkcmd_destroy(&tc);
    svk_model_destroy(&m);
    free(tokens);
    free(targets);
    free(gpu);
    add_step(b, &s);
}

/* One timed run of a kept step: its GPU ns in *ns. */
static bool kept_run(bench *b, kept_step *k, double *ns)
{
    if (svk_model_prepare_train_step(k->m, k->tokens, k->targets, 1e-3f) != SVK_OK) {
        fprintf(stderr, "svk-bench: paired steps: svk_model_prepare_train_step: %s\n", svk_last_error());
        b->errors++;
        return false;
    }
    if (!bench_vkcmd_run(&k->tc, ns)) {
        fprintf(stderr, "svk-bench: paired steps: %s\n", k->tc.why);
        b->errors++;
        return false;
    }
    return true;
}

/* SiameseNorm's overhead from alternated pairs of steps (see the top): the
 * median of the pairs' ratios, and each side's median. At least
 * MIN_PAIRS pairs outside --quick (the median of 3 moved from 1.04 to 1.21
 * between two full runs on one host), each pair's order the other way
 * round from the last, so that neither side is always the one that runs
 * right after the other. */
static void run_pairs(bench *b, kept_step *sia, kept_step *pre)
{
    enum { MIN_PAIRS = 9 };
    const uint32_t steps = b->opt.steps ? b->opt.steps : 1;
    const uint32_t pairs = b->opt.quick || steps >= MIN_PAIRS ? steps : MIN_PAIRS;
    double *r = calloc(3 * (size_t)pairs, sizeof(*r));
    if (!r) {
        b->errors++;
        return;
    }
    double *ts = r + pairs, *tp = r + 2 * (size_t)pairs;
    uint32_t i = 0;
    for (; i < pairs; i++) {
        const bool ok = i % 2 == 0 ? kept_run(b, sia, &ts[i]) && kept_run(b, pre, &tp[i])
                                   : kept_run(b, pre, &tp[i]) && kept_run(b, sia, &ts[i]);
        if (!ok)
            break;
        r[i] = ts[i] / tp[i];
    }
    svk_step_info info; /* settle both before they are destroyed */
    svk_model_last_step(sia->m, &info);
    svk_model_last_step(pre->m, &info);
    if (i == pairs) {
        b->overhead_pairs = pairs;
        b->overhead_ratio = bench_median(r, pairs);
        b->overhead_siamese_ms = bench_median(ts, pairs) * 1e-6;
        b->overhead_pre_ms = bench_median(tp, pairs) * 1e-6;
    }
    free(r);
}

void bench_run_steps(bench *b)
{
    const step_cfg *cfgs = b->opt.quick ? quick_cfgs : full_cfgs;
    size_t n = b->opt.quick ? sizeof(quick_cfgs) / sizeof(quick_cfgs[0]) : sizeof(full_cfgs) / sizeof(full_cfgs[0]);
    /* The first two configurations are the siamese and pre-norm pair. */
    kept_step kept[2];
    memset(kept, 0, sizeof(kept));
    for (size_t i = 0; i < n; i++) {
        run_config(b, &cfgs[i], i < 2 ? &kept[i] : NULL);
        if (i == 1) {
            if (kept[0].ok && kept[1].ok)
                run_pairs(b, &kept[0], &kept[1]);
            kept_destroy(&kept[0]);
            kept_destroy(&kept[1]);
        }
    }
    kept_destroy(&kept[0]);
    kept_destroy(&kept[1]);
}
