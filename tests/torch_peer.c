/*
 * libsvk's side of tests/test_svk_torch.py, which holds python/svk_torch to
 * libsvk: from a checkpoint, the logits of a batch, then one training step
 * on it, written where the PyTorch side can read them.
 *
 *   torch_peer cpu|vulkan CKPT TOKENS TARGETS B T LR OUTDIR [--weights-only]
 *
 * TOKENS and TARGETS are raw little-endian int32 [B, T]. The model is
 * svk_model_open's (the optimiser settings are svk_model_params_default()'s,
 * which svk_torch.make_optimizer's defaults equal), with the checkpoint's
 * AdamW state unless --weights-only. Writes OUTDIR/logits.safetensors
 * (svk_model_forward_logits on TOKENS), OUTDIR/grads.safetensors (the
 * step's gradients before clipping) and OUTDIR/step.safetensors (the model
 * and its optimiser state after one svk_model_train_step at LR), and prints
 * "loss X" with the step's loss. Exit 0 when every call succeeded (and, on
 * Vulkan, the validation layer said nothing), else 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static int32_t *read_batch(const char *path, size_t n)
{
    unsigned char *data;
    size_t size;
    if (!tu_read_file(path, &data, &size))
        return NULL;
    if (size != n * sizeof(int32_t)) {
        fprintf(stderr, "torch_peer: %s holds %zu bytes, want %zu\n", path, size, n * sizeof(int32_t));
        free(data);
        return NULL;
    }
    return (int32_t *)(void *)data;
}

static bool ok(svk_status st, const char *what)
{
    if (st != SVK_OK)
        fprintf(stderr, "torch_peer: %s: %s: %s\n", what, svk_status_string(st), svk_last_error());
    return st == SVK_OK;
}

int main(int argc, char **argv)
{
    const bool weights_only = argc == 10 && !strcmp(argv[9], "--weights-only");
    if ((argc != 9 && !weights_only) || (strcmp(argv[1], "cpu") && strcmp(argv[1], "vulkan"))) {
        fprintf(stderr, "usage: torch_peer cpu|vulkan CKPT TOKENS TARGETS B T LR OUTDIR [--weights-only]\n");
        return 2;
    }
    const char *ckpt = argv[2], *outdir = argv[8];
    const uint32_t B = (uint32_t)strtoul(argv[5], NULL, 10), T = (uint32_t)strtoul(argv[6], NULL, 10);
    const float lr = strtof(argv[7], NULL);
    int32_t *tokens = read_batch(argv[3], (size_t)B * T), *targets = read_batch(argv[4], (size_t)B * T);
    tu_tally tally = {0};
    svk_ctx *ctx = !strcmp(argv[1], "vulkan") ? tu_ctx_create() : NULL;
    svk_model *m = NULL;
    char path[4096];
    bool good = tokens && targets && (ctx || !strcmp(argv[1], "cpu")) &&
                ok(svk_model_open(ctx, ckpt, weights_only ? 0 : SVK_LOAD_OPTIMIZER, &m), "svk_model_open");
    float *logits = good ? malloc((size_t)B * T * svk_model_get_config(m)->vocab * sizeof(float)) : NULL;
    good = good && logits && ok(svk_model_forward_logits(m, tokens, B, T, logits), "svk_model_forward_logits");
    snprintf(path, sizeof(path), "%s/logits.safetensors", outdir);
    good = good && ok(svk_model_save_logits(m, path), "svk_model_save_logits");
    float loss = 0;
    good = good && ok(svk_model_train_step(m, tokens, targets, B, T, lr, &loss), "svk_model_train_step");
    snprintf(path, sizeof(path), "%s/grads.safetensors", outdir);
    good = good && ok(svk_model_save_grads(m, path), "svk_model_save_grads");
    snprintf(path, sizeof(path), "%s/step.safetensors", outdir);
    good = good && ok(svk_model_save(m, path, true), "svk_model_save");
    if (good)
        printf("loss %.9g\n", (double)loss);
    free(logits);
    free(tokens);
    free(targets);
    svk_model_destroy(&m);
    tu_ctx_finish(&ctx, &tally);
    return good && tally.failed == 0 ? 0 : 1;
}
