/*
 * A training step that goes non-finite changes nothing: on both backends a
 * step whose loss is NaN (the token embedding poisoned through a checkpoint
 * loaded with SVK_LOAD_ALLOW_NONFINITE) returns SVK_OK with the NaN loss, reports
 * `skipped` in svk_model_last_step, leaves the step count where it was, and
 * leaves the weights and AdamW moments bit for bit as they were; the model
 * then trains normally once finite weights are loaded back. The skip is
 * decided on the device (shaders/adamw.comp, FLAG_GUARD), so this also
 * covers the guard's binding in the recorded step. A skipped step between
 * finite ones, run back to back (double-buffered on the device, the update
 * count corrected there: FLAG_PREV_GUARD), leaves what it leaves when each
 * step is settled before the next.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = TU_SMALL_T, V = TU_SMALL_V };

static tu_tally tally;

/* A save with the optimiser state that writes NaN too: a plain save
 * refuses a non-finite state (test_save_nonfinite), and these compare
 * poisoned states byte for byte. */
static svk_status save_any(svk_model *m, const char *path)
{
    svk_save_params p = svk_save_params_default();
    p.optimizer = true;
    p.allow_nonfinite = true;
    return svk_model_save_ex(m, path, &p);
}

/* Every float of wte.weight becomes NaN, so the loss is NaN while every
 * other weight and moment stays finite (an update that was not skipped
 * would spread the NaN gradient to them). */
static bool poison_checkpoint(const char *from, const char *to)
{
    return ckpt_poison(from, to, "wte.weight", 0, UINT64_MAX, CKPT_NAN_BITS);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char good[256], bad[256], after[256];
    snprintf(good, sizeof(good), "%s/good_%s.safetensors", dir, name);
    snprintf(bad, sizeof(bad), "%s/nan_%s.safetensors", dir, name);
    snprintf(after, sizeof(after), "%s/after_%s.safetensors", dir, name);

    svk_model *m = tu_small_model(&tally, name, ctx, backend, 1, true);
    if (!m)
        return;
    int32_t tokens[B * T], targets[B * T];
    tu_fixed_batch(tokens, targets, B * T, V);

    /* One finite step first, so the moments are not all zero. */
    float loss = 0;
    svk_status st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
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
    st = save_any(m, after);
    tu_check(&tally, st == SVK_OK && tu_same_files(bad, after), "%s: the weights, moments and step after the skipped steps are unchanged",
             name);

    /* Moments: a save with optimizer state before and after one more
     * skipped step must match byte for byte. */
    char opt_a[256], opt_b[256];
    snprintf(opt_a, sizeof(opt_a), "%s/opt_a_%s.safetensors", dir, name);
    snprintf(opt_b, sizeof(opt_b), "%s/opt_b_%s.safetensors", dir, name);
    st = save_any(m, opt_a);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, NULL);
    if (st == SVK_OK)
        st = save_any(m, opt_b);
    tu_check(&tally, st == SVK_OK && tu_same_files(opt_a, opt_b), "%s: the AdamW moments are unchanged by a skipped step",
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

/* Row `row` of wte.weight [V, C] becomes NaN: with untied embeddings only a
 * batch holding that token goes non-finite (its gradient is 0 elsewhere). */
static bool poison_row(const char *from, const char *to, uint32_t row, uint32_t C)
{
    return ckpt_poison(from, to, "wte.weight", (uint64_t)row * C, (uint64_t)(row + 1) * C, CKPT_NAN_BITS);
}

/* Steps submitted while the previous one still runs (the Vulkan backend
 * double-buffers them) take their AdamW update count from the device when
 * the previous step skips itself. Four steps, the second non-finite, run
 * back to back without reading a loss must leave exactly what they leave
 * when each step's loss is read (so each is settled before the next goes
 * in): weights, moments and the step count 3, byte for byte. */
static void overlapped(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    enum { POISON = 5 };
    char start[256], paths[2][256];
    snprintf(start, sizeof(start), "%s/row_nan_%s.safetensors", dir, name);
    snprintf(paths[0], sizeof(paths[0]), "%s/back_to_back_%s.safetensors", dir, name);
    snprintf(paths[1], sizeof(paths[1]), "%s/one_by_one_%s.safetensors", dir, name);
    svk_model *m = tu_small_model(&tally, name, ctx, backend, 1, false);
    if (!m)
        return;
    svk_status st = svk_model_save(m, start, true);
    tu_check(&tally, st == SVK_OK && poison_row(start, start, POISON, TU_SMALL_C),
             "%s: row %d of wte poisoned with NaN", name, POISON);
    int32_t tokens[4][B * T], targets[B * T];
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < B * T; i++) {
            int tok = (i * 7 + 3 * s + 1) % V;
            tokens[s][i] = s == 1 ? POISON : (tok == POISON ? tok + 1 : tok);
        }
    for (int i = 0; i < B * T; i++)
        targets[i] = (i * 5 + 1) % V;
    for (int pass = 0; pass < 2 && st == SVK_OK; pass++) {
        st = svk_model_load_ex(m, start, SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE);
        float losses[4] = {0};
        int nan_at = -1;
        for (int s = 0; s < 4 && st == SVK_OK; s++) {
            st = svk_model_train_step(m, tokens[s], targets, B, T, 1e-2f, pass ? &losses[s] : NULL);
            if (pass && isnan(losses[s]))
                nan_at = nan_at < 0 ? s : nan_at;
        }
        svk_step_info info = {0};
        if (st == SVK_OK)
            st = svk_model_last_step(m, &info);
        tu_check(&tally, st == SVK_OK && info.step == 3 && !info.skipped && (!pass || nan_at == 1),
                 "%s, %s: 4 steps, the second skipped, count %llu (want 3)%s: %s", name,
                 pass ? "each loss read" : "back to back", (unsigned long long)info.step,
                 pass ? (nan_at == 1 ? ", NaN loss at step 2 only" : ", NaN loss not where expected") : "",
                 svk_last_error());
        if (st == SVK_OK)
            st = save_any(m, paths[pass]);
    }
    tu_check(&tally, st == SVK_OK && tu_same_files(paths[0], paths[1]),
             "%s: back to back and one by one leave the same weights, moments and step", name);
    svk_model_destroy(&m);
    unlink(start), unlink(paths[0]), unlink(paths[1]);
}

/* Each backend's cases, in this order. */
static void both_cases(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    run_backend(ctx, backend, dir);
    overlapped(ctx, backend, dir);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_nonfinite_step", &args);
    return tu_each_backend(&tally, "svk_nonfinite", both_cases);
}
