/* Push constants of shaders/transpose.comp (see push_defs.h). */
#ifndef SVK_PUSH_TRANSPOSE_H
#define SVK_PUSH_TRANSPOSE_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_transpose)
    SVK_PUSH_U32(rows)     /* of src */
    SVK_PUSH_U32(cols)     /* of src */
    SVK_PUSH_U32(ld)       /* elements between rows of src */
    SVK_PUSH_U32(off_src)
    SVK_PUSH_U32(off_dst)  /* dst is [cols, rows], packed */
SVK_PUSH_END(svk_push_transpose)

#endif
