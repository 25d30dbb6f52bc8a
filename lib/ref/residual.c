/* Reference SiameseNorm dual residual update (docs/MODEL.md, "Norm placement"). */
#include "real.h"

/* z / c is a division, as docs/MODEL.md reads; a kernel that multiplies by a
 * precomputed 1/c differs from it by a rounding. */
void SVK_REF(residual_fwd)(size_t n, svk_real c, svk_real *x, svk_real *y,
                           const svk_real *z)
{
    for (size_t i = 0; i < n; i++) {
        x[i] += z[i] / c;
        y[i] += z[i];
    }
}

void SVK_REF(residual_bwd)(size_t n, svk_real c, const svk_real *dx,
                           const svk_real *dy, svk_real *dz)
{
    for (size_t i = 0; i < n; i++)
        dz[i] = dx[i] / c + dy[i];
}
