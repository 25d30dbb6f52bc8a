/*
 * Activation recomputation (svk_model_params.recompute) on both backends:
 * a model that keeps only its blocks' inputs and computes their
 * activations again in the backward pass trains to the same bits as one
 * that keeps every activation. For the placements and the block forms
 * (SwiGLU, RoPE, RMSNorm, untied embeddings), models made alike with and
 * without it train the same batches, one step in two micro-batches: every
 * loss and gradient norm is equal bit for bit, and so are their
 * checkpoints, byte for byte. Its activations take less memory, more so
 * with more layers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svk/model.h"
#include "test_forms.h"
#include "test_util.h"

enum { V = 24, T = 8, B = 4, STEPS = 5 };

static tu_tally tally;
static uint64_t seed;


static svk_model *make_model(svk_ctx *ctx, svk_backend backend, const tu_form *f, uint32_t layers, bool recompute)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = V, p.config.ctx = T, p.config.width = 16, p.config.heads = 2, p.config.layers = layers;
    tu_form_apply(f, &p.config);
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 3;
    p.recompute = recompute;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "%s: create%s: %s", f->name, recompute ? " with recompute" : "",
             st == SVK_OK ? "ok" : svk_last_error());
    return st == SVK_OK ? m : NULL;
}

static void batch(uint32_t k, int32_t *tokens, int32_t *targets)
{
    tu_random_batch(seed, k, tokens, targets, B * T, V, 5);
}

/* STEPS steps of both models (step 2 in two micro-batches); the same bits
 * everywhere, checkpoints included. */
static void compare(const char *be, const tu_form *f, svk_model *keep, svk_model *rc, const char *dir)
{
    int32_t tokens[B * T], targets[B * T];
    bool ok = true, same = true;
    for (uint32_t k = 0; k < STEPS && ok; k++) {
        batch(k, tokens, targets);
        const uint32_t accum = k == 2 ? 2 : 1;
        float la, lb;
        svk_step_info ia, ib;
        ok = svk_model_train_step_accum(keep, tokens, targets, B, T, accum, 1e-2f, &la) == SVK_OK &&
             svk_model_train_step_accum(rc, tokens, targets, B, T, accum, 1e-2f, &lb) == SVK_OK &&
             svk_model_last_step(keep, &ia) == SVK_OK && svk_model_last_step(rc, &ib) == SVK_OK;
        same = same && ok && !memcmp(&la, &lb, sizeof(la)) && !memcmp(&ia.grad_norm, &ib.grad_norm, sizeof(float));
    }
    char pa[512], pb[512];
    snprintf(pa, sizeof(pa), "%s/keep.safetensors", dir);
    snprintf(pb, sizeof(pb), "%s/recompute.safetensors", dir);
    ok = ok && svk_model_save(keep, pa, true) == SVK_OK && svk_model_save(rc, pb, true) == SVK_OK;
    tu_check(&tally, ok && same && tu_same_files(pa, pb),
             "%s %s: %d steps with recomputation: the same losses, norms and checkpoint, bit for bit (%s)", be,
             f->name, STEPS, ok ? (same ? "ok" : "values differ") : svk_last_error());
    remove(pa);
    remove(pb);
}

/* Activation bytes with and without recomputation, after a step. */
static void memory(svk_ctx *ctx, svk_backend backend, const char *be, const tu_form *f)
{
    uint64_t act[2] = {0, 0};
    int32_t tokens[B * T], targets[B * T];
    batch(0, tokens, targets);
    for (int r = 0; r < 2; r++) {
        svk_model *m = make_model(ctx, backend, f, 6, r == 1);
        svk_memory_report rep = {0};
        if (m && svk_model_train_step(m, tokens, targets, B, T, 1e-3f, NULL) == SVK_OK &&
            svk_model_memory(m, &rep) == SVK_OK)
            act[r] = rep.activations;
        svk_model_destroy(&m);
    }
    tu_check(&tally, act[0] && act[1] && act[1] * 2 < act[0],
             "%s: 6 layers: activations %llu bytes with recomputation, %llu without", be, (unsigned long long)act[1],
             (unsigned long long)act[0]);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    for (size_t i = 0; i < TU_N_FORMS; i++) {
        svk_model *keep = make_model(ctx, backend, &tu_forms[i], 3, false);
        svk_model *rc = make_model(ctx, backend, &tu_forms[i], 3, true);
        if (keep && rc)
            compare(be, &tu_forms[i], keep, rc, dir);
        svk_model_destroy(&keep);
        svk_model_destroy(&rc);
    }
    memory(ctx, backend, be, &tu_forms[0]);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_recompute", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_recompute", run_backend);
}
