/*
 * A training step's logits' gradient takes the logits' place, on both
 * backends: the activations a step plans grow by one [N, V] tensor with
 * the vocabulary, not two; svk_model_save_logits writes an evaluation's
 * logits (those svk_model_forward_logits gives, to the bit), and after a
 * training step refuses (SVK_ERROR_INVALID_STATE, naming why) and writes
 * nothing; a step after an evaluation trains as one without it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/safetensors.h"
#include "svk/model.h"
#include "test_util.h"

enum { V = 97, B = 2, T = 12 };

static tu_tally tally;
static uint64_t seed;

static svk_model_params params_for(svk_ctx *ctx, svk_backend backend, uint32_t vocab)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = vocab, p.config.ctx = 16, p.config.width = 16, p.config.heads = 2, p.config.layers = 1;
    p.backend = backend;
    p.ctx = ctx;
    return p;
}

/* One [B x T, V] tensor more per V, not two. */
static void planned(svk_ctx *ctx, svk_backend backend, const char *be)
{
    svk_memory_plan a, b;
    svk_model_params pa = params_for(ctx, backend, V), pb = params_for(ctx, backend, 2 * V);
    const bool ok = svk_model_plan_memory(&pa, B, T, 1, &a) == SVK_OK &&
                    svk_model_plan_memory(&pb, B, T, 1, &b) == SVK_OK;
    const uint64_t grew = ok ? b.model.activations - a.model.activations : 0, one = (uint64_t)B * T * V * 4;
    tu_check(&tally, ok && grew == one,
             "%s: doubling the vocabulary adds %llu bytes of activations: one [%d, %d] tensor (%llu) (%s)", be,
             (unsigned long long)grew, B * T, V, (unsigned long long)one, ok ? "" : svk_last_error());
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    planned(ctx, backend, be);
    char path[512];
    snprintf(path, sizeof(path), "%s/logits.safetensors", dir);
    const svk_model_params p = params_for(ctx, backend, V);
    svk_model *m = NULL, *plain = NULL;
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(seed, 0, tokens, targets, B * T, V, 5);
    static float logits[B * T * V];
    float loss, l_eval = 0, l_plain = 0;
    svk_status st = svk_model_create(&p, &m);
    if (st == SVK_OK)
        st = svk_model_save_logits(m, path);
    tu_check(&tally, st == SVK_ERROR_INVALID_STATE && access(path, F_OK) != 0,
             "%s: a new model has no logits to save: %s", be, svk_last_error());

    /* An evaluation's logits are the forward's. */
    bool same = false;
    st = m ? svk_model_forward_logits(m, tokens, B, T, logits) : SVK_ERROR_INVALID_STATE;
    if (st == SVK_OK)
        st = svk_model_eval_loss(m, tokens, targets, B, T, &loss);
    if (st == SVK_OK)
        st = svk_model_save_logits(m, path);
    svk_st_file f;
    if (st == SVK_OK && (st = svk_st_read(NULL, path, &f)) == SVK_OK) {
        const svk_st_tensor *t = svk_st_find(&f, "logits");
        same = t && t->ndim == 3 && t->shape[0] == B && t->shape[1] == T && t->shape[2] == V &&
               !memcmp(t->data, logits, sizeof(logits));
        svk_st_free(&f);
    }
    tu_check(&tally, st == SVK_OK && same, "%s: after an evaluation, the logits saved are the forward's (%s)", be,
             st == SVK_OK ? (same ? "the same bits" : "different") : svk_last_error());
    remove(path);

    /* After a step: none, and nothing written. */
    st = m ? svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &l_eval) : SVK_ERROR_INVALID_STATE;
    if (st == SVK_OK)
        st = svk_model_save_logits(m, path);
    tu_check(&tally, st == SVK_ERROR_INVALID_STATE && strstr(svk_last_error(), "training step") &&
                         access(path, F_OK) != 0,
             "%s: after a training step the logits are their gradient: %s", be, svk_last_error());

    /* The evaluation changed nothing the step computes. */
    char g1[512], g2[512];
    snprintf(g1, sizeof(g1), "%s/g1.safetensors", dir);
    snprintf(g2, sizeof(g2), "%s/g2.safetensors", dir);
    st = svk_model_create(&p, &plain);
    if (st == SVK_OK)
        st = svk_model_train_step(plain, tokens, targets, B, T, 1e-2f, &l_plain);
    if (st == SVK_OK && (st = svk_model_save_grads(m, g1)) == SVK_OK)
        st = svk_model_save_grads(plain, g2);
    unsigned char *d1 = NULL, *d2 = NULL;
    size_t n1 = 0, n2 = 0;
    same = st == SVK_OK && tu_read_file(g1, &d1, &n1) && tu_read_file(g2, &d2, &n2) && n1 == n2 &&
           !memcmp(d1, d2, n1);
    tu_check(&tally, same && l_eval == l_plain,
             "%s: a step after an evaluation has the loss (%.9g, %.9g) and gradients of one without (%s)", be,
             (double)l_eval, (double)l_plain, st == SVK_OK ? (same ? "the same bits" : "different") : svk_last_error());
    free(d1);
    free(d2);
    remove(g1);
    remove(g2);
    svk_model_destroy(&m);
    svk_model_destroy(&plain);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_logits_in_place", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_logits_in_place", run_backend);
}
