/*
 * A training step that goes non-finite changes nothing: on both backends a
 * step whose loss is NaN (the token embedding poisoned through a checkpoint
 * loaded with SVK_LOAD_ALLOW_NONFINITE) returns SVK_OK with the NaN loss, reports
 * `skipped` in svk_model_last_step, leaves the step count where it was, and
 * leaves the weights and AdamW moments bit for bit as they were; the model
 * then trains normally once finite weights are loaded back. The skip is
 * decided on the device (shaders/adamw.comp, FLAG_GUARD), so this also
 * covers the guard's binding in the recorded step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/safetensors.h"
#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = 8 };

static tu_tally tally;

static bool write_file(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    return f ? (fclose(f) == 0 && ok) : false;
}

static bool same_files(const char *a, const char *b)
{
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    bool ok = tu_read_file(a, &x, &nx) && tu_read_file(b, &y, &ny) && nx == ny && !memcmp(x, y, nx);
    free(x);
    free(y);
    return ok;
}

/* Every float of the token embedding wte.weight becomes NaN, so the loss
 * is NaN while every other weight and moment stays finite (an update that
 * was not skipped would spread the NaN gradient to them). */
static bool poison_checkpoint(const char *from, const char *to)
{
    svk_st_file f;
    if (svk_st_read(NULL, from, &f) != SVK_OK)
        return false;
    bool found = false;
    for (size_t i = 0; i < f.n_tensors; i++) {
        svk_st_tensor *t = &f.tensors[i];
        if (strcmp(t->name, "wte.weight"))
            continue;
        const uint32_t nan_bits = 0x7fc00000u;
        unsigned char *at = (unsigned char *)f.blob + ((const unsigned char *)t->data - (const unsigned char *)f.blob);
        for (uint64_t k = 0; k < t->elems; k++)
            memcpy(at + 4 * k, &nan_bits, 4);
        found = true;
    }
    bool ok = found && write_file(to, f.blob, f.blob_size);
    svk_st_free(&f);
    return ok;
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char good[256], bad[256], after[256];
    snprintf(good, sizeof(good), "%s/good_%s.safetensors", dir, name);
    snprintf(bad, sizeof(bad), "%s/nan_%s.safetensors", dir, name);
    snprintf(after, sizeof(after), "%s/after_%s.safetensors", dir, name);

    svk_model_params p = svk_model_params_default();
    p.config.vocab = 16, p.config.ctx = T, p.config.width = 8, p.config.layers = 1, p.config.heads = 2;
    p.backend = backend;
    p.ctx = ctx;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "%s: create: %s", name, svk_last_error());
    if (st != SVK_OK)
        return;
    int32_t tokens[B * T], targets[B * T];
    for (int i = 0; i < B * T; i++)
        tokens[i] = (i * 7 + 3) % 16, targets[i] = (i * 5 + 1) % 16;

    /* One finite step first, so the moments are not all zero. */
    float loss = 0;
    st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    tu_check(&tally, st == SVK_OK && isfinite(loss) && svk_model_step(m) == 1, "%s: a finite step counts (loss %g)",
             name, (double)loss);
    st = svk_model_save(m, good, true);
    tu_check(&tally, st == SVK_OK && poison_checkpoint(good, bad), "%s: checkpoint poisoned with NaN", name);
    st = svk_model_load_ex(m, bad, SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE);
    tu_check(&tally, st == SVK_OK, "%s: NaN weights load with SVK_LOAD_ALLOW_NONFINITE: %s", name, svk_last_error());

    /* Two steps in a row: the first unread (its outcome settles when the
     * second begins), the second with its loss read. */
    st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    tu_check(&tally, st == SVK_OK, "%s: a step without its loss read: %s", name, svk_last_error());
    st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    tu_check(&tally, st == SVK_OK && isnan(loss), "%s: the NaN step returns OK with loss %g", name, (double)loss);
    svk_step_info info;
    st = svk_model_last_step(m, &info);
    tu_check(&tally, st == SVK_OK && info.skipped && info.step == 1,
             "%s: svk_model_last_step says skipped=%d at step %llu (want 1, 1)", name, (int)info.skipped,
             (unsigned long long)info.step);
    tu_check(&tally, svk_model_step(m) == 1, "%s: the step count stays 1 (is %llu)", name,
             (unsigned long long)svk_model_step(m));
    st = svk_model_save(m, after, true);
    tu_check(&tally, st == SVK_OK && same_files(bad, after), "%s: the weights, moments and step after the skipped steps are unchanged",
             name);

    /* Moments: a save with optimizer state before and after one more
     * skipped step must match byte for byte. */
    char opt_a[256], opt_b[256];
    snprintf(opt_a, sizeof(opt_a), "%s/opt_a_%s.safetensors", dir, name);
    snprintf(opt_b, sizeof(opt_b), "%s/opt_b_%s.safetensors", dir, name);
    st = svk_model_save(m, opt_a, true);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    if (st == SVK_OK)
        st = svk_model_save(m, opt_b, true);
    tu_check(&tally, st == SVK_OK && same_files(opt_a, opt_b), "%s: the AdamW moments are unchanged by a skipped step",
             name);

    st = svk_model_load(m, good, true);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    if (st == SVK_OK)
        st = svk_model_last_step(m, &info);
    tu_check(&tally, st == SVK_OK && isfinite(loss) && !info.skipped && info.step == 2,
             "%s: with finite weights back, training goes on (loss %g, skipped %d, step %llu)", name, (double)loss,
             (int)info.skipped, (unsigned long long)info.step);
    svk_model_destroy(&m);
    unlink(good), unlink(bad), unlink(after), unlink(opt_a), unlink(opt_b);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_nonfinite_step", &args);
    char dir[] = "/tmp/svk_nonfinite_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    run_backend(NULL, SVK_BACKEND_CPU, dir);
    svk_ctx *ctx = tu_ctx_create();
    tu_check(&tally, ctx != NULL, "a Vulkan context");
    if (ctx)
        run_backend(ctx, SVK_BACKEND_VULKAN, dir);
    tu_ctx_finish(&ctx, &tally);
    rmdir(dir);
    return tu_finish(&tally);
}
