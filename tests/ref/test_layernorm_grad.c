/* Gradient check of the LayerNorm reference (lib/ref/layernorm.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t rows, width;
    double eps;
    double *x, *g, *b, *r, *out;
} ctx;

/* L = sum(out * R). */
static double objective(void *p)
{
    ctx *c = p;
    svk_ref_layernorm_fwd_f64(c->rows, c->width, c->eps, c->x, c->g, c->b, c->out, NULL, NULL);
    return rt_dot(c->out, c->r, c->rows * c->width);
}

static void run(rt *t, size_t rows, size_t width, double eps)
{
    size_t n = rows * width;
    char name[128];
    ctx c = {rows, width, eps, rt_zeros(n), rt_zeros(width), rt_zeros(width), rt_zeros(n),
             rt_zeros(n)};
    /* An offset mean checks the two-pass variance; gains away from 1. */
    rt_fill_normal(t, c.x, n, 0.7, 1.5);
    rt_fill_normal(t, c.g, width, 1, 0.3);
    rt_fill_normal(t, c.b, width, 0, 0.3);
    rt_fill_normal(t, c.r, n, 0, 1);

    double *out = rt_nans(n), *mean = rt_nans(rows), *rstd = rt_nans(rows);
    svk_ref_layernorm_fwd_f64(rows, width, c.eps, c.x, c.g, c.b, out, mean, rstd);
    double *dx = rt_nans(n), *dg0 = rt_zeros(width), *db0 = rt_zeros(width);
    rt_fill_normal(t, dg0, width, 0, 1);
    rt_fill_normal(t, db0, width, 0, 1);
    double *dg = rt_copy(dg0, width), *db = rt_copy(db0, width);
    svk_ref_layernorm_bwd_f64(rows, width, c.r, c.x, mean, rstd, c.g, dx, dg, db);
    rt_sub(dg, dg0, width);
    rt_sub(db, db0, width);

    double *fd = rt_zeros(n > width ? n : width);
    struct { const char *what; double *in, *an; size_t len; } v[] = {
        {"dx", c.x, dx, n}, {"dg", c.g, dg, width}, {"db", c.b, db, width}};
    for (size_t i = 0; i < 3; i++) {
        rt_fd_grad(objective, &c, v[i].in, v[i].len, fd);
        snprintf(name, sizeof(name), "layernorm rows=%zu width=%zu eps=%g %s", rows, width, eps,
                 v[i].what);
        rt_check_grad(t, name, v[i].an, fd, v[i].len, TOL_FD);
    }

    /* Aliasing allowed by the contract: out == x, dx == dout. */
    double *io = rt_copy(c.x, n);
    svk_ref_layernorm_fwd_f64(rows, width, c.eps, io, c.g, c.b, io, NULL, NULL);
    double *dio = rt_copy(c.r, n), *sg = rt_zeros(width), *sb = rt_zeros(width);
    svk_ref_layernorm_bwd_f64(rows, width, dio, c.x, mean, rstd, c.g, dio, sg, sb);
    snprintf(name, sizeof(name), "layernorm rows=%zu width=%zu eps=%g in place", rows, width, eps);
    rt_check(t, !memcmp(io, out, n * sizeof(double)) && !memcmp(dio, dx, n * sizeof(double)),
             "%s: out == x and dx == dout give the same bits", name);

    /* The float build on the same inputs. */
    float *x32 = rt_to_f32(c.x, n), *g32 = rt_to_f32(c.g, width), *b32 = rt_to_f32(c.b, width);
    float *r32 = rt_to_f32(c.r, n), *o32 = rt_alloc(n, sizeof(float));
    float *m32 = rt_alloc(rows, sizeof(float)), *s32 = rt_alloc(rows, sizeof(float));
    float *dx32 = rt_alloc(n, sizeof(float)), *dg32 = rt_alloc(width, sizeof(float));
    float *db32 = rt_alloc(width, sizeof(float));
    svk_ref_layernorm_fwd_f32(rows, width, (float)eps, x32, g32, b32, o32, m32, s32);
    svk_ref_layernorm_bwd_f32(rows, width, r32, x32, m32, s32, g32, dx32, dg32, db32);
    snprintf(name, sizeof(name), "layernorm rows=%zu width=%zu eps=%g", rows, width, eps);
    char sub[256];
    snprintf(sub, sizeof(sub), "%s out", name);
    rt_check_f32(t, sub, o32, out, n, TOL_F32);
    snprintf(sub, sizeof(sub), "%s rstd", name);
    rt_check_f32(t, sub, s32, rstd, rows, TOL_F32);
    snprintf(sub, sizeof(sub), "%s dx", name);
    rt_check_f32(t, sub, dx32, dx, n, TOL_F32);
    snprintf(sub, sizeof(sub), "%s dg", name);
    rt_check_f32(t, sub, dg32, dg, width, TOL_F32);
    snprintf(sub, sizeof(sub), "%s db", name);
    rt_check_f32(t, sub, db32, db, width, TOL_F32);

    free(x32); free(g32); free(b32); free(r32); free(o32); free(m32); free(s32);
    free(dx32); free(dg32); free(db32);
    free(io); free(dio); free(sg); free(sb); free(fd);
    free(out); free(mean); free(rstd); free(dx); free(dg0); free(db0); free(dg); free(db);
    free(c.x); free(c.g); free(c.b); free(c.r); free(c.out);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    /* At width 2 the output depends on x only through eps (xhat = +-1 as
     * eps -> 0), so the gradient is O(eps) and, with eps = 1e-5, smaller than
     * the cancellation error of any evaluation: a large eps makes it a test. */
    static const struct { size_t rows, width; double eps; } sizes[] = {
        {1, 1, 1e-5}, {1, 2, 0.5}, {3, 2, 0.5}, {2, 3, 1e-5}, {3, 7, 1e-5}, {5, 13, 1e-3},
        {2, 64, 1e-5}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].rows, sizes[i].width, sizes[i].eps);
    return rt_finish(&t, "test_layernorm_grad");
}
