/* Reference SwiGLU gating (docs/MODEL.md, "Building blocks", mlp = swiglu). */
#include "real.h"

/* sigmoid(u) = 1 / (1 + exp(-u)): for very negative u exp overflows to +inf
 * and the result is an exact 0, never a NaN, so no branch is needed. */
static svk_real sigmoid(svk_real u)
{
    return 1 / (1 + ref_exp(-u));
}

void SVK_REF(swiglu_fwd)(size_t n, const svk_real *gate, const svk_real *up,
                         svk_real *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

void SVK_REF(swiglu_bwd)(size_t n, const svk_real *gate, const svk_real *up,
                         const svk_real *dout, svk_real *dgate, svk_real *dup)
{
    for (size_t i = 0; i < n; i++) {
        svk_real s = sigmoid(gate[i]);
        /* silu'(u) = s + u s (1 - s) = s (1 + u (1 - s)). */
        svk_real dsilu = s * (1 + gate[i] * (1 - s));
        svk_real d = dout[i];
        dup[i] = d * gate[i] * s;
        dgate[i] = d * up[i] * dsilu;
    }
}
