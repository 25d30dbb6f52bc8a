/* Push constants of shaders/decode_embed.comp and decode_attention.comp
 * (see push_defs.h): one token's embedding and attention at the position
 * the step buffer holds (lib/ops/decode.h). */
#ifndef SVK_PUSH_DECODE_H
#define SVK_PUSH_DECODE_H
#include "push_defs.h"

#define SVK_DECODE_FLAG_WPE 1u  /* decode_embed: add wpe's row */
#define SVK_DECODE_FLAG_ROPE 2u /* decode_attention: rotate q and k */
#define SVK_DECODE_FLAG_PART 4u /* decode_embed: wte is rows [row0, row0 + V); out is left as it is for a
                                   token outside them */

SVK_PUSH_BEGIN(svk_push_decode)
    SVK_PUSH_U32(C)        /* model width */
    SVK_PUSH_U32(H)        /* heads (decode_attention) */
    SVK_PUSH_U32(V)        /* vocabulary (decode_embed) */
    SVK_PUSH_U32(ctx)      /* rows of wpe and of the cache; a position >= ctx does nothing */
    SVK_PUSH_U32(off_step) /* element offset of the int32 {token, position} */
    SVK_PUSH_U32(off_a)    /* wte's, or qkv's */
    SVK_PUSH_U32(off_b)    /* wpe's, or the cache's */
    SVK_PUSH_U32(off_out)
    SVK_PUSH_U32(flags)
    SVK_PUSH_F32(scale)    /* 1 / sqrt(D) */
    SVK_PUSH_F32(r_hi)     /* RoPE's theta^(-2/D) as r_hi + r_lo, as push_rope.h's */
    SVK_PUSH_F32(r_lo)
    SVK_PUSH_U32(row0)     /* decode_embed: wte's first vocabulary row (SVK_DECODE_FLAG_PART) */
SVK_PUSH_END(svk_push_decode)

#endif
