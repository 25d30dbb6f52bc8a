/* Reference global gradient-norm clipping (docs/MODEL.md, "Optimiser"). */
#include "real.h"

/* The sum of squares runs over every gradient of the model (millions of
 * terms) and is accumulated in double in both builds: a sequential float sum
 * that long loses about n * 2^-24 relative in the worst case, an error of
 * the reference's own. The norm is rounded to svk_real once, at the end. */
svk_real SVK_REF(global_norm)(size_t count, const svk_real *const *arrays,
                              const size_t *sizes)
{
    double ss = 0;
    for (size_t a = 0; a < count; a++)
        for (size_t i = 0; i < sizes[a]; i++)
            ss += (double)arrays[a][i] * (double)arrays[a][i];
    return (svk_real)sqrt(ss);
}

/* Written as a comparison rather than fmin so that a NaN norm (a non-finite
 * gradient) yields a NaN scale that poisons the update, as torch's clamp
 * does, instead of being silently treated as "no clipping". */
svk_real SVK_REF(clip_scale)(svk_real norm, svk_real max_norm)
{
    if (max_norm == 0)
        return 1;
    svk_real s = max_norm / (norm + (svk_real)1e-6);
    return s > 1 ? 1 : s;
}

void SVK_REF(clip_apply)(size_t count, svk_real *const *arrays, const size_t *sizes,
                         svk_real scale)
{
    for (size_t a = 0; a < count; a++)
        for (size_t i = 0; i < sizes[a]; i++)
            arrays[a][i] *= scale;
}
