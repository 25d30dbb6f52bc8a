/* Push constants of shaders/rope_fwd.comp and rope_bwd.comp (see
 * push_defs.h). The inverse frequency of pair i is r^i with
 * r = theta^(-2/D), passed as the unevaluated sum r_hi + r_lo of two floats
 * (r computed in double on the host) so that the shader can form r^i and
 * the angle t * r^i to about 2^-44 relative (shaders/common/twofloat.glsl). */
#ifndef SVK_PUSH_ROPE_H
#define SVK_PUSH_ROPE_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_rope)
    SVK_PUSH_U32(rows)   /* B * T token positions */
    SVK_PUSH_U32(T)      /* position of row r is r % T */
    SVK_PUSH_U32(C)      /* model width; a row holds 3C values (q, k, v) */
    SVK_PUSH_U32(H)      /* heads */
    SVK_PUSH_U32(pairs)  /* D / 2 pairs per head */
    SVK_PUSH_U32(off)    /* element offset of qkv */
    SVK_PUSH_F32(r_hi)
    SVK_PUSH_F32(r_lo)
SVK_PUSH_END(svk_push_rope)

#endif
