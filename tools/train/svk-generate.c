/*
 * svk-generate: samples text from an svk checkpoint, byte-level
 * (vocabulary >= 256: the prompt's bytes are the tokens) or, with
 * --tokenizer, through GPT-2's tokenizer (svk/tokenizer.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_parse.h"
#include "svk/model.h"
#include "svk/svk.h"

/* Each new token is one token's forward over the key-value cache, or past
 * ctx a forward over the window (svk_model_generate_ex), so the count is
 * bounded by time, not by the model; 2^20 is hours on lavapipe, and a -1
 * or a 2^32 typed by mistake is refused rather than run. */
#define TOKENS_MAX 1048576

static void usage(FILE *f)
{
    fprintf(f,
"usage: svk-generate CHECKPOINT [--prompt TEXT] [--tokens N] [--temperature X] [--top-k K] [--top-p P]\n"
"                    [--seed S] [--stop-newline] [--stop STR]... [--no-cache] [--device cpu|vulkan|vulkan:N]\n"
"                    [--tokenizer DIR]\n"
"Continues TEXT (default \"\\n\", never empty) by up to N tokens.\n"
"  --tokens N         tokens to generate, 1..%d (default 64)\n"
"  --temperature X    finite, >= 0 (default 0: greedy)\n"
"  --top-k K          sample among the K likeliest tokens, 0..vocabulary (default 0: all)\n"
"  --top-p P          then among the fewest likeliest whose probabilities sum to P, in (0, 1] (default 1: all)\n"
"  --seed S           sampling seed, 0..2^64-1 (default 1)\n"
"  --stop-newline     stop after the first newline generated\n"
"  --stop STR         stop once the text generated ends with STR (1..%u bytes, kept in the output);\n"
"                     repeatable, up to %u\n"
"  --no-cache         run the whole window for every token instead of the key-value cache (slower;\n"
"                     the same greedy text)\n"
"  --device D         cpu, vulkan (default: SVK_DEVICE, else the best device) or vulkan:N\n"
"  --tokenizer DIR    GPT-2's tokenizer (DIR/vocab.json, DIR/merges.txt) instead of bytes: the prompt is\n"
"                     encoded with it and the output decoded; the model's vocabulary must hold its tokens.\n"
"                     The N tokens are all generated, and the text is cut after the token that completes\n"
"                     a newline (--stop-newline) or a --stop string\n"
SVK_EXIT_HELP "\n",
            TOKENS_MAX, SVK_GENERATE_STOP_MAX, SVK_GENERATE_STOPS_MAX);
}

/* With a tokenizer a token is no byte, so the library's stops (which
 * compare tokens with bytes) are not used: text[0 .. *len), the decoded
 * bytes of out[0 .. n), is cut after the first token whose bytes complete
 * a newline (newline) or a stop string, as the byte-level stops end
 * generation after the byte that completes one. */
static void cut_at_stop(const svk_tokenizer *tok, const int32_t *out, uint32_t n, bool newline,
                            const char *const *stops, uint32_t n_stop, const char *text, size_t *len)
{
    size_t start = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t k = 0;
        if (svk_tokenizer_decode(tok, &out[i], 1, NULL, 0, &k) != SVK_OK)
            break; /* decoded whole before: cannot fail */
        const size_t end = start + k;
        bool hit = newline && memchr(text + start, '\n', k) != NULL;
        for (uint32_t s = 0; s < n_stop && !hit; s++) {
            const size_t sl = strlen(stops[s]);
            for (size_t e = start + 1; e <= end && !hit; e++)
                hit = e >= sl && !memcmp(text + e - sl, stops[s], sl);
        }
        if (hit) {
            *len = end;
            return;
        }
        start = end;
    }
}

int main(int argc, char **argv)
{
    const char *ckpt = NULL, *prompt = "\n", *device_text = "vulkan", *tokenizer_dir = NULL;
    svk_cli_device_choice device = {.cpu = false, .index = -1};
    svk_generate_params sp = svk_generate_params_default();
    const char *stops[SVK_GENERATE_STOPS_MAX];
    uint32_t n = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        svk_cli_error err;
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return SVK_EXIT_OK;
        } else if (!strcmp(a, "--stop-newline")) {
            sp.stop_token = '\n';
            continue;
        } else if (!strcmp(a, "--no-cache")) {
            sp.no_cache = true;
            continue;
        } else if (a[0] != '-') {
            if (ckpt) {
                fprintf(stderr, "svk-generate: one checkpoint only, not '%s' and '%s' (try --help)\n", ckpt, a);
                return SVK_EXIT_USAGE;
            }
            ckpt = a;
            continue;
        } else if (strcmp(a, "--prompt") && strcmp(a, "--tokens") && strcmp(a, "--temperature") &&
                   strcmp(a, "--top-k") && strcmp(a, "--seed") && strcmp(a, "--device") && strcmp(a, "--top-p") &&
                   strcmp(a, "--stop") && strcmp(a, "--tokenizer")) {
            fprintf(stderr, "svk-generate: unknown option '%s' (try --help)\n", a);
            return SVK_EXIT_USAGE;
        } else if (!v) {
            fprintf(stderr, "svk-generate: %s needs a value (try --help)\n", a);
            return SVK_EXIT_USAGE;
        } else if (!strcmp(a, "--prompt")) {
            prompt = v;
        } else if (!strcmp(a, "--tokenizer")) {
            tokenizer_dir = v;
        } else if (!strcmp(a, "--tokens")) {
            ok = svk_cli_u32(a, v, 1, TOKENS_MAX, &n, &err);
        } else if (!strcmp(a, "--temperature")) {
            /* svk_model_generate's own rule; a huge one is merely uniform. */
            ok = svk_cli_f32(a, v, 0, INFINITY, &sp.temperature, &err);
        } else if (!strcmp(a, "--top-k")) {
            /* Checked against the vocabulary once the checkpoint says it. */
            ok = svk_cli_u32(a, v, 0, UINT32_MAX, &sp.top_k, &err);
        } else if (!strcmp(a, "--top-p")) {
            ok = svk_cli_f32(a, v, 0, 1, &sp.top_p, &err) && sp.top_p > 0;
            if (!ok)
                snprintf(err.text, sizeof(err.text), "--top-p '%s': not a number in (0, 1]", v);
        } else if (!strcmp(a, "--stop")) {
            ok = *v && strlen(v) <= SVK_GENERATE_STOP_MAX && sp.n_stop < SVK_GENERATE_STOPS_MAX;
            if (ok)
                stops[sp.n_stop++] = v;
            else
                snprintf(err.text, sizeof(err.text), "--stop '%.64s': %s (at most %u; 1..%u bytes each)", v,
                         sp.n_stop == SVK_GENERATE_STOPS_MAX ? "one stop string too many"
                                                             : "not a stop string",
                         SVK_GENERATE_STOPS_MAX, SVK_GENERATE_STOP_MAX);
        } else if (!strcmp(a, "--seed")) {
            ok = svk_cli_u64(a, v, 0, UINT64_MAX, &sp.seed, &err);
        } else {
            ok = svk_cli_device(a, v, &device, &err);
            device_text = v;
        }
        if (!ok) {
            fprintf(stderr, "svk-generate: %s (try --help)\n", err.text);
            return SVK_EXIT_USAGE;
        }
        i++;
    }
    sp.stop = stops;
    if (!ckpt) {
        fprintf(stderr, "svk-generate: no CHECKPOINT given\n");
        usage(stderr);
        return SVK_EXIT_USAGE;
    }
    if (!*prompt) {
        fprintf(stderr, "svk-generate: --prompt must not be empty (generation continues a text)\n");
        return SVK_EXIT_USAGE;
    }
    /* The checkpoint's header first (cheap: no tensors), so that a model
     * this tool cannot use, or a --top-k beyond it, is refused before a
     * device is opened. */
    svk_model_config config;
    if (svk_checkpoint_config(ckpt, &config) != SVK_OK) {
        fprintf(stderr, "svk-generate: %s\n", svk_last_error());
        return SVK_EXIT_FAILURE;
    }
    svk_tokenizer *tokenizer = NULL;
    if (tokenizer_dir) {
        uint32_t size = 0;
        if (svk_tokenizer_open_dir(tokenizer_dir, &tokenizer) != SVK_OK ||
            svk_tokenizer_vocab_size(tokenizer, &size) != SVK_OK) {
            fprintf(stderr, "svk-generate: --tokenizer %s: %s\n", tokenizer_dir, svk_last_error());
            return SVK_EXIT_FAILURE;
        }
        if (config.vocab < size) {
            fprintf(stderr, "svk-generate: %s has vocab %u, fewer than the %u tokens of --tokenizer %s\n", ckpt,
                    config.vocab, size, tokenizer_dir);
            svk_tokenizer_destroy(&tokenizer);
            return SVK_EXIT_FAILURE;
        }
    } else if (config.vocab < 256) {
        fprintf(stderr, "svk-generate: %s has vocab %u; byte-level text needs 256\n", ckpt, config.vocab);
        return SVK_EXIT_FAILURE;
    }
    /* A k past the vocabulary would be taken as all of it: say so instead. */
    if (sp.top_k > config.vocab) {
        fprintf(stderr, "svk-generate: --top-k %u: more than the %u tokens of %s's vocabulary (0 = all of them)\n",
                sp.top_k, config.vocab, ckpt);
        svk_tokenizer_destroy(&tokenizer);
        return SVK_EXIT_USAGE;
    }
    svk_ctx *ctx = NULL;
    if (!device.cpu) {
        svk_ctx_params cp = svk_ctx_params_default();
        cp.device_index = device.index;
        /* svk_ctx_create names an index past the devices, and their count. */
        if (svk_ctx_create(&cp, &ctx) != SVK_OK) {
            fprintf(stderr, "svk-generate: --device %s: %s (try --device cpu)\n", device_text, svk_last_error());
            svk_tokenizer_destroy(&tokenizer);
            return SVK_EXIT_FAILURE;
        }
    }
    svk_model *m = NULL;
    int rc = SVK_EXIT_FAILURE;
    size_t plen = strlen(prompt), n_prompt = plen, text_len = 0;
    /* A prompt has no more tokens than bytes. */
    int32_t *tok = malloc(plen * sizeof(*tok)), *out = malloc(n * sizeof(*out));
    char *text = NULL;
    uint32_t got = 0;
    if (!tok || !out) {
        fprintf(stderr, "svk-generate: out of host memory\n");
        goto done;
    }
    if (tokenizer) {
        if (svk_tokenizer_encode(tokenizer, prompt, plen, tok, plen, &n_prompt) != SVK_OK) {
            fprintf(stderr, "svk-generate: --prompt: %s\n", svk_last_error());
            goto done;
        }
    } else {
        for (size_t i = 0; i < plen; i++)
            tok[i] = (unsigned char)prompt[i];
    }
    svk_generate_params gp = sp;
    if (tokenizer) { /* cut_at_stop's, after generation */
        gp.stop_token = -1;
        gp.n_stop = 0;
    }
    /* The model the file holds, on the device (ctx) or the CPU (NULL). */
    if (svk_model_open(ctx, ckpt, 0, &m) != SVK_OK ||
        svk_model_generate_ex(m, tok, (uint32_t)n_prompt, n, &gp, out, &got) != SVK_OK) {
        fprintf(stderr, "svk-generate: %s\n", svk_last_error());
        goto done;
    }
    if (tokenizer) {
        if (svk_tokenizer_decode(tokenizer, out, got, NULL, 0, &text_len) != SVK_OK ||
            !(text = malloc(text_len + 1)) ||
            svk_tokenizer_decode(tokenizer, out, got, text, text_len, &text_len) != SVK_OK) {
            fprintf(stderr, "svk-generate: decoding the tokens generated: %s\n",
                    text || text_len == 0 ? svk_last_error() : "out of host memory");
            goto done;
        }
        cut_at_stop(tokenizer, out, got, sp.stop_token >= 0, sp.stop, sp.n_stop, text, &text_len);
    }
    fputs(prompt, stdout);
    if (tokenizer) {
        fwrite(text, 1, text_len, stdout);
        if (text_len == 0 || text[text_len - 1] != '\n')
            putchar('\n');
    } else {
        for (uint32_t i = 0; i < got; i++)
            putchar(out[i]);
        if (got == 0 || out[got - 1] != '\n')
            putchar('\n');
    }
    /* The text is the result: a write that failed (a full disk, a closed
     * pipe) is a failed run, not a silent exit 0. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "svk-generate: writing the text: %s\n", strerror(errno));
        goto done;
    }
    rc = SVK_EXIT_OK;
done:
    free(tok);
    free(out);
    free(text);
    svk_tokenizer_destroy(&tokenizer);
    svk_model_destroy(&m);
    svk_ctx_destroy(&ctx);
    return rc;
}
