/* Push constants of shaders/norm_fwd.comp and norm_fwd_cpu.comp (see
 * push_defs.h). Offsets are in elements (floats) from the start of each
 * bound buffer. */
#ifndef SVK_PUSH_NORM_FWD_H
#define SVK_PUSH_NORM_FWD_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_norm_fwd)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(width)
    SVK_PUSH_U32(off_x)     /* [rows, width] */
    SVK_PUSH_U32(off_g)     /* [width] */
    SVK_PUSH_U32(off_b)     /* [width] (layernorm only) */
    SVK_PUSH_U32(off_out)   /* [rows, width] */
    SVK_PUSH_U32(off_mean)  /* [rows] (layernorm only) */
    SVK_PUSH_U32(off_rstd)  /* [rows] */
    SVK_PUSH_U32(flags)     /* SVK_NORM_FLAG_* */
    SVK_PUSH_F32(eps)
SVK_PUSH_END(svk_push_norm_fwd)

/* Forward: write mean (layernorm), rstd. */
#define SVK_NORM_FLAG_SAVE_MEAN 1u
#define SVK_NORM_FLAG_SAVE_RSTD 2u

#endif
