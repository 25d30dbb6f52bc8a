/*
 * Generation with the key-value cache (svk_model_generate_ex,
 * lib/model/plan_decode.c), on both backends: greedy output equals the
 * uncached path's (no_cache, a forward over the window per token) for each
 * norm placement, learned positions and RoPE, RMSNorm and SwiGLU, with
 * prompts that end inside the window, fill it, and pass it so that the
 * window slides; top-p (a tiny one is greedy, a seed gives the same text
 * twice); stop strings and the stop token. Models are briefly trained on a
 * fixed pattern so their logits are far from ties. Since such a model's
 * next token hardly depends on attention, each case also compares the
 * decode's logits, token by token after a prefill, with the window
 * forward's rows, on an untrained model too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"
#include "test_util.h"

static tu_tally tally;

enum { V = 256, CTX = 16 };

typedef struct model_case {
    const char *name;
    svk_placement placement;
    svk_pos_kind pos;
    svk_norm_kind norm;
    svk_mlp_kind mlp;
} model_case;

static const model_case cases[] = {
    {"siamese learned", SVK_PLACEMENT_SIAMESE, SVK_POS_LEARNED, SVK_NORM_LAYERNORM, SVK_MLP_GELU},
    {"siamese rope rmsnorm", SVK_PLACEMENT_SIAMESE, SVK_POS_ROPE, SVK_NORM_RMSNORM, SVK_MLP_GELU},
    {"pre rope swiglu", SVK_PLACEMENT_PRE, SVK_POS_ROPE, SVK_NORM_LAYERNORM, SVK_MLP_SWIGLU},
    {"post learned", SVK_PLACEMENT_POST, SVK_POS_LEARNED, SVK_NORM_LAYERNORM, SVK_MLP_GELU},
};

/* A model of case c, trained `steps` steps on a repeating pattern. */
static svk_model *make_model(svk_ctx *ctx, svk_backend backend, const model_case *c, int steps)
{
    svk_model_params mp = svk_model_params_default();
    mp.ctx = ctx;
    mp.backend = backend;
    mp.config.vocab = V;
    mp.config.ctx = CTX;
    mp.config.width = 16;
    mp.config.heads = 2;
    mp.config.layers = 2;
    mp.config.placement = c->placement;
    mp.config.pos = c->pos;
    mp.config.norm = c->norm;
    mp.config.mlp = c->mlp;
    svk_model *m = NULL;
    if (svk_model_create(&mp, &m) != SVK_OK) {
        tu_check(&tally, false, "%s: create: %s", c->name, svk_last_error());
        return NULL;
    }
    int32_t tokens[2 * CTX], targets[2 * CTX];
    for (int i = 0; i < 2 * CTX; i++) {
        tokens[i] = 'a' + (i * 7) % 11;
        targets[i] = 'a' + ((i + 1) * 7) % 11;
    }
    for (int s = 0; s < steps; s++)
        if (svk_model_train_step(m, tokens, targets, 2, CTX, 0.01f, NULL) != SVK_OK) {
            tu_check(&tally, false, "%s: train: %s", c->name, svk_last_error());
            svk_model_destroy(&m);
            return NULL;
        }
    return m;
}

/* Generates from prompt p; false (a failed check) on error. */
static bool gen(svk_model *m, const char *what, const int32_t *p, uint32_t np, uint32_t max_new,
                const svk_generate_params *g, int32_t *out, uint32_t *n)
{
    const svk_status st = svk_model_generate_ex(m, p, np, max_new, g, out, n);
    if (st != SVK_OK)
        tu_check(&tally, false, "%s: %s", what, svk_last_error());
    return st == SVK_OK;
}

/* The decode's logits at positions n0 .. ctx - 1 after a prefill of n0
 * tokens, against the rows of one forward over all ctx tokens (causal:
 * row j sees tokens 0..j alone). The CPU backend repeats the window's
 * arithmetic; the device sums in other orders. */
static void logits_case(svk_model *m, const char *be, const char *name, uint32_t n0)
{
    static float full[CTX * V], scratch[CTX * V], row[V];
    int32_t tokens[CTX], prefix[CTX] = {0};
    for (uint32_t j = 0; j < CTX; j++)
        tokens[j] = (int32_t)((j * 37 + 11) % V);
    memcpy(prefix, tokens, n0 * sizeof(int32_t));
    svk_status st = svk_model_begin_generation(m, "test");
    if (st == SVK_OK)
        st = svk_model_forward_logits(m, tokens, 1, CTX, full);
    if (st == SVK_OK)
        st = svk_model_forward_logits(m, prefix, 1, CTX, scratch); /* the prefill */
    double worst = 0;
    for (uint32_t j = n0; j < CTX && st == SVK_OK; j++) {
        if ((st = svk_model_decode(m, tokens[j], j, row)) != SVK_OK)
            break;
        double num = 0, den = 0;
        for (uint32_t v = 0; v < V; v++) {
            const double d = (double)row[v] - full[j * V + v];
            num += d * d;
            den += (double)full[j * V + v] * full[j * V + v];
        }
        const double rel = sqrt(num / (den > 0 ? den : 1));
        worst = rel > worst || rel != rel ? rel : worst;
    }
    if (st != SVK_OK) {
        tu_check(&tally, false, "%s %s: decode: %s", be, name, svk_last_error());
        return;
    }
    const double tol = strcmp(be, "cpu") ? 1e-5 : 1e-6;
    tu_check(&tally, worst <= tol, "%s %s: decode logits after a prefill of %u vs the window's: rel error %.2e <= %.0e",
             be, name, n0, worst, tol);
}

/* Cached greedy == uncached greedy for prompts of 1, 5 and 20 tokens (the
 * last longer than the window), each continued past ctx. */
static void greedy_cases(svk_model *m, const char *be, const model_case *c)
{
    static const uint32_t prompts[] = {1, 5, CTX + 4};
    for (size_t i = 0; i < sizeof(prompts) / sizeof(prompts[0]); i++) {
        int32_t prompt[CTX + 4], a[24], b[24];
        for (uint32_t k = 0; k < prompts[i]; k++)
            prompt[k] = 'a' + (int32_t)((k * 7) % 11);
        svk_generate_params g = svk_generate_params_default();
        uint32_t na = 0, nb = 0;
        char what[128];
        snprintf(what, sizeof(what), "%s %s prompt %u", be, c->name, prompts[i]);
        if (!gen(m, what, prompt, prompts[i], 24, &g, a, &na))
            continue;
        g.no_cache = true;
        if (!gen(m, what, prompt, prompts[i], 24, &g, b, &nb))
            continue;
        tu_check(&tally, na == 24 && nb == 24 && !memcmp(a, b, sizeof(a)), "%s: cached greedy == --no-cache (%u, %u tokens)",
                 what, na, nb);
    }
}

/* top_p: tiny is greedy; a seed repeats; stop strings and the stop token. */
static void sampling_cases(svk_model *m, const char *be)
{
    const int32_t prompt[3] = {'a', 'h', 'd'};
    int32_t greedy[12], a[12], b[12];
    uint32_t ng = 0, na = 0, nb = 0;
    svk_generate_params g = svk_generate_params_default();
    if (!gen(m, "greedy", prompt, 3, 12, &g, greedy, &ng))
        return;
    g.temperature = 1.0f;
    g.top_p = 1e-6f;
    g.seed = 7;
    if (gen(m, "top_p tiny", prompt, 3, 12, &g, a, &na))
        tu_check(&tally, na == 12 && !memcmp(a, greedy, sizeof(a)), "%s: top_p 1e-6 at temperature 1 is greedy", be);
    g.top_p = 0.9f;
    g.temperature = 2.0f;
    if (gen(m, "top_p 0.9", prompt, 3, 12, &g, a, &na) && gen(m, "top_p 0.9", prompt, 3, 12, &g, b, &nb))
        tu_check(&tally, na == 12 && nb == 12 && !memcmp(a, b, sizeof(a)), "%s: top_p 0.9, seed 7 twice: same text",
                 be);
    /* Stop at the greedy text's bytes 4..5: out ends where they first appear. */
    char stop[3] = {(char)greedy[4], (char)greedy[5], 0};
    const char *stops[2] = {"\x01never", stop};
    uint32_t want = 0;
    for (uint32_t k = 2; k <= 12 && !want; k++)
        if (greedy[k - 2] == greedy[4] && greedy[k - 1] == greedy[5])
            want = k;
    g = svk_generate_params_default();
    g.stop = stops;
    g.n_stop = 2;
    if (greedy[4] && greedy[5] && gen(m, "stop string", prompt, 3, 12, &g, a, &na))
        tu_check(&tally, na == want && !memcmp(a, greedy, na * sizeof(int32_t)),
                 "%s: stop string of greedy bytes 4..5 ends the text after %u tokens (got %u)", be, want, na);
    g = svk_generate_params_default();
    g.stop_token = greedy[3];
    uint32_t first = 0;
    while (greedy[first] != greedy[3])
        first++;
    if (gen(m, "stop token", prompt, 3, 12, &g, a, &na))
        tu_check(&tally, na == first + 1, "%s: stop token %d ends the text after %u tokens (got %u)", be, greedy[3],
                 first + 1, na);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    (void)dir;
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        svk_model *m = make_model(ctx, backend, &cases[i], 0);
        if (m) {
            logits_case(m, be, cases[i].name, 1);
            logits_case(m, be, cases[i].name, 7);
            svk_model_destroy(&m);
        }
        m = make_model(ctx, backend, &cases[i], 30);
        if (!m)
            continue;
        logits_case(m, be, cases[i].name, 3);
        greedy_cases(m, be, &cases[i]);
        if (i == 0)
            sampling_cases(m, be);
        svk_model_destroy(&m);
    }
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_generate_cache", &args);
    return tu_each_backend(&tally, "generate_cache", run_backend);
}
