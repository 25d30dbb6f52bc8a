/* Gradient check of the bias add (lib/ref/bias.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t rows, N;
    double *in, *bias, *r, *out;
} ctx;

/* L = sum((in + bias) R). */
static double objective(void *p)
{
    ctx *c = p;
    memcpy(c->out, c->in, c->rows * c->N * sizeof(double));
    svk_ref_bias_fwd_f64(c->rows, c->N, c->bias, c->out);
    return rt_dot(c->out, c->r, c->rows * c->N);
}

static void run(rt *t, size_t rows, size_t N)
{
    size_t n = rows * N;
    ctx c = {rows, N, rt_zeros(n), rt_zeros(N), rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.in, n, 0, 1);
    rt_fill_normal(t, c.bias, N, 0, 1);
    rt_fill_normal(t, c.r, n, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "bias rows=%zu N=%zu", rows, N);

    double *db0 = rt_zeros(N), *fd = rt_zeros(n);
    rt_fill_normal(t, db0, N, 0, 1);
    double *db = rt_copy(db0, N);
    svk_ref_bias_bwd_f64(rows, N, c.r, db);
    rt_sub(db, db0, N);
    rt_fd_grad(objective, &c, c.bias, N, fd);
    snprintf(s, sizeof(s), "%s dbias (accumulated)", name);
    rt_check_grad(t, s, db, fd, N, TOL_FD);
    rt_fd_grad(objective, &c, c.in, n, fd);
    snprintf(s, sizeof(s), "%s din (identity)", name);
    rt_check_grad(t, s, c.r, fd, n, TOL_FD);

    float *b32 = rt_to_f32(c.bias, N), *o32 = rt_to_f32(c.in, n), *r32 = rt_to_f32(c.r, n);
    float *db32 = rt_alloc(N, 4);
    svk_ref_bias_fwd_f32(rows, N, b32, o32);
    svk_ref_bias_bwd_f32(rows, N, r32, db32);
    objective(&c);
    snprintf(s, sizeof(s), "%s out", name);
    rt_check_f32(t, s, o32, c.out, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dbias", name);
    rt_check_f32(t, s, db32, db, N, TOL_F32);

    free(b32); free(o32); free(r32); free(db32); free(db0); free(db); free(fd);
    free(c.in); free(c.bias); free(c.r); free(c.out);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const size_t sizes[][2] = {{1, 1}, {7, 3}, {16, 5}, {3, 97}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i][0], sizes[i][1]);
    return rt_finish(&t, "test_bias_grad");
}
