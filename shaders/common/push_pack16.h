/* Push constants of shaders/pack16.comp and unpack16.comp (see
 * push_defs.h). Offsets are in elements of the bound buffers: floats for
 * x, 32-bit words (two 16-bit codes each) for packed. */
#ifndef SVK_PUSH_PACK16_H
#define SVK_PUSH_PACK16_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_pack16)
    SVK_PUSH_U32(n)         /* elements of x */
    SVK_PUSH_U32(fmt)       /* SVK_FMT_FP16 or SVK_FMT_BF16 (half16.glsl) */
    SVK_PUSH_U32(store)     /* pack16: 1 writes the codes, 0 only rounds x */
    SVK_PUSH_U32(off_x)     /* x: [n] floats */
    SVK_PUSH_U32(off_packed) /* packed: [ceil(n / 2)] words, element 2i in word i's low half */
    SVK_PUSH_U32(scaled)    /* pack16: 1 multiplies x by scale[off_scale] before rounding */
    SVK_PUSH_U32(off_scale) /* scale: [1], the loss scale (a power of two: the product is exact) */
    SVK_PUSH_U32(codes_only) /* pack16 with store: 1 writes the codes alone and leaves x as it is */
SVK_PUSH_END(svk_push_pack16)

#define SVK_FMT_FP16 1u /* IEEE binary16 */
#define SVK_FMT_BF16 2u /* bfloat16: float32's top half */

#endif
