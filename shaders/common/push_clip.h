/* Push constants of shaders/clip_sumsq.comp and clip_scale.comp (see
 * push_defs.h). Offsets are in elements of the bound buffers. */
#ifndef SVK_PUSH_CLIP_H
#define SVK_PUSH_CLIP_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_clip)
    SVK_PUSH_U32(n)            /* clip_sumsq: elements of x; clip_scale: partial slots */
    SVK_PUSH_U32(off_x)        /* clip_sumsq: x [n] */
    SVK_PUSH_U32(off_partials) /* partials: clip_sumsq writes [groups], clip_scale reads [n] */
    SVK_PUSH_U32(off_out)      /* clip_scale: out [2], written: norm, scale */
    SVK_PUSH_F32(max_norm)     /* clip_scale: 0 turns clipping off (scale 1) */
    SVK_PUSH_U32(flags)        /* clip_scale: SVK_CLIP_FLAG_* */
    SVK_PUSH_U32(off_state)    /* clip_scale, loss scaling: the scaler [SVK_LOSS_SCALER_COUNT], updated */
    SVK_PUSH_U32(off_out_scale) /* clip_scale, loss scaling: out_scale [1], written: the step's scale */
    SVK_PUSH_U32(interval)     /* clip_scale, loss scaling: steps without overflow before the scale doubles */
SVK_PUSH_END(svk_push_clip)

/* Dynamic loss scaling (docs/MODEL.md, "Precision"): the gradients arrive
 * multiplied by the scale S; the norm and the clip scale are those of the
 * gradients divided by S, and the multiplier AdamW reads is the clip scale
 * times 1/S. */
#define SVK_CLIP_FLAG_LOSS_SCALE 1u

/* The loss scaler's state, floats: S and 1/S (powers of two, both kept so
 * that scaling and unscaling are multiplications, exact on every device),
 * and the steps in a row without overflow. */
#define SVK_LOSS_SCALER_S 0u
#define SVK_LOSS_SCALER_INV 1u
#define SVK_LOSS_SCALER_GOOD 2u
#define SVK_LOSS_SCALER_COUNT 3u
/* S stays within [2^-SVK_LOSS_SCALE_MAX_EXP, 2^SVK_LOSS_SCALE_MAX_EXP]. */
#define SVK_LOSS_SCALE_MAX_EXP 24

#endif
