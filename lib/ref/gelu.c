/* Reference GELU, the tanh form docs/MODEL.md gives (GPT-2's), not the erf form. */
#include "real.h"

/* sqrt(2/pi), written out: M_PI is not C11. */
#define GELU_K ((svk_real)0.79788456080286535588)
#define GELU_C ((svk_real)0.044715)

void SVK_REF(gelu_fwd)(size_t n, const svk_real *x, svk_real *out)
{
    for (size_t i = 0; i < n; i++) {
        svk_real u = x[i];
        out[i] = (svk_real)0.5 * u * (1 + ref_tanh(GELU_K * (u + GELU_C * u * u * u)));
    }
}

void SVK_REF(gelu_bwd)(size_t n, const svk_real *x, const svk_real *dout,
                       svk_real *dx)
{
    for (size_t i = 0; i < n; i++) {
        svk_real u = x[i];
        svk_real th = ref_tanh(GELU_K * (u + GELU_C * u * u * u));
        /* d/du [0.5 u (1 + tanh(a(u)))] = 0.5 (1 + tanh) + 0.5 u sech^2 a'(u),
         * with sech^2 = 1 - tanh^2: it goes to 0 (not to a NaN) for large |u|. */
        svk_real da = GELU_K * (1 + 3 * GELU_C * u * u);
        svk_real d = (svk_real)0.5 * (1 + th) + (svk_real)0.5 * u * (1 - th * th) * da;
        dx[i] = dout[i] * d;
    }
}
