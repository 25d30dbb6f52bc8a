/*
 * Gradient check of RoPE (lib/ref/rope.c), alone and composed with
 * attention, plus its forward against values written out from the spec.
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
    size_t B, T, C, H;
    double theta;
    double *qkv, *r, *ro, *tmp, *out, *att;
} ctx;

/* L = sum(rope(qkv) R). */
static double objective_rope(void *p)
{
    ctx *c = p;
    size_t n = c->B * c->T * 3 * c->C;
    memcpy(c->tmp, c->qkv, n * sizeof(double));
    svk_ref_rope_fwd_f64(c->B, c->T, c->C, c->H, c->theta, c->tmp);
    return rt_dot(c->tmp, c->r, n);
}

/* L = sum(attention(rope(qkv)) Ro): the composition the model runs. */
static double objective_attn(void *p)
{
    ctx *c = p;
    size_t n = c->B * c->T * 3 * c->C;
    memcpy(c->tmp, c->qkv, n * sizeof(double));
    svk_ref_rope_fwd_f64(c->B, c->T, c->C, c->H, c->theta, c->tmp);
    svk_ref_attention_fwd_f64(c->B, c->T, c->C, c->H, c->tmp, c->out, c->att);
    return rt_dot(c->out, c->ro, c->B * c->T * c->C);
}

/* The spec's rotation written out for one element pair, independently of
 * rope.c's loop structure. */
static double spec_max_err(const double *in, const double *got, size_t B, size_t T, size_t C,
                           size_t H, double theta)
{
    size_t D = C / H;
    double e = 0;
    for (size_t b = 0; b < B; b++)
        for (size_t t = 0; t < T; t++)
            for (size_t part = 0; part < 3; part++)
                for (size_t h = 0; h < H; h++)
                    for (size_t i = 0; i < D / 2; i++) {
                        size_t o = (b * T + t) * 3 * C + part * C + h * D;
                        double a = in[o + i], bb = in[o + i + D / 2];
                        double ang = (double)t * pow(theta, -2.0 * (double)i / (double)D);
                        double ea = part == 2 ? a : a * cos(ang) - bb * sin(ang);
                        double eb = part == 2 ? bb : a * sin(ang) + bb * cos(ang);
                        e = fmax(e, fmax(fabs(got[o + i] - ea), fabs(got[o + i + D / 2] - eb)));
                    }
    return e;
}

static void run(rt *t, size_t B, size_t T, size_t C, size_t H, double theta)
{
    size_t n = B * T * 3 * C, no = B * T * C;
    ctx c = {B, T, C, H, theta, rt_zeros(n), rt_zeros(n), rt_zeros(no), rt_zeros(n),
             rt_zeros(no), rt_zeros(B * H * T * T)};
    rt_fill_normal(t, c.qkv, n, 0, 1);
    rt_fill_normal(t, c.r, n, 0, 1);
    rt_fill_normal(t, c.ro, no, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "rope B=%zu T=%zu C=%zu H=%zu (D=%zu) theta=%g", B, T, C, H, C / H,
             theta);

    double *rot = rt_copy(c.qkv, n);
    svk_ref_rope_fwd_f64(B, T, C, H, theta, rot);
    double e = spec_max_err(c.qkv, rot, B, T, C, H, theta);
    rt_check(t, e <= 1e-13, "%s forward = spec formula, v untouched (max abs err %.2g)", name, e);
    double *back = rt_copy(rot, n);
    svk_ref_rope_bwd_f64(B, T, C, H, theta, back);
    e = 0;
    for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs(back[i] - c.qkv[i]));
    rt_check(t, e <= 1e-13, "%s bwd(fwd(x)) = x (orthogonal; max abs err %.2g)", name, e);

    double *d = rt_copy(c.r, n), *fd = rt_zeros(n);
    svk_ref_rope_bwd_f64(B, T, C, H, theta, d);
    rt_fd_grad(objective_rope, &c, c.qkv, n, fd);
    snprintf(s, sizeof(s), "%s dqkv", name);
    rt_check_grad(t, s, d, fd, n, TOL_FD);

    /* Attention on rotated q, k: backward is attention_bwd, then rope_bwd. */
    double *out = rt_zeros(no), *att = rt_zeros(B * H * T * T), *da = rt_nans(n);
    svk_ref_attention_fwd_f64(B, T, C, H, rot, out, att);
    svk_ref_attention_bwd_f64(B, T, C, H, c.ro, rot, att, da);
    svk_ref_rope_bwd_f64(B, T, C, H, theta, da);
    rt_fd_grad(objective_attn, &c, c.qkv, n, fd);
    snprintf(s, sizeof(s), "%s + attention dqkv", name);
    rt_check_grad(t, s, da, fd, n, TOL_FD);

    float *x32 = rt_to_f32(c.qkv, n), *d32 = rt_to_f32(c.r, n);
    svk_ref_rope_fwd_f32(B, T, C, H, (float)theta, x32);
    svk_ref_rope_bwd_f32(B, T, C, H, (float)theta, d32);
    snprintf(s, sizeof(s), "%s fwd", name);
    rt_check_f32(t, s, x32, rot, n, TOL_F32);
    snprintf(s, sizeof(s), "%s bwd", name);
    rt_check_f32(t, s, d32, d, n, TOL_F32);

    free(x32); free(d32); free(rot); free(back); free(d); free(fd); free(out); free(att);
    free(da);
    free(c.qkv); free(c.r); free(c.ro); free(c.tmp); free(c.out); free(c.att);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    /* T = 1 (position 0: identity), D = 2 (one pair), a small theta for
     * fast-turning angles, up to T = 40 for angles beyond 2 pi. */
    static const struct { size_t B, T, C, H; double theta; } sizes[] = {
        {1, 1, 2, 1, 10000}, {2, 5, 4, 2, 10000}, {1, 7, 12, 3, 10000}, {2, 3, 16, 2, 7},
        {1, 40, 4, 1, 10000}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].B, sizes[i].T, sizes[i].C, sizes[i].H, sizes[i].theta);
    return rt_finish(&t, "test_rope_grad");
}
