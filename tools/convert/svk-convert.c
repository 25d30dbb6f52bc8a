/*
 * svk-convert: GPT-2's weights in and out (svk/convert.h). A Hugging Face
 * GPT-2 model.safetensors becomes a libsvk checkpoint of the pre-norm
 * model, which svk-train --init-from fine-tunes and svk-generate runs; a
 * libsvk checkpoint of that model becomes a GPT-2 file again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_parse.h"
#include "svk/svk.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: svk-convert --from-gpt2 GPT2.safetensors OUT.safetensors [--heads N] [--force]\n"
"       svk-convert --to-gpt2 CKPT.safetensors OUT.safetensors [--force]\n"
"Converts between Hugging Face's GPT-2 files and libsvk checkpoints. GPT-2 is libsvk's pre-norm\n"
"model (placement=pre, LayerNorm, tanh GELU, learned positions, biases, tied embeddings).\n"
"  --from-gpt2  a GPT-2 model.safetensors (F32, F16 or BF16; names with or without \"transformer.\")\n"
"               to a libsvk checkpoint, weights and configuration only: svk-train --init-from and\n"
"               svk-generate take it. The layers, width, vocabulary, context and MLP width come\n"
"               from the tensors.\n"
"  --to-gpt2    a libsvk checkpoint of that model (--save's or --export's) to a GPT-2 file: F32,\n"
"               the names of Hugging Face's published GPT-2 (no lm_head: it is wte). Other models\n"
"               (siamese or post placement, RMSNorm, SwiGLU, RoPE, ...) are refused, saying why;\n"
"               python/svk_torch takes them to PyTorch.\n"
"  --heads N    the attention heads (GPT-2's file does not hold them); default width / 64, as\n"
"               in every published GPT-2 (768 wide: 12); it must divide the width\n"
"  --force      replace OUT if it exists (by default it is kept and nothing is written)\n"
SVK_EXIT_HELP "\n");
}

/* What the written or read libsvk checkpoint holds, in GPT2Config's
 * terms for an export (a config.json for Hugging Face needs them). */
static void report(const char *svk_path, const char *out, bool to_gpt2)
{
    svk_model_config c;
    if (svk_checkpoint_config(svk_path, &c) != SVK_OK) {
        printf("%s: written\n", out);
        return;
    }
    const uint32_t F = svk_model_config_hidden(&c);
    if (to_gpt2) {
        printf("%s: GPT-2, F32: n_layer=%u n_embd=%u n_head=%u vocab_size=%u n_positions=%u", out, c.layers,
               c.width, c.heads, c.vocab, c.ctx);
        if (F != 4 * c.width)
            printf(" n_inner=%u", F);
        printf("\n");
    } else {
        printf("%s: libsvk checkpoint, pre-norm: %u layers x %u wide, %u heads, vocab %u, ctx %u, MLP %u\n", out,
               c.layers, c.width, c.heads, c.vocab, c.ctx, F);
    }
}

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int n_paths = 0, direction = 0; /* 1 from GPT-2, 2 to GPT-2 */
    svk_gpt2_params p = svk_gpt2_params_default();
    bool heads_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return SVK_EXIT_OK;
        } else if (!strcmp(a, "--from-gpt2") || !strcmp(a, "--to-gpt2")) {
            const int d = a[3] == 'r' ? 1 : 2;
            if (direction && direction != d) {
                fprintf(stderr, "svk-convert: --from-gpt2 and --to-gpt2 exclude each other\n");
                return SVK_EXIT_USAGE;
            }
            direction = d;
        } else if (!strcmp(a, "--force")) {
            p.overwrite = true;
        } else if (!strcmp(a, "--heads")) {
            svk_cli_error err;
            if (i + 1 >= argc) {
                fprintf(stderr, "svk-convert: --heads needs a value (try --help)\n");
                return SVK_EXIT_USAGE;
            }
            if (!svk_cli_u32(a, argv[++i], 1, 65536, &p.heads, &err)) {
                fprintf(stderr, "svk-convert: %s\n", err.text);
                return SVK_EXIT_USAGE;
            }
            heads_given = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "svk-convert: unknown option '%s' (try --help)\n", a);
            return SVK_EXIT_USAGE;
        } else if (n_paths == 2) {
            fprintf(stderr, "svk-convert: '%s': two paths only, the input and the output (try --help)\n", a);
            return SVK_EXIT_USAGE;
        } else {
            paths[n_paths++] = a;
        }
    }
    if (!direction || n_paths != 2) {
        fprintf(stderr, "svk-convert: %s\n", !direction ? "give --from-gpt2 or --to-gpt2"
                                                        : "give the input and the output path");
        usage(stderr);
        return SVK_EXIT_USAGE;
    }
    if (direction == 2 && heads_given) {
        fprintf(stderr, "svk-convert: --heads is for --from-gpt2 (the checkpoint holds its heads)\n");
        return SVK_EXIT_USAGE;
    }
    const svk_status st =
        direction == 1 ? svk_gpt2_import(paths[0], paths[1], &p) : svk_gpt2_export(paths[0], paths[1], &p);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-convert: %s\n", svk_last_error());
        return SVK_EXIT_FAILURE;
    }
    report(direction == 1 ? paths[1] : paths[0], paths[1], direction == 2);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "svk-convert: writing to stdout: %s\n", strerror(errno));
        return SVK_EXIT_FAILURE;
    }
    return SVK_EXIT_OK;
}
