/* Push constants of shaders/embedding_fwd.comp and embedding_bwd.comp (see
 * push_defs.h). Offsets are in elements of the bound buffers. */
#ifndef SVK_PUSH_EMBEDDING_H
#define SVK_PUSH_EMBEDDING_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_embedding)
    SVK_PUSH_U32(B)
    SVK_PUSH_U32(T)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(V)
    SVK_PUSH_U32(off_tokens)  /* tokens: [B, T] int32 */
    SVK_PUSH_U32(off_table)   /* forward: wte [V, C]; backward: dwte [V, C] or dwpe [T, C] */
    SVK_PUSH_U32(off_wpe)     /* forward: wpe [>= T, C] */
    SVK_PUSH_U32(off_act)     /* forward: out [B, T, C]; backward: dout [B, T, C] */
    SVK_PUSH_U32(slices)      /* backward, dwte: vocabulary slices (grid y) */
    SVK_PUSH_U32(flags)       /* SVK_EMBEDDING_FLAG_* */
    SVK_PUSH_U32(row0)        /* the table holds vocabulary rows [row0, row0 + V) (a part of one too
                                 large for a binding); 0 with the whole table */
SVK_PUSH_END(svk_push_embedding)

#define SVK_EMBEDDING_FLAG_WPE 1u     /* forward: add wpe */
#define SVK_EMBEDDING_FLAG_POS 2u     /* backward: this dispatch accumulates dwpe, not dwte */
#define SVK_EMBEDDING_FLAG_PART 4u    /* forward: rows whose token is outside the part are left as they are */

#endif
