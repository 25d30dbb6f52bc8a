/* Reference RMSNorm over the last axis (docs/MODEL.md, "Building blocks"). */
#include "real.h"

void SVK_REF(rmsnorm_fwd)(size_t rows, size_t width, svk_real eps,
                          const svk_real *x, const svk_real *g, svk_real *out,
                          svk_real *rstd)
{
    if (width == 0)
        return;
    for (size_t r = 0; r < rows; r++) {
        const svk_real *xr = x + r * width;
        svk_real *o = out + r * width;
        svk_real ss = 0;
        for (size_t i = 0; i < width; i++)
            ss += xr[i] * xr[i];
        svk_real rs = 1 / ref_sqrt(ss / (svk_real)width + eps);
        /* rstd is known before anything is written, so out may equal x. */
        for (size_t i = 0; i < width; i++)
            o[i] = xr[i] * rs * g[i];
        if (rstd)
            rstd[r] = rs;
    }
}

void SVK_REF(rmsnorm_bwd)(size_t rows, size_t width, const svk_real *dout,
                          const svk_real *x, const svk_real *rstd, const svk_real *g,
                          svk_real *dx, svk_real *dg)
{
    if (width == 0)
        return;
    for (size_t r = 0; r < rows; r++) {
        const svk_real *dor = dout + r * width;
        const svk_real *xr = x + r * width;
        svk_real *dxr = dx + r * width;
        svk_real rs = rstd[r];
        /* With xhat = x rstd and dxhat = dout g:
         *   dx = rstd (dxhat - xhat mean(dxhat xhat)),
         * the mean being the gradient through rstd (there is no mean term). */
        svk_real sum_dx = 0;
        for (size_t i = 0; i < width; i++) {
            svk_real xhat = xr[i] * rs;
            sum_dx += dor[i] * g[i] * xhat;
            dg[i] += dor[i] * xhat;
        }
        svk_real mean_dx = sum_dx / (svk_real)width;
        /* Element i is read before dx[i] is written: dx may equal dout or x. */
        for (size_t i = 0; i < width; i++) {
            svk_real xhat = xr[i] * rs;
            dxr[i] = rs * (dor[i] * g[i] - xhat * mean_dx);
        }
    }
}
