/*
 * The fused AdamW update (shaders/adamw.comp; lib/ref/adamw.c): sequences of
 * updates recorded into one list (t = 1, 2, 3, and t = 1000), decay on and
 * off, a gradient scale < 1 read from device memory, the scale produced by
 * the clip op itself in the same list (no host round trip), lr and the bias
 * corrections read from a step buffer instead of push constants, sizes 1,
 * primes and a million; the guard (a step's loss and gradient norm in
 * device memory): finite, it changes nothing; NaN loss, infinite norm, or a
 * norm whose square overflows float (the rule of svk_step_finite), and p,
 * m, v must stay exactly as they were.
 */
#include <math.h>
#include <stdio.h>

#include "conform.h"
#include "ops/adamw.h"
#include "ops/clip.h"

/* p, m, v after the updates against the double reference run through the
 * same updates from the same float state. The float reference itself
 * differs from the double one by 3e-8 to 7e-8 (relative norm, p, m and v,
 * after 1 to 4 updates, fresh or mid-training state; measured): each update
 * is about ten correctly rounded operations per element, and the errors
 * compound only mildly. The shader performs the reference's operations in
 * its order with contraction disabled (`precise`), so it differs from the
 * float reference only where the device's division (2.5 ULP allowed) and
 * square root (~3 ULP) are not correctly rounded: a worst case of ~20 ULP,
 * 1.2e-6, per element, far less in the norm. (On lavapipe, whose division
 * and square root are correctly rounded, the results equal the float
 * reference bit for bit.) 1e-6 is ~15x the float-vs-double difference. */
static const double TOL_ADAMW = 1e-6;

#define MAX_STEPS 4

typedef struct adam_case {
    uint32_t n;
    uint32_t n_steps;
    uint64_t t[MAX_STEPS];
    int decay;
    float scale;      /* 0: no scale operand (1); else read from a [1] buffer */
    int clip;         /* the scale comes from svk_clip_record over g, max_norm 1 */
    int step_buffer;  /* lr and bias corrections from a device buffer */
    int fresh;        /* m = v = 0, as before the first update */
    int quick;
    int guard;        /* 0: no guard; 1: finite (update); 2: NaN loss, 3: Inf norm, 4: norm 2e19 (skip) */
    int vec4;         /* p, m, v on a vec4 (cf_output_at): with n % 4 == 0 the kernel's vec4 path */
    /* With step_buffer, a previous step still running when this one was
     * submitted (prev_guard): 0 none; 1 it was finite (t applies); 2 NaN
     * loss, 3 norm 2e19: it was skipped, t - 1 applies. */
    int prev;
} adam_case;

static const adam_case cases[] = {
    {1, 1, {1}, 1, 0, 0, 0, 1, 1, 0, 0, 0},
    {1, 3, {1, 2, 3}, 0, 0, 0, 0, 1, 1, 0, 0, 0},
    {7, 3, {1, 2, 3}, 1, 0.37f, 0, 0, 1, 1, 0, 0, 0},
    {4099, 1, {1000}, 1, 0, 0, 0, 0, 1, 0, 0, 0},
    {4099, 1, {1000}, 0, 0.5f, 0, 0, 0, 1, 0, 0, 0},
    {4099, 3, {1, 2, 3}, 1, 0, 0, 1, 1, 1, 0, 0, 0},
    {100003, 4, {1, 2, 3, 1000}, 1, 0.9f, 0, 0, 0, 1, 0, 0, 0},
    {100003, 2, {7, 8}, 0, 0, 1, 0, 0, 1, 0, 0, 0},
    {1000000, 3, {1, 2, 3}, 1, 0.25f, 0, 0, 1, 0, 0, 0, 0},
    {1000000, 1, {1000}, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {4099, 2, {1, 2}, 1, 0, 0, 1, 0, 1, 1, 0, 0},
    {4099, 2, {1, 2}, 1, 0, 0, 1, 0, 1, 2, 0, 0},
    {7, 1, {1}, 0, 0, 0, 0, 1, 1, 3, 0, 0},
    {7, 1, {3}, 1, 0.5f, 0, 0, 0, 1, 4, 0, 0},
    /* The vec4 path. */
    {4, 3, {1, 2, 3}, 1, 0.37f, 0, 0, 1, 1, 0, 1, 0},
    {4100, 3, {1, 2, 3}, 1, 0, 0, 1, 1, 1, 0, 1, 0},
    {4100, 2, {1, 2}, 0, 0, 1, 1, 0, 1, 1, 1, 0},
    {4100, 1, {1}, 1, 0.5f, 0, 0, 0, 1, 2, 1, 0},
    {1000000, 3, {1, 2, 3}, 1, 0.25f, 0, 0, 1, 0, 0, 1, 0},
    /* The update count chosen on the device (prev_guard). */
    {4099, 3, {2, 3, 4}, 1, 0, 0, 1, 0, 1, 0, 0, 1},
    {4099, 3, {2, 3, 4}, 1, 0.5f, 0, 1, 0, 1, 1, 0, 2},
    {7, 2, {2, 3}, 0, 0, 0, 1, 1, 1, 0, 0, 3},
    {4100, 2, {2, 3}, 0, 0, 0, 1, 0, 1, 0, 1, 2},
    {4100, 2, {2, 1000}, 1, 0, 0, 1, 0, 1, 1, 1, 1},
};

static const char *const guard_names[] = {"", " guard", " guard=nan", " guard=inf",
                                          " guard=2e19"};
static const char *const prev_names[] = {"", " prev", " prev=nan", " prev=2e19"};

static const float LR = 3e-3f, BETA1 = 0.9f, BETA2 = 0.95f, EPS = 1e-8f, WD = 0.1f;

/* A different rate at each update, as a schedule gives. */
static float lr_of(uint32_t step)
{
    return LR * (1.0f + 0.25f * (float)step);
}

static void run_case(cf_state *cf, const adam_case *e)
{
    char shape[96];
    int len = snprintf(shape, sizeof(shape), "n=%u t=", e->n);
    for (uint32_t s = 0; s < e->n_steps; s++)
        len += snprintf(shape + len, sizeof(shape) - (size_t)len, "%s%llu", s ? "," : "",
                        (unsigned long long)e->t[s]);
    snprintf(shape + len, sizeof(shape) - (size_t)len, "%s%s%s%s%s%s%s%s", e->decay ? " wd" : "",
             e->scale != 0 ? " scale" : "", e->clip ? " clip" : "", e->step_buffer ? " stepbuf" : "",
             e->fresh ? " m=v=0" : "", guard_names[e->guard], prev_names[e->prev], e->vec4 ? " vec4" : "");
    cf_case *c = cf_begin(cf, "adamw", "update", shape);
    if (!c)
        return;
    size_t n = e->n;
    float *p0 = cf_random(c, n, -1, 1), *g = cf_random(c, n, -1, 1);
    float *m0 = cf_random(c, n, -0.1f, 0.1f), *v0 = cf_random(c, n, 0, 0.01f);
    if (!p0 || !g || !m0 || !v0)
        goto end;
    if (e->fresh)
        for (size_t i = 0; i < n; i++)
            m0[i] = v0[i] = 0;
    svk_tref tg = cf_input(c, "g", g, n);
    cf_out *p = cf_output_at(c, "p", n, p0, e->vec4), *m = cf_output_at(c, "m", n, m0, e->vec4);
    cf_out *v = cf_output_at(c, "v", n, v0, e->vec4);
    cf_out *clip_out = e->clip ? cf_output(c, "clip", 2, NULL) : NULL;
    if (!p || !m || !v || (e->clip && !clip_out))
        goto end;
    svk_tref tscale = {0};
    if (e->scale != 0)
        tscale = cf_input(c, "scale", &e->scale, 1);
    if (e->clip) {
        uint64_t size = n;
        svk_clip_args ca = {
            .count = 1, .grads = &tg, .sizes = &size,
            .partials = cf_input(c, "partials", NULL, svk_clip_scratch_elems(1, &size)),
            .max_norm = 1.0f, .out = cf_tref(clip_out),
        };
        if (!cf_ok(c, svk_clip_record(cf_list(c), &ca)))
            goto end;
        tscale = (svk_tref){clip_out->buf, cf_tref(clip_out).off + 1};
    }
    svk_tref tguard = {0};
    if (e->guard) {
        const float guard_values[][2] = {{0, 0}, {2.5f, 3.0f}, {NAN, 3.0f}, {2.5f, INFINITY}, {2.5f, 2e19f}};
        tguard = cf_input(c, "guard", guard_values[e->guard], 2);
    }
    svk_tref tprev = {0};
    if (e->prev) {
        const float prev_values[][2] = {{0, 0}, {2.5f, 3.0f}, {NAN, 3.0f}, {2.5f, 2e19f}};
        tprev = cf_input(c, "prev", prev_values[e->prev], 2);
    }
    for (uint32_t s = 0; s < e->n_steps; s++) {
        svk_adamw_args a = {
            .n = n, .p = cf_tref(p), .g = tg, .m = cf_tref(m), .v = cf_tref(v), .scale = tscale,
            .lr = lr_of(s), .t = e->t[s], .beta1 = BETA1, .beta2 = BETA2, .eps = EPS, .weight_decay = WD,
            .decay = e->decay, .guard = tguard,
        };
        if (e->step_buffer) {
            /* What the host would write into mapped memory before each
             * submission; here each update has its own buffer. */
            float sv[5];
            if (e->prev) {
                svk_adamw_step_values_prev(e->t[s], true, lr_of(s), BETA1, BETA2, sv);
                a.prev_guard = tprev;
            } else {
                svk_adamw_step_values(e->t[s], lr_of(s), BETA1, BETA2, sv);
            }
            a.step = cf_input(c, "step", sv, e->prev ? 5 : 3);
            a.lr = NAN; /* must not be used */
            a.t = 0;
        }
        if (!cf_ok(c, svk_adamw_record(cf_list(c), &a)))
            goto end;
    }
    if (!cf_run(c))
        goto end;

    double *rp = cf_to_double(c, p0, n), *rm = cf_to_double(c, m0, n), *rv = cf_to_double(c, v0, n);
    double *rg = cf_to_double(c, g, n);
    if (!rp || !rm || !rv || !rg)
        goto end;
    double scale = e->scale != 0 ? e->scale : 1.0;
    if (e->clip) {
        const double *arr[1] = {rg};
        size_t sz = n;
        scale = svk_ref_clip_scale_f64(svk_ref_global_norm_f64(1, arr, &sz), 1.0);
        cf_compare_scalar(c, "clip scale", clip_out->host[1], scale, TOL_ADAMW);
    }
    /* A guard that is not finite: the reference takes no update at all. */
    for (uint32_t s = 0; s < e->n_steps && e->guard < 2; s++)
        svk_ref_adamw_f64(n, rp, rg, rm, rv, scale, lr_of(s), BETA1, BETA2, EPS, WD, e->decay,
                          e->prev >= 2 ? e->t[s] - 1 : e->t[s]);
    cf_compare(c, p, rp, TOL_ADAMW);
    cf_compare(c, m, rm, TOL_ADAMW);
    cf_compare(c, v, rv, TOL_ADAMW);
end:
    cf_end(c);
}

void cf_run_adamw(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!cf->quick || cases[i].quick)
            run_case(cf, &cases[i]);
}
