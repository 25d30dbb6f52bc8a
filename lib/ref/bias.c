/* Reference bias add of a Linear layer and its gradient. */
#include "real.h"

void SVK_REF(bias_fwd)(size_t rows, size_t N, const svk_real *bias, svk_real *out)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < N; j++)
            out[r * N + j] += bias[j];
}

/* Summed row by row into dbias itself: the order is fixed (rows ascending),
 * so the result is the same on every run; a GPU reduction tree differs from
 * it by roundings only. */
void SVK_REF(bias_bwd)(size_t rows, size_t N, const svk_real *dout, svk_real *dbias)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < N; j++)
            dbias[j] += dout[r * N + j];
}
