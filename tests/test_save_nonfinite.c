/*
 * A save never writes a state that holds NaN or infinity over a checkpoint.
 * On both backends: weights with one NaN (loaded with
 * SVK_LOAD_ALLOW_NONFINITE) and, separately, finite weights with one
 * infinite AdamW second moment, saved over a good checkpoint: the save fails
 * with SVK_ERROR_NONFINITE, its message names the tensor and the element,
 * the good file is unchanged byte for byte and no temporary is left beside
 * it. The same model saves without its optimiser state when only a moment
 * is bad, and svk_save_params.allow_nonfinite writes the state for
 * inspection.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "model/model_internal.h"
#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = TU_SMALL_T, V = TU_SMALL_V };

static tu_tally tally;

static bool same_file(const char *path, const unsigned char *want, size_t n)
{
    unsigned char *got = NULL;
    size_t size = 0;
    bool ok = tu_read_file(path, &got, &size) && size == n && !memcmp(got, want, n);
    free(got);
    return ok;
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void refused(const char *what, svk_status st, const char *tensor, const char *element, const char *good,
                    const unsigned char *bytes, size_t n, const char *dir, int files)
{
    const char *msg = svk_last_error();
    tu_check(&tally, st == SVK_ERROR_NONFINITE && strstr(msg, tensor) && strstr(msg, element),
             "%s: refused with SVK_ERROR_NONFINITE naming '%s' and %s (%s: %s)", what, tensor, element,
             svk_status_string(st), msg);
    tu_check(&tally, same_file(good, bytes, n), "%s: the good checkpoint is unchanged", what);
    tu_check(&tally, entries(dir) == files, "%s: nothing else in the directory (%d entries, want %d)", what,
             entries(dir), files);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char good[256], bad[256], what[128];
    snprintf(good, sizeof(good), "%s/good_%s.safetensors", dir, name);
    snprintf(bad, sizeof(bad), "%s/bad_%s.safetensors", dir, name);
    svk_model *m = tu_small_model(&tally, name, ctx, backend, 1, true);
    if (!m)
        return;
    int32_t tokens[B * T], targets[B * T];
    tu_fixed_batch(tokens, targets, B * T, V);
    float loss;
    svk_status st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    if (st == SVK_OK)
        st = svk_model_save(m, good, true);
    unsigned char *bytes = NULL;
    size_t n = 0;
    tu_check(&tally, st == SVK_OK && tu_read_file(good, &bytes, &n), "%s: a good checkpoint: %s", name,
             svk_last_error());
    const int files = entries(dir);

    /* NaN in a weight. */
    st = ckpt_poison(good, bad, "blocks.0.attn.proj.weight", 13, 14, CKPT_NAN_BITS) ? SVK_OK : SVK_ERROR_IO;
    if (st == SVK_OK)
        st = svk_model_load_ex(m, bad, SVK_LOAD_ALLOW_NONFINITE);
    unlink(bad);
    tu_check(&tally, st == SVK_OK, "%s: a NaN weight loads with SVK_LOAD_ALLOW_NONFINITE: %s", name,
             svk_last_error());
    snprintf(what, sizeof(what), "%s: a NaN weight, saved with its optimiser state", name);
    refused(what, svk_model_save(m, good, true), "'blocks.0.attn.proj.weight'", "element 13", good, bytes, n, dir,
            files);
    snprintf(what, sizeof(what), "%s: a NaN weight, saved alone", name);
    refused(what, svk_model_save(m, good, false), "'blocks.0.attn.proj.weight'", "element 13", good, bytes, n, dir,
            files);
    svk_save_params sp = svk_save_params_default();
    sp.allow_nonfinite = true;
    st = svk_model_save_ex(m, bad, &sp);
    tu_check(&tally, st == SVK_OK, "%s: allow_nonfinite writes it for inspection: %s", name, svk_last_error());
    st = svk_model_load(m, bad, false);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT, "%s: ... and a plain load refuses that file (%s)", name,
             svk_status_string(st));
    unlink(bad);

    /* Finite weights, an infinite second moment (written where the backend
     * keeps it: no load accepts one). */
    st = svk_model_load(m, good, true);
    const svk_plan_tensor *t = NULL;
    for (size_t i = 0; i < m->n_params; i++)
        if (!strcmp(m->info[i].name, "blocks.0.mlp.fc.bias"))
            t = &m->plan.tensors[svk_plan_param_tensor(&m->plan, i, SVK_SLAB_ADAM_V)];
    const float inf = INFINITY;
    if (st == SVK_OK && t)
        st = m->impl->write(m, SVK_SLAB_ADAM_V, t->offset + 7, 1, &inf);
    tu_check(&tally, st == SVK_OK && t, "%s: v of blocks.0.mlp.fc.bias[7] set to +inf: %s", name, svk_last_error());
    snprintf(what, sizeof(what), "%s: an infinite moment, saved with its optimiser state", name);
    refused(what, svk_model_save(m, good, true), "'optimizer.v.blocks.0.mlp.fc.bias'", "element 7", good, bytes, n,
            dir, files);
    st = svk_model_save(m, bad, false);
    tu_check(&tally, st == SVK_OK, "%s: the finite weights alone still save: %s", name, svk_last_error());
    unlink(bad);

    /* And a finite state saves over the good file as before. */
    st = svk_model_load(m, good, true);
    if (st == SVK_OK)
        st = svk_model_save(m, good, true);
    tu_check(&tally, st == SVK_OK && same_file(good, bytes, n), "%s: a finite state saves: %s", name,
             svk_last_error());
    free(bytes);
    svk_model_destroy(&m);
    unlink(good);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_save_nonfinite", &args);
    return tu_each_backend(&tally, "svk_save_nonfinite", run_backend);
}
