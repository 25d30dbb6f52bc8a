/* Push constants of shaders/colsum.comp (see push_defs.h). Offsets and the
 * leading dimension are in elements of the bound buffers. */
#ifndef SVK_PUSH_COLSUM_H
#define SVK_PUSH_COLSUM_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_colsum)
    SVK_PUSH_U32(rows)           /* rows of src */
    SVK_PUSH_U32(N)              /* columns */
    SVK_PUSH_U32(ld)             /* elements between rows of src, >= N */
    SVK_PUSH_U32(rows_per_block) /* rows summed by one workgroup z index */
    SVK_PUSH_U32(off_src)        /* src: [rows, ld] */
    SVK_PUSH_U32(off_dst)        /* dst: [N] (accumulate) or [blocks, N] (partials) */
    SVK_PUSH_U32(flags)          /* SVK_COLSUM_FLAG_* */
SVK_PUSH_END(svk_push_colsum)

/* dst[c] += sum (one block only); without it dst[block * N + c] = sum. */
#define SVK_COLSUM_FLAG_ACCUMULATE 1u

#endif
