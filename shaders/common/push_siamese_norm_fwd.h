/* Push constants of shaders/siamese_norm_fwd.comp
 * (see push_defs.h). The three norms are P, Q, I (or N_x, N_y, N_out) in
 * that order: gains and biases are [3, C] (row k at off_g + k * C), the
 * statistics [3, rows] (row k at off_mean + k * rows). Offsets are in
 * elements from the start of each bound buffer. */
#ifndef SVK_PUSH_SIAMESE_NORM_FWD_H
#define SVK_PUSH_SIAMESE_NORM_FWD_H
#include "push_defs.h"
#include "siamese_norm_flags.h"

SVK_PUSH_BEGIN(svk_push_siamese_norm_fwd)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(off_x)     /* [rows, C] */
    SVK_PUSH_U32(off_y)     /* [rows, C] */
    SVK_PUSH_U32(off_g)     /* [3, C] */
    SVK_PUSH_U32(off_b)     /* [3, C] (layernorm only) */
    SVK_PUSH_U32(off_xn)    /* [rows, C] (SVK_SIAMESE_FLAG_XN only) */
    SVK_PUSH_U32(off_h)     /* [rows, C] */
    SVK_PUSH_U32(off_mean)  /* [3, rows] (layernorm only) */
    SVK_PUSH_U32(off_rstd)  /* [3, rows] */
    SVK_PUSH_U32(flags)     /* SVK_SIAMESE_FLAG_* */
    SVK_PUSH_F32(eps)
SVK_PUSH_END(svk_push_siamese_norm_fwd)

#endif
