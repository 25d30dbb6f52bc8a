/* Gradient check of causal self-attention (lib/ref/attention.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t B, T, C, H;
    double *qkv, *r, *out, *att;
} ctx;

/* L = sum(out R). */
static double objective(void *p)
{
    ctx *c = p;
    svk_ref_attention_fwd_f64(c->B, c->T, c->C, c->H, c->qkv, c->out, c->att);
    return rt_dot(c->out, c->r, c->B * c->T * c->C);
}

/* Every probability row sums to 1 over keys <= query and is exactly 0 above
 * the diagonal; at T = 1 the only weight is exactly 1. */
static int att_ok(const double *att, size_t B, size_t H, size_t T, double *worst)
{
    int ok = 1;
    *worst = 0;
    for (size_t r = 0; r < B * H * T; r++) {
        size_t t = r % T;
        double s = 0;
        for (size_t j = 0; j < T; j++) {
            double p = att[r * T + j];
            if (j > t && p != 0)
                ok = 0;
            if (!(p >= 0 && p <= 1))
                ok = 0;
            s += p;
        }
        if (fabs(s - 1) > *worst)
            *worst = fabs(s - 1);
        if (t == 0 && att[r * T] != 1)
            ok = 0;
    }
    return ok && *worst <= 1e-14;
}

static void run(rt *t, size_t B, size_t T, size_t C, size_t H, double qscale)
{
    size_t n = B * T * 3 * C, no = B * T * C, na = B * H * T * T;
    ctx c = {B, T, C, H, rt_zeros(n), rt_zeros(no), rt_zeros(no), rt_zeros(na)};
    rt_fill_normal(t, c.qkv, n, 0, qscale);
    rt_fill_normal(t, c.r, no, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "attention B=%zu T=%zu C=%zu H=%zu (D=%zu) scale=%g", B, T, C, H,
             C / H, qscale);

    double *out = rt_nans(no), *att = rt_nans(na), *dqkv = rt_nans(n), *fd = rt_zeros(n);
    svk_ref_attention_fwd_f64(B, T, C, H, c.qkv, out, att);
    double worst;
    int ok = att_ok(att, B, H, T, &worst);
    rt_check(t, ok,
             "%s att: causal, rows sum to 1 (max |sum - 1| %.2g), first row exactly 1", name, worst);
    svk_ref_attention_bwd_f64(B, T, C, H, c.r, c.qkv, att, dqkv);
    rt_fd_grad(objective, &c, c.qkv, n, fd);
    snprintf(s, sizeof(s), "%s dqkv", name);
    rt_check_grad(t, s, dqkv, fd, n, TOL_FD);

    float *q32 = rt_to_f32(c.qkv, n), *r32 = rt_to_f32(c.r, no), *o32 = rt_alloc(no, 4);
    float *a32 = rt_alloc(na, 4), *d32 = rt_alloc(n, 4);
    svk_ref_attention_fwd_f32(B, T, C, H, q32, o32, a32);
    svk_ref_attention_bwd_f32(B, T, C, H, r32, q32, a32, d32);
    snprintf(s, sizeof(s), "%s out", name);
    rt_check_f32(t, s, o32, out, no, TOL_F32);
    snprintf(s, sizeof(s), "%s att", name);
    rt_check_f32(t, s, a32, att, na, TOL_F32);
    snprintf(s, sizeof(s), "%s dqkv", name);
    rt_check_f32(t, s, d32, dqkv, n, TOL_F32);

    free(q32); free(r32); free(o32); free(a32); free(d32);
    free(out); free(att); free(dqkv); free(fd);
    free(c.qkv); free(c.r); free(c.out); free(c.att);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    /* T = 1 (a single key), D = 1 and 2, primes, odd D; a large q/k scale
     * for peaked softmax rows. */
    static const struct { size_t B, T, C, H; double scale; } sizes[] = {
        {1, 1, 2, 1, 1}, {2, 1, 3, 3, 1}, {2, 3, 4, 2, 1}, {1, 5, 6, 3, 1},
        {2, 7, 12, 2, 1}, {1, 4, 5, 1, 1}, {1, 6, 8, 2, 3}, {1, 13, 4, 1, 1}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].B, sizes[i].T, sizes[i].C, sizes[i].H, sizes[i].scale);
    return rt_finish(&t, "test_attention_grad");
}
