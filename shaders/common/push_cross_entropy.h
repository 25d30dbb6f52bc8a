/* Push constants of shaders/cross_entropy.comp and cross_entropy_loss.comp
 * (see push_defs.h). Offsets are in elements of the bound buffers. */
#ifndef SVK_PUSH_CROSS_ENTROPY_H
#define SVK_PUSH_CROSS_ENTROPY_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_cross_entropy)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(V)
    SVK_PUSH_U32(off_logits)  /* logits: [rows, V] */
    SVK_PUSH_U32(off_targets) /* targets: [rows] int32 */
    SVK_PUSH_U32(off_dlogits) /* dlogits: [rows, V], written (may equal logits) */
    SVK_PUSH_U32(off_losses)  /* losses: [rows], written */
    SVK_PUSH_U32(off_counts)  /* counts: [2] int32 from index_check: counted, invalid */
    SVK_PUSH_U32(off_loss)    /* loss: [1], written (cross_entropy_loss) */
    SVK_PUSH_U32(flags)       /* SVK_CROSS_ENTROPY_FLAG_* */
SVK_PUSH_END(svk_push_cross_entropy)

#define SVK_CROSS_ENTROPY_FLAG_DLOGITS 1u /* write dlogits */

#endif
