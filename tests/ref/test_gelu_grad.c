/* Gradient check of tanh-form GELU (lib/ref/gelu.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t n;
    double *x, *r, *out;
} ctx;

static double objective(void *p)
{
    ctx *c = p;
    svk_ref_gelu_fwd_f64(c->n, c->x, c->out);
    return rt_dot(c->out, c->r, c->n);
}

static void run(rt *t, size_t n, double scale)
{
    ctx c = {n, rt_zeros(n), rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.x, n, 0, scale);
    rt_fill_normal(t, c.r, n, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "gelu n=%zu scale=%g", n, scale);
    double *out = rt_nans(n), *dx = rt_nans(n), *fd = rt_zeros(n);
    svk_ref_gelu_fwd_f64(n, c.x, out);
    svk_ref_gelu_bwd_f64(n, c.x, c.r, dx);
    rt_fd_grad(objective, &c, c.x, n, fd);
    snprintf(s, sizeof(s), "%s dx", name);
    rt_check_grad(t, s, dx, fd, n, TOL_FD);

    float *x32 = rt_to_f32(c.x, n), *r32 = rt_to_f32(c.r, n);
    float *o32 = rt_alloc(n, 4), *d32 = rt_alloc(n, 4);
    svk_ref_gelu_fwd_f32(n, x32, o32);
    svk_ref_gelu_bwd_f32(n, x32, r32, d32);
    snprintf(s, sizeof(s), "%s out", name);
    rt_check_f32(t, s, o32, out, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dx", name);
    rt_check_f32(t, s, d32, dx, n, TOL_F32);

    free(x32); free(r32); free(o32); free(d32); free(out); free(dx); free(fd);
    free(c.x); free(c.r); free(c.out);
}

/* Values from the spec's formula at points where it is known in closed form
 * or by its limits; large |x| must give the limits, not NaN. */
static void run_values(rt *t)
{
    static const double x[] = {0, 1, -1, 30, -30, 1e4, -1e4};
    /* 0.5 (1 + tanh(sqrt(2/pi) 1.044715)), computed independently in double. */
    double g1 = 0.5 * (1 + tanh(sqrt(2 / 3.14159265358979323846) * 1.044715));
    const double want[] = {0, g1, -(1 - g1), 30, 0, 1e4, 0};
    const double want_d[] = {0.5, NAN, NAN, 1, 0, 1, 0};
    double out[7], d[7], ones[7] = {1, 1, 1, 1, 1, 1, 1};
    svk_ref_gelu_fwd_f64(7, x, out);
    svk_ref_gelu_bwd_f64(7, x, ones, d);
    int ok = 1;
    for (int i = 0; i < 7; i++) {
        if (!(fabs(out[i] - want[i]) <= 1e-15 * fmax(1, fabs(want[i]))))
            ok = 0;
        if (!isnan(want_d[i]) && d[i] != want_d[i])
            ok = 0;
        if (!isfinite(d[i]))
            ok = 0;
    }
    rt_check(t, ok, "gelu values: gelu(0) = 0, gelu(+-1), gelu'(0) = 0.5, limits at +-30 and +-1e4");
    float x32[7], o32[7], d32[7], one32[7] = {1, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < 7; i++)
        x32[i] = (float)x[i];
    svk_ref_gelu_fwd_f32(7, x32, o32);
    svk_ref_gelu_bwd_f32(7, x32, one32, d32);
    ok = 1;
    for (int i = 0; i < 7; i++)
        if (!isfinite(o32[i]) || !isfinite(d32[i]) ||
            fabs(o32[i] - want[i]) > 1e-6 * fmax(1, fabs(want[i])))
            ok = 0;
    rt_check(t, ok, "gelu values (f32): the same, finite");
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const struct { size_t n; double scale; } sizes[] = {{1, 1}, {17, 1}, {200, 3}, {64, 0.05}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].n, sizes[i].scale);
    run_values(&t);
    return rt_finish(&t, "test_gelu_grad");
}
