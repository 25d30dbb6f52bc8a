/* The learning-rate schedule reference (lib/ref/lr_schedule.c) against the
 * spec's formula at the points where it is known in closed form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref.h"
#include "ref_test_util.h"

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-15 * fabs(b);
}

static void at(rt *t, uint64_t s, uint64_t S, uint64_t W, double peak, double want, const char *why)
{
    double lr = svk_ref_lr_schedule_f64(s, S, W, peak);
    float lr32 = svk_ref_lr_schedule_f32(s, S, W, (float)peak);
    rt_check(t, close_to(lr, want) && fabs(lr32 - want) <= 1e-7 * want,
             "lr_schedule(step %llu, total %llu, warmup %llu, peak %g) = %.17g, want %.17g (%s); f32 %.9g",
             (unsigned long long)s, (unsigned long long)S, (unsigned long long)W, peak, lr, want, why,
             lr32);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    const double pk = 1e-3;
    at(&t, 0, 100, 10, pk, pk / 10, "first warm-up step: peak (s + 1) / W");
    at(&t, 4, 100, 10, pk, pk / 2, "mid warm-up");
    at(&t, 9, 100, 10, pk, pk, "last warm-up step reaches peak");
    at(&t, 10, 100, 10, pk, pk, "first decay step: cos(0)");
    at(&t, 99, 100, 10, pk, 0.1 * pk, "last step: 0.1 peak");
    at(&t, 500, 100, 10, pk, 0.1 * pk, "past the end: clamped");
    at(&t, 10, 21, 0, pk, 0.55 * pk, "no warm-up, half way: 0.1 + 0.45 (1 + cos(pi / 2))");
    at(&t, 0, 21, 0, pk, pk, "no warm-up: starts at peak");
    at(&t, 0, 1, 0, pk, pk, "a single step: S - 1 - W = 0, max(1, .) keeps it finite");
    at(&t, 4, 5, 10, pk, pk / 2, "warm-up longer than the run");
    at(&t, 20, 41, 10, pk, 0.775 * pk, "p = 10 / 30: 0.1 + 0.45 (1 + cos(pi / 3))");

    /* Warm-up-stable-decay: 100 steps, 10 of warm-up, the last 20 decaying
     * linearly to a tenth of the peak. */
    const struct { uint64_t s; double want; const char *why; } wsd[] = {
        {0, pk / 10, "wsd: first warm-up step"},      {9, pk, "wsd: last warm-up step"},
        {79, pk, "wsd: last stable step"},            {80, pk * (1 - 0.9 / 20), "wsd: first decay step"},
        {89, 0.55 * pk, "wsd: half way down"},        {99, 0.1 * pk, "wsd: last step, 0.1 peak"},
    };
    for (size_t i = 0; i < sizeof(wsd) / sizeof(wsd[0]); i++) {
        double lr = svk_ref_lr_wsd_f64(wsd[i].s, 100, 10, 0.2, pk);
        rt_check(&t, close_to(lr, wsd[i].want), "lr_wsd(step %llu, total 100, warmup 10, 0.2, peak %g) = %.17g, "
                 "want %.17g (%s)", (unsigned long long)wsd[i].s, pk, lr, wsd[i].want, wsd[i].why);
    }

    /* Monotone: increasing through warm-up, non-increasing afterwards. */
    int ok = 1;
    double prev = 0;
    for (uint64_t s = 0; s < 1000; s++) {
        double lr = svk_ref_lr_schedule_f64(s, 1000, 100, pk);
        if (s < 100 ? !(lr > prev) : !(lr <= prev))
            ok = 0;
        prev = lr;
    }
    rt_check(&t, ok, "lr_schedule monotone: up through warm-up (100), down to 0.1 peak after (S 1000)");
    return rt_finish(&t, "test_lr_schedule");
}
