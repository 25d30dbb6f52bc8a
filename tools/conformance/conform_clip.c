/*
 * Gradient clipping (shaders/clip_sumsq.comp, clip_scale.comp;
 * lib/ref/clip.c): the global L2 norm over a list of gradient tensors of
 * awkward sizes (1, primes, around the 4096-element partial chunk, a
 * million), in separate buffers or as views into one slab, and the clip
 * scale with clipping active, inactive (norm below max_norm) and off
 * (max_norm 0), with tiny and large gradients, and a NaN gradient (the norm
 * and the scale must come out NaN, as the reference's do), and one that
 * overflows float (the norm must come out +inf, and the scale 0).
 * Every case runs in both forms of clip_sumsq (the tuning's variant): "norm"
 * is the portable form, "norm-cpu" the CPU form (one invocation per slot,
 * vec4 loads where a tensor starts on a multiple of 4 elements: the slab
 * cases put every tensor at an odd offset, the others at 0).
 * The "scaled" cases give clip_scale fp16's loss scaler (lib/ref/
 * loss_scale.c): the gradients are taken as scaled by S, so the norm and
 * the scale must be the reference's times 1/S, and the scaler must come
 * out as the reference's update leaves it, bit for bit: growth, no change,
 * and an overflow's halving, at the top and bottom of S's range.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "common/push_clip.h"
#include "ops/clip.h"

/* The norm: float squares summed sequentially over 16 elements per
 * invocation, then float trees over 256 invocations and over the partial
 * slots (the reference sums in double). Each level adds about 2^-24 times
 * its depth in relative error, all terms being positive: ~20 levels, 1.2e-6
 * worst case for the sum, half of it for its square root. The scale is one
 * division further (2.5 ULP). The CPU form's sums are compensated, a few
 * ULP over any length. */
static const double TOL_CLIP_NORM = 2e-6;
static const double TOL_CLIP_SCALE = 2e-6;

#define MAX_TENSORS 6

typedef struct clip_case {
    uint32_t count;
    uint32_t sizes[MAX_TENSORS];
    float mag;        /* gradients uniform in [-mag, mag] */
    float max_norm;
    int slab;         /* all tensors are views into one buffer */
    int nan;          /* one gradient element is NaN (or, with 2, 3e19: its square overflows) */
    int quick;
    float loss_scale; /* 0: no loss scaler; else its S */
    float good;       /* the scaler's count of good steps */
    uint32_t interval;
} clip_case;

static const clip_case cases[] = {
    {1, {1}, 1.0f, 1.0f, 0, 0, 1, 0, 0, 0},
    {1, {1}, 1e-3f, 1.0f, 0, 0, 1, 0, 0, 0},
    {1, {4096}, 1.0f, 0.0f, 0, 0, 1, 0, 0, 0},
    {4, {7, 4096, 4097, 1}, 1.0f, 1.0f, 0, 0, 1, 0, 0, 0},
    {4, {7, 4096, 4097, 1}, 1.0f, 1.0f, 1, 0, 1, 0, 0, 0},
    {3, {100003, 12, 196613}, 1e-4f, 1.0f, 0, 0, 1, 0, 0, 0},
    {3, {100003, 12, 196613}, 30.0f, 0.5f, 1, 0, 0, 0, 0, 0},
    {6, {768, 2304, 589824, 3, 65536, 1}, 1e-2f, 1.0f, 1, 0, 0, 0, 0, 0},
    {1, {1000003}, 1.0f, 1.0f, 0, 0, 0, 0, 0, 0},
    {2, {5000, 77}, 1.0f, 1.0f, 0, 1, 1, 0, 0, 0},
    {2, {5000, 77}, 1.0f, 0.0f, 0, 1, 0, 0, 0, 0},
    {2, {5000, 77}, 1.0f, 1.0f, 0, 2, 1, 0, 0, 0},
    {2, {5000, 77}, 1024.0f, 1.0f, 0, 0, 1, 1024.0f, 2, 3},
    {3, {100003, 12, 196613}, 65536.0f, 1.0f, 1, 0, 1, 65536.0f, 7, 2000},
    {2, {5000, 77}, 1.0f, 1.0f, 0, 2, 1, 65536.0f, 5, 2000},
    {2, {5000, 77}, 1.0f, 1.0f, 0, 2, 0, 0x1p-24f, 1, 2000},
    {1, {4097}, 1.0f, 1.0f, 0, 0, 0, 0x1p24f, 9, 10},
};

static void run_case(cf_state *cf, const clip_case *e, const char *dir)
{
    char shape[96];
    int len = snprintf(shape, sizeof(shape), "%u grad%s", e->count, e->count > 1 ? "s" : "");
    uint64_t total = 0;
    for (uint32_t i = 0; i < e->count; i++)
        total += e->sizes[i];
    len += snprintf(shape + len, sizeof(shape) - (size_t)len, " %llu |g|<%g max %g%s%s", (unsigned long long)total,
                    (double)e->mag, (double)e->max_norm, e->slab ? " slab" : "",
                    e->nan == 1 ? " NaN" : e->nan == 2 ? " overflow" : "");
    if (e->loss_scale != 0 && len < (int)sizeof(shape))
        snprintf(shape + len, sizeof(shape) - (size_t)len, " scaled %g", (double)e->loss_scale);
    cf_case *c = cf_begin(cf, "clip", dir, shape);
    if (!c)
        return;
    uint64_t sizes[MAX_TENSORS];
    svk_tref grads[MAX_TENSORS];
    float *host[MAX_TENSORS];
    double *dhost[MAX_TENSORS];
    size_t dsizes[MAX_TENSORS];
    /* Slab: every tensor at an odd offset into one buffer, 3 elements apart. */
    size_t slab_n = total + 3 * e->count;
    float *slab = e->slab ? cf_random(c, slab_n, -e->mag, e->mag) : NULL;
    uint64_t offs[MAX_TENSORS], off = 0;
    for (uint32_t i = 0; i < e->count; i++) {
        sizes[i] = dsizes[i] = e->sizes[i];
        off += 3;
        offs[i] = off;
        host[i] = e->slab ? (slab ? slab + off : NULL) : cf_random(c, e->sizes[i], -e->mag, e->mag);
        if (!host[i])
            goto end;
        if (e->nan && i == e->count - 1)
            host[i][e->sizes[i] / 2] = e->nan == 1 ? NAN : 3e19f;
        off += e->sizes[i];
    }
    /* Uploaded once the data is final (NaN included). */
    svk_tref tslab = e->slab ? cf_input(c, "grads", slab, slab_n) : (svk_tref){0};
    for (uint32_t i = 0; i < e->count; i++)
        grads[i] = e->slab ? (svk_tref){tslab.buf, offs[i]} : cf_input(c, "grad", host[i], e->sizes[i]);
    svk_tref partials = cf_input(c, "partials", NULL, svk_clip_scratch_elems(e->count, sizes));
    cf_out *out = cf_output(c, "out", 2, NULL);
    const float scaler0[SVK_LOSS_SCALER_COUNT] = {e->loss_scale, 1.0f / e->loss_scale, e->good};
    cf_out *scaler = e->loss_scale != 0 ? cf_output(c, "scaler", SVK_LOSS_SCALER_COUNT, scaler0) : NULL;
    cf_out *out_scale = e->loss_scale != 0 ? cf_output(c, "loss scale", 1, NULL) : NULL;
    if (!out || (e->loss_scale != 0 && (!scaler || !out_scale)))
        goto end;
    svk_clip_args a = {
        .count = e->count, .grads = grads, .sizes = sizes,
        .partials = partials, .max_norm = e->max_norm, .out = cf_tref(out),
        .state = scaler ? cf_tref(scaler) : (svk_tref){0}, .out_scale = out_scale ? cf_tref(out_scale) : (svk_tref){0},
        .interval = e->interval,
    };
    if (!cf_ok(c, svk_clip_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    for (uint32_t i = 0; i < e->count; i++)
        if (!(dhost[i] = cf_to_double(c, host[i], e->sizes[i])))
            goto end;
    double norm = svk_ref_global_norm_f64(e->count, (const double *const *)dhost, dsizes);
    double scale;
    if (scaler) {
        /* The reference's unscaling and scaler, in lib/model/plan_cpu_tmpl.c's order. */
        double want[SVK_LOSS_SCALER_COUNT] = {scaler0[0], scaler0[1], scaler0[2]};
        const float raw = (float)norm;
        if (!isfinite(raw * raw))
            norm = INFINITY; /* the device's float sum of squares overflowed */
        norm *= want[SVK_LOSS_SCALER_INV];
        scale = svk_ref_clip_scale_f64(norm, e->max_norm) * want[SVK_LOSS_SCALER_INV];
        const float norm_f = (float)norm, norm_sq = norm_f * norm_f;
        svk_ref_loss_scale_update_f64(want, !isfinite(norm_sq) || isnan(norm), e->interval);
        bool same = out_scale->host[0] == scaler0[0];
        for (uint32_t k = 0; k < SVK_LOSS_SCALER_COUNT; k++)
            same = same && scaler->host[k] == (float)want[k];
        if (!same)
            cf_fail(c, "loss scaler: S %g -> %g, 1/S %g, good %g (reference %g, %g, %g); reported S %g (want %g)",
                    (double)scaler0[0], (double)scaler->host[0], (double)scaler->host[1], (double)scaler->host[2],
                    want[0], want[1], want[2], (double)out_scale->host[0], (double)scaler0[0]);
        cf_compare_scalar(c, "loss scaler, bit for bit", same ? 0.0f : 1.0f, 0.0, 0.5);
    } else {
        scale = svk_ref_clip_scale_f64(norm, e->max_norm);
    }
    if (e->nan == 2) {
        /* Overflow: +inf, not NaN (the reference sums in double: finite). */
        int ok = isinf(out->host[0]) && out->host[0] > 0 && out->host[1] == 0;
        if (!ok)
            cf_fail(c, "overflowing gradient: norm %g scale %g, want +inf and 0", (double)out->host[0],
                    (double)out->host[1]);
        cf_compare_scalar(c, "overflow to +inf", ok ? 0.0f : 1.0f, 0.0, 0.5);
    } else if (e->nan) {
        /* NaN in, NaN out: a non-finite gradient must poison the update,
         * never pass as "no clipping". (With max_norm 0 the scale is 1.) */
        int ok = isnan(out->host[0]) && isnan(norm) &&
                 (e->max_norm == 0 ? out->host[1] == 1 && scale == 1 : isnan(out->host[1]) && isnan(scale));
        if (!ok)
            cf_fail(c, "NaN gradient: norm %g scale %g (reference %g, %g)", (double)out->host[0],
                    (double)out->host[1], norm, scale);
        cf_compare_scalar(c, "NaN propagated", ok ? 0.0f : 1.0f, 0.0, 0.5);
    } else {
        cf_compare_scalar(c, "norm", out->host[0], norm, TOL_CLIP_NORM);
        cf_compare_scalar(c, "scale", out->host[1], scale, TOL_CLIP_SCALE);
    }
end:
    cf_end(c);
}

void cf_run_clip(cf_state *cf)
{
    static const char *const variants[][2] = {{"portable", "norm"}, {"cpu", "norm-cpu"}};
    /* The caller's tuning, restored at the end. */
    const svk_ctx_tuning saved = cf_tuning(cf);
    for (size_t v = 0; v < 2; v++) {
        cf_tune_variant(cf, &saved, variants[v][0]);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            if (!cf->quick || cases[i].quick)
                run_case(cf, &cases[i], variants[v][1]);
    }
    cf_tune(cf, &saved);
}
