/*
 * svk_model_open makes a model from a checkpoint in one call, on both
 * backends: the file's configuration (an unusual one, far from the
 * defaults) and weights come back exactly, and with SVK_LOAD_OPTIMIZER its
 * moments and step too, so training goes on with the losses the saved
 * model would have had; a weights-only save (the export form) opens, and
 * is refused with SVK_LOAD_OPTIMIZER. Refused, with *model NULL and a
 * message naming the file: a missing file, a FIFO (within a second, not
 * waited on), a file that is not safetensors, and files whose stored
 * configuration disagrees with their tensors (a layer more, a layer less).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = 8, V = 64 };

static tu_tally tally;

static svk_model_config unusual_config(void)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = V;
    c.ctx = 16;
    c.width = 16;
    c.layers = 2;
    c.heads = 2;
    c.mlp_hidden = 24;
    c.norm = SVK_NORM_RMSNORM;
    c.placement = SVK_PLACEMENT_PRE;
    c.mlp = SVK_MLP_SWIGLU;
    c.pos = SVK_POS_ROPE;
    c.bias = false;
    c.tie_embeddings = false;
    c.norm_eps = 1e-6f;
    c.rope_theta = 500.0f;
    return c;
}

static void batch(int32_t *tokens, int32_t *targets, int step)
{
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (i * 7 + step * 3) % V;
        targets[i] = (i * 5 + step + 1) % V;
    }
}

/* Copies file `from` to `to` with the first occurrence of `what` in its
 * header replaced by `with` (the same length, so every offset holds). */
static bool patch_copy(const char *from, const char *to, const char *what, const char *with)
{
    unsigned char *data;
    size_t size;
    if (!tu_read_file(from, &data, &size))
        return false;
    bool ok = false;
    for (size_t i = 8; i + strlen(what) <= size && i < 4096 && !ok; i++)
        if (!memcmp(data + i, what, strlen(what))) {
            memcpy(data + i, with, strlen(with));
            ok = true;
        }
    FILE *f = fopen(to, "wb");
    ok = ok && f && fwrite(data, 1, size, f) == size;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(data);
    return ok;
}

/* The model's logits of a fixed batch, for comparing weights. */
static bool logits(svk_model *m, float *out)
{
    int32_t tokens[B * T], targets[B * T];
    batch(tokens, targets, 99);
    return svk_model_forward_logits(m, tokens, B, T, out) == SVK_OK;
}

static void round_trip(svk_ctx *ctx, svk_backend backend, const char *dir, const char *name)
{
    char full[256], weights[256];
    snprintf(full, sizeof(full), "%s/full.safetensors", dir);
    snprintf(weights, sizeof(weights), "%s/weights.safetensors", dir);
    svk_model_params p = svk_model_params_default();
    p.config = unusual_config();
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 7;
    svk_model *m = NULL, *opened = NULL, *resumed = NULL;
    int32_t tokens[B * T], targets[B * T];
    svk_status st = svk_model_create(&p, &m);
    for (int s = 0; s < 3 && st == SVK_OK; s++) {
        batch(tokens, targets, s);
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    }
    if (st == SVK_OK)
        st = svk_model_save(m, full, true);
    if (st == SVK_OK)
        st = svk_model_save(m, weights, false);
    tu_check(&tally, st == SVK_OK, "%s: 3 steps of an unusual model, saved with and without the optimiser: %s", name,
             st ? svk_last_error() : "ok");
    if (st != SVK_OK) {
        svk_model_destroy(&m);
        return;
    }
    const svk_model_config want = unusual_config();

    /* Weights only: the file's configuration and weights, no moments. */
    st = svk_model_open(ctx, weights, 0, &opened);
    float *a = malloc(2 * B * T * V * sizeof(float)), *b = a ? a + B * T * V : NULL;
    bool same_config = st == SVK_OK && svk_model_config_equal(svk_model_get_config(opened), &want) &&
                       svk_model_get_config(opened)->mlp_hidden == 24 && svk_model_get_config(opened)->rope_theta == 500.0f;
    bool same_weights = st == SVK_OK && a && logits(m, a) && logits(opened, b) && !memcmp(a, b, B * T * V * sizeof(float));
    tu_check(&tally, same_config, "%s: svk_model_open of a weights-only file: its configuration: %s", name,
             st ? svk_last_error() : "ok");
    tu_check(&tally, same_weights, "%s: ... and its weights (the same logits, bit for bit)", name);
    tu_check(&tally, st == SVK_OK && svk_model_step(opened) == 0, "%s: ... at step 0, without moments", name);
    svk_model_destroy(&opened);

    /* The whole state: training goes on as from the saved model. */
    st = svk_model_open(ctx, full, SVK_LOAD_OPTIMIZER, &resumed);
    bool same_steps = st == SVK_OK && svk_model_step(resumed) == 3;
    for (int s = 3; s < 5 && same_steps; s++) {
        float l1 = NAN, l2 = NAN;
        batch(tokens, targets, s);
        same_steps = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &l1) == SVK_OK &&
                     svk_model_train_step(resumed, tokens, targets, B, T, 1e-2f, &l2) == SVK_OK && l1 == l2 &&
                     isfinite(l1);
    }
    tu_check(&tally, same_steps, "%s: svk_model_open with SVK_LOAD_OPTIMIZER: step 3, and the next two steps' losses "
                                 "are the saved model's: %s", name, st ? svk_last_error() : "ok");
    svk_model_destroy(&resumed);

    st = svk_model_open(ctx, weights, SVK_LOAD_OPTIMIZER, &opened);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT && !opened && strstr(svk_last_error(), "optimiser"),
             "%s: a weights-only file with SVK_LOAD_OPTIMIZER refused: %s", name, svk_last_error());

    /* Files whose configuration disagrees with their tensors. */
    static const struct {
        const char *what, *with, *label, *needle;
    } lies[] = {
        {"\\\"layers\\\":2", "\\\"layers\\\":3", "a layer more than its tensors", "needs"},
        {"\\\"layers\\\":2", "\\\"layers\\\":1", "a layer less than its tensors", "unexpected tensor"},
        {"\\\"width\\\":16", "\\\"width\\\":32", "twice the width of its tensors", "needs"},
    };
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        char path[256];
        snprintf(path, sizeof(path), "%s/lie%zu.safetensors", dir, i);
        bool made = patch_copy(weights, path, lies[i].what, lies[i].with);
        st = made ? svk_model_open(ctx, path, 0, &opened) : SVK_ERROR_INTERNAL;
        tu_check(&tally, made && st == SVK_ERROR_BAD_CHECKPOINT && !opened && strstr(svk_last_error(), path) &&
                             strstr(svk_last_error(), lies[i].needle),
                 "%s: a file whose configuration has %s refused: %s", name, lies[i].label, svk_last_error());
        svk_model_destroy(&opened);
        unlink(path);
    }
    free(a);
    svk_model_destroy(&m);
    unlink(full);
    unlink(weights);
}

static void refusals(svk_ctx *ctx, const char *dir, const char *name)
{
    char path[256];
    svk_model *m = (svk_model *)&tally; /* not NULL: a refusal must write NULL */
    snprintf(path, sizeof(path), "%s/absent.safetensors", dir);
    svk_status st = svk_model_open(ctx, path, 0, &m);
    tu_check(&tally, st == SVK_ERROR_IO && !m && strstr(svk_last_error(), path), "%s: a missing file: %s", name,
             svk_last_error());

    snprintf(path, sizeof(path), "%s/fifo.safetensors", dir);
    if (mkfifo(path, 0600) == 0) {
        tu_watchdog(5, "%s: svk_model_open on a FIFO", name);
        double t0 = tu_now();
        st = svk_model_open(ctx, path, 0, &m);
        double dt = tu_now() - t0;
        tu_watchdog_off();
        tu_check(&tally, st == SVK_ERROR_IO && !m && dt < 1.0 && strstr(svk_last_error(), "FIFO"),
                 "%s: a FIFO refused in %.3f s: %s", name, dt, svk_last_error());
        unlink(path);
    } else {
        tu_check(&tally, false, "%s: mkfifo %s", name, path);
    }

    snprintf(path, sizeof(path), "%s/garbage.safetensors", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs("garbage, not safetensors\n", f);
        fclose(f);
    }
    st = svk_model_open(ctx, path, 0, &m);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT && !m && strstr(svk_last_error(), path),
             "%s: a file that is not safetensors: %s", name, svk_last_error());
    unlink(path);

    st = svk_model_open(ctx, path, 1u << 5, &m);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && !m && strstr(svk_last_error(), "flags 0x20"),
             "%s: flags 0x20: %s", name, svk_last_error());
    st = svk_model_open(ctx, NULL, 0, &m);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && !m && strstr(svk_last_error(), "path is NULL"),
             "%s: path NULL: %s", name, svk_last_error());
    st = svk_model_open(ctx, path, 0, NULL);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "model is NULL"), "%s: model NULL: %s",
             name, svk_last_error());
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    round_trip(ctx, backend, dir, name);
    refusals(ctx, dir, name);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_model_open", &args);
    return tu_each_backend(&tally, "svk_model_open", run_backend);
}
