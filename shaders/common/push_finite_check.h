/* Push constants of shaders/finite_check.comp (see push_defs.h). Offsets are
 * in elements of the bound buffers. */
#ifndef SVK_PUSH_FINITE_CHECK_H
#define SVK_PUSH_FINITE_CHECK_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_finite_check)
    SVK_PUSH_U32(n)          /* elements looked at: rows * cols */
    SVK_PUSH_U32(cols)       /* elements of a row; element i is x[(i / cols) * ld + i % cols] */
    SVK_PUSH_U32(ld)         /* a row's stride in x, >= cols */
    SVK_PUSH_U32(off_x)      /* x: [rows, ld] float */
    SVK_PUSH_U32(off_stats)  /* stats: [4] uint32, written (see finite_check.comp) */
SVK_PUSH_END(svk_push_finite_check)

#endif
