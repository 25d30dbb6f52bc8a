/*
 * Gradient check of the fused softmax + cross-entropy (lib/ref/cross_entropy.c)
 * and its forward properties: stability at large logits, ignored and invalid
 * targets, the all-ignored batch, values known in closed form.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t rows, V;
    const int32_t *targets;
    double *logits;
} ctx;

/* L = the loss itself: dlogits is its gradient. */
static double objective(void *p)
{
    ctx *c = p;
    return svk_ref_cross_entropy_f64(c->rows, c->V, c->logits, c->targets, NULL, NULL, NULL);
}

static int all_eq(const double *a, double v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != v)
            return 0;
    return 1;
}

static void run(rt *t, size_t rows, size_t V, double scale, int ignore_some)
{
    size_t n = rows * V;
    int32_t *tg = rt_alloc(rows, sizeof(int32_t));
    for (size_t r = 0; r < rows; r++)
        tg[r] = (ignore_some && r % 3 == 1) ? -1 : (int32_t)rt_below(t, (uint32_t)V);
    ctx c = {rows, V, tg, rt_zeros(n)};
    rt_fill_normal(t, c.logits, n, 0.5, scale);
    char name[128], s[256];
    snprintf(name, sizeof(name), "cross_entropy rows=%zu V=%zu scale=%g%s", rows, V, scale,
             ignore_some ? " some ignored" : "");

    double *dl = rt_nans(n), *losses = rt_nans(rows), *fd = rt_zeros(n);
    size_t invalid = 99;
    double loss = svk_ref_cross_entropy_f64(rows, V, c.logits, tg, dl, losses, &invalid);
    rt_fd_grad(objective, &c, c.logits, n, fd);
    snprintf(s, sizeof(s), "%s dlogits", name);
    rt_check_grad(t, s, dl, fd, n, TOL_FD);

    /* The loss is the mean of the per-row losses over counted rows; ignored
     * rows have loss 0 and a zero gradient row. */
    double sum = 0, ign_ok = 1;
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        if (tg[r] >= 0) {
            sum += losses[r];
            count++;
        } else if (losses[r] != 0 || !all_eq(dl + r * V, 0, V)) {
            ign_ok = 0;
        }
    }
    rt_check(t, invalid == 0 && ign_ok && fabs(loss - sum / (double)count) <= 1e-15 * loss,
             "%s: loss = mean of %zu counted row losses, ignored rows 0", name, count);

    /* dlogits may overwrite logits. */
    double *io = rt_copy(c.logits, n);
    double loss_io = svk_ref_cross_entropy_f64(rows, V, io, tg, io, NULL, NULL);
    rt_check(t, loss_io == loss && !memcmp(io, dl, n * sizeof(double)),
             "%s: dlogits == logits gives the same bits", name);

    float *l32 = rt_to_f32(c.logits, n), *dl32 = rt_alloc(n, 4), *ls32 = rt_alloc(rows, 4);
    float loss32 = svk_ref_cross_entropy_f32(rows, V, l32, tg, dl32, ls32, NULL);
    snprintf(s, sizeof(s), "%s loss", name);
    rt_check_f32(t, s, &loss32, &loss, 1, TOL_F32);
    snprintf(s, sizeof(s), "%s losses", name);
    rt_check_f32(t, s, ls32, losses, rows, TOL_F32);
    snprintf(s, sizeof(s), "%s dlogits", name);
    rt_check_f32(t, s, dl32, dl, n, TOL_F32);

    free(l32); free(dl32); free(ls32); free(io);
    free(dl); free(losses); free(fd); free(tg); free(c.logits);
}

/* Logits around 1e4: every value is a multiple of 2^-10 below 2^4, so
 * adding 1e4 is exact in float and double; the max-shifted computation then
 * sees identical differences, and loss and dlogits must match bit for bit. */
static void run_large(rt *t)
{
    enum { R = 5, V = 37 };
    double l[R * V], big[R * V], dl[R * V], dlb[R * V];
    float l32[R * V], big32[R * V], dl32[R * V], dlb32[R * V];
    int32_t tg[R] = {0, 36, 5, -1, 17};
    for (int i = 0; i < R * V; i++) {
        l[i] = ldexp((double)rt_below(t, 16 * 1024), -10) - 8;
        big[i] = l[i] + 1e4;
        l32[i] = (float)l[i];
        big32[i] = (float)big[i];
    }
    double a = svk_ref_cross_entropy_f64(R, V, l, tg, dl, NULL, NULL);
    double b = svk_ref_cross_entropy_f64(R, V, big, tg, dlb, NULL, NULL);
    rt_check(t, isfinite(b) && a == b && !memcmp(dl, dlb, sizeof(dl)),
             "cross_entropy logits + 1e4 (f64): loss %.17g == %.17g, dlogits identical", b, a);
    float a32 = svk_ref_cross_entropy_f32(R, V, l32, tg, dl32, NULL, NULL);
    float b32 = svk_ref_cross_entropy_f32(R, V, big32, tg, dlb32, NULL, NULL);
    rt_check(t, isfinite(b32) && a32 == b32 && !memcmp(dl32, dlb32, sizeof(dl32)),
             "cross_entropy logits + 1e4 (f32): loss %.9g == %.9g, dlogits identical", b32, a32);

    /* A spread of +-1e4 within a row: exp underflows to 0 for most terms,
     * nothing overflows, every gradient row sums to ~0. */
    for (int i = 0; i < R * V; i++) {
        big[i] = rt_uniform(t, -1e4, 1e4);
        big32[i] = (float)big[i];
    }
    b = svk_ref_cross_entropy_f64(R, V, big, tg, dlb, NULL, NULL);
    b32 = svk_ref_cross_entropy_f32(R, V, big32, tg, dlb32, NULL, NULL);
    int ok = isfinite(b) && isfinite(b32) && b >= 0;
    for (int r = 0; r < R; r++) {
        double s = 0, s32 = 0;
        for (int i = 0; i < V; i++) {
            ok = ok && isfinite(dlb[r * V + i]) && isfinite(dlb32[r * V + i]);
            s += dlb[r * V + i];
            s32 += dlb32[r * V + i];
        }
        ok = ok && fabs(s) <= 1e-14 && fabs(s32) <= 1e-6;
    }
    rt_check(t, ok, "cross_entropy logits spread +-1e4: loss finite (%.6g, f32 %.6g), rows of dlogits sum to 0",
             b, b32);
}

/* Values known in closed form, -1 and invalid targets, an all-ignored batch. */
static void run_values(rt *t)
{
    /* Row 0: (0, 0), target 0: loss ln 2, dlogits (-1/2, 1/2) / count.
     * Row 1: ignored. Row 2: (ln 3, 0), target 1: p = (3/4, 1/4), loss ln 4.
     * Row 3: target 2 (= V, invalid). Row 4: target -7 (invalid). */
    const double l[10] = {0, 0, 5, -5, log(3.0), 0, 1, 2, 3, 4};
    const int32_t tg[5] = {0, -1, 1, 2, -7};
    double dl[10], losses[5];
    size_t invalid = 0;
    double loss = svk_ref_cross_entropy_f64(5, 2, l, tg, dl, losses, &invalid);
    double want = (log(2.0) + log(4.0)) / 2;
    const double want_dl[10] = {-0.25, 0.25, 0, 0, 0.375, -0.375, 0, 0, 0, 0};
    double e = fabs(loss - want);
    for (int i = 0; i < 10; i++)
        e = fmax(e, fabs(dl[i] - want_dl[i]));
    rt_check(t, e <= 1e-15 && invalid == 2 && losses[1] == 0 && losses[3] == 0 && losses[4] == 0,
             "cross_entropy closed form: loss (ln 2 + ln 4) / 2 = %.17g (err %.2g), 2 invalid targets counted, ignored",
             loss, e);

    const int32_t none[5] = {-1, -1, -1, -1, -1};
    double dl0[10], ls0[5];
    for (int i = 0; i < 10; i++)
        dl0[i] = NAN;
    for (int i = 0; i < 5; i++)
        ls0[i] = NAN;
    double z = svk_ref_cross_entropy_f64(5, 2, l, none, dl0, ls0, NULL);
    rt_check(t, z == 0 && all_eq(dl0, 0, 10) && all_eq(ls0, 0, 5),
             "cross_entropy all targets -1: loss 0, dlogits 0, losses 0");
    z = svk_ref_cross_entropy_f64(0, 2, l, none, NULL, NULL, NULL);
    rt_check(t, z == 0, "cross_entropy zero rows: loss 0");
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const struct { size_t rows, V; double scale; int ignore; } sizes[] = {
        {1, 2, 1, 0}, {5, 7, 1, 1}, {9, 31, 3, 1}, {4, 256, 2, 0}, {3, 1, 1, 0}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].rows, sizes[i].V, sizes[i].scale, sizes[i].ignore);
    run_large(&t);
    run_values(&t);
    return rt_finish(&t, "test_cross_entropy_grad");
}
