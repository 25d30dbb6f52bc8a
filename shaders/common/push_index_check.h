/* Push constants of shaders/index_check.comp (see push_defs.h). Offsets are
 * in elements of the bound buffers. */
#ifndef SVK_PUSH_INDEX_CHECK_H
#define SVK_PUSH_INDEX_CHECK_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_index_check)
    SVK_PUSH_U32(n)           /* indices */
    SVK_PUSH_U32(V)           /* valid indices are [0, V) */
    SVK_PUSH_U32(off_idx)     /* idx: [n] int32 */
    SVK_PUSH_U32(off_counts)  /* counts: [2] int32, written: valid, invalid */
    SVK_PUSH_I32(ignore)      /* with SVK_INDEX_CHECK_FLAG_IGNORE: neither valid nor invalid */
    SVK_PUSH_U32(flags)       /* SVK_INDEX_CHECK_FLAG_* */
SVK_PUSH_END(svk_push_index_check)

#define SVK_INDEX_CHECK_FLAG_IGNORE 1u

#endif
