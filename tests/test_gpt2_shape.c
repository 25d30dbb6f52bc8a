/*
 * GPT-2-small's shape on the device (issue 37, item 7): 12 layers, width
 * 768, 12 heads, vocabulary 50257 (odd: no GEMM may assume a multiple of a
 * tile), context 1024, siamese, trained on windows of 64 tokens. On
 * lavapipe its 472 MiB parameter slab and 154 MB table are past the
 * 128 MiB binding range, so this runs the windowed slabs and the table's
 * parts at full size (tests/test_big_tensors.c covers them small, on any
 * device). The model is created, its first step's loss agrees with the
 * CPU reference's evaluation of the same weights within 1e-4 (the model
 * tolerance), it trains a second step, and a save reloads into a new
 * model with the same evaluation loss to the bit. Slow (about a minute):
 * suite 'slow', left out of the sanitizer run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/model.h"
#include "test_util.h"

enum { B = 1, T = 64 };

static tu_tally tally;

static svk_model_params gpt2(svk_ctx *ctx, svk_backend backend)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = 50257, p.config.ctx = 1024, p.config.width = 768, p.config.heads = 12, p.config.layers = 12;
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 5;
    return p;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_gpt2_shape", &args);
    char dir[] = "/tmp/test_gpt2_shape_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/gpt2.safetensors", dir);
    svk_ctx *ctx = tu_ctx_create();
    svk_model *m = NULL, *cpu = NULL, *again = NULL;
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(args.seed, 0, tokens, targets, B * T, 50257, 0);
    if (!ctx)
        goto end;

    double t0 = tu_now();
    svk_model_params p = gpt2(ctx, SVK_BACKEND_VULKAN);
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create: %llu parameters in %.1f s: %s",
             st == SVK_OK ? (unsigned long long)svk_model_param_count(m) : 0ull, tu_now() - t0,
             st == SVK_OK ? "ok" : svk_last_error());
    if (st != SVK_OK)
        goto end;
    svk_memory_report mem = {0};
    if (svk_model_memory(m, &mem) == SVK_OK)
        printf("  parameters %.1f MiB, binding range %.1f MiB\n", mem.params / 1048576.0,
               svk_ctx_device_info(ctx)->max_storage_buffer_range / 1048576.0);

    float l1 = NAN, l2 = NAN, ref = NAN;
    t0 = tu_now();
    st = svk_model_train_step(m, tokens, targets, B, T, 1e-4f, &l1);
    const double t1 = tu_now() - t0;
    t0 = tu_now();
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-4f, &l2);
    tu_check(&tally, st == SVK_OK && isfinite(l1) && isfinite(l2) && l2 < l1,
             "two steps of B=%d T=%d: loss %.6f then %.6f (%.1f s, %.1f s): %s", B, T, l1, l2, t1, tu_now() - t0,
             st == SVK_OK ? "ok" : svk_last_error());

    /* The reference evaluates the initial weights (the same seed): the
     * first step's loss is theirs. */
    svk_model_params pc = gpt2(NULL, SVK_BACKEND_CPU);
    t0 = tu_now();
    st = svk_model_create(&pc, &cpu);
    if (st == SVK_OK)
        st = svk_model_eval_loss(cpu, tokens, targets, B, T, &ref);
    const double rel = fabs(l1 - ref) / fabs(ref);
    tu_check(&tally, st == SVK_OK && rel <= 1e-4,
             "first-step loss %.7f vs the CPU reference's %.7f: relative %.2e <= 1e-4 (reference %.1f s): %s", l1, ref,
             rel, tu_now() - t0, st == SVK_OK ? "ok" : svk_last_error());
    svk_model_destroy(&cpu);

    float e1 = NAN, e2 = NAN;
    t0 = tu_now();
    st = svk_model_save(m, path, false);
    if (st == SVK_OK)
        st = svk_model_eval_loss(m, tokens, targets, B, T, &e1);
    svk_model_destroy(&m); /* two would not fit lavapipe's heap */
    if (st == SVK_OK)
        st = svk_model_open(ctx, path, 0, &again);
    if (st == SVK_OK)
        st = svk_model_eval_loss(again, tokens, targets, B, T, &e2);
    tu_check(&tally, st == SVK_OK && memcmp(&e1, &e2, sizeof(e1)) == 0,
             "saved and reopened: evaluation loss %.7f, then %.7f (%.1f s): %s", e1, e2, tu_now() - t0,
             st == SVK_OK ? "ok" : svk_last_error());
end:
    svk_model_destroy(&again);
    svk_model_destroy(&m);
    tu_ctx_finish(&ctx, &tally);
    remove(path);
    rmdir(dir);
    return tu_finish(&tally);
}
