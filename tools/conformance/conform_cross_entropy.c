/*
 * Fused softmax + cross-entropy + gradient (shaders/index_check.comp,
 * cross_entropy.comp, cross_entropy_loss.comp; lib/ref/cross_entropy.c):
 * V = 2, 3, 256 and 32768 + 13, rows 1 to 1031 (and 8192), ignored (-1) and
 * invalid targets, a batch with every target ignored (loss 0, dlogits 0),
 * logits around 1e4 (max subtraction), rows mixing one huge logit with
 * small ones, confident rows (loss ~1e-5, where log(1 + tiny) and p - 1 lose
 * everything in float unless computed apart), and dlogits written over
 * logits in place. Every case runs in both forms of the row kernel
 * (svk_kernel_variant, lib/ops/ops.h), forced through the tuning:
 * "fwd+bwd" the portable form, "fwd+bwd-cpu" the CPU form
 * (shaders/cross_entropy_cpu.comp), which takes 4 logits at a time when V
 * and the offsets are multiples of 4. The harness puts outputs at element
 * CF_GUARD (61), so the CPU rows give dlogits 3 more elements in front and
 * start its operand at element 64 (V = 256 then takes the vec4 path, odd V
 * the scalar one; V = 32781 exceeds the CPU form's loop budget and falls
 * back to the portable form). The pad must come back untouched.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "conform_elem.h"
#include "ops/cross_entropy.h"

/* Per-row losses and the mean: (max - l[t]) + log(sum) with the sum a float
 * tree over V exps. Vulkan allows exp 3 + 2|x| ULP (the terms that matter
 * have |x| < ~20: ~40 ULP, 2.5e-6) and log 3 ULP (absolute 2^-21 near 1);
 * the mean adds a float sum over rows (2^-24 log2(rows)). 2e-5 covers the
 * bound; lavapipe measures ~1e-7 (worst 6.6e-7 over all rows, the "-cpu"
 * ones included). */
static const double TOL_CE_LOSS = 2e-5;
/* dlogits: (exp(l - max) / sum - onehot) / count, the same exp bound plus a
 * division (2.5 ULP) and the count division. */
static const double TOL_CE_DLOGITS = 2e-5;

typedef enum logit_kind {
    LOG_NORMAL,  /* uniform in [-8, 8] */
    LOG_HUGE,    /* 1e4 + uniform in [-10, 10]: exp overflows without max subtraction */
    LOG_SPIKE,   /* uniform in [-1, 1], and one logit per row at +60 or the row's target at -60 */
    LOG_SURE,    /* uniform in [-1, 1], the target's logit +16: loss ~V e^-16, log(1 + tiny) */
} logit_kind;

typedef enum target_kind {
    TGT_VALID,    /* all in [0, V) */
    TGT_MIXED,    /* every 4th -1, every 7th invalid (V, -2, INT32_MAX, INT32_MIN) */
    TGT_IGNORED,  /* all -1: loss 0, dlogits 0 */
} target_kind;

typedef struct ce_case {
    uint32_t rows, V;
    logit_kind logits;
    target_kind targets;
    int in_place;   /* dlogits over logits */
    int no_grad;    /* loss only, dlogits NULL */
    int quick;
} ce_case;

static const ce_case cases[] = {
    {1, 2, LOG_NORMAL, TGT_VALID, 0, 0, 1},
    {7, 3, LOG_NORMAL, TGT_MIXED, 0, 0, 1},
    {1, 256, LOG_NORMAL, TGT_VALID, 0, 0, 1},
    {64, 256, LOG_NORMAL, TGT_MIXED, 0, 0, 1},
    {33, 256, LOG_HUGE, TGT_VALID, 0, 0, 1},
    {29, 257, LOG_SPIKE, TGT_MIXED, 0, 0, 1},
    {9, 256, LOG_NORMAL, TGT_IGNORED, 0, 0, 1},
    {64, 256, LOG_SURE, TGT_VALID, 0, 0, 1},
    {7, 2, LOG_SURE, TGT_MIXED, 0, 0, 1},
    {1031, 256, LOG_NORMAL, TGT_MIXED, 1, 0, 1},
    {1031, 3, LOG_HUGE, TGT_MIXED, 0, 0, 0},
    {8192, 2, LOG_NORMAL, TGT_MIXED, 0, 0, 0},
    {8192, 256, LOG_NORMAL, TGT_VALID, 1, 0, 0}, /* the default model's batch */
    {17, 32781, LOG_NORMAL, TGT_MIXED, 0, 0, 1},
    {5, 32781, LOG_HUGE, TGT_VALID, 1, 0, 0},
    {64, 4099, LOG_SPIKE, TGT_VALID, 0, 1, 0},
    {3, 32781, LOG_NORMAL, TGT_IGNORED, 0, 0, 0},
};

typedef struct cf_variant {
    const char *env;    /* the variant forced: "portable" or "cpu" */
    const char *suffix; /* appended to the direction */
    size_t pad;         /* elements in front of dlogits */
} cf_variant;
static const cf_variant variants[] = {{"portable", "", 0}, {"cpu", "-cpu", 3}};

static const int32_t invalid_targets[] = {0 /* V */, -2, INT32_MAX, INT32_MIN};

static void run_case(cf_state *cf, const ce_case *e, const cf_variant *v)
{
    static const char *lk[] = {"", " logits~1e4", " spiky", " confident"};
    static const char *tk[] = {"", " ignored+invalid", " all ignored"};
    char shape[96];
    snprintf(shape, sizeof(shape), "%ux%u%s%s%s%s", e->rows, e->V, lk[e->logits], tk[e->targets],
             e->in_place ? " in place" : "", e->no_grad ? " loss only" : "");
    char dir[24];
    snprintf(dir, sizeof(dir), "fwd+bwd%s", v->suffix);
    cf_case *c = cf_begin(cf, "cross_entropy", dir, shape);
    if (!c)
        return;
    size_t n = (size_t)e->rows * e->V;
    float range = e->logits == LOG_SPIKE || e->logits == LOG_SURE ? 1 : 8;
    float *logits = cf_random(c, n, -range, range);
    int32_t *tgt = cf_alloc(c, e->rows * sizeof(int32_t));
    if (!logits || !tgt)
        goto end;
    for (uint32_t r = 0; r < e->rows; r++) {
        uint64_t x = cf_rng_next(&cf->rng);
        tgt[r] = (int32_t)(x % e->V);
        if (e->targets == TGT_IGNORED || (e->targets == TGT_MIXED && r % 4 == 1))
            tgt[r] = -1;
        else if (e->targets == TGT_MIXED && r % 7 == 3)
            tgt[r] = r / 7 % 4 ? invalid_targets[r / 7 % 4] : (int32_t)e->V;
        float *l = logits + (size_t)r * e->V;
        if (e->logits == LOG_HUGE)
            for (uint32_t i = 0; i < e->V; i++)
                l[i] = 1e4f + 1.25f * l[i];
        if (e->logits == LOG_SURE && tgt[r] >= 0 && (uint32_t)tgt[r] < e->V)
            l[tgt[r]] = 16.0f;
        if (e->logits == LOG_SPIKE) {
            l[(x >> 32) % e->V] = 60.0f;
            if (r % 2 && tgt[r] >= 0 && (uint32_t)tgt[r] < e->V)
                l[tgt[r]] = -60.0f;
        }
    }
    svk_tref tl = {0}, tt = cf_input_i32(c, "targets", tgt, e->rows);
    cf_out *dl = NULL;
    if (e->in_place) {
        float *padded = cf_alloc(c, (n + v->pad) * sizeof(float));
        if (!padded)
            goto end;
        for (size_t i = 0; i < v->pad; i++)
            padded[i] = NAN;
        memcpy(padded + v->pad, logits, n * sizeof(float));
        dl = cf_output(c, "dlogits", n + v->pad, padded);
        tl = (svk_tref){dl ? dl->buf : NULL, CF_GUARD + v->pad};
    } else {
        tl = cf_input(c, "logits", logits, n);
        if (!e->no_grad)
            dl = cf_output(c, "dlogits", n + v->pad, NULL);
    }
    cf_out *losses = cf_output(c, "losses", e->rows, NULL);
    cf_out *counts = cf_output(c, "counts", 2, NULL);
    cf_out *loss = cf_output(c, "loss", 1, NULL);
    if ((!dl && !e->no_grad) || !losses || !counts || !loss)
        goto end;
    svk_cross_entropy_args a = {
        .rows = e->rows, .V = e->V, .logits = tl, .targets = tt,
        .dlogits = dl ? (svk_tref){dl->buf, CF_GUARD + v->pad} : (svk_tref){0},
        .losses = cf_tref(losses), .counts = cf_tref(counts), .loss = cf_tref(loss),
    };
    if (!cf_ok(c, svk_cross_entropy_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    cf_out dl_view; /* dlogits behind the pad */
    if (dl && v->pad) {
        for (size_t i = 0; i < v->pad; i++)
            if (!isnan(dl->host[i]))
                cf_fail(c, "dlogits: stray write before the output (pad element %zu is %g)", i, (double)dl->host[i]);
        dl_view = *dl;
        dl_view.n -= v->pad;
        dl_view.host += v->pad;
        dl = &dl_view;
    }
    double *dlog = cf_to_double(c, logits, n), *rdl = cf_alloc(c, n * sizeof(double));
    double *rlosses = cf_alloc(c, e->rows * sizeof(double));
    if (!dlog || !rdl || !rlosses)
        goto end;
    size_t invalid = 0, counted = 0;
    double rloss = svk_ref_cross_entropy_f64(e->rows, e->V, dlog, tgt, rdl, rlosses, &invalid);
    for (uint32_t r = 0; r < e->rows; r++)
        counted += tgt[r] >= 0 && (uint32_t)tgt[r] < e->V;
    cf_compare_scalar(c, "loss", loss->host[0], rloss, TOL_CE_LOSS);
    cf_compare(c, losses, rlosses, TOL_CE_LOSS);
    if (dl)
        cf_compare(c, dl, rdl, TOL_CE_DLOGITS);
    cf_elem_check_counts(c, counts, counted, invalid);
    if (e->targets == TGT_IGNORED) {
        /* Exactly zero, not merely small. */
        if (loss->host[0] != 0 || rloss != 0)
            cf_fail(c, "all targets ignored: loss %g (reference %g), want 0", (double)loss->host[0], rloss);
        for (size_t i = 0; dl && i < n; i++)
            if (dl->host[i] != 0) {
                cf_fail(c, "all targets ignored: dlogits[%zu] = %g, want 0", i, (double)dl->host[i]);
                break;
            }
    }
end:
    cf_end(c);
}

void cf_run_cross_entropy(cf_state *cf)
{
    /* The caller's tuning, restored at the end. */
    const svk_ctx_tuning saved = cf_tuning(cf);
    for (size_t vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
        cf_tune_variant(cf, &saved, variants[vi].env);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            if (!cf->quick || cases[i].quick)
                run_case(cf, &cases[i], &variants[vi]);
    }
    cf_tune(cf, &saved);
}
