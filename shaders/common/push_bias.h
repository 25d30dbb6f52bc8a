/* Push constants of shaders/bias_fwd.comp (see push_defs.h). Offsets are in
 * elements of the bound buffers. */
#ifndef SVK_PUSH_BIAS_H
#define SVK_PUSH_BIAS_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_bias)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(N)         /* columns; rows * N < 2^32 */
    SVK_PUSH_U32(off_bias)  /* bias: [N] */
    SVK_PUSH_U32(off_out)   /* out: [rows, N], updated in place */
SVK_PUSH_END(svk_push_bias)

#endif
