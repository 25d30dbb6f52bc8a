/* Gradient check of the RMSNorm reference (lib/ref/rmsnorm.c). */
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
    double *x, *g, *r, *out;
} ctx;

/* L = sum(out * R). */
static double objective(void *p)
{
    ctx *c = p;
    svk_ref_rmsnorm_fwd_f64(c->rows, c->width, c->eps, c->x, c->g, c->out, NULL);
    return rt_dot(c->out, c->r, c->rows * c->width);
}

static void run(rt *t, size_t rows, size_t width, double eps, double scale)
{
    size_t n = rows * width;
    char name[128], sub[256];
    ctx c = {rows, width, eps, rt_zeros(n), rt_zeros(width), rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.x, n, 0.3 * scale, scale);
    rt_fill_normal(t, c.g, width, 1, 0.3);
    rt_fill_normal(t, c.r, n, 0, 1);
    snprintf(name, sizeof(name), "rmsnorm rows=%zu width=%zu eps=%g scale=%g", rows, width, eps,
             scale);

    double *out = rt_nans(n), *rstd = rt_nans(rows);
    svk_ref_rmsnorm_fwd_f64(rows, width, c.eps, c.x, c.g, out, rstd);
    double *dx = rt_nans(n), *dg0 = rt_zeros(width);
    rt_fill_normal(t, dg0, width, 0, 1);
    double *dg = rt_copy(dg0, width);
    svk_ref_rmsnorm_bwd_f64(rows, width, c.r, c.x, rstd, c.g, dx, dg);
    rt_sub(dg, dg0, width);

    double *fd = rt_zeros(n > width ? n : width);
    rt_fd_grad(objective, &c, c.x, n, fd);
    snprintf(sub, sizeof(sub), "%s dx", name);
    rt_check_grad(t, sub, dx, fd, n, TOL_FD);
    rt_fd_grad(objective, &c, c.g, width, fd);
    snprintf(sub, sizeof(sub), "%s dg", name);
    rt_check_grad(t, sub, dg, fd, width, TOL_FD);

    double *io = rt_copy(c.x, n), *dio = rt_copy(c.r, n), *sg = rt_zeros(width);
    svk_ref_rmsnorm_fwd_f64(rows, width, c.eps, io, c.g, io, NULL);
    svk_ref_rmsnorm_bwd_f64(rows, width, dio, c.x, rstd, c.g, dio, sg);
    rt_check(t, !memcmp(io, out, n * sizeof(double)) && !memcmp(dio, dx, n * sizeof(double)),
             "%s in place: out == x and dx == dout give the same bits", name);

    float *x32 = rt_to_f32(c.x, n), *g32 = rt_to_f32(c.g, width), *r32 = rt_to_f32(c.r, n);
    float *o32 = rt_alloc(n, sizeof(float)), *s32 = rt_alloc(rows, sizeof(float));
    float *dx32 = rt_alloc(n, sizeof(float)), *dg32 = rt_alloc(width, sizeof(float));
    svk_ref_rmsnorm_fwd_f32(rows, width, (float)eps, x32, g32, o32, s32);
    svk_ref_rmsnorm_bwd_f32(rows, width, r32, x32, s32, g32, dx32, dg32);
    snprintf(sub, sizeof(sub), "%s out", name);
    rt_check_f32(t, sub, o32, out, n, TOL_F32);
    snprintf(sub, sizeof(sub), "%s rstd", name);
    rt_check_f32(t, sub, s32, rstd, rows, TOL_F32);
    snprintf(sub, sizeof(sub), "%s dx", name);
    rt_check_f32(t, sub, dx32, dx, n, TOL_F32);
    snprintf(sub, sizeof(sub), "%s dg", name);
    rt_check_f32(t, sub, dg32, dg, width, TOL_F32);

    free(x32); free(g32); free(r32); free(o32); free(s32); free(dx32); free(dg32);
    free(io); free(dio); free(sg); free(fd);
    free(out); free(rstd); free(dx); free(dg0); free(dg);
    free(c.x); free(c.g); free(c.r); free(c.out);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    /* At width 1 the output is sign(x) g up to eps, its x-gradient O(eps):
     * a large eps keeps that gradient above the evaluation noise. The small
     * scale puts mean(x^2) near eps, where eps matters. */
    static const struct { size_t rows, width; double eps, scale; } sizes[] = {
        {1, 1, 0.5, 1}, {3, 1, 0.5, 1}, {1, 2, 1e-5, 1}, {2, 3, 1e-5, 1}, {3, 7, 1e-5, 1},
        {5, 13, 1e-3, 0.03}, {2, 64, 1e-5, 1}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].rows, sizes[i].width, sizes[i].eps, sizes[i].scale);
    return rt_finish(&t, "test_rmsnorm_grad");
}
