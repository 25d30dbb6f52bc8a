/*
 * Causal multi-head attention (lib/ops/attention.c, shaders/attention_*.comp;
 * reference lib/ref/attention.c): the materialised forward (out and the saved
 * probabilities att), its backward (dqkv), and the fused flash forward (out),
 * over awkward shapes (T = 1, 2, primes and non-multiples of every tile;
 * head widths from 2 to 256; B 1..3), logits around 1e4 and values mixing
 * 1e4 with 1e-4. The backward is fed the forward's saved att (the reference's,
 * rounded to float), as the model feeds it; its scratch is an output too, so
 * its guards and its determinism are checked.
 */
#include <stdio.h>
#include <stdlib.h>

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
 */
static const double TOL_ATT_P = 1e-5;   /* att: probabilities */
static const double TOL_ATT_OUT = 1e-5; /* out, materialised and flash */
/* dqkv: its error grows with T (sums over T keys, and dS = P (dP - sum P dP)
 * cancels where rows are peaked): 7.5e-7 at T = 1024, so 2e-5 leaves room
 * for a few times longer rows. */
static const double TOL_ATT_DQKV = 2e-5;

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
    const size_t n_att = (size_t)svk_attention_scratch_elems(B, T, H);
    static const char *gen_names[] = {"", " peaked", " logits~1e4", " v 1e4/1e-4"};
    char shape[96];
    snprintf(shape, sizeof(shape), "B%u T%u C%u H%u D%u%s", B, T, C, H, C / H, gen_names[ac->gen]);

    /* Inputs and the reference, shared by the three rows. */
    float *qkv = malloc(n_qkv * sizeof(float)), *dout = malloc(n_out * sizeof(float));
    float *att_f = malloc(n_att * sizeof(float));
    double *qkv_d = malloc(n_qkv * sizeof(double)), *dout_d = malloc(n_out * sizeof(double));
    double *out_d = malloc(n_out * sizeof(double)), *att_d = malloc(n_att * sizeof(double));
    double *dqkv_d = malloc(n_qkv * sizeof(double));
    if (!qkv || !dout || !att_f || !qkv_d || !dout_d || !out_d || !att_d || !dqkv_d) {
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

    cf_case *c = cf_begin(cf, "attention", "fwd", shape);
    if (c) {
        svk_tref tq = cf_input(c, "qkv", qkv, n_qkv);
        cf_out *out = cf_output(c, "out", n_out, NULL), *att = cf_output(c, "att", n_att, NULL);
        if (out && att) {
            svk_attention_fwd_args a = {B, T, C, H, tq, cf_tref(out), cf_tref(att), NULL};
            if (cf_ok(c, svk_attention_fwd_record(cf_list(c), &a)) && cf_run(c)) {
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

    c = cf_begin(cf, "attention", "bwd", shape);
    if (c) {
        svk_tref td = cf_input(c, "dout", dout, n_out), tq = cf_input(c, "qkv", qkv, n_qkv);
        svk_tref ta = cf_input(c, "att", att_f, n_att);
        cf_out *dqkv = cf_output(c, "dqkv", n_qkv, NULL), *scratch = cf_output(c, "scratch", n_att, NULL);
        if (dqkv && scratch) {
            svk_attention_bwd_args a = {B, T, C, H, td, tq, ta, cf_tref(dqkv), cf_tref(scratch), NULL};
            double *att_in = cf_to_double(c, att_f, n_att); /* the floats the device read */
            if (att_in && cf_ok(c, svk_attention_bwd_record(cf_list(c), &a)) && cf_run(c)) {
                svk_ref_attention_bwd_f64(B, T, C, H, dout_d, qkv_d, att_in, dqkv_d);
                cf_compare(c, dqkv, dqkv_d, TOL_ATT_DQKV);
            }
        }
        cf_end(c);
    }

    c = cf_begin(cf, "attention_flash", "fwd", shape);
    if (c) {
        svk_tref tq = cf_input(c, "qkv", qkv, n_qkv);
        cf_out *out = cf_output(c, "out", n_out, NULL);
        if (out) {
            svk_attention_flash_args a = {B, T, C, H, tq, cf_tref(out), NULL};
            if (cf_ok(c, svk_attention_flash_fwd_record(cf_list(c), &a)) && cf_run(c))
                cf_compare(c, out, out_d, TOL_ATT_OUT);
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
}

void cf_run_attention(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!cf->quick || cases[i].quick)
            run_case(cf, &cases[i]);
}
