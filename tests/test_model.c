/*
 * The model on both backends: the same 20 training steps on the CPU
 * reference and on the device agree at every step for every placement x
 * norm x MLP x position combination; replaying a recorded step equals
 * recording it again; a resumed run continues bit for bit; checkpoints move
 * between backends; bad input is refused. The step also runs with the
 * kernels GPUs run, at a size where their GEMMs split K.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model_internal.h"
#include "ops/gemm.h"
#include "vk/tuning.h"
#include "test_util.h"

enum { B = 3, T = 17, STEPS = 20 };

static svk_model_config small(void)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = 64, c.ctx = 32, c.width = 32, c.layers = 2, c.heads = 2;
    return c;
}

static void batch(uint64_t *s, uint32_t V, int32_t *tok, int32_t *tgt)
{
    for (int i = 0; i < B * T; i++) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        tok[i] = (int32_t)((*s >> 33) % V);
        /* A learnable rule (next = token + 1), so the loss must fall. */
        tgt[i] = i % 5 == 0 ? -1 : (tok[i] + 1) % (int32_t)V;
    }
}

static svk_model *make(svk_ctx *ctx, const svk_model_config *c, svk_backend backend)
{
    svk_model_params p = svk_model_params_default();
    p.config = *c;
    p.backend = backend;
    p.ctx = ctx;
    svk_model *m = NULL;
    if (svk_model_create(&p, &m) != SVK_OK)
        printf("     model: %s\n", svk_last_error());
    return m;
}

/* Losses of STEPS steps; false on an error. */
static bool train(svk_model *m, uint64_t seed, float *losses, int steps, bool rerecord)
{
    int32_t tok[B * T], tgt[B * T];
    uint64_t s = seed;
    for (int i = 0; i < steps; i++) {
        batch(&s, svk_model_get_config(m)->vocab, tok, tgt);
        if (rerecord)
            svk_model_forget_recordings(m);
        /* A warm-up then a decay, as svk-train uses it. */
        float lr = 3e-3f * (i < 5 ? (float)(i + 1) / 5 : 1.0f);
        if (svk_model_train_step(m, tok, tgt, B, T, lr, &losses[i]) != SVK_OK) {
            printf("     step %d: %s\n", i, svk_last_error());
            return false;
        }
    }
    return true;
}

/* Config c trained `steps` steps from seed on the CPU reference and on the
 * device: the losses (lc, lv) and their worst relative difference, or -1
 * where either failed. The device's model goes to *vk (NULL on failure)
 * for the caller to look at and destroy. */
static double cpu_vs_vulkan(svk_ctx *ctx, const svk_model_config *c, uint64_t seed, int steps, float *lc, float *lv,
                            svk_model **vk)
{
    svk_model *mc = make(ctx, c, SVK_BACKEND_CPU), *mv = make(ctx, c, SVK_BACKEND_VULKAN);
    const bool ok = mc && mv && train(mc, seed, lc, steps, false) && train(mv, seed, lv, steps, false);
    double worst = ok ? 0 : -1;
    for (int i = 0; ok && i < steps; i++) {
        double r = fabs((double)lc[i] - lv[i]) / fabs((double)lc[i]);
        worst = r > worst ? r : worst;
    }
    svk_model_destroy(&mc);
    if (!ok)
        svk_model_destroy(&mv);
    *vk = mv;
    return worst;
}

static void backends(svk_ctx *ctx, tu_tally *t)
{
    /* The suite runs this twice: as the device picks the attention form,
     * and with SVK_ATTENTION=flash (tests/meson.build), which must then be
     * what the device's plans use. */
    const char *env = getenv("SVK_ATTENTION");
    const bool want_flash = env && !strcmp(env, "flash");
    static const char *const placements[] = {"pre", "post", "siamese"};
    static const char *const norms[] = {"layernorm", "rmsnorm"};
    static const char *const mlps[] = {"gelu", "swiglu"};
    static const char *const pos[] = {"learned", "rope"};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int m = 0; m < 2; m++)
                for (int q = 0; q < 2; q++) {
                    svk_model_config c = small();
                    svk_model_config_set(&c, "placement", placements[a]);
                    svk_model_config_set(&c, "norm", norms[b]);
                    svk_model_config_set(&c, "mlp", mlps[m]);
                    svk_model_config_set(&c, "pos", pos[q]);
                    c.tie_embeddings = (a + b + m + q) % 2 == 0;
                    svk_model *mv;
                    float lc[STEPS], lv[STEPS];
                    const double worst = cpu_vs_vulkan(ctx, &c, 7, STEPS, lc, lv, &mv);
                    const bool ok = worst >= 0;
                    const bool flash = ok && mv->has_plan && mv->plan.flash_attention;
                    tu_check(t, ok && worst <= 1e-4 && lc[STEPS - 1] < lc[0] && (flash || !want_flash),
                             "cpu vs vulkan, %s %s %s %s%s, %s attention: 20 steps, worst rel diff %.2e, loss %.4f "
                             "-> %.4f",
                             placements[a], norms[b], mlps[m], pos[q], c.tie_embeddings ? "" : " untied",
                             flash ? "flash" : "materialised", worst, ok ? lc[0] : 0.0, ok ? lc[STEPS - 1] : 0.0);
                    svk_model_destroy(&mv);
                }
}

/* SiameseNorm at a width whose rows CPU devices split over a subgroup
 * (SVK_NORM_SPLIT_MIN_WIDTH, the siamese_norm_fwd_split kernel): the
 * block inputs' and the output's norms in the step, against the CPU
 * reference. */
static void wide(svk_ctx *ctx, tu_tally *t)
{
    static const char *const norms[] = {"layernorm", "rmsnorm"};
    for (int b = 0; b < 2; b++) {
        svk_model_config c = small();
        c.width = 512, c.layers = 1, c.heads = 4;
        svk_model_config_set(&c, "norm", norms[b]);
        enum { N = 5 };
        svk_model *mv;
        float lc[N], lv[N];
        const double worst = cpu_vs_vulkan(ctx, &c, 11, N, lc, lv, &mv);
        tu_check(t, worst >= 0 && worst <= 1e-4,
                 "cpu vs vulkan, siamese %s at width 512: %d steps, worst rel diff %.2e", norms[b], N, worst);
        svk_model_destroy(&mv);
    }
}

/* The step with the kernels GPUs run (the portable variant, forced through
 * the context's tuning, lib/vk/tuning.h) against
 * the CPU reference, at 256 tokens: enough that the weight gradients'
 * GEMMs (K = the tokens) split K on the portable path (lib/ops/gemm_split.c),
 * their partials in the model's scratch buffer. With coopmat, the GEMMs on
 * cooperative matrices (SVK_GEMM_COOPMAT=1's tuning, float16 operands), where the
 * device has them: the losses then agree to float16's rounding, not
 * float32's. */
static void gpu_kernels(svk_ctx *ctx, tu_tally *t, bool coopmat)
{
    enum { PB = 8, PT = 32, PSTEPS = 5 };
    const char *what = coopmat ? "cooperative-matrix GEMMs" : "portable kernels";
    if (coopmat && !svk_ctx_device_info(ctx)->coopmat_m) {
        printf("     (cpu vs vulkan with the %s: not run, device '%s' has none libsvk can use)\n", what,
               svk_ctx_device_info(ctx)->name);
        return;
    }
    svk_model_config c = small();
    svk_model_config_set(&c, "placement", "siamese");
    const svk_ctx_tuning saved = *svk_ctx_tuning_get(ctx);
    svk_ctx_tuning tune = saved;
    tune.variant = SVK_TUNE_VARIANT_PORTABLE;
    tune.gemm_coopmat = coopmat;
    svk_ctx_tuning_set(ctx, &tune);
    /* Which the plan's dW GEMM (TN, [C, C] over the tokens) must do. */
    const svk_gemm_args dw = {.shape = {.trans_a = true, .M = c.width, .N = c.width, .K = PB * PT, .batch = 1},
                              .alpha = 1.0f, .beta = 1.0f};
    const uint64_t split = svk_gemm_scratch_elems(ctx, &dw);
    svk_model *mc = make(ctx, &c, SVK_BACKEND_CPU), *mv = make(ctx, &c, SVK_BACKEND_VULKAN);
    float lc[PSTEPS], lv[PSTEPS];
    int32_t tok[PB * PT], tgt[PB * PT];
    bool ok = mc && mv;
    for (int k = 0; k < 2 && ok; k++) {
        uint64_t seed = 5;
        for (int i = 0; ok && i < PSTEPS; i++) {
            for (int j = 0; j < PB * PT; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                tok[j] = (int32_t)((seed >> 33) % c.vocab);
                tgt[j] = (tok[j] + 1) % (int32_t)c.vocab;
            }
            svk_status st = svk_model_train_step(k ? mv : mc, tok, tgt, PB, PT, 3e-3f, k ? &lv[i] : &lc[i]);
            if (st != SVK_OK)
                printf("     step %d: %s\n", i, svk_last_error());
            ok = st == SVK_OK;
        }
    }
    svk_ctx_tuning_set(ctx, &saved);
    double worst = 0;
    for (int i = 0; ok && i < PSTEPS; i++) {
        double r = fabs((double)lc[i] - lv[i]) / fabs((double)lc[i]);
        worst = r > worst ? r : worst;
    }
    /* float16 operands: 1.0e-5 measured on an H200 */
    const double tol = coopmat ? 1e-3 : 1e-4;
    tu_check(t, ok && split > 0 && worst <= tol,
             "cpu vs vulkan with the %s, B=%d T=%d (dW split-K scratch %llu floats): %d steps, "
             "worst rel diff %.2e (tolerance %.0e)",
             what, PB, PT, (unsigned long long)split, PSTEPS, worst, tol);
    svk_model_destroy(&mc);
    svk_model_destroy(&mv);
}

static void replay(svk_ctx *ctx, tu_tally *t)
{
    svk_model_config c = small();
    svk_model *a = make(ctx, &c, SVK_BACKEND_VULKAN), *b = make(ctx, &c, SVK_BACKEND_VULKAN);
    float la[10], lb[10];
    bool ok = a && b && train(a, 3, la, 10, false) && train(b, 3, lb, 10, true);
    tu_check(t, ok && !memcmp(la, lb, sizeof(la)), "replayed steps equal re-recorded steps, bit for bit (%.6f %.6f)",
             ok ? la[9] : 0.0, ok ? lb[9] : 0.0);
    svk_model_destroy(&a);
    svk_model_destroy(&b);
}

static void resume(svk_ctx *ctx, tu_tally *t, svk_backend backend, const char *dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/resume.safetensors", dir);
    svk_model_config c = small();
    svk_model *a = make(ctx, &c, backend), *b = make(ctx, &c, backend);
    float full[10], part[10];
    int32_t tok[B * T], tgt[B * T];
    uint64_t s = 11;
    bool ok = a && b;
    for (int i = 0; ok && i < 10; i++) {
        batch(&s, c.vocab, tok, tgt);
        ok = svk_model_train_step(a, tok, tgt, B, T, 2e-3f, &full[i]) == SVK_OK;
        if (ok && i == 4)
            ok = svk_model_save(a, path, true) == SVK_OK;
    }
    s = 11;
    for (int i = 0; i < 5; i++)
        batch(&s, c.vocab, tok, tgt);
    ok = ok && svk_model_load(b, path, true) == SVK_OK && svk_model_step(b) == 5;
    for (int i = 5; ok && i < 10; i++) {
        batch(&s, c.vocab, tok, tgt);
        ok = svk_model_train_step(b, tok, tgt, B, T, 2e-3f, &part[i]) == SVK_OK;
    }
    tu_check(t, ok && !memcmp(full + 5, part + 5, 5 * sizeof(float)),
             "%s: resume at step 5 continues bit for bit (%s)", backend == SVK_BACKEND_CPU ? "cpu" : "vulkan",
             ok ? "steps 6-10 identical" : svk_last_error());
    svk_model_destroy(&a);
    svk_model_destroy(&b);
    unlink(path);
}

static void cross_checkpoint(svk_ctx *ctx, tu_tally *t, const char *dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/cross.safetensors", dir);
    svk_model_config c = small();
    svk_model *v = make(ctx, &c, SVK_BACKEND_VULKAN), *cpu = make(ctx, &c, SVK_BACKEND_CPU);
    float l[3], ev, ec;
    int32_t tok[B * T], tgt[B * T];
    uint64_t s = 99;
    bool ok = v && cpu && train(v, 5, l, 3, false) && svk_model_save(v, path, false) == SVK_OK &&
              svk_model_load(cpu, path, false) == SVK_OK;
    batch(&s, c.vocab, tok, tgt);
    ok = ok && svk_model_eval_loss(v, tok, tgt, B, T, &ev) == SVK_OK &&
         svk_model_eval_loss(cpu, tok, tgt, B, T, &ec) == SVK_OK;
    tu_check(t, ok && fabsf(ev - ec) <= 1e-5f * fabsf(ec), "vulkan checkpoint on the cpu: loss %.7f vs %.7f",
             ok ? ev : 0.0, ok ? ec : 0.0);
    /* And back: the CPU model trains a step, the device loads it. */
    ok = ok && train(cpu, 6, l, 1, false) && svk_model_save(cpu, path, false) == SVK_OK &&
         svk_model_load(v, path, false) == SVK_OK && svk_model_eval_loss(v, tok, tgt, B, T, &ev) == SVK_OK &&
         svk_model_eval_loss(cpu, tok, tgt, B, T, &ec) == SVK_OK;
    tu_check(t, ok && fabsf(ev - ec) <= 1e-5f * fabsf(ec), "cpu checkpoint on vulkan: loss %.7f vs %.7f",
             ok ? ev : 0.0, ok ? ec : 0.0);

    /* Refusals, and the model is unchanged by them. */
    svk_model_config other = c;
    other.width = 16;
    svk_model *o = make(ctx, &other, SVK_BACKEND_CPU);
    svk_status st = o ? svk_model_load(o, path, false) : SVK_ERROR_INTERNAL;
    tu_check(t, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "differs"),
             "checkpoint of another configuration refused: %.160s", svk_last_error());
    st = svk_model_load(v, path, true);
    char why[256];
    snprintf(why, sizeof(why), "%s", svk_last_error());
    float after;
    svk_model_eval_loss(v, tok, tgt, B, T, &after);
    tu_check(t, st == SVK_ERROR_BAD_CHECKPOINT && after == ev,
             "resume from a weights-only file refused, model unchanged: %.160s", why);
    svk_model_destroy(&o);

    tok[3] = (int32_t)c.vocab;
    st = svk_model_train_step(v, tok, tgt, B, T, 1e-3f, &after);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "token 64"), "token out of range: %s",
             svk_last_error());
    tok[3] = 0;
    tgt[4] = -2;
    st = svk_model_train_step(v, tok, tgt, B, T, 1e-3f, &after);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "target -2"), "target out of range: %s",
             svk_last_error());
    st = svk_model_train_step(v, tok, tgt, 1, 33, 1e-3f, &after);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "ctx"), "T > ctx: %s", svk_last_error());

    /* Generation: greedy is deterministic; a stop token ends it. */
    int32_t prompt[3] = {1, 2, 3}, out1[8], out2[8];
    uint32_t n1 = 0, n2 = 0;
    svk_sample_params sp = svk_sample_params_default();
    ok = svk_model_generate(v, prompt, 3, 8, &sp, out1, &n1) == SVK_OK &&
         svk_model_generate(v, prompt, 3, 8, &sp, out2, &n2) == SVK_OK;
    tu_check(t, ok && n1 == 8 && n2 == 8 && !memcmp(out1, out2, sizeof(out1)), "greedy generation is deterministic");
    sp.stop_token = out1[0];
    ok = svk_model_generate(v, prompt, 3, 8, &sp, out2, &n2) == SVK_OK;
    tu_check(t, ok && n2 == 1, "generation stops at the stop token (%u token)", n2);
    sp = svk_sample_params_default();
    sp.temperature = 1.0f;
    sp.top_k = 5;
    ok = svk_model_generate(v, prompt, 3, 8, &sp, out2, &n2) == SVK_OK;
    bool in_range = ok;
    for (uint32_t i = 0; ok && i < n2; i++)
        in_range = in_range && out2[i] >= 0 && out2[i] < (int32_t)c.vocab;
    tu_check(t, in_range && n2 == 8, "top-k sampling produces valid tokens");
    svk_model_destroy(&v);
    svk_model_destroy(&cpu);
    unlink(path);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_model", &args);
    tu_tally t = {0, 0};
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    char dir[] = "/tmp/svk-model-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    if (!args.filter || strstr("backends", args.filter))
        backends(ctx, &t);
    if (!args.filter || strstr("wide", args.filter))
        wide(ctx, &t);
    if (!args.filter || strstr("portable", args.filter))
        gpu_kernels(ctx, &t, false);
    if (!args.filter || strstr("coopmat", args.filter))
        gpu_kernels(ctx, &t, true);
    if (!args.filter || strstr("replay", args.filter))
        replay(ctx, &t);
    if (!args.filter || strstr("resume", args.filter)) {
        resume(ctx, &t, SVK_BACKEND_VULKAN, dir);
        resume(ctx, &t, SVK_BACKEND_CPU, dir);
    }
    if (!args.filter || strstr("checkpoint", args.filter))
        cross_checkpoint(ctx, &t, dir);
    rmdir(dir);
    tu_ctx_finish(&ctx, &t);
    return tu_finish(&t);
}
