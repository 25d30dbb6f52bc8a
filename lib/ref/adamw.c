/* Reference AdamW update, PyTorch semantics (docs/MODEL.md, "Optimiser"). */
#include "real.h"

/*
 * The update is written exactly as docs/MODEL.md's formulas read. torch arranges
 * the same arithmetic differently (p *= 1 - lr wd; m.lerp_(g, 1 - b1);
 * sqrt(v) / sqrt(1 - b2^t) + eps), which differs from this by roundings only.
 * The bias corrections 1 - beta^t are computed in double from the svk_real
 * betas and rounded once: they are per-step scalars a host would compute.
 */
void SVK_REF(adamw)(size_t n, svk_real *p, const svk_real *g, svk_real *m,
                    svk_real *v, svk_real grad_scale, svk_real lr, svk_real beta1,
                    svk_real beta2, svk_real eps, svk_real weight_decay, int decay,
                    uint64_t t)
{
    svk_real bc1 = (svk_real)(1 - pow((double)beta1, (double)t));
    svk_real bc2 = (svk_real)(1 - pow((double)beta2, (double)t));
    for (size_t i = 0; i < n; i++) {
        svk_real gi = g[i] * grad_scale;
        /* Decoupled weight decay, applied to the parameter before the Adam
         * step and independent of the gradient. */
        if (decay)
            p[i] -= lr * weight_decay * p[i];
        m[i] = beta1 * m[i] + (1 - beta1) * gi;
        v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
        svk_real mhat = m[i] / bc1;
        svk_real vhat = v[i] / bc2;
        p[i] -= lr * mhat / (ref_sqrt(vhat) + eps);
    }
}
