/* Reference dynamic loss scaling (docs/MODEL.md, "Precision"); the device
 * does the same in shaders/clip_scale.comp. */
#include "real.h"

#include "common/push_clip.h"

/* S and 1/S move together by factors of two, so both stay exact powers of
 * two and no division is ever needed. The count is a float: exact up to
 * 2^24, past any interval the API allows. */
void SVK_REF(loss_scale_update)(svk_real *state, int overflow, uint32_t interval)
{
    const svk_real s = state[SVK_LOSS_SCALER_S];
    svk_real good = state[SVK_LOSS_SCALER_GOOD];
    if (overflow) {
        good = 0;
        if (s > (svk_real)ldexp(1.0, -SVK_LOSS_SCALE_MAX_EXP)) {
            state[SVK_LOSS_SCALER_S] = s * (svk_real)0.5;
            state[SVK_LOSS_SCALER_INV] *= 2;
        }
    } else if ((good += 1) >= (svk_real)interval) {
        good = 0;
        if (s < (svk_real)ldexp(1.0, SVK_LOSS_SCALE_MAX_EXP)) {
            state[SVK_LOSS_SCALER_S] = s * 2;
            state[SVK_LOSS_SCALER_INV] *= (svk_real)0.5;
        }
    }
    state[SVK_LOSS_SCALER_GOOD] = good;
}
