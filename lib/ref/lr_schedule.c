/* Reference learning-rate schedule (docs/MODEL.md, "Optimiser"). */
#include "real.h"

/* Computed in double and rounded once: a host-side scalar, and the step
 * counts are exact in double up to 2^53. S - 1 - W is formed in double too,
 * where it may be negative (W >= S), which max(1, .) then absorbs. */
svk_real SVK_REF(lr_schedule)(uint64_t step, uint64_t total, uint64_t warmup,
                              svk_real peak)
{
    double pk = (double)peak;
    if (step < warmup)
        return (svk_real)(pk * (double)(step + 1) / (double)warmup);
    double span = (double)total - 1 - (double)warmup;
    double p = ((double)step - (double)warmup) / (span > 1 ? span : 1);
    if (p < 0)
        p = 0;
    if (p > 1)
        p = 1;
    const double pi = 3.14159265358979323846;
    double lo = 0.1 * pk;
    return (svk_real)(lo + 0.5 * (pk - lo) * (1 + cos(pi * p)));
}

/* Warm-up, stable, decay: the warm-up above, then the peak until the last
 * D = floor(decay_frac * total + 0.5) updates, which go down in a straight
 * line to a tenth of the peak (the cosine's floor) at the last one. The
 * warm-up wins where the two overlap. */
svk_real SVK_REF(lr_wsd)(uint64_t step, uint64_t total, uint64_t warmup, double decay_frac,
                         svk_real peak)
{
    double pk = (double)peak;
    if (step < warmup)
        return (svk_real)(pk * (double)(step + 1) / (double)warmup);
    double d = floor(decay_frac * (double)total + 0.5);
    if (d > (double)total)
        d = (double)total;
    /* k = 1 .. D over the decay: the first decay update is already below
     * the peak, the last (step total - 1) is 0.1 peak. */
    double k = (double)step - ((double)total - d) + 1;
    if (d < 1 || k <= 0)
        return (svk_real)pk;
    if (k > d)
        k = d;
    return (svk_real)(pk * (1 - 0.9 * k / d));
}
