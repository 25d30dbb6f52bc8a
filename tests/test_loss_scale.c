/*
 * fp16's dynamic loss scaling (svk_model_params.loss_scale; docs/MODEL.md,
 * "Precision") on both backends:
 *  - fp16 steps report the scale they ran with (65536 unless told), other
 *    precisions 1;
 *  - a scale that overflows (2^24: the target logit's gradient times S
 *    passes fp16's 65504) skips the step, leaving the weights and the
 *    update count alone, and halves S, until a step goes through;
 *  - loss_scale_interval good steps in a row double S;
 *  - scaling is what keeps small gradients: at S = 1 many round to fp16's
 *    subnormals or zero, and the gradients are much further from float32's
 *    than at the default scale;
 *  - a checkpoint carries the scaler: saved and resumed, a run gives the
 *    losses of one straight through; a bad scaler in a file is refused;
 *  - scales that are not powers of two in [2^-24, 2^24] are refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "svk/model.h"
#include "test_util.h"

enum { V = 24, T = 16, B = 8 };
/* The underflow check's shape: 256 tokens and 1024 targets, so that a
 * logit's gradient, about 1 / (256 x 1024), lies deep among fp16's
 * subnormals (below 2^-14, in steps of 2^-24) unless scaled. */
enum { V_BIG = 256, T_BIG = 32, B_BIG = 32 };

static tu_tally tally;
static uint64_t seed;

static svk_model *make_model_v(svk_ctx *ctx, svk_backend backend, svk_precision precision, float scale,
                               uint32_t interval, uint32_t vocab, uint32_t ctx_len)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = vocab, p.config.ctx = ctx_len, p.config.width = 16, p.config.heads = 2, p.config.layers = 2;
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 5;
    p.precision = precision;
    p.loss_scale = scale;
    p.loss_scale_interval = interval;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create %s, scale %g: %s", svk_precision_name(precision), (double)scale,
             st == SVK_OK ? "ok" : svk_last_error());
    return st == SVK_OK ? m : NULL;
}

static svk_model *make_model(svk_ctx *ctx, svk_backend backend, svk_precision precision, float scale,
                             uint32_t interval)
{
    return make_model_v(ctx, backend, precision, scale, interval, V, T);
}

static bool step(svk_model *m, uint32_t k, uint32_t rows, svk_step_info *info)
{
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(seed, k, tokens, targets, (int)(rows * T), V, 5);
    return svk_model_train_step(m, tokens, targets, rows, T, 1e-2f, NULL) == SVK_OK &&
           svk_model_last_step(m, info) == SVK_OK;
}

/* The scale each precision reports. */
static void reported(svk_ctx *ctx, svk_backend backend, const char *be)
{
    for (int p = 0; p < 3; p++) {
        svk_model *m = make_model(ctx, backend, (svk_precision)p, 0, 0);
        svk_step_info info = {0};
        const bool ok = m && step(m, 0, B, &info);
        const float want = p == SVK_PRECISION_FP16 ? SVK_LOSS_SCALE_DEFAULT : 1.0f;
        tu_check(&tally, ok && info.loss_scale == want && !info.skipped && isfinite(info.grad_norm),
                 "%s %s: a step reports loss scale %g (want %g), not skipped, norm %g", be,
                 svk_precision_name((svk_precision)p), (double)info.loss_scale, (double)want, (double)info.grad_norm);
        svk_model_destroy(&m);
    }
}

/* From 2^24, overflowing steps are skipped, each halving S, until one goes
 * through; the skipped ones change nothing. Then interval 2 doubles S
 * every second good step. */
static void backoff_and_growth(svk_ctx *ctx, svk_backend backend, const char *be, const char *dir)
{
    svk_model *m = make_model(ctx, backend, SVK_PRECISION_FP16, 16777216.0f, 2);
    char before[512], after[512];
    snprintf(before, sizeof(before), "%s/before.safetensors", dir);
    snprintf(after, sizeof(after), "%s/after.safetensors", dir);
    bool ok = m && svk_model_save(m, before, false) == SVK_OK;
    svk_step_info info = {0};
    float s = 16777216.0f;
    uint32_t k = 0, skipped = 0;
    bool halves = true;
    for (; ok && k < 30; k++) {
        /* Two rows: few targets, so each has a large gradient. */
        ok = step(m, k, 2, &info);
        halves = halves && info.loss_scale == s;
        if (!ok || !info.skipped)
            break;
        skipped++;
        s *= 0.5f;
    }
    const uint64_t applied = m ? svk_model_step(m) : 0;
    tu_check(&tally, ok && skipped >= 1 && halves && applied == 1 && !info.skipped,
             "%s: from scale 2^24, %u overflowing steps skipped, each halving the scale (%s), then step %u applied "
             "at %g; the update count is %llu (want 1)",
             be, skipped, halves ? "yes" : "no", k, (double)info.loss_scale, (unsigned long long)applied);
    /* The weights a skipped step leaves are the first ones. */
    svk_model *fresh = make_model(ctx, backend, SVK_PRECISION_FP16, 16777216.0f, 2);
    svk_step_info fi = {0};
    ok = ok && fresh && step(fresh, 0, 2, &fi) && fi.skipped && svk_model_save(fresh, after, false) == SVK_OK;
    tu_check(&tally, ok && tu_same_files(before, after), "%s: a skipped step leaves the weights as they were, bit for bit",
             be);
    svk_model_destroy(&fresh);
    remove(before);
    remove(after);
    svk_model_destroy(&m);
    /* Growth, from a scale that does not overflow. */
    m = make_model(ctx, backend, SVK_PRECISION_FP16, 1024.0f, 2);
    float seen[5] = {0};
    ok = m != NULL;
    for (uint32_t j = 0; ok && j < 5; j++) {
        ok = step(m, 100 + j, B, &info) && !info.skipped;
        seen[j] = info.loss_scale;
    }
    tu_check(&tally, ok && seen[0] == 1024 && seen[1] == 1024 && seen[2] == 2048 && seen[3] == 2048 && seen[4] == 4096,
             "%s: interval 2 doubles the scale every second good step: %g %g %g %g %g (want 1024 1024 2048 2048 "
             "4096)",
             be, (double)seen[0], (double)seen[1], (double)seen[2], (double)seen[3], (double)seen[4]);
    svk_model_destroy(&m);
}

/* The worst over the gradient tensors of two save_grads files of
 * ||g - ref|| / ||ref||: the tensors whose gradients are smallest are where
 * fp16 underflows. */
static double grads_error(const char *path, const char *ref_path)
{
    svk_st_file f, r;
    if (svk_st_read(NULL, path, &f) != SVK_OK)
        return NAN;
    if (svk_st_read(NULL, ref_path, &r) != SVK_OK) {
        svk_st_free(&f);
        return NAN;
    }
    double worst = 0;
    for (size_t i = 0; i < r.n_tensors; i++) {
        const svk_st_tensor *a = svk_st_find(&f, r.tensors[i].name);
        if (!a || a->bytes != r.tensors[i].bytes) {
            worst = NAN;
            break;
        }
        const float *x = a->data, *y = r.tensors[i].data;
        double num = 0, den = 0;
        for (size_t j = 0; j < a->bytes / 4; j++) {
            num += ((double)x[j] - y[j]) * ((double)x[j] - y[j]);
            den += (double)y[j] * y[j];
        }
        const double e = den > 0 ? sqrt(num / den) : sqrt(num);
        if (getenv("SVK_TEST_VERBOSE"))
            printf("  %s %.3e\n", r.tensors[i].name, e);
        worst = e > worst || isnan(e) ? e : worst;
    }
    svk_st_free(&f);
    svk_st_free(&r);
    return worst;
}

/* One step's gradients (unscaled on export) against float32's: at S = 1
 * the small ones fall into fp16's subnormals and to zero. */
static void keeps_small_gradients(svk_ctx *ctx, svk_backend backend, const char *be, const char *dir)
{
    const float scales[3] = {1.0f, 1.0f, SVK_LOSS_SCALE_DEFAULT};
    const svk_precision prec[3] = {SVK_PRECISION_FP32, SVK_PRECISION_FP16, SVK_PRECISION_FP16};
    char path[3][512];
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        snprintf(path[i], sizeof(path[i]), "%s/grads%d.safetensors", dir, i);
        svk_model *m = make_model_v(ctx, backend, prec[i], scales[i], 1u << 24, V_BIG, T_BIG);
        int32_t *tokens = malloc(sizeof(int32_t) * B_BIG * T_BIG), *targets = malloc(sizeof(int32_t) * B_BIG * T_BIG);
        ok = ok && m && tokens && targets;
        if (ok)
            tu_random_batch(seed, 7, tokens, targets, B_BIG * T_BIG, V_BIG, 0);
        svk_step_info info;
        ok = ok && svk_model_train_step(m, tokens, targets, B_BIG, T_BIG, 1e-2f, NULL) == SVK_OK &&
             svk_model_last_step(m, &info) == SVK_OK && !info.skipped && svk_model_save_grads(m, path[i]) == SVK_OK;
        free(tokens);
        free(targets);
        svk_model_destroy(&m);
    }
    const double unscaled = ok ? grads_error(path[1], path[0]) : NAN;
    const double scaled = ok ? grads_error(path[2], path[0]) : NAN;
    tu_check(&tally, ok && scaled < 0.01 && unscaled > 4 * scaled,
             "%s: fp16 gradients against fp32's: %.2e at scale 65536 (under 1e-2), %.2e at scale 1 (over 4x: "
             "underflow)",
             be, scaled, unscaled);
    for (int i = 0; i < 3; i++)
        remove(path[i]);
}

/* Saved and resumed across a change of scale, the same losses. */
static void resume(svk_ctx *ctx, svk_backend backend, const char *be, const char *dir)
{
    enum { N = 6, CUT = 3 };
    char path[512];
    snprintf(path, sizeof(path), "%s/resume.safetensors", dir);
    svk_model *a = make_model(ctx, backend, SVK_PRECISION_FP16, 1024.0f, 2);
    svk_model *b = make_model(ctx, backend, SVK_PRECISION_FP16, 1024.0f, 2);
    float la[N], lb[N], sa[N], sb[N];
    bool ok = a && b;
    svk_step_info info;
    for (uint32_t k = 0; ok && k < N; k++) {
        ok = step(a, k, B, &info);
        la[k] = info.loss, sa[k] = info.loss_scale;
    }
    for (uint32_t k = 0; ok && k < CUT; k++) {
        ok = step(b, k, B, &info);
        lb[k] = info.loss, sb[k] = info.loss_scale;
    }
    ok = ok && svk_model_save(b, path, true) == SVK_OK;
    svk_model_destroy(&b);
    char meta[64] = "";
    bool found = false;
    ok = ok && svk_checkpoint_metadata(path, "svk.loss_scale", meta, sizeof(meta), &found) == SVK_OK && found;
    b = make_model(ctx, backend, SVK_PRECISION_FP16, 0, 2);
    ok = ok && b && svk_model_load(b, path, true) == SVK_OK;
    for (uint32_t k = CUT; ok && k < N; k++) {
        ok = step(b, k, B, &info);
        lb[k] = info.loss, sb[k] = info.loss_scale;
    }
    tu_check(&tally, ok && !memcmp(la, lb, sizeof(la)) && !memcmp(sa, sb, sizeof(sa)) && sa[N - 1] > sa[0],
             "%s: saved at step %d (\"svk.loss_scale\" = %s) and resumed: the same %d losses and scales, bit for bit "
             "(scale %g to %g)",
             be, CUT, meta, N, (double)sa[0], (double)sa[N - 1]);
    svk_model_destroy(&a);
    svk_model_destroy(&b);
    remove(path);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    reported(ctx, backend, be);
    backoff_and_growth(ctx, backend, be, dir);
    keeps_small_gradients(ctx, backend, be, dir);
    resume(ctx, backend, be, dir);
}

/* What is refused. */
static void api(void)
{
    const float bad[] = {3.0f, -2.0f, 0x1p-25f, 0x1p25f, INFINITY, NAN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svk_model_params p = svk_model_params_default();
        p.backend = SVK_BACKEND_CPU;
        p.precision = SVK_PRECISION_FP16;
        p.loss_scale = bad[i];
        svk_model *m = NULL;
        svk_status st = svk_model_create(&p, &m);
        tu_check(&tally, st == SVK_ERROR_INVALID_ARG && !m && strstr(svk_last_error(), "loss_scale"),
                 "loss_scale %g is refused naming it: %s", (double)bad[i], svk_last_error());
        svk_model_destroy(&m);
    }
    svk_model_params p = svk_model_params_default();
    p.backend = SVK_BACKEND_CPU;
    p.loss_scale_interval = (1u << 24) + 1;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && !m && strstr(svk_last_error(), "loss_scale_interval"),
             "loss_scale_interval 2^24 + 1 is refused naming it: %s", svk_last_error());
    svk_model_destroy(&m);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_loss_scale", &args);
    seed = args.seed;
    api();
    return tu_each_backend(&tally, "test_loss_scale", run_backend);
}
