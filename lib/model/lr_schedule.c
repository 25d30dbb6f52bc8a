/* svk_lr_schedule and svk_lr_schedule_ex (svk/model.h): the public face of
 * the reference's schedules (lib/ref/lr_schedule.c), in double and rounded
 * once, so a training loop gets the rates docs/MODEL.md defines without a
 * copy of the formula to drift from it. */
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

svk_lr_params svk_lr_params_default(void)
{
    return (svk_lr_params){.shape = SVK_LR_COSINE, .total = 1, .warmup = 0, .peak = 0, .decay_frac = 0.2f};
}

svk_status svk_lr_schedule_ex(const svk_lr_params *p, uint64_t step, float *lr)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, p);
    SVK_CHECK_PTR(NULL, lr);
    SVK_CHECK_RESERVED(NULL, p->reserved);
    if (p->shape != SVK_LR_COSINE && p->shape != SVK_LR_CONSTANT && p->shape != SVK_LR_WSD)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: shape %d is not SVK_LR_COSINE, _CONSTANT or _WSD",
                         __func__, (int)p->shape);
    if (!(p->decay_frac >= 0 && p->decay_frac <= 1))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: decay_frac=%g must be within [0, 1]", __func__,
                         (double)p->decay_frac);
    if (!(p->peak >= 0) || !isfinite(p->peak))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: peak=%g must be finite and >= 0", __func__,
                         (double)p->peak);
    if (step >= p->total)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: step %llu is not among the run's %llu updates (0..total-1)",
                         __func__, (unsigned long long)step, (unsigned long long)p->total);
    switch (p->shape) {
    case SVK_LR_CONSTANT: *lr = p->peak; break;
    case SVK_LR_WSD: *lr = (float)svk_ref_lr_wsd_f64(step, p->total, p->warmup, p->decay_frac, p->peak); break;
    default: *lr = (float)svk_ref_lr_schedule_f64(step, p->total, p->warmup, p->peak); break;
    }
    return SVK_OK;
}
