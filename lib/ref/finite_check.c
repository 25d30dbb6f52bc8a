/* Reference finiteness check (shaders/finite_check.comp): plain isnan and
 * isinf, which the reference may trust (it is built without fast-math). */
#include "real.h"

void SVK_REF(finite_check)(size_t rows, size_t cols, size_t ld, const svk_real *x, svk_ref_finite *out)
{
    *out = (svk_ref_finite){0, 0, UINT64_MAX, 0};
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            const svk_real v = x[r * ld + c];
            if (isnan(v) || isinf(v)) {
                if (isnan(v))
                    out->nan++;
                else
                    out->inf++;
                if (out->first == UINT64_MAX)
                    out->first = (uint64_t)(r * cols + c);
            } else if (fabs((double)v) > out->max_abs) {
                out->max_abs = fabs((double)v);
            }
        }
}
