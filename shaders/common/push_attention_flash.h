/* Push constants of shaders/attention_flash_fwd.comp (see push_defs.h).
 * Offsets in elements. */
#ifndef SVK_PUSH_ATTENTION_FLASH_H
#define SVK_PUSH_ATTENTION_FLASH_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_attention_flash)
    SVK_PUSH_U32(B)
    SVK_PUSH_U32(T)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(H)
    SVK_PUSH_U32(D)        /* C / H, <= the shader's DMAX */
    SVK_PUSH_U32(q_blocks) /* ceil(T / BQ): workgroups per (batch, head) */
    SVK_PUSH_U32(off_qkv)  /* [B, T, 3C] */
    SVK_PUSH_U32(off_out)  /* [B, T, C] */
    SVK_PUSH_F32(scale)    /* 1 / sqrt(D) */
SVK_PUSH_END(svk_push_attention_flash)

#endif
