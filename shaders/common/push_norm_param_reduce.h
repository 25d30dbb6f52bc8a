/* Push constants of shaders/norm_param_reduce.comp (see push_defs.h). */
#ifndef SVK_PUSH_NORM_PARAM_REDUCE_H
#define SVK_PUSH_NORM_PARAM_REDUCE_H
#include "push_defs.h"

/* The partials are blocks of [n_part, C] floats starting at off_part: for
 * norm k (k < n_norms) the gain block is block k * blocks_per_norm and, when
 * blocks_per_norm is 2 (layernorm), the bias block is the next one.
 *   dg[off_dg + k * C + i] += sum over p = 0, 1, ... of gain block[p, i]
 *   db[off_db + k * C + i] += likewise over the bias block. */
SVK_PUSH_BEGIN(svk_push_norm_param_reduce)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(n_norms)
    SVK_PUSH_U32(n_part)
    SVK_PUSH_U32(blocks_per_norm) /* 1 (gains) or 2 (gains and biases) */
    SVK_PUSH_U32(off_part)
    SVK_PUSH_U32(off_dg)
    SVK_PUSH_U32(off_db)
SVK_PUSH_END(svk_push_norm_param_reduce)

#endif
