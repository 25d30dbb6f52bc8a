/* Push constants of shaders/swiglu_fwd.comp and swiglu_bwd.comp (see
 * push_defs.h). Offsets are in elements of the bound buffers. */
#ifndef SVK_PUSH_SWIGLU_H
#define SVK_PUSH_SWIGLU_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_swiglu)
    SVK_PUSH_U32(n)         /* elements */
    SVK_PUSH_U32(off_gate)  /* gate: [n] */
    SVK_PUSH_U32(off_up)    /* up: [n] */
    SVK_PUSH_U32(off_dout)  /* dout: [n] (backward only) */
    SVK_PUSH_U32(off_out)   /* out (forward) or dgate (backward): [n] */
    SVK_PUSH_U32(off_dup)   /* dup: [n] (backward only) */
SVK_PUSH_END(svk_push_swiglu)

#endif
