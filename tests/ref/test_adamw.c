/* The AdamW reference (lib/ref/adamw.c) against values computed by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

/* lr 0.1, betas (0.9, 0.95), eps 1e-8, wd 0.1, p = 1, m = v = 0; gradient
 * 0.5 at t = 1, then -0.25 at t = 2. Values from docs/MODEL.md's formulas in
 * 40-digit decimal arithmetic:
 *   t = 1: p = 0.99 - 0.1 (0.05 / 0.1) / (sqrt(0.0125 / 0.05) + 1e-8),
 *          m = 0.05, v = 0.0125;
 *   t = 2: m = 0.02, v = 0.015, p as below. */
#define P1 0.89000000199999996000000079999998400
#define P2 0.85426305785582739121899645808243113
#define P1_NO_DECAY 0.90000000199999996000000079999998400

static int rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fabs(b);
}

static void run_hand(rt *t)
{
    double p = 1, g = 0.5, m = 0, v = 0;
    svk_ref_adamw_f64(1, &p, &g, &m, &v, 1, 0.1, 0.9, 0.95, 1e-8, 0.1, 1, 1);
    rt_check(t, rel_close(p, P1, 1e-15) && rel_close(m, 0.05, 1e-15) && rel_close(v, 0.0125, 1e-15),
             "adamw step 1 (decay): p %.17g (want %.17g), m %.17g, v %.17g", p, P1, m, v);
    g = -0.25;
    svk_ref_adamw_f64(1, &p, &g, &m, &v, 1, 0.1, 0.9, 0.95, 1e-8, 0.1, 1, 2);
    rt_check(t, rel_close(p, P2, 1e-14) && rel_close(m, 0.02, 1e-14) && rel_close(v, 0.015, 1e-14),
             "adamw step 2 (decay): p %.17g (want %.17g), m %.17g, v %.17g", p, P2, m, v);

    p = 1, g = 0.5, m = 0, v = 0;
    svk_ref_adamw_f64(1, &p, &g, &m, &v, 1, 0.1, 0.9, 0.95, 1e-8, 0.1, 0, 1);
    rt_check(t, rel_close(p, P1_NO_DECAY, 1e-15),
             "adamw step 1 (no decay: norm gain or bias): p %.17g (want %.17g)", p, P1_NO_DECAY);

    float pf = 1, gf = 0.5f, mf = 0, vf = 0;
    svk_ref_adamw_f32(1, &pf, &gf, &mf, &vf, 1, 0.1f, 0.9f, 0.95f, 1e-8f, 0.1f, 1, 1);
    gf = -0.25f;
    svk_ref_adamw_f32(1, &pf, &gf, &mf, &vf, 1, 0.1f, 0.9f, 0.95f, 1e-8f, 0.1f, 1, 2);
    rt_check(t, rel_close(pf, P2, 1e-6), "adamw two steps (f32): p %.9g (want %.9g)", pf, P2);

    /* A zero gradient from zero moments: mhat = 0, so only the decay acts. */
    p = 2, g = 0, m = 0, v = 0;
    svk_ref_adamw_f64(1, &p, &g, &m, &v, 1, 0.1, 0.9, 0.95, 1e-8, 0.1, 1, 1);
    rt_check(t, p == 2 - 0.1 * 0.1 * 2 && m == 0 && v == 0,
             "adamw zero gradient: decay only, p %.17g", p);
}

/* The clip scale multiplies the gradient before anything else: g = 0.5
 * with scale 0.5 is exactly g = 0.25 with scale 1 (0.5 * 0.5 is exact). */
static void run_scale(rt *t)
{
    double p1 = 1.5, g1 = 0.5, m1 = 0.01, v1 = 0.002;
    double p2 = 1.5, g2 = 0.25, m2 = 0.01, v2 = 0.002;
    svk_ref_adamw_f64(1, &p1, &g1, &m1, &v1, 0.5, 1e-3, 0.9, 0.95, 1e-8, 0.1, 1, 7);
    svk_ref_adamw_f64(1, &p2, &g2, &m2, &v2, 1, 1e-3, 0.9, 0.95, 1e-8, 0.1, 1, 7);
    rt_check(t, p1 == p2 && m1 == m2 && v1 == v2,
             "adamw grad_scale 0.5 on g = 0.5 == scale 1 on g = 0.25, bit for bit");
}

/* First step from zero moments: bias correction makes the update
 * lr * g / (|g| + eps), i.e. lr * sign(g) up to eps / |g| <= 1e-6, whatever |g|. */
static void run_first_step(rt *t)
{
    enum { N = 64 };
    double p[N], g[N], m[N], v[N], p0[N];
    for (int i = 0; i < N; i++) {
        g[i] = (rt_next(t) & 1 ? 1 : -1) * exp(rt_uniform(t, log(1e-2), log(1e3)));
        p[i] = p0[i] = rt_normal(t);
        m[i] = v[i] = 0;
    }
    const double lr = 3e-4;
    svk_ref_adamw_f64(N, p, g, m, v, 1, lr, 0.9, 0.95, 1e-8, 0.1, 0, 1);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double step = p0[i] - p[i], want = lr * (g[i] > 0 ? 1 : -1);
        worst = fmax(worst, fabs(step - want) / lr);
    }
    rt_check(t, worst <= 2e-6, "adamw first step: |update| = lr for |g| in [1e-2, 1e3] (worst rel dev %.2g)",
             worst);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    run_hand(&t);
    run_scale(&t);
    run_first_step(&t);
    return rt_finish(&t, "test_adamw");
}
