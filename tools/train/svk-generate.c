/*
 * svk-generate: samples text from an svk checkpoint, byte-level
 * (vocabulary >= 256): the prompt's bytes are the tokens.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svk/model.h"
#include "svk/svk.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: svk-generate CHECKPOINT [--prompt TEXT] [--tokens N] [--temperature X] [--top-k K]\n"
               "                    [--seed S] [--stop-newline] [--device cpu|vulkan|vulkan:N]\n"
               "Continues TEXT (default \"\\n\") by N tokens (default 64). Temperature 0 (default) is greedy.\n");
}

int main(int argc, char **argv)
{
    const char *ckpt = NULL, *prompt = "\n", *device = "vulkan";
    svk_sample_params sp = svk_sample_params_default();
    unsigned long n = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--stop-newline")) {
            sp.stop_token = '\n';
            continue;
        } else if (a[0] != '-') {
            ckpt = a;
            continue;
        } else if (!v) {
            fprintf(stderr, "svk-generate: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--prompt")) {
            prompt = v;
        } else if (!strcmp(a, "--tokens")) {
            n = strtoul(v, &end, 10);
        } else if (!strcmp(a, "--temperature")) {
            sp.temperature = strtof(v, &end);
        } else if (!strcmp(a, "--top-k")) {
            sp.top_k = (uint32_t)strtoul(v, &end, 10);
        } else if (!strcmp(a, "--seed")) {
            sp.seed = strtoull(v, &end, 10);
        } else if (!strcmp(a, "--device")) {
            device = v;
        } else {
            fprintf(stderr, "svk-generate: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (end && *end) {
            fprintf(stderr, "svk-generate: bad value '%s' for %s\n", v, a);
            return 2;
        }
        i++;
    }
    if (!ckpt) {
        usage(stderr);
        return 2;
    }
    if (!*prompt) {
        fprintf(stderr, "svk-generate: the prompt must not be empty\n");
        return 2;
    }
    svk_model_params mp = svk_model_params_default();
    if (svk_checkpoint_config(ckpt, &mp.config) != SVK_OK) {
        fprintf(stderr, "svk-generate: %s\n", svk_last_error());
        return 1;
    }
    if (mp.config.vocab < 256) {
        fprintf(stderr, "svk-generate: %s has vocab %u; byte-level text needs 256\n", ckpt, mp.config.vocab);
        return 1;
    }
    svk_ctx *ctx = NULL;
    if (!strcmp(device, "cpu")) {
        mp.backend = SVK_BACKEND_CPU;
    } else {
        svk_ctx_params cp = svk_ctx_params_default();
        if (!strncmp(device, "vulkan:", 7))
            cp.device_index = atoi(device + 7);
        else if (strcmp(device, "vulkan")) {
            fprintf(stderr, "svk-generate: --device takes cpu, vulkan or vulkan:N\n");
            return 2;
        }
        if (svk_ctx_create(&cp, &ctx) != SVK_OK) {
            fprintf(stderr, "svk-generate: %s (try --device cpu)\n", svk_last_error());
            return 1;
        }
        mp.ctx = ctx;
    }
    svk_model *m = NULL;
    int rc = 1;
    size_t plen = strlen(prompt);
    int32_t *tok = malloc(plen * sizeof(*tok)), *out = malloc((n ? n : 1) * sizeof(*out));
    uint32_t got = 0;
    if (!tok || !out)
        goto done;
    for (size_t i = 0; i < plen; i++)
        tok[i] = (unsigned char)prompt[i];
    if (svk_model_create(&mp, &m) != SVK_OK || svk_model_load(m, ckpt, false) != SVK_OK ||
        svk_model_generate(m, tok, (uint32_t)plen, (uint32_t)n, &sp, out, &got) != SVK_OK) {
        fprintf(stderr, "svk-generate: %s\n", svk_last_error());
        goto done;
    }
    fputs(prompt, stdout);
    for (uint32_t i = 0; i < got; i++)
        putchar(out[i]);
    if (got == 0 || out[got - 1] != '\n')
        putchar('\n');
    rc = 0;
done:
    free(tok);
    free(out);
    svk_model_destroy(&m);
    svk_ctx_destroy(&ctx);
    return rc;
}
