/* Push constants of shaders/gelu_fwd.comp and gelu_bwd.comp (see
 * push_defs.h). Offsets are in elements of the bound buffers. */
#ifndef SVK_PUSH_GELU_H
#define SVK_PUSH_GELU_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_gelu)
    SVK_PUSH_U32(n)         /* elements */
    SVK_PUSH_U32(off_x)     /* x: [n], the forward input */
    SVK_PUSH_U32(off_dout)  /* dout: [n] (backward only) */
    SVK_PUSH_U32(off_out)   /* out (forward) or dx (backward): [n] */
SVK_PUSH_END(svk_push_gelu)

#endif
