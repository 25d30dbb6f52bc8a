/* Gradient check of the SwiGLU gate (lib/ref/swiglu.c). */
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
    double *gate, *up, *r, *out;
} ctx;

static double objective(void *p)
{
    ctx *c = p;
    svk_ref_swiglu_fwd_f64(c->n, c->gate, c->up, c->out);
    return rt_dot(c->out, c->r, c->n);
}

static void run(rt *t, size_t n, double scale)
{
    ctx c = {n, rt_zeros(n), rt_zeros(n), rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.gate, n, 0, scale);
    rt_fill_normal(t, c.up, n, 0, 1);
    rt_fill_normal(t, c.r, n, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "swiglu n=%zu scale=%g", n, scale);
    double *out = rt_nans(n), *dg = rt_nans(n), *du = rt_nans(n), *fd = rt_zeros(n);
    svk_ref_swiglu_fwd_f64(n, c.gate, c.up, out);
    svk_ref_swiglu_bwd_f64(n, c.gate, c.up, c.r, dg, du);
    rt_fd_grad(objective, &c, c.gate, n, fd);
    snprintf(s, sizeof(s), "%s dgate", name);
    rt_check_grad(t, s, dg, fd, n, TOL_FD);
    rt_fd_grad(objective, &c, c.up, n, fd);
    snprintf(s, sizeof(s), "%s dup", name);
    rt_check_grad(t, s, du, fd, n, TOL_FD);

    float *g32 = rt_to_f32(c.gate, n), *u32 = rt_to_f32(c.up, n), *r32 = rt_to_f32(c.r, n);
    float *o32 = rt_alloc(n, 4), *dg32 = rt_alloc(n, 4), *du32 = rt_alloc(n, 4);
    svk_ref_swiglu_fwd_f32(n, g32, u32, o32);
    svk_ref_swiglu_bwd_f32(n, g32, u32, r32, dg32, du32);
    snprintf(s, sizeof(s), "%s out", name);
    rt_check_f32(t, s, o32, out, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dgate", name);
    rt_check_f32(t, s, dg32, dg, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dup", name);
    rt_check_f32(t, s, du32, du, n, TOL_F32);

    free(g32); free(u32); free(r32); free(o32); free(dg32); free(du32);
    free(out); free(dg); free(du); free(fd);
    free(c.gate); free(c.up); free(c.r); free(c.out);
}

/* exp(-gate) overflows for gate << 0: the results must be the limits (0),
 * not NaN; for gate >> 0, silu(gate) = gate. */
static void run_limits(rt *t)
{
    static const double gate[] = {-1000, -100, 0, 100, 1000}, up[] = {2, 2, 2, 2, 2};
    static const double ones[] = {1, 1, 1, 1, 1};
    double out[5], dg[5], du[5];
    svk_ref_swiglu_fwd_f64(5, gate, up, out);
    svk_ref_swiglu_bwd_f64(5, gate, up, ones, dg, du);
    int ok = out[0] == 0 && dg[0] == 0 && du[0] == 0 && out[2] == 0 && dg[2] == 1 &&
             du[2] == 0 && out[4] == 2000 && dg[4] == 2 && du[4] == 1000;
    for (int i = 0; i < 5; i++)
        ok = ok && isfinite(out[i]) && isfinite(dg[i]) && isfinite(du[i]);
    rt_check(t, ok, "swiglu limits: gate -1000 -> 0 (no NaN), 0 -> silu' = 1/2, 1000 -> gate");
    float g32[5], u32[5], one32[5] = {1, 1, 1, 1, 1}, o32[5], dg32[5], du32[5];
    for (int i = 0; i < 5; i++) {
        g32[i] = (float)gate[i];
        u32[i] = (float)up[i];
    }
    svk_ref_swiglu_fwd_f32(5, g32, u32, o32);
    svk_ref_swiglu_bwd_f32(5, g32, u32, one32, dg32, du32);
    ok = o32[0] == 0 && dg32[0] == 0 && o32[4] == 2000 && dg32[4] == 2;
    for (int i = 0; i < 5; i++)
        ok = ok && isfinite(o32[i]) && isfinite(dg32[i]) && isfinite(du32[i]);
    rt_check(t, ok, "swiglu limits (f32): the same");
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const struct { size_t n; double scale; } sizes[] = {{1, 1}, {13, 1}, {100, 4}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].n, sizes[i].scale);
    run_limits(&t);
    return rt_finish(&t, "test_swiglu_grad");
}
