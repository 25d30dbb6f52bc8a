/* Push constants of shaders/siamese_norm_bwd.comp
 * (see push_defs.h). The three norms are P, Q, I (or N_x, N_y, N_out) in
 * that order: gains and biases are [3, C] (row k at off_g + k * C), the
 * statistics [3, rows] (row k at off_mean + k * rows). Offsets are in
 * elements from the start of each bound buffer. */
#ifndef SVK_PUSH_SIAMESE_NORM_BWD_H
#define SVK_PUSH_SIAMESE_NORM_BWD_H
#include "push_defs.h"
#include "siamese_norm_flags.h"

/* The first stage of the backward pass: the gradient du of I's input
 * u = P(x) + Q(y), into scratch, and I's parameter-gradient partials (lanes
 * as in svk_push_norm_bwd). The P and Q stages are layernorm_bwd or
 * rmsnorm_bwd dispatches that read du. */
SVK_PUSH_BEGIN(svk_push_siamese_norm_bwd)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(rows_per_part)
    SVK_PUSH_U32(n_part)
    SVK_PUSH_U32(off_dh)    /* [rows, C] */
    SVK_PUSH_U32(off_x)     /* [rows, C] */
    SVK_PUSH_U32(off_y)     /* [rows, C] */
    SVK_PUSH_U32(off_g)     /* [3, C] */
    SVK_PUSH_U32(off_b)     /* [3, C] (layernorm only) */
    SVK_PUSH_U32(off_mean)  /* [3, rows] (layernorm only) */
    SVK_PUSH_U32(off_rstd)  /* [3, rows] */
    SVK_PUSH_U32(off_du)    /* [rows, C], in the scratch buffer */
    SVK_PUSH_U32(off_part)  /* [n_part, C]: I's gain block, in the scratch buffer */
    SVK_PUSH_U32(part_b)    /* elements from I's gain block to its bias block */
    SVK_PUSH_U32(flags)     /* SVK_SIAMESE_FLAG_* */
SVK_PUSH_END(svk_push_siamese_norm_bwd)

#endif
