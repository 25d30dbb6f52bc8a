/*
 * Causal multi-head attention (lib/ops/attention.c, shaders/attention_*.comp;
 * reference lib/ref/attention.c): the materialised forward (out and the saved
 * probabilities att), its backward (dqkv), and the flash pair (the forward's
 * out and softmax statistics, the backward's dqkv from them),
 * over awkward shapes (T = 1, 2, primes and non-multiples of every tile;
 * head widths from 2 to 256; B 1..3), logits around 1e4 and values mixing
 * 1e4 with 1e-4. The backward is fed the forward's saved att (the reference's,
 * rounded to float), as the model feeds it; its scratch is an output too, so
 * its guards and its determinism are checked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "ops/attention.h"

/*
 * ||out - ref|| / ||ref|| against the double reference fed the same floats.
 * The float path: scores are GEMM dot products over D terms (relative error
 * about sqrt(D) 2^-24 of |q||k|/sqrt(D), i.e. an absolute error of about
 * |s| 1e-7 in the exponent for the moderate logits used here), exp() within
 * the few ulp Vulkan allows, sums over <= T terms in float; out and the
 * gradients are GEMMs over <= T or D terms (cf. TOL_GEMM = 1e-5). The
 * large-logit case has integer q, k and a power-of-two scale, so its scores
 * are exact and only the softmax's own rounding remains.
 * Measured on lavapipe: att and out <= 5e-7 (worst: the peaked case), flash
 * out likewise, dqkv <= 7.5e-7 (worst: T = 1024). 1e-5 leaves a 13x margin;
 * the smallest real bug tried (no rescaling in the flash kernel) costs 9e-3.
 * The "-cpu" rows (the softmax's CPU form) measure the same.
 */
static const double TOL_ATT_P = 1e-5;   /* att: probabilities */
static const double TOL_ATT_OUT = 1e-5; /* out, materialised and flash */
/* dqkv: its error grows with T (sums over T keys, and dS = P (dP - sum P dP)
 * cancels where rows are peaked): 7.5e-7 at T = 1024, so 2e-5 leaves room
 * for a few times longer rows. */
static const double TOL_ATT_DQKV = 2e-5;
/* The flash forward's stats (m, l per row): m is a score, l a sum of <= T
 * exponentials of differences of scores, both within a few roundings of
 * the scores' own error. Measured on lavapipe: <= 2e-7; the flash
 * backward's dqkv, fed them, <= 1.3e-6 (the peaked case), under
 * TOL_ATT_DQKV like the materialised one. */
static const double TOL_ATT_STATS = 1e-5;

typedef enum gen_kind {
    GEN_UNIFORM,  /* q, k, v uniform in [-1, 1] */
    GEN_PEAKED,   /* q, k uniform in [-4, 4]: scores of +-15, peaked rows */
    GEN_LOGITS,   /* logits of 1e4 (odd queries) next to O(1) ones, exact */
    GEN_MIXED_V,  /* v rows alternately of size 1e4 and 1e-4 */
} gen_kind;

typedef struct att_case {
    uint32_t B, T, C, H;
    gen_kind gen;
    int quick;
} att_case;

static const att_case cases[] = {
    {1, 1, 16, 1, GEN_UNIFORM, 1},
    {2, 2, 12, 2, GEN_UNIFORM, 1},    /* D = 6 */
    {3, 17, 48, 2, GEN_UNIFORM, 1},   /* D = 24 */
    {1, 64, 6, 3, GEN_UNIFORM, 1},    /* D = 2 */
    {2, 64, 128, 4, GEN_UNIFORM, 1},  /* D = 32 */
    {1, 40, 256, 2, GEN_UNIFORM, 1},  /* D = 128; softmax workgroup 48 */
    {2, 33, 32, 2, GEN_LOGITS, 1},    /* D = 16 */
    {1, 129, 128, 1, GEN_UNIFORM, 0}, /* D = 128 */
    {3, 129, 64, 4, GEN_UNIFORM, 0},  /* D = 16 */
    {1, 200, 96, 3, GEN_PEAKED, 0},   /* D = 32 */
    {1, 77, 64, 4, GEN_MIXED_V, 0},   /* D = 16 */
    {1, 50, 512, 2, GEN_UNIFORM, 0},  /* D = 256: the flash kernel's widest */
    {2, 100, 128, 2, GEN_UNIFORM, 0}, /* D = 64 */
    {1, 1024, 64, 1, GEN_UNIFORM, 0}, /* D = 64 */
};

/* The materialised forward and backward run in both forms of the softmax
 * kernels (svk_kernel_variant, lib/ops/ops.h), forced through
 * the tuning: rows "fwd", "bwd" the portable form, "fwd-cpu",
 * "bwd-cpu" the CPU form (shaders/attention_softmax_*_cpu.comp). The CPU
 * form steps 4 keys at a time only when T and the offsets are multiples of
 * 4; the harness puts outputs at element CF_GUARD (61), so the CPU rows give
 * each output `pad` more elements in front and start its operand at element
 * 64 (T = 40, 64, 100, 200, 1024 then take the vec4 path, the others the
 * scalar one).
 * The pad must come back untouched. The flash kernel has one form.
 * Where the vec4 path applies the CPU form reads through texel views
 * (attention_softmax_*_texel, and gemm_texel for the products);
 * "-cpu-ssbo" runs it with texel buffers off, the storage-buffer forms. */
typedef struct cf_variant {
    const char *env;    /* the variant forced: "portable" or "cpu" */
    const char *suffix; /* appended to the direction */
    size_t pad;
    bool ssbo;          /* texel buffers off (svk_ctx_tuning.texel) */
} cf_variant;
static const cf_variant variants[] = {
    {"portable", "", 0, false}, {"cpu", "-cpu", 3, false}, {"cpu", "-cpu-ssbo", 3, true}};

/* The caller's tuning (cf_run_attention), on which the variants force theirs. */
static svk_ctx_tuning saved_tuning;

static void set_variant(cf_state *cf, const cf_variant *v)
{
    svk_ctx_tuning t = saved_tuning;
    if (v->ssbo)
        t.texel = SVK_TUNE_TEXEL_OFF;
    cf_tune_variant(cf, &t, v->env);
}

/* cf_output (NaN) with v->pad elements in front of the n. */
static cf_out *v_output(cf_case *c, const cf_variant *v, const char *name, size_t n)
{
    return cf_output(c, name, n + v->pad, NULL);
}

static svk_tref v_tref(const cf_variant *v, const cf_out *o)
{
    svk_tref t = cf_tref(o);
    t.off += v->pad;
    return t;
}

/* After cf_run: o without its pad, in *view. Fails the case if the pad was
 * written. */
static cf_out *v_view(cf_case *c, const cf_variant *v, cf_out *o, cf_out *view)
{
    for (size_t i = 0; i < v->pad; i++)
        if (!isnan(o->host[i]))
            cf_fail(c, "%s: stray write before the output (pad element %zu is %g)", o->name, i, (double)o->host[i]);
    *view = *o;
    view->n -= v->pad;
    view->host += v->pad;
    return view;
}

static int rand_int(cf_rng *r, int lo, int hi)
{
    return lo + (int)(cf_rng_next(r) % (uint64_t)(hi - lo + 1));
}

static void generate(cf_rng *rng, const att_case *ac, float *qkv)
{
    const size_t C = ac->C, D = C / ac->H, rows = (size_t)ac->B * ac->T;
    switch (ac->gen) {
    case GEN_UNIFORM:
    case GEN_MIXED_V:
        cf_fill_uniform(rng, qkv, rows * 3 * C, -1, 1);
        if (ac->gen == GEN_MIXED_V)
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 2 * C; c < 3 * C; c++)
                    qkv[r * 3 * C + c] *= r % 2 ? 1e4f : 1e-4f;
        break;
    case GEN_PEAKED:
        cf_fill_uniform(rng, qkv, rows * 3 * C, -4, 4);
        break;
    case GEN_LOGITS:
        /* D = 16, scale 1/4. Column 0 of every head: q = 200 at odd
         * positions (0 at even ones), k = 200, so s = 1e4 + (small integer)/4
         * at odd queries and O(1) at even ones; other columns q in {-1,0,1},
         * k in {-2..2}. Every partial sum is an integer below 2^24, so the
         * float scores are exact in any summation order. */
        for (size_t r = 0; r < rows; r++) {
            float *row = qkv + r * 3 * C;
            size_t t = r % ac->T;
            for (size_t c = 0; c < C; c++) {
                int lead = c % D == 0;
                row[c] = lead ? (t % 2 ? 200.0f : 0.0f) : (float)rand_int(rng, -1, 1);
                row[C + c] = lead ? 200.0f : (float)rand_int(rng, -2, 2);
            }
            cf_fill_uniform(rng, row + 2 * C, C, -1, 1);
        }
        break;
    }
}

static void run_case(cf_state *cf, const att_case *ac)
{
    const uint32_t B = ac->B, T = ac->T, C = ac->C, H = ac->H;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C;
    const size_t n_att = (size_t)svk_attention_scratch_elems(B, T, H), n_stats = (size_t)B * H * T * 2;
    static const char *gen_names[] = {"", " peaked", " logits~1e4", " v 1e4/1e-4"};
    char shape[96];
    snprintf(shape, sizeof(shape), "B%u T%u C%u H%u D%u%s", B, T, C, H, C / H, gen_names[ac->gen]);

    /* Inputs and the reference, shared by the three rows. */
    float *qkv = malloc(n_qkv * sizeof(float)), *dout = malloc(n_out * sizeof(float));
    float *att_f = malloc(n_att * sizeof(float));
    double *qkv_d = malloc(n_qkv * sizeof(double)), *dout_d = malloc(n_out * sizeof(double));
    double *out_d = malloc(n_out * sizeof(double)), *att_d = malloc(n_att * sizeof(double));
    double *dqkv_d = malloc(n_qkv * sizeof(double)), *stats_d = malloc(n_stats * sizeof(double));
    float *out_f = malloc(n_out * sizeof(float)), *stats_f = malloc(n_stats * sizeof(float));
    if (!qkv || !dout || !att_f || !qkv_d || !dout_d || !out_d || !att_d || !dqkv_d || !stats_d || !out_f ||
        !stats_f) {
        printf("%-18s %-10s %-34s FAIL out of host memory\n", "attention", "fwd", shape);
        cf->failed++;
        goto done;
    }
    generate(&cf->rng, ac, qkv);
    cf_fill_uniform(&cf->rng, dout, n_out, -1, 1);
    for (size_t i = 0; i < n_qkv; i++)
        qkv_d[i] = qkv[i];
    for (size_t i = 0; i < n_out; i++)
        dout_d[i] = dout[i];
    svk_ref_attention_fwd_f64(B, T, C, H, qkv_d, out_d, att_d);
    /* The backward's att input is the saved forward result, in float. */
    for (size_t i = 0; i < n_att; i++)
        att_f[i] = (float)att_d[i];
    svk_ref_attention_stats_f64(B, T, C, H, qkv_d, stats_d);
    for (size_t i = 0; i < n_out; i++)
        out_f[i] = (float)out_d[i];
    for (size_t i = 0; i < n_stats; i++)
        stats_f[i] = (float)stats_d[i];

    cf_case *c;
    for (size_t vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
        const cf_variant *v = &variants[vi];
        char dir[24];
        set_variant(cf, v);
        snprintf(dir, sizeof(dir), "fwd%s", v->suffix);
        c = cf_begin(cf, "attention", dir, shape);
        if (c) {
            svk_tref tq = cf_input(c, "qkv", qkv, n_qkv);
            cf_out *out = v_output(c, v, "out", n_out), *att = v_output(c, v, "att", n_att);
            if (out && att) {
                svk_attention_fwd_args a = {B, T, C, H, tq, v_tref(v, out), v_tref(v, att), NULL};
                if (cf_ok(c, svk_attention_fwd_record(cf_list(c), &a)) && cf_run(c)) {
                    cf_out v_out, v_att;
                    out = v_view(c, v, out, &v_out);
                    att = v_view(c, v, att, &v_att);
                    /* Above the diagonal the reference saves exact zeros; a
                     * small stray value there would hide in the norm. */
                    for (size_t r = 0; r < (size_t)B * H * T; r++)
                        for (size_t j = r % T + 1; j < T; j++)
                            if (att->host[r * T + j] != 0.0f) {
                                cf_fail(c, "att: row %zu, key %zu above the diagonal is %g, not 0", r, j,
                                        (double)att->host[r * T + j]);
                                r = (size_t)B * H * T - 1;
                                break;
                            }
                    cf_compare(c, att, att_d, TOL_ATT_P);
                    cf_compare(c, out, out_d, TOL_ATT_OUT);
                }
            }
            cf_end(c);
        }

        snprintf(dir, sizeof(dir), "bwd%s", v->suffix);
        c = cf_begin(cf, "attention", dir, shape);
        if (c) {
            svk_tref td = cf_input(c, "dout", dout, n_out), tq = cf_input(c, "qkv", qkv, n_qkv);
            svk_tref ta = cf_input(c, "att", att_f, n_att);
            cf_out *dqkv = v_output(c, v, "dqkv", n_qkv), *scratch = v_output(c, v, "scratch", n_att);
            if (dqkv && scratch) {
                svk_attention_bwd_args a = {B, T, C, H, td, tq, ta, v_tref(v, dqkv), v_tref(v, scratch), NULL};
                double *att_in = cf_to_double(c, att_f, n_att); /* the floats the device read */
                if (att_in && cf_ok(c, svk_attention_bwd_record(cf_list(c), &a)) && cf_run(c)) {
                    cf_out v_dqkv, v_scratch;
                    dqkv = v_view(c, v, dqkv, &v_dqkv);
                    v_view(c, v, scratch, &v_scratch); /* its pad only */
                    svk_ref_attention_bwd_f64(B, T, C, H, dout_d, qkv_d, att_in, dqkv_d);
                    cf_compare(c, dqkv, dqkv_d, TOL_ATT_DQKV);
                }
            }
            cf_end(c);
        }
    }

    /* The flash pair: the forward's out and stats; the backward fed the
     * reference's out and stats in float, as the step feeds it the
     * forward's. */
    c = cf_begin(cf, "attention_flash", "fwd", shape);
    if (c) {
        svk_tref tq = cf_input(c, "qkv", qkv, n_qkv);
        cf_out *out = cf_output(c, "out", n_out, NULL), *stats = cf_output_at(c, "stats", n_stats, NULL, true);
        if (out && stats) {
            svk_attention_flash_args a = {B, T, C, H, tq, cf_tref(out), cf_tref(stats), NULL};
            if (cf_ok(c, svk_attention_flash_fwd_record(cf_list(c), &a)) && cf_run(c)) {
                cf_compare(c, out, out_d, TOL_ATT_OUT);
                cf_compare(c, stats, stats_d, TOL_ATT_STATS);
            }
        }
        cf_end(c);
    }

    c = cf_begin(cf, "attention_flash", "bwd", shape);
    if (c) {
        svk_tref td = cf_input(c, "dout", dout, n_out), tq = cf_input(c, "qkv", qkv, n_qkv);
        svk_tref to = cf_input(c, "out", out_f, n_out), ts = cf_input(c, "stats", stats_f, n_stats);
        cf_out *dqkv = cf_output(c, "dqkv", n_qkv, NULL);
        cf_out *scratch = cf_output(c, "scratch", svk_attention_flash_scratch_elems(B, T, H), NULL);
        if (dqkv && scratch) {
            svk_attention_flash_bwd_args a = {B, T, C, H, td, tq, to, ts, cf_tref(dqkv), cf_tref(scratch), NULL};
            if (cf_ok(c, svk_attention_flash_bwd_record(cf_list(c), &a)) && cf_run(c)) {
                svk_ref_attention_bwd_f64(B, T, C, H, dout_d, qkv_d, att_d, dqkv_d);
                cf_compare(c, dqkv, dqkv_d, TOL_ATT_DQKV);
            }
        }
        cf_end(c);
    }
done:
    free(qkv);
    free(dout);
    free(att_f);
    free(qkv_d);
    free(dout_d);
    free(out_d);
    free(att_d);
    free(dqkv_d);
    free(stats_d);
    free(out_f);
    free(stats_f);
}

void cf_run_attention(cf_state *cf)
{
    /* The caller's tuning, restored at the end. */
    saved_tuning = cf_tuning(cf);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!cf->quick || cases[i].quick)
            run_case(cf, &cases[i]);
    cf_tune(cf, &saved_tuning);
}
