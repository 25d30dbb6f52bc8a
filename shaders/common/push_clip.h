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
SVK_PUSH_END(svk_push_clip)

#endif
