/* Gradient check of the token + position embedding (lib/ref/embedding.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "ref_test_util.h"

#define TOL_FD 1e-6
#define TOL_F32 1e-3

typedef struct ctx {
    size_t B, T, C, V;
    const int32_t *tokens;
    double *wte, *wpe, *r, *out; /* wpe may be NULL */
} ctx;

/* L = sum(out R). */
static double objective(void *p)
{
    ctx *c = p;
    svk_ref_embedding_fwd_f64(c->B, c->T, c->C, c->V, c->tokens, c->wte, c->wpe, c->out);
    return rt_dot(c->out, c->r, c->B * c->T * c->C);
}

static void run(rt *t, size_t B, size_t T, size_t C, size_t V, size_t ctxlen, int learned)
{
    size_t n = B * T * C;
    int32_t *tok = rt_alloc(B * T, sizeof(int32_t));
    /* Few distinct tokens so that rows repeat and the scatter-add sums. */
    for (size_t i = 0; i < B * T; i++)
        tok[i] = (int32_t)rt_below(t, (uint32_t)V);
    ctx c = {B, T, C, V, tok, rt_zeros(V * C), learned ? rt_zeros(ctxlen * C) : NULL,
             rt_zeros(n), rt_zeros(n)};
    rt_fill_normal(t, c.wte, V * C, 0, 1);
    if (learned)
        rt_fill_normal(t, c.wpe, ctxlen * C, 0, 1);
    rt_fill_normal(t, c.r, n, 0, 1);
    char name[128], s[256];
    snprintf(name, sizeof(name), "embedding B=%zu T=%zu C=%zu V=%zu %s", B, T, C, V,
             learned ? "wpe" : "no wpe");

    double *out = rt_nans(n);
    size_t bad = svk_ref_embedding_fwd_f64(B, T, C, V, tok, c.wte, c.wpe, out);
    double *dwte0 = rt_zeros(V * C), *dwpe0 = rt_zeros(ctxlen * C);
    rt_fill_normal(t, dwte0, V * C, 0, 1);
    rt_fill_normal(t, dwpe0, ctxlen * C, 0, 1);
    double *dwte = rt_copy(dwte0, V * C), *dwpe = learned ? rt_copy(dwpe0, ctxlen * C) : NULL;
    bad += svk_ref_embedding_bwd_f64(B, T, C, V, tok, c.r, dwte, dwpe);
    rt_check(t, bad == 0, "%s: no token reported invalid", name);

    /* Bit-identical on a second run from the same starting values. */
    double *dwte2 = rt_copy(dwte0, V * C), *dwpe2 = learned ? rt_copy(dwpe0, ctxlen * C) : NULL;
    svk_ref_embedding_bwd_f64(B, T, C, V, tok, c.r, dwte2, dwpe2);
    rt_check(t, !memcmp(dwte, dwte2, V * C * sizeof(double)) &&
                    (!learned || !memcmp(dwpe, dwpe2, ctxlen * C * sizeof(double))),
             "%s: backward bit-identical across two runs", name);

    rt_sub(dwte, dwte0, V * C);
    double *fd = rt_zeros(V * C > ctxlen * C ? V * C : ctxlen * C);
    rt_fd_grad(objective, &c, c.wte, V * C, fd);
    snprintf(s, sizeof(s), "%s dwte (accumulated)", name);
    rt_check_grad(t, s, dwte, fd, V * C, TOL_FD);
    if (learned) {
        rt_sub(dwpe, dwpe0, ctxlen * C);
        rt_fd_grad(objective, &c, c.wpe, ctxlen * C, fd);
        snprintf(s, sizeof(s), "%s dwpe (accumulated; rows >= T stay 0)", name);
        rt_check_grad(t, s, dwpe, fd, ctxlen * C, TOL_FD);
    }

    float *wte32 = rt_to_f32(c.wte, V * C), *wpe32 = learned ? rt_to_f32(c.wpe, ctxlen * C) : NULL;
    float *r32 = rt_to_f32(c.r, n), *o32 = rt_alloc(n, 4), *dwte32 = rt_alloc(V * C, 4);
    float *dwpe32 = learned ? rt_alloc(ctxlen * C, 4) : NULL;
    svk_ref_embedding_fwd_f32(B, T, C, V, tok, wte32, wpe32, o32);
    svk_ref_embedding_bwd_f32(B, T, C, V, tok, r32, dwte32, dwpe32);
    snprintf(s, sizeof(s), "%s out", name);
    rt_check_f32(t, s, o32, out, n, TOL_F32);
    snprintf(s, sizeof(s), "%s dwte", name);
    rt_check_f32(t, s, dwte32, dwte, V * C, TOL_F32);
    if (learned) {
        snprintf(s, sizeof(s), "%s dwpe", name);
        rt_check_f32(t, s, dwpe32, dwpe, ctxlen * C, TOL_F32);
    }

    free(wte32); free(wpe32); free(r32); free(o32); free(dwte32); free(dwpe32);
    free(out); free(dwte0); free(dwpe0); free(dwte); free(dwpe); free(dwte2); free(dwpe2);
    free(fd); free(tok);
    free(c.wte); free(c.wpe); free(c.r); free(c.out);
}

/* Tokens outside [0, V) are counted, their rows written 0 and left out of
 * the backward pass; valid rows are unaffected. */
static void run_invalid(rt *t)
{
    enum { B = 1, T = 4, C = 2, V = 3 };
    const int32_t tok[B * T] = {0, 3, -1, 2};
    double wte[V * C] = {1, 2, 3, 4, 5, 6}, wpe[T * C] = {10, 20, 30, 40, 50, 60, 70, 80};
    double out[B * T * C], dout[B * T * C] = {1, 1, 1, 1, 1, 1, 1, 1};
    double dwte[V * C] = {0}, dwpe[T * C] = {0};
    for (int i = 0; i < B * T * C; i++)
        out[i] = 99;
    size_t bad = svk_ref_embedding_fwd_f64(B, T, C, V, tok, wte, wpe, out);
    size_t bad_b = svk_ref_embedding_bwd_f64(B, T, C, V, tok, dout, dwte, dwpe);
    const double want[] = {11, 22, 0, 0, 0, 0, 75, 86};
    const double want_dwte[] = {1, 1, 0, 0, 1, 1}, want_dwpe[] = {1, 1, 0, 0, 0, 0, 1, 1};
    rt_check(t, bad == 2 && bad_b == 2 && !memcmp(out, want, sizeof(want)) &&
                    !memcmp(dwte, want_dwte, sizeof(want_dwte)) &&
                    !memcmp(dwpe, want_dwpe, sizeof(want_dwpe)),
             "embedding invalid tokens (3 and -1 with V = 3): counted %zu/%zu, rows 0, no gradient",
             bad, bad_b);
}

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    static const struct { size_t B, T, C, V, ctx; int learned; } sizes[] = {
        {1, 1, 1, 2, 1, 1}, {2, 5, 3, 7, 5, 1}, {3, 4, 8, 5, 6, 1}, {2, 6, 4, 3, 6, 0},
        {1, 11, 2, 13, 16, 1}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run(&t, sizes[i].B, sizes[i].T, sizes[i].C, sizes[i].V, sizes[i].ctx, sizes[i].learned);
    run_invalid(&t);
    return rt_finish(&t, "test_embedding_grad");
}
