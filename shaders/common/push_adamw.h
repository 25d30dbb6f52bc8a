/* Push constants of shaders/adamw.comp (see push_defs.h). Offsets are in
 * elements of the bound buffers. */
#ifndef SVK_PUSH_ADAMW_H
#define SVK_PUSH_ADAMW_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_adamw)
    SVK_PUSH_U32(n)
    SVK_PUSH_U32(off_p)       /* p, m, v: [n], updated in place */
    SVK_PUSH_U32(off_g)       /* g: [n] */
    SVK_PUSH_U32(off_m)
    SVK_PUSH_U32(off_v)
    SVK_PUSH_U32(off_scale)   /* scale: [1], the gradient multiplier (clip scale) */
    SVK_PUSH_U32(off_step)    /* step: [3] = lr, bc1, bc2 (with SVK_ADAMW_FLAG_STEP_BUFFER); [5] with
                                 SVK_ADAMW_FLAG_PREV_GUARD: then bc1, bc2 for t - 1 follow */
    SVK_PUSH_U32(off_guard)   /* guard: [2] = the step's loss, gradient norm (with SVK_ADAMW_FLAG_GUARD) */
    SVK_PUSH_U32(off_prev)    /* prev: [2] = the previous step's loss, gradient norm (SVK_ADAMW_FLAG_PREV_GUARD) */
    SVK_PUSH_U32(flags)       /* SVK_ADAMW_FLAG_* */
    SVK_PUSH_F32(lr)
    SVK_PUSH_F32(beta1)
    SVK_PUSH_F32(beta2)
    SVK_PUSH_F32(eps)
    SVK_PUSH_F32(weight_decay)
    SVK_PUSH_F32(bc1)         /* 1 - beta1^t */
    SVK_PUSH_F32(bc2)         /* 1 - beta2^t */
SVK_PUSH_END(svk_push_adamw)

#define SVK_ADAMW_FLAG_DECAY 1u       /* decoupled weight decay on this tensor */
#define SVK_ADAMW_FLAG_SCALE 2u       /* read the gradient scale from binding 4, else 1 */
#define SVK_ADAMW_FLAG_STEP_BUFFER 4u /* read lr, bc1, bc2 from binding 5, not from here */
#define SVK_ADAMW_FLAG_GUARD 8u       /* no update unless binding 6 holds a finite loss and norm^2 */
/* With STEP_BUFFER: the bias corrections are the step buffer's second pair
 * (those of t - 1) unless binding 7 holds a finite loss and norm^2: the
 * previous step, still running when this one was submitted, may have been
 * skipped, and only the device knows whether it was. */
#define SVK_ADAMW_FLAG_PREV_GUARD 16u

#endif
