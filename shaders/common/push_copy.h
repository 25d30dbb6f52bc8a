/* Push constants of shaders/copy.comp (see push_defs.h). */
#ifndef SVK_PUSH_COPY_H
#define SVK_PUSH_COPY_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_copy)
    SVK_PUSH_U32(n)        /* elements */
    SVK_PUSH_U32(mode)     /* SVK_COPY_MODE_* */
    SVK_PUSH_U32(off_dst)
    SVK_PUSH_U32(off_src)
    SVK_PUSH_F32(value)    /* fill value */
SVK_PUSH_END(svk_push_copy)

#define SVK_COPY_MODE_FILL 0u  /* dst = value */
#define SVK_COPY_MODE_COPY 1u  /* dst = src */
#define SVK_COPY_MODE_ADD 2u   /* dst += src */

#endif
