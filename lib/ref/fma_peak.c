/* Reference of shaders/fma_peak.comp, the benchmark's multiply-add kernel:
 * what each invocation must write, so that a device that skipped or cut
 * short its loop (lavapipe's loop budget) fails conformance instead of
 * reporting a rate for work it did not do. */
#include "real.h"

void SVK_REF(fma_peak)(size_t n, size_t chains, size_t steps, svk_real a, svk_real b, svk_real *out)
{
    for (size_t i = 0; i < n; i++) {
        const svk_real s = (svk_real)(i % 64);
        svk_real sum[4] = {0, 0, 0, 0};
        /* Chain c starts at s + c; the shader adds its chains as vec4s, in
         * chain order, then the four lanes pairwise. */
        for (size_t c = 0; c < chains; c++) {
            svk_real acc = s + (svk_real)c;
            for (size_t t = 0; t < steps; t++)
                acc = acc * a + b;
            sum[c % 4] += acc;
        }
        out[i] = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    }
}
