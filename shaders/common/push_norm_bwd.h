/* Push constants of shaders/norm_bwd.comp and norm_bwd_cpu.comp (see
 * push_defs.h). Offsets are in elements (floats) from the start of each
 * bound buffer. */
#ifndef SVK_PUSH_NORM_BWD_H
#define SVK_PUSH_NORM_BWD_H
#include "push_defs.h"

/* The backward pass works in lanes: lane p (one row of invocations of a
 * workgroup) walks rows [p * rows_per_part, (p + 1) * rows_per_part) in
 * order and sums their parameter-gradient contributions into row p of the
 * partial blocks; shaders/norm_param_reduce.comp then adds the n_part rows
 * of each block, in order, to dg and db. */
SVK_PUSH_BEGIN(svk_push_norm_bwd)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(width)
    SVK_PUSH_U32(rows_per_part)
    SVK_PUSH_U32(n_part)
    SVK_PUSH_U32(off_dout)  /* [rows, width] */
    SVK_PUSH_U32(off_add)   /* [rows, width]: added to dout or to dx (flags), or unused */
    SVK_PUSH_U32(off_x)     /* [rows, width] */
    SVK_PUSH_U32(off_mean)  /* [rows] (layernorm only) */
    SVK_PUSH_U32(off_rstd)  /* [rows] */
    SVK_PUSH_U32(off_g)     /* [width] */
    SVK_PUSH_U32(off_dx)    /* [rows, width] */
    SVK_PUSH_U32(off_part)  /* [n_part, width]: the gain block */
    SVK_PUSH_U32(part_b)    /* elements from the gain block to the bias block (layernorm) */
    SVK_PUSH_U32(flags)     /* SVK_NORM_FLAG_* */
SVK_PUSH_END(svk_push_norm_bwd)

/* Backward: the gradient reaching the norm is dout + add (SiameseNorm: the
 * post-norm stream's own gradient joins the one from the block input). */
#define SVK_NORM_FLAG_ADD_DOUT 4u
/* Backward: dx = add + the gradient through the norm (SiameseNorm: the
 * pre-norm stream's gradient from its later use). */
#define SVK_NORM_FLAG_ADD_DX 8u

#endif
