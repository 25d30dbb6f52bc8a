/* Push constants of the flash attention kernels (see push_defs.h):
 * shaders/attention_flash_fwd.comp and the two backward kernels
 * shaders/attention_flash_bwd_dq.comp, attention_flash_bwd_dkv.comp. Each
 * reads the offsets of the operands it binds. Offsets in elements. */
#ifndef SVK_PUSH_ATTENTION_FLASH_H
#define SVK_PUSH_ATTENTION_FLASH_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_attention_flash)
    SVK_PUSH_U32(B)
    SVK_PUSH_U32(T)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(H)
    SVK_PUSH_U32(D)        /* C / H, <= the shader's DMAX */
    SVK_PUSH_U32(blocks)   /* workgroups per (batch, head): ceil(T / rows per workgroup) */
    SVK_PUSH_U32(off_qkv)  /* [B, T, 3C] */
    SVK_PUSH_U32(off_out)  /* [B, T, C]: the forward's output */
    SVK_PUSH_U32(off_stats) /* [B, H, T, 2]: per query row m = max_j s_j, l = sum_j exp(s_j - m); even */
    SVK_PUSH_U32(off_dout) /* [B, T, C] */
    SVK_PUSH_U32(off_delta) /* [B, H, T]: rowsum(dout * out) per query row */
    SVK_PUSH_U32(off_dqkv) /* [B, T, 3C] */
    SVK_PUSH_F32(scale)    /* 1 / sqrt(D) */
SVK_PUSH_END(svk_push_attention_flash)

#endif
