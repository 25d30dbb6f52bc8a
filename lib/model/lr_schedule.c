/* svk_lr_schedule (svk/model.h): the public face of the reference's
 * schedule (lib/ref/lr_schedule.c), in double and rounded once, so a
 * training loop gets the rates docs/MODEL.md defines without a copy of the
 * formula to drift from it. */
#include <math.h>

#include "core/error.h"
#include "ref.h"
#include "svk/model.h"

svk_status svk_lr_schedule(uint64_t step, uint64_t total, uint64_t warmup, float peak, float *lr)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, lr);
    if (!(peak >= 0) || !isfinite(peak))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: peak=%g must be finite and >= 0", __func__,
                         (double)peak);
    if (step >= total)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: step %llu is not among the run's %llu updates (0..total-1)",
                         __func__, (unsigned long long)step, (unsigned long long)total);
    *lr = (float)svk_ref_lr_schedule_f64(step, total, warmup, peak);
    return SVK_OK;
}
