/*
 * Gradient check of the SiameseNorm fused norms (lib/ref/siamese_norm.c):
 * the block input xn = P(x), h = I(xn + Q(y)) and the output
 * N_out(N_x(x) + N_y(y)), for layernorm and rmsnorm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    enum svk_ref_norm kind;
    size_t rows, C;
    double eps;
    double *x, *y, *g, *b;  /* inputs and parameters; b NULL for rmsnorm */
    double *rh, *rx, *ry;   /* weights of h, xn, y in the objective */
    double *xn, *h, *work;  /* scratch */
} ctx;

static const char *kind_name(enum svk_ref_norm k)
{
    return k == SVK_REF_RMSNORM ? "rmsnorm" : "layernorm";
}

/* Block input: L = sum(h Rh) + sum(xn Rx) + sum(y Ry). The last two stand
 * for the later uses of the two streams, which send dxn = Rx and dy_in = Ry
 * back into the backward pass. */
static double objective_in(void *p)
{
    ctx *c = p;
    size_t n = c->rows * c->C;
    svk_ref_siamese_norm_fwd_f64(c->kind, c->rows, c->C, c->eps, c->x, c->y, c->g, c->b, c->xn,
                                 c->h, NULL, NULL);
    return rt_dot(c->h, c->rh, n) + rt_dot(c->xn, c->rx, n) + rt_dot(c->y, c->ry, n);
}

/* Model output: L = sum(out Rh). */
static double objective_out(void *p)
{
    ctx *c = p;
    svk_ref_siamese_out_fwd_f64(c->kind, c->rows, c->C, c->eps, c->x, c->y, c->g, c->b, c->h,
                                NULL, NULL, c->work);
    return rt_dot(c->h, c->rh, c->rows * c->C);
}

static int same(const double *a, const double *b, size_t n)
{
    return !memcmp(a, b, n * sizeof(double));
}

static void check_f32(rt *t, const char *name, const char *what, const float *got,
                      const double *ref, size_t n)
{
    char s[256];
    snprintf(s, sizeof(s), "%s %s", name, what);
    rt_check_f32(t, s, got, ref, n, TOL_F32);
}

static void run_in(rt *t, ctx *c, const char *name)
{
    size_t n = c->rows * c->C, rows = c->rows, C = c->C;
    int ln = c->kind == SVK_REF_LAYERNORM;
    double *xn = rt_nans(n), *h = rt_nans(n);
    double *mean = ln ? rt_nans(3 * rows) : NULL, *rstd = rt_nans(3 * rows);
    svk_ref_siamese_norm_fwd_f64(c->kind, rows, C, c->eps, c->x, c->y, c->g, c->b, xn, h, mean,
                                 rstd);

    double *dx = rt_nans(n), *dy = rt_nans(n), *work = rt_nans(2 * n);
    double *dg0 = rt_zeros(3 * C), *db0 = rt_zeros(3 * C);
    rt_fill_normal(t, dg0, 3 * C, 0, 1);
    rt_fill_normal(t, db0, 3 * C, 0, 1);
    double *dg = rt_copy(dg0, 3 * C), *db = ln ? rt_copy(db0, 3 * C) : NULL;
    svk_ref_siamese_norm_bwd_f64(c->kind, rows, C, c->eps, c->rh, c->rx, c->ry, c->x, c->y, mean,
                                 rstd, c->g, c->b, dx, dy, dg, db, work);
    rt_sub(dg, dg0, 3 * C);
    if (db)
        rt_sub(db, db0, 3 * C);

    char s[256];
    double *fd = rt_zeros(n > 3 * C ? n : 3 * C);
    rt_fd_grad(objective_in, c, c->x, n, fd);
    snprintf(s, sizeof(s), "%s block dx", name);
    rt_check_grad(t, s, dx, fd, n, TOL_FD);
    rt_fd_grad(objective_in, c, c->y, n, fd);
    snprintf(s, sizeof(s), "%s block dy", name);
    rt_check_grad(t, s, dy, fd, n, TOL_FD);
    rt_fd_grad(objective_in, c, c->g, 3 * C, fd);
    snprintf(s, sizeof(s), "%s block dg (P, Q, I)", name);
    rt_check_grad(t, s, dg, fd, 3 * C, TOL_FD);
    if (ln) {
        rt_fd_grad(objective_in, c, c->b, 3 * C, fd);
        snprintf(s, sizeof(s), "%s block db (P, Q, I)", name);
        rt_check_grad(t, s, db, fd, 3 * C, TOL_FD);
    }

    /* NULL dxn / dy_in mean zero; dy may be dy_in itself. */
    double *zeros = rt_zeros(n), *dxa = rt_nans(n), *dya = rt_nans(n), *dxb = rt_nans(n);
    double *dyb = rt_nans(n), *sg = rt_zeros(3 * C), *sb = rt_zeros(3 * C);
    svk_ref_siamese_norm_bwd_f64(c->kind, rows, C, c->eps, c->rh, zeros, zeros, c->x, c->y, mean,
                                 rstd, c->g, c->b, dxa, dya, sg, sb, work);
    svk_ref_siamese_norm_bwd_f64(c->kind, rows, C, c->eps, c->rh, NULL, NULL, c->x, c->y, mean,
                                 rstd, c->g, c->b, dxb, dyb, sg, sb, work);
    rt_check(t, same(dxa, dxb, n) && same(dya, dyb, n), "%s block: NULL dxn, dy_in act as zero",
             name);
    double *dyio = rt_copy(c->ry, n);
    svk_ref_siamese_norm_bwd_f64(c->kind, rows, C, c->eps, c->rh, c->rx, dyio, c->x, c->y, mean,
                                 rstd, c->g, c->b, dxa, dyio, sg, sb, work);
    rt_check(t, same(dyio, dy, n), "%s block: dy == dy_in gives the same bits", name);

    /* The float build. */
    float *x32 = rt_to_f32(c->x, n), *y32 = rt_to_f32(c->y, n), *g32 = rt_to_f32(c->g, 3 * C);
    float *b32 = ln ? rt_to_f32(c->b, 3 * C) : NULL;
    float *rh32 = rt_to_f32(c->rh, n), *rx32 = rt_to_f32(c->rx, n), *ry32 = rt_to_f32(c->ry, n);
    float *xn32 = rt_alloc(n, 4), *h32 = rt_alloc(n, 4), *w32 = rt_alloc(2 * n, 4);
    float *m32 = rt_alloc(3 * rows, 4), *s32 = rt_alloc(3 * rows, 4);
    float *dx32 = rt_alloc(n, 4), *dy32 = rt_alloc(n, 4);
    float *dg32 = rt_alloc(3 * C, 4), *db32 = rt_alloc(3 * C, 4);
    svk_ref_siamese_norm_fwd_f32(c->kind, rows, C, (float)c->eps, x32, y32, g32, b32, xn32, h32,
                                 m32, s32);
    svk_ref_siamese_norm_bwd_f32(c->kind, rows, C, (float)c->eps, rh32, rx32, ry32, x32, y32, m32,
                                 s32, g32, b32, dx32, dy32, dg32, db32, w32);
    check_f32(t, name, "block xn", xn32, xn, n);
    check_f32(t, name, "block h", h32, h, n);
    check_f32(t, name, "block rstd", s32, rstd, 3 * rows);
    check_f32(t, name, "block dx", dx32, dx, n);
    check_f32(t, name, "block dy", dy32, dy, n);
    check_f32(t, name, "block dg", dg32, dg, 3 * C);
    if (ln)
        check_f32(t, name, "block db", db32, db, 3 * C);

    free(x32); free(y32); free(g32); free(b32); free(rh32); free(rx32); free(ry32);
    free(xn32); free(h32); free(w32); free(m32); free(s32); free(dx32); free(dy32);
    free(dg32); free(db32);
    free(zeros); free(dxa); free(dya); free(dxb); free(dyb); free(sg); free(sb); free(dyio);
    free(fd); free(xn); free(h); free(mean); free(rstd); free(dx); free(dy); free(work);
    free(dg0); free(db0); free(dg); free(db);
}

static void run_out(rt *t, ctx *c, const char *name)
{
    size_t n = c->rows * c->C, rows = c->rows, C = c->C;
    int ln = c->kind == SVK_REF_LAYERNORM;
    double *out = rt_nans(n), *work = rt_nans(2 * n);
    double *mean = ln ? rt_nans(3 * rows) : NULL, *rstd = rt_nans(3 * rows);
    svk_ref_siamese_out_fwd_f64(c->kind, rows, C, c->eps, c->x, c->y, c->g, c->b, out, mean, rstd,
                                work);
    double *dx = rt_nans(n), *dy = rt_nans(n);
    double *dg0 = rt_zeros(3 * C), *db0 = rt_zeros(3 * C);
    rt_fill_normal(t, dg0, 3 * C, 0, 1);
    rt_fill_normal(t, db0, 3 * C, 0, 1);
    double *dg = rt_copy(dg0, 3 * C), *db = ln ? rt_copy(db0, 3 * C) : NULL;
    svk_ref_siamese_out_bwd_f64(c->kind, rows, C, c->eps, c->rh, c->x, c->y, mean, rstd, c->g,
                                c->b, dx, dy, dg, db, work);
    rt_sub(dg, dg0, 3 * C);
    if (db)
        rt_sub(db, db0, 3 * C);

    char s[256];
    double *fd = rt_zeros(n > 3 * C ? n : 3 * C);
    rt_fd_grad(objective_out, c, c->x, n, fd);
    snprintf(s, sizeof(s), "%s output dx", name);
    rt_check_grad(t, s, dx, fd, n, TOL_FD);
    rt_fd_grad(objective_out, c, c->y, n, fd);
    snprintf(s, sizeof(s), "%s output dy", name);
    rt_check_grad(t, s, dy, fd, n, TOL_FD);
    rt_fd_grad(objective_out, c, c->g, 3 * C, fd);
    snprintf(s, sizeof(s), "%s output dg (x, y, out)", name);
    rt_check_grad(t, s, dg, fd, 3 * C, TOL_FD);
    if (ln) {
        rt_fd_grad(objective_out, c, c->b, 3 * C, fd);
        snprintf(s, sizeof(s), "%s output db (x, y, out)", name);
        rt_check_grad(t, s, db, fd, 3 * C, TOL_FD);
    }

    float *x32 = rt_to_f32(c->x, n), *y32 = rt_to_f32(c->y, n), *g32 = rt_to_f32(c->g, 3 * C);
    float *b32 = ln ? rt_to_f32(c->b, 3 * C) : NULL, *r32 = rt_to_f32(c->rh, n);
    float *o32 = rt_alloc(n, 4), *w32 = rt_alloc(2 * n, 4);
    float *m32 = rt_alloc(3 * rows, 4), *s32 = rt_alloc(3 * rows, 4);
    float *dx32 = rt_alloc(n, 4), *dy32 = rt_alloc(n, 4);
    float *dg32 = rt_alloc(3 * C, 4), *db32 = rt_alloc(3 * C, 4);
    svk_ref_siamese_out_fwd_f32(c->kind, rows, C, (float)c->eps, x32, y32, g32, b32, o32, m32, s32,
                                w32);
    svk_ref_siamese_out_bwd_f32(c->kind, rows, C, (float)c->eps, r32, x32, y32, m32, s32, g32, b32,
                                dx32, dy32, dg32, db32, w32);
    check_f32(t, name, "output out", o32, out, n);
    check_f32(t, name, "output dx", dx32, dx, n);
    check_f32(t, name, "output dy", dy32, dy, n);
    check_f32(t, name, "output dg", dg32, dg, 3 * C);
    if (ln)
        check_f32(t, name, "output db", db32, db, 3 * C);

    free(x32); free(y32); free(g32); free(b32); free(r32); free(o32); free(w32);
    free(m32); free(s32); free(dx32); free(dy32); free(dg32); free(db32);
    free(fd); free(out); free(work); free(mean); free(rstd); free(dx); free(dy);
    free(dg0); free(db0); free(dg); free(db);
}

static void run(rt *t, enum svk_ref_norm kind, size_t rows, size_t C, double eps)
{
    size_t n = rows * C;
    int ln = kind == SVK_REF_LAYERNORM;
    ctx c = {kind, rows, C, eps, rt_zeros(n), rt_zeros(n), rt_zeros(3 * C),
             ln ? rt_zeros(3 * C) : NULL, rt_zeros(n), rt_zeros(n), rt_zeros(n),
             rt_zeros(n), rt_zeros(n), rt_zeros(n)};
    /* The post stream x near unit scale, the pre stream y grown larger, as
     * after several residual additions. */
    rt_fill_normal(t, c.x, n, 0.2, 1);
    rt_fill_normal(t, c.y, n, -0.5, 3);
    rt_fill_normal(t, c.g, 3 * C, 1, 0.3);
    if (ln)
        rt_fill_normal(t, c.b, 3 * C, 0, 0.3);
    rt_fill_normal(t, c.rh, n, 0, 1);
    rt_fill_normal(t, c.rx, n, 0, 1);
    rt_fill_normal(t, c.ry, n, 0, 1);
    char name[128];
    snprintf(name, sizeof(name), "siamese %s rows=%zu C=%zu eps=%g", kind_name(kind), rows, C,
             eps);
    run_in(t, &c, name);
    run_out(t, &c, name);
    free(c.x); free(c.y); free(c.g); free(c.b); free(c.rh); free(c.rx); free(c.ry);
    free(c.xn); free(c.h); free(c.work);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    /* Widths 1 and 2 make a norm's input gradient O(eps) (see
     * test_layernorm_grad.c): a large eps there. */
    static const struct { size_t rows, C; double eps; } sizes[] = {
        {1, 1, 0.5}, {2, 2, 0.5}, {1, 3, 1e-5}, {3, 5, 1e-5}, {4, 16, 1e-5}, {2, 31, 1e-3}};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
            run(&t, k ? SVK_REF_RMSNORM : SVK_REF_LAYERNORM, sizes[i].rows, sizes[i].C,
                sizes[i].eps);
    return rt_finish(&t, "test_siamese_norm_grad");
}
