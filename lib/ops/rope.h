/*
 * Rotary position embedding on the device (docs/MODEL.md, "Building blocks", pos = rope),
 * with the semantics of svk_ref_rope_fwd / _bwd (lib/ref/ref_decls.h): in
 * place on the q and k parts of qkv [B, T, 3C] (v untouched); in each head
 * (D = C / H, even), at position t, pair (col i, col i + D/2), i < D/2,
 * becomes (a cos - b sin, a sin + b cos) with angle t * theta^(-2i/D).
 * Backward rotates the gradient by the negative angle.
 *
 * The angle and its sine and cosine are computed to about float rounding
 * (two-float arithmetic, exact range reduction: shaders/common/rope.glsl),
 * better than the float32 angle docs/MODEL.md allows.
 */
#ifndef SVK_OPS_ROPE_H
#define SVK_OPS_ROPE_H

#include "ops.h"

typedef struct svk_rope_args {
    uint32_t B, T, C, H; /* >= 1; C % H == 0, D = C / H even; T <= 2^22 */
    float theta;         /* > 0, finite (the model's rope_theta, e.g. 10000) */
    svk_tref qkv;        /* [B, T, 3C], read and written in place (dqkv for the backward) */
    const char *label;   /* NULL: "rope" */
} svk_rope_args;

svk_status svk_rope_fwd_record(svk_cmdlist *cl, const svk_rope_args *a);
svk_status svk_rope_bwd_record(svk_cmdlist *cl, const svk_rope_args *a);

#endif
