/* Push constants of shaders/attention_softmax_fwd.comp and
 * attention_softmax_bwd.comp (see push_defs.h): the causal row softmax of
 * the materialised attention path (lib/ops/attention.c). Rows are the
 * B * H * T query rows of a [B, H, T, T] tensor; row r belongs to query
 * position t = r % T and has t + 1 valid entries. Offsets are in elements. */
#ifndef SVK_PUSH_ATTENTION_SOFTMAX_H
#define SVK_PUSH_ATTENTION_SOFTMAX_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_attention_softmax)
    SVK_PUSH_U32(rows)   /* B * H * T */
    SVK_PUSH_U32(T)      /* row length */
    SVK_PUSH_U32(off_p)  /* binding 0: scores (fwd, in place) or probabilities (bwd) */
    SVK_PUSH_U32(off_d)  /* binding 1 (bwd only): dP in, dS out, in place */
SVK_PUSH_END(svk_push_attention_softmax)

#endif
