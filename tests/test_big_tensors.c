/*
 * Tensors past the device's binding range (maxStorageBufferRange): the
 * parameter-shaped slabs are bound in windows and the vocabulary table's
 * ops run in parts (lib/model/vk_windows.h, plan_vk.c). A second context
 * takes the range to be 128 KiB (SVK_MAX_STORAGE_RANGE), so a small model
 * with a prime vocabulary of 1031 (a 132 KB table, three parts) goes the
 * way GPT-2's vocabulary does on lavapipe's 128 MiB; at B=8 its logits
 * (264 KB) are windowed as well. For siamese (tied
 * embeddings, learned positions) and pre (untied, RoPE, SwiGLU):
 *   - the windowed model trains as the model bound whole: losses and
 *     gradient norms within 1e-4 (the logits' gradient through the table
 *     adds its parts in turn, and four free-running AdamW steps carry that
 *     order's last bits on: 1e-5 failed about one run in six), and as the
 *     CPU reference within 1e-4, the model tolerance of test_model;
 *   - its checkpoint is the whole model's within 1e-4, reloads into a new
 *     windowed model with the same evaluation loss to the bit, and loads on
 *     the CPU backend;
 *   - cached generation (the decode embedding in parts) gives the whole
 *     model's greedy tokens.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/model.h"
#include "test_util.h"

enum { V = 1031, C = 32, T = 8, B = 2, BIG_B = 8, STEPS = 4, RANGE = 128 * 1024 };

static tu_tally tally;
static uint64_t seed;

static svk_model *make(svk_ctx *ctx, svk_backend backend, bool siamese)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = V, p.config.ctx = T, p.config.width = C, p.config.heads = 2, p.config.layers = 2;
    if (!siamese) {
        p.config.placement = SVK_PLACEMENT_PRE;
        p.config.tie_embeddings = false;
        p.config.pos = SVK_POS_ROPE;
        p.config.mlp = SVK_MLP_SWIGLU;
    }
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 11;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create (%s, %s): %s", siamese ? "siamese" : "pre", ctx ? "vulkan" : "cpu",
             st == SVK_OK ? "ok" : svk_last_error());
    return st == SVK_OK ? m : NULL;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-30);
}

/* The largest relative difference between two checkpoints' float tensors,
 * read as the files' bytes: both are written alike, so the tensors lie at
 * the same offsets; -1 if the files differ in size. */
static double checkpoint_diff(const char *a, const char *b)
{
    unsigned char *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    double worst = -1;
    if (tu_read_file(a, &da, &na) && tu_read_file(b, &db, &nb) && na == nb && na > 8) {
        uint64_t header = 0;
        memcpy(&header, da, 8);
        double num = 0, den = 0;
        for (size_t i = 8 + header; i + 4 <= na; i += 4) {
            float x, y;
            memcpy(&x, da + i, 4);
            memcpy(&y, db + i, 4);
            num += ((double)x - y) * ((double)x - y);
            den += (double)y * y;
        }
        worst = sqrt(num / fmax(den, 1e-30));
    }
    free(da);
    free(db);
    return worst;
}

static void form(svk_ctx *whole_ctx, svk_ctx *win_ctx, const char *dir, bool siamese)
{
    const char *name = siamese ? "siamese" : "pre";
    svk_model *whole = make(whole_ctx, SVK_BACKEND_VULKAN, siamese);
    svk_model *win = make(win_ctx, SVK_BACKEND_VULKAN, siamese);
    svk_model *cpu = make(NULL, SVK_BACKEND_CPU, siamese);
    if (!whole || !win || !cpu)
        goto end;
    int32_t tokens[BIG_B * T], targets[BIG_B * T];
    double worst_whole = 0, worst_cpu = 0;
    bool ok = true;
    for (uint32_t k = 0; k < STEPS && ok; k++) {
        /* Odd steps: logits [64, V] of 264 KB, windowed too. */
        const uint32_t b = k % 2 ? BIG_B : B;
        tu_random_batch(seed, k, tokens, targets, (int)b * T, V, 5);
        svk_step_info iw = {0}, iv = {0}, ic = {0};
        ok = svk_model_train_step(whole, tokens, targets, b, T, 3e-3f, NULL) == SVK_OK &&
             svk_model_train_step(win, tokens, targets, b, T, 3e-3f, NULL) == SVK_OK &&
             svk_model_train_step(cpu, tokens, targets, b, T, 3e-3f, NULL) == SVK_OK &&
             svk_model_last_step(whole, &iw) == SVK_OK && svk_model_last_step(win, &iv) == SVK_OK &&
             svk_model_last_step(cpu, &ic) == SVK_OK;
        worst_whole = fmax(worst_whole, fmax(rel(iv.loss, iw.loss), rel(iv.grad_norm, iw.grad_norm)));
        worst_cpu = fmax(worst_cpu, fmax(rel(iv.loss, ic.loss), rel(iv.grad_norm, ic.grad_norm)));
    }
    tu_check(&tally, ok, "%s: %d steps on each, B=%d and B=%d in turn: %s", name, STEPS, B, BIG_B,
             ok ? "ok" : svk_last_error());
    tu_check(&tally, ok && worst_whole <= 1e-4,
             "%s: windowed vs bound whole: worst relative difference of loss and norm %.3g <= 1e-4", name,
             worst_whole);
    tu_check(&tally, ok && worst_cpu <= 1e-4, "%s: windowed vs the CPU reference: %.3g <= 1e-4", name, worst_cpu);

    char pw[512], pv[512], pr[512];
    snprintf(pw, sizeof(pw), "%s/whole.safetensors", dir);
    snprintf(pv, sizeof(pv), "%s/windowed.safetensors", dir);
    snprintf(pr, sizeof(pr), "%s/reloaded.safetensors", dir);
    ok = svk_model_save(whole, pw, true) == SVK_OK && svk_model_save(win, pv, true) == SVK_OK;
    const double dsave = ok ? checkpoint_diff(pv, pw) : -1;
    tu_check(&tally, dsave >= 0 && dsave <= 1e-4, "%s: the checkpoints differ by %.3g relative <= 1e-4", name, dsave);

    svk_model *again = make(win_ctx, SVK_BACKEND_VULKAN, siamese);
    float la = NAN, lb = NAN, lc = NAN;
    ok = again && svk_model_load(again, pv, true) == SVK_OK && svk_model_eval_loss(win, tokens, targets, B, T, &la) == SVK_OK &&
         svk_model_eval_loss(again, tokens, targets, B, T, &lb) == SVK_OK &&
         svk_model_load(cpu, pv, true) == SVK_OK && svk_model_eval_loss(cpu, tokens, targets, B, T, &lc) == SVK_OK;
    tu_check(&tally, ok && memcmp(&la, &lb, sizeof(la)) == 0 && fabs(lc - la) <= 1e-5 * fabs(la),
             "%s: reloaded into a new windowed model: loss %.7f, then %.7f; on the CPU %.7f (%s)", name, la, lb, lc,
             ok ? "ok" : svk_last_error());
    /* The copies agree to the bit after this: generation from them. */
    ok = ok && svk_model_save(again, pr, false) == SVK_OK && svk_model_load(whole, pr, false) == SVK_OK;
    const int32_t prompt[3] = {7, 1030, 512};
    int32_t gw[8] = {0}, gv[8] = {0};
    svk_sample_params sp = svk_sample_params_default();
    sp.temperature = 0.0f;
    uint32_t nw = 0, nv = 0;
    ok = ok && svk_model_generate(whole, prompt, 3, 8, &sp, gw, &nw) == SVK_OK &&
         svk_model_generate(again, prompt, 3, 8, &sp, gv, &nv) == SVK_OK;
    tu_check(&tally, ok && nw == 8 && nv == 8 && memcmp(gw, gv, sizeof(gw)) == 0,
             "%s: cached greedy generation gives the same tokens (%d %d %d ...): %s", name, gv[0], gv[1], gv[2],
             ok ? "ok" : svk_last_error());
    svk_model_destroy(&again);
    remove(pw);
    remove(pv);
    remove(pr);
end:
    svk_model_destroy(&whole);
    svk_model_destroy(&win);
    svk_model_destroy(&cpu);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_big_tensors", &args);
    seed = args.seed;
    char dir[] = "/tmp/test_big_tensors_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    svk_ctx *whole = tu_ctx_create();
    setenv("SVK_MAX_STORAGE_RANGE", "131072", 1);
    svk_ctx *win = tu_ctx_create();
    unsetenv("SVK_MAX_STORAGE_RANGE");
    if (whole && win) {
        const svk_device_info *info = svk_ctx_device_info(win);
        tu_check(&tally, info->max_storage_buffer_range == RANGE,
                 "SVK_MAX_STORAGE_RANGE=131072: the context's range is %llu bytes; the table's %d bytes go in parts",
                 (unsigned long long)info->max_storage_buffer_range, V * C * 4);
        form(whole, win, dir, true);
        form(whole, win, dir, false);
    }
    tu_ctx_finish(&win, &tally);
    tu_ctx_finish(&whole, &tally);
    rmdir(dir);
    return tu_finish(&tally);
}
