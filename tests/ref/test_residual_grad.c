/* Gradient check of the SiameseNorm dual residual update (lib/ref/residual.c). */
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
    double c;
    double *x, *y, *z, *rx, *ry, *xs, *ys;
} ctx;

/* L = sum(x' Rx) + sum(y' Ry) after x' = x + z / c, y' = y + z. */
static double objective(void *p)
{
    ctx *c = p;
    memcpy(c->xs, c->x, c->n * sizeof(double));
    memcpy(c->ys, c->y, c->n * sizeof(double));
    svk_ref_residual_fwd_f64(c->n, c->c, c->xs, c->ys, c->z);
    return rt_dot(c->xs, c->rx, c->n) + rt_dot(c->ys, c->ry, c->n);
}

static void run(rt *t, size_t n, unsigned layer)
{
    ctx c = {n, (float)sqrt(2.0 * (layer + 1)), rt_zeros(n), rt_zeros(n), rt_zeros(n), rt_zeros(n),
             rt_zeros(n), rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.x, n, 0, 1);
    rt_fill_normal(t, c.y, n, 0, 3);
    rt_fill_normal(t, c.z, n, 0, 1);
    rt_fill_normal(t, c.rx, n, 0, 1);
    rt_fill_normal(t, c.ry, n, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "residual n=%zu layer=%u (c=%.4f)", n, layer, c.c);

    double *dz = rt_nans(n), *fd = rt_zeros(n);
    svk_ref_residual_bwd_f64(n, c.c, c.rx, c.ry, dz);
    rt_fd_grad(objective, &c, c.z, n, fd);
    snprintf(s, sizeof(s), "%s dz", name);
    rt_check_grad(t, s, dz, fd, n, TOL_FD);
    /* The streams pass their gradients through unchanged. */
    rt_fd_grad(objective, &c, c.x, n, fd);
    snprintf(s, sizeof(s), "%s dx (identity)", name);
    rt_check_grad(t, s, c.rx, fd, n, TOL_FD);
    rt_fd_grad(objective, &c, c.y, n, fd);
    snprintf(s, sizeof(s), "%s dy (identity)", name);
    rt_check_grad(t, s, c.ry, fd, n, TOL_FD);

    float *x32 = rt_to_f32(c.x, n), *y32 = rt_to_f32(c.y, n), *z32 = rt_to_f32(c.z, n);
    float *rx32 = rt_to_f32(c.rx, n), *ry32 = rt_to_f32(c.ry, n), *dz32 = rt_alloc(n, 4);
    svk_ref_residual_fwd_f32(n, (float)c.c, x32, y32, z32);
    svk_ref_residual_bwd_f32(n, (float)c.c, rx32, ry32, dz32);
    memcpy(c.xs, c.x, n * sizeof(double));
    memcpy(c.ys, c.y, n * sizeof(double));
    svk_ref_residual_fwd_f64(n, c.c, c.xs, c.ys, c.z);
    snprintf(s, sizeof(s), "%s x'", name);
    rt_check_f32(t, s, x32, c.xs, n, TOL_F32);
    snprintf(s, sizeof(s), "%s y'", name);
    rt_check_f32(t, s, y32, c.ys, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dz", name);
    rt_check_f32(t, s, dz32, dz, n, TOL_F32);

    free(x32); free(y32); free(z32); free(rx32); free(ry32); free(dz32);
    free(dz); free(fd);
    free(c.x); free(c.y); free(c.z); free(c.rx); free(c.ry); free(c.xs); free(c.ys);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const struct { size_t n; unsigned layer; } sizes[] = {{1, 0}, {7, 1}, {61, 3}, {256, 11}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].n, sizes[i].layer);
    return rt_finish(&t, "test_residual_grad");
}
