/* Reference LayerNorm over the last axis (docs/MODEL.md, "Building blocks"). */
#include "real.h"

void SVK_REF(layernorm_fwd)(size_t rows, size_t width, svk_real eps,
                            const svk_real *x, const svk_real *g, const svk_real *b,
                            svk_real *out, svk_real *mean, svk_real *rstd)
{
    if (width == 0)
        return;
    for (size_t r = 0; r < rows; r++) {
        const svk_real *xr = x + r * width;
        svk_real *o = out + r * width;
        svk_real sum = 0;
        for (size_t i = 0; i < width; i++)
            sum += xr[i];
        svk_real mu = sum / (svk_real)width;
        /* Two passes: the variance is the mean of squared deviations, not
         * E[x^2] - mean^2, which cancels catastrophically when |mean| >> std
         * (a residual stream with a large offset). */
        svk_real ss = 0;
        for (size_t i = 0; i < width; i++) {
            svk_real d = xr[i] - mu;
            ss += d * d;
        }
        svk_real rs = 1 / ref_sqrt(ss / (svk_real)width + eps);
        /* The statistics are complete before anything is written, so out may
         * equal x. */
        for (size_t i = 0; i < width; i++)
            o[i] = (xr[i] - mu) * rs * g[i] + b[i];
        if (mean)
            mean[r] = mu;
        if (rstd)
            rstd[r] = rs;
    }
}

void SVK_REF(layernorm_bwd)(size_t rows, size_t width, const svk_real *dout,
                            const svk_real *x, const svk_real *mean,
                            const svk_real *rstd, const svk_real *g, svk_real *dx,
                            svk_real *dg, svk_real *db)
{
    if (width == 0)
        return;
    for (size_t r = 0; r < rows; r++) {
        const svk_real *dor = dout + r * width;
        const svk_real *xr = x + r * width;
        svk_real *dxr = dx + r * width;
        svk_real mu = mean[r], rs = rstd[r];
        /* With xhat = (x - mean) rstd and dxhat = dout g:
         *   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
         * the two means being the gradient through mean and through rstd. */
        svk_real sum_d = 0, sum_dx = 0;
        for (size_t i = 0; i < width; i++) {
            svk_real xhat = (xr[i] - mu) * rs;
            svk_real dxhat = dor[i] * g[i];
            sum_d += dxhat;
            sum_dx += dxhat * xhat;
            dg[i] += dor[i] * xhat;
            db[i] += dor[i];
        }
        svk_real mean_d = sum_d / (svk_real)width;
        svk_real mean_dx = sum_dx / (svk_real)width;
        /* Element i of x and dout is read before dx[i] is written, so dx may
         * equal either. */
        for (size_t i = 0; i < width; i++) {
            svk_real xhat = (xr[i] - mu) * rs;
            svk_real dxhat = dor[i] * g[i];
            dxr[i] = rs * (dxhat - mean_d - xhat * mean_dx);
        }
    }
}
