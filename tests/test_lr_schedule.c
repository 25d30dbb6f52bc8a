/*
 * The learning-rate schedules of the public API (svk/model.h):
 * svk_lr_schedule_ex's shapes at points known in closed form (docs/MODEL.md,
 * "Optimiser"), its cosine bit for bit svk_lr_schedule's, and its refusals.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svk/svk.h"
#include "test_util.h"

static float at(svk_lr_shape shape, uint64_t step, uint64_t total, uint64_t warmup, float peak, float frac,
                svk_status *st)
{
    svk_lr_params p = svk_lr_params_default();
    p.shape = shape;
    p.total = total;
    p.warmup = warmup;
    p.peak = peak;
    p.decay_frac = frac;
    float lr = -1;
    *st = svk_lr_schedule_ex(&p, step, &lr);
    return lr;
}

static void value(tu_tally *t, svk_lr_shape shape, uint64_t step, uint64_t total, uint64_t warmup, float frac,
                  double want, const char *why)
{
    const float peak = 1e-3f;
    svk_status st;
    float lr = at(shape, step, total, warmup, peak, frac, &st);
    const float w = (float)(want * (double)peak);
    tu_check(t, st == SVK_OK && fabsf(lr - w) <= 1e-7f * w,
             "shape %d step %llu of %llu, warmup %llu, decay_frac %g: %.9g, want %.9g peak = %.9g (%s)", (int)shape,
             (unsigned long long)step, (unsigned long long)total, (unsigned long long)warmup, (double)frac,
             (double)lr, want, (double)w, why);
}

static void refused(tu_tally *t, svk_lr_params p, uint64_t step, const char *want, const char *why)
{
    float lr = 0;
    svk_status st = svk_lr_schedule_ex(&p, step, &lr);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), want),
             "refused: %s: status %d, message '%s' names '%s'", why, (int)st, svk_last_error(), want);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_lr_schedule", &args);
    tu_tally t = {0, 0};

    /* The defaults. */
    svk_lr_params d = svk_lr_params_default();
    tu_check(&t, d.shape == SVK_LR_COSINE && d.total == 1 && d.warmup == 0 && d.peak == 0 && d.decay_frac == 0.2f &&
                     !d.reserved[0] && !d.reserved[1],
             "svk_lr_params_default: cosine, total 1, warmup 0, peak 0, decay_frac 0.2, reserved zero");

    /* Cosine: svk_lr_schedule's, bit for bit, at every step of a few runs. */
    bool same = true;
    const uint64_t runs[][2] = {{1, 0}, {7, 3}, {100, 10}, {1000, 100}, {50, 80}};
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
        for (uint64_t s = 0; s < runs[r][0]; s++) {
            float a = -1, b = -2;
            svk_status st;
            b = at(SVK_LR_COSINE, s, runs[r][0], runs[r][1], 3e-3f, 0.2f, &st);
            if (st != SVK_OK || svk_lr_schedule(s, runs[r][0], runs[r][1], 3e-3f, &a) != SVK_OK ||
                memcmp(&a, &b, sizeof(a)))
                same = false;
        }
    tu_check(&t, same, "SVK_LR_COSINE gives svk_lr_schedule's floats, bit for bit");

    /* Constant: the peak at every step, the warm-up not used. */
    value(&t, SVK_LR_CONSTANT, 0, 100, 10, 0.2f, 1, "constant: the first step, no warm-up");
    value(&t, SVK_LR_CONSTANT, 99, 100, 10, 0.2f, 1, "constant: the last step");

    /* WSD, 100 steps, 10 of warm-up, the last 20 decaying. */
    value(&t, SVK_LR_WSD, 0, 100, 10, 0.2f, 0.1, "wsd: first warm-up step, (s + 1) / W");
    value(&t, SVK_LR_WSD, 9, 100, 10, 0.2f, 1, "wsd: last warm-up step reaches the peak");
    value(&t, SVK_LR_WSD, 10, 100, 10, 0.2f, 1, "wsd: stable");
    value(&t, SVK_LR_WSD, 79, 100, 10, 0.2f, 1, "wsd: the last stable step");
    value(&t, SVK_LR_WSD, 80, 100, 10, 0.2f, 1 - 0.9 / 20, "wsd: the first decay step, k = 1 of D = 20");
    value(&t, SVK_LR_WSD, 89, 100, 10, 0.2f, 0.55, "wsd: half way down the decay, k = 10");
    value(&t, SVK_LR_WSD, 99, 100, 10, 0.2f, 0.1, "wsd: the last step, a tenth of the peak");
    /* D = floor(frac * total + 0.5): 0.25 * 10 = 2.5 rounds to 3. */
    value(&t, SVK_LR_WSD, 6, 10, 0, 0.25f, 1, "wsd: D = 3 of 10: step 6 still stable");
    value(&t, SVK_LR_WSD, 7, 10, 0, 0.25f, 0.7, "wsd: D = 3 of 10: step 7 decays, 1 - 0.9 / 3");
    value(&t, SVK_LR_WSD, 9, 10, 0, 0.25f, 0.1, "wsd: D = 3 of 10: the last step");
    /* decay_frac 0: a warm-up, then the peak to the end. */
    value(&t, SVK_LR_WSD, 4, 100, 10, 0, 0.5, "wsd, decay_frac 0: the warm-up");
    value(&t, SVK_LR_WSD, 99, 100, 10, 0, 1, "wsd, decay_frac 0: the peak at the last step");
    /* decay_frac 1 and no warm-up: the decay is the whole run. */
    value(&t, SVK_LR_WSD, 0, 10, 0, 1, 0.91, "wsd, decay_frac 1: the first step is k = 1 of 10");
    value(&t, SVK_LR_WSD, 9, 10, 0, 1, 0.1, "wsd, decay_frac 1: the last");
    /* The warm-up wins where it overlaps the decay. */
    value(&t, SVK_LR_WSD, 8, 10, 9, 0.5f, 1, "wsd: warm-up over the decay's steps: (8 + 1) / 9 = 1");
    value(&t, SVK_LR_WSD, 9, 10, 9, 0.5f, 0.1, "wsd: after a long warm-up, the last step is still a tenth");
    value(&t, SVK_LR_WSD, 0, 1, 0, 0.2f, 1, "wsd: a single step, D = 0: the peak");

    /* Monotone: up through the warm-up, flat, then down. */
    bool mono = true;
    float prev = 0;
    for (uint64_t s = 0; s < 1000; s++) {
        svk_status st;
        float lr = at(SVK_LR_WSD, s, 1000, 100, 1e-3f, 0.2f, &st);
        if (st != SVK_OK || (s < 100 ? !(lr > prev) : s < 800 ? lr != 1e-3f : !(lr < prev)))
            mono = false;
        prev = lr;
    }
    tu_check(&t, mono, "wsd over 1000 steps: up through the warm-up (100), flat to step 799, then down every step");

    /* Refusals, naming the value. */
    svk_lr_params p = svk_lr_params_default();
    p.total = 10;
    p.peak = 1e-3f;
    refused(&t, p, 10, "step 10", "step past the run");
    svk_lr_params q = p;
    q.shape = (svk_lr_shape)7;
    refused(&t, q, 0, "shape 7", "an unknown shape");
    q = p;
    q.shape = SVK_LR_WSD;
    q.decay_frac = 1.5f;
    refused(&t, q, 0, "decay_frac=1.5", "decay_frac above 1");
    q.decay_frac = NAN;
    refused(&t, q, 0, "decay_frac=nan", "decay_frac NaN");
    q = p;
    q.shape = SVK_LR_CONSTANT;
    q.peak = INFINITY;
    refused(&t, q, 0, "peak=inf", "peak infinite");
    q = p;
    q.reserved[1] = 3;
    refused(&t, q, 0, "reserved[1]", "a reserved word set");
    float lr;
    tu_check(&t, svk_lr_schedule_ex(NULL, 0, &lr) == SVK_ERROR_INVALID_ARG && svk_lr_schedule_ex(&p, 0, NULL) ==
                     SVK_ERROR_INVALID_ARG,
             "refused: p NULL, lr NULL");
    return tu_finish(&t);
}
