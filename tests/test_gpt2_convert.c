/*
 * svk/convert.h from C, with no PyTorch (tests/test_gpt2_convert.py holds
 * the conversion to GPT-2 as published): a pre-norm checkpoint exported and
 * imported again opens as a model whose logits are the original's to the
 * bit; an existing output is kept unless overwrite is set; models GPT-2
 * cannot hold are refused with SVK_ERROR_UNSUPPORTED naming the key, and
 * bad arguments with SVK_ERROR_INVALID_ARG; nothing is written on refusal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "svk/convert.h"
#include "test_util.h"

static tu_tally tally;

enum { B = 2, T = 8 };

/* The logits of a CPU model opened from path, on a fixed batch. */
static bool logits_of(const char *path, float *out)
{
    svk_model *m = NULL;
    int32_t tokens[B * T], targets[B * T];
    tu_fixed_batch(tokens, targets, B * T, 16);
    bool ok = svk_model_open(NULL, path, 0, &m) == SVK_OK &&
              svk_model_forward_logits(m, tokens, B, T, out) == SVK_OK;
    if (!ok)
        printf("  %s: %s\n", path, svk_last_error());
    svk_model_destroy(&m);
    return ok;
}

static void refused_model(const char *dir, const char *what, const char *key, const char *value)
{
    svk_model_config c = ckpt_tiny_config();
    c.placement = SVK_PLACEMENT_PRE;
    svk_status st = svk_model_config_set(&c, key, value);
    svk_model *m = st == SVK_OK ? ckpt_model(&c, 1, 0) : NULL;
    char path[256], out[256], needle[64];
    snprintf(path, sizeof(path), "%s/%s.safetensors", dir, what);
    snprintf(out, sizeof(out), "%s/%s_gpt2.safetensors", dir, what);
    snprintf(needle, sizeof(needle), "%s=%s", key, value);
    svk_gpt2_params p = svk_gpt2_params_default();
    st = m ? svk_model_save(m, path, false) : SVK_ERROR_INTERNAL;
    if (st == SVK_OK)
        st = svk_gpt2_export(path, out, &p);
    tu_check(&tally, st == SVK_ERROR_UNSUPPORTED && strstr(svk_last_error(), needle) && access(out, F_OK) != 0,
             "%s is refused, naming %s, nothing written: %s", what, needle, svk_last_error());
    svk_model_destroy(&m);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_gpt2_convert", &args);
    char dir[] = "/tmp/svk_gpt2_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char ckpt[256], gpt2[256], back[256];
    snprintf(ckpt, sizeof(ckpt), "%s/pre.safetensors", dir);
    snprintf(gpt2, sizeof(gpt2), "%s/gpt2.safetensors", dir);
    snprintf(back, sizeof(back), "%s/back.safetensors", dir);

    svk_model_config c = ckpt_tiny_config();
    c.placement = SVK_PLACEMENT_PRE;
    svk_model *m = ckpt_model(&c, args.seed, 2);
    svk_status st = m ? svk_model_save(m, ckpt, true) : SVK_ERROR_INTERNAL;
    svk_model_destroy(&m);
    tu_check(&tally, st == SVK_OK, "a trained pre-norm checkpoint, with its optimiser state: %s", svk_last_error());
    if (st != SVK_OK)
        return tu_finish(&tally);

    svk_gpt2_params p = svk_gpt2_params_default();
    st = svk_gpt2_export(ckpt, gpt2, NULL);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG, "params NULL: %s", svk_last_error());
    st = svk_gpt2_import("", back, &p);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG, "an empty path: %s", svk_last_error());
    p.reserved[2] = 1;
    st = svk_gpt2_export(ckpt, gpt2, &p);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "reserved"), "reserved set: %s",
             svk_last_error());
    p = svk_gpt2_params_default();
    tu_check(&tally, access(gpt2, F_OK) != 0, "nothing written by the refusals");

    st = svk_gpt2_export(ckpt, gpt2, &p);
    tu_check(&tally, st == SVK_OK, "export: %s", svk_last_error());
    st = svk_gpt2_import(gpt2, back, &p);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "give the number of heads"),
             "width 8 with no heads given: %s", svk_last_error());
    p.heads = 3;
    st = svk_gpt2_import(gpt2, back, &p);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "heads 3 does not divide the width 8"),
             "heads 3: %s", svk_last_error());
    p.heads = c.heads;
    st = svk_gpt2_import(gpt2, back, &p);
    tu_check(&tally, st == SVK_OK, "import with heads %u: %s", c.heads, svk_last_error());
    svk_model_config got;
    st = svk_checkpoint_config(back, &got);
    tu_check(&tally, st == SVK_OK && svk_model_config_equal(&got, &c), "the configuration comes back: %s",
             svk_last_error());
    float a[B * T * 16], b[B * T * 16];
    tu_check(&tally, logits_of(ckpt, a) && logits_of(back, b) && !memcmp(a, b, sizeof(a)),
             "out and back: the model's logits are the original's, bit for bit");

    /* The output is kept unless asked. */
    unsigned char *before = NULL, *after = NULL;
    size_t n_before = 0, n_after = 0;
    st = svk_gpt2_import(gpt2, ckpt, &p);
    char why[512];
    snprintf(why, sizeof(why), "%s", svk_last_error());
    bool kept = tu_read_file(ckpt, &before, &n_before);
    tu_check(&tally, st == SVK_ERROR_IO && strstr(why, "exists") && kept && logits_of(ckpt, b) &&
                         !memcmp(a, b, sizeof(a)),
             "an existing output is kept: %s", why);
    p.overwrite = true;
    st = svk_gpt2_export(back, gpt2, &p);
    tu_check(&tally, st == SVK_OK, "overwrite replaces it: %s", svk_last_error());
    tu_check(&tally, tu_read_file(gpt2, &after, &n_after) && n_after > 0, "the replacement reads");
    free(before);
    free(after);

    refused_model(dir, "siamese", "placement", "siamese");
    refused_model(dir, "post", "placement", "post");
    refused_model(dir, "rmsnorm", "norm", "rmsnorm");
    refused_model(dir, "swiglu", "mlp", "swiglu");
    refused_model(dir, "rope", "pos", "rope");
    refused_model(dir, "no_bias", "bias", "false");
    refused_model(dir, "untied", "tie_embeddings", "false");
    /* Not a checkpoint at all. */
    st = svk_gpt2_export(gpt2, back, &p);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT, "a GPT-2 file given as a checkpoint: %s", svk_last_error());
    st = svk_gpt2_import(ckpt, back, &p);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "not a GPT-2 file"),
             "a checkpoint given as a GPT-2 file: %s", svk_last_error());

    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
    return tu_finish(&tally);
}
