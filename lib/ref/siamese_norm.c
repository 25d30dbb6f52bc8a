/*
 * Reference SiameseNorm fused norms (docs/MODEL.md, "Norm placement", siamese): the
 * block input xn = P(x), h = I(xn + Q(y)) and the model output
 * out = N_out(N_x(x) + N_y(y)). Both are compositions of the layernorm or
 * rmsnorm reference, so the fused GPU kernels are checked against the same
 * arithmetic as the single norms.
 */
#include "real.h"

/* The three norms of one call, k = 0, 1, 2: gains and biases are rows of
 * [3, C], statistics rows of [3, rows]. */
static void norm_fwd(enum svk_ref_norm kind, size_t rows, size_t C, svk_real eps,
                     size_t k, const svk_real *in, const svk_real *g,
                     const svk_real *b, svk_real *out, svk_real *mean,
                     svk_real *rstd)
{
    svk_real *rs = rstd ? rstd + k * rows : NULL;
    if (kind == SVK_REF_RMSNORM) {
        SVK_REF(rmsnorm_fwd)(rows, C, eps, in, g + k * C, out, rs);
    } else {
        svk_real *mu = mean ? mean + k * rows : NULL;
        SVK_REF(layernorm_fwd)(rows, C, eps, in, g + k * C, b + k * C, out, mu, rs);
    }
}

static void norm_bwd(enum svk_ref_norm kind, size_t rows, size_t C, size_t k,
                     const svk_real *dout, const svk_real *in, const svk_real *mean,
                     const svk_real *rstd, const svk_real *g, svk_real *din,
                     svk_real *dg, svk_real *db)
{
    if (kind == SVK_REF_RMSNORM)
        SVK_REF(rmsnorm_bwd)(rows, C, dout, in, rstd + k * rows, g + k * C, din,
                             dg + k * C);
    else
        SVK_REF(layernorm_bwd)(rows, C, dout, in, mean + k * rows, rstd + k * rows,
                               g + k * C, din, dg + k * C, db + k * C);
}

static void add(size_t n, svk_real *acc, const svk_real *a)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += a[i];
}

void SVK_REF(siamese_norm_fwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                               svk_real eps, const svk_real *x, const svk_real *y,
                               const svk_real *g, const svk_real *b, svk_real *xn,
                               svk_real *h, svk_real *mean, svk_real *rstd)
{
    size_t n = rows * C;
    norm_fwd(kind, rows, C, eps, 0, x, g, b, xn, mean, rstd);
    /* h holds Q(y), then the sum, then I of it in place (the norms allow
     * out == in), so no scratch is needed. */
    norm_fwd(kind, rows, C, eps, 1, y, g, b, h, mean, rstd);
    add(n, h, xn);
    norm_fwd(kind, rows, C, eps, 2, h, g, b, h, mean, rstd);
}

void SVK_REF(siamese_norm_bwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                               svk_real eps, const svk_real *dh, const svk_real *dxn,
                               const svk_real *dy_in, const svk_real *x,
                               const svk_real *y, const svk_real *mean,
                               const svk_real *rstd, const svk_real *g,
                               const svk_real *b, svk_real *dx, svk_real *dy,
                               svk_real *dg, svk_real *db, svk_real *work)
{
    size_t n = rows * C;
    svk_real *u = work;      /* xn + Q(y), the input of I */
    svk_real *du = work + n; /* its gradient, then that of xn */

    /* Recomputing P(x) and Q(y) (statistics not stored again) reproduces the
     * forward values bit for bit: same code, same inputs. */
    norm_fwd(kind, rows, C, eps, 0, x, g, b, u, NULL, NULL);
    norm_fwd(kind, rows, C, eps, 1, y, g, b, du, NULL, NULL);
    add(n, u, du);
    norm_bwd(kind, rows, C, 2, dh, u, mean, rstd, g, du, dg, db);

    /* Through Q: dy = dy_in + Q'(du). dx serves as the scratch for Q'(du)
     * until it is written for real below; dy may equal dy_in. */
    norm_bwd(kind, rows, C, 1, du, y, mean, rstd, g, dx, dg, db);
    for (size_t i = 0; i < n; i++)
        dy[i] = (dy_in ? dy_in[i] : 0) + dx[i];

    /* xn feeds both I (through u) and its later use. */
    if (dxn)
        add(n, du, dxn);
    norm_bwd(kind, rows, C, 0, du, x, mean, rstd, g, dx, dg, db);
}

void SVK_REF(siamese_out_fwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                              svk_real eps, const svk_real *x, const svk_real *y,
                              const svk_real *g, const svk_real *b, svk_real *out,
                              svk_real *mean, svk_real *rstd, svk_real *work)
{
    size_t n = rows * C;
    norm_fwd(kind, rows, C, eps, 0, x, g, b, out, mean, rstd);
    norm_fwd(kind, rows, C, eps, 1, y, g, b, work, mean, rstd);
    add(n, out, work);
    norm_fwd(kind, rows, C, eps, 2, out, g, b, out, mean, rstd);
}

void SVK_REF(siamese_out_bwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                              svk_real eps, const svk_real *dout, const svk_real *x,
                              const svk_real *y, const svk_real *mean,
                              const svk_real *rstd, const svk_real *g,
                              const svk_real *b, svk_real *dx, svk_real *dy,
                              svk_real *dg, svk_real *db, svk_real *work)
{
    size_t n = rows * C;
    svk_real *s = work;      /* N_x(x) + N_y(y), the input of N_out */
    svk_real *ds = work + n; /* first N_y(y), then the gradient of s */

    norm_fwd(kind, rows, C, eps, 0, x, g, b, s, NULL, NULL);
    norm_fwd(kind, rows, C, eps, 1, y, g, b, ds, NULL, NULL);
    add(n, s, ds);
    norm_bwd(kind, rows, C, 2, dout, s, mean, rstd, g, ds, dg, db);
    /* s is a plain sum: both streams receive ds. */
    norm_bwd(kind, rows, C, 0, ds, x, mean, rstd, g, dx, dg, db);
    norm_bwd(kind, rows, C, 1, ds, y, mean, rstd, g, dy, dg, db);
}
