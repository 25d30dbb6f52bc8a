/* Push constants of shaders/residual_fwd.comp and residual_bwd.comp (see
 * push_defs.h). Forward: x += z / c, y += z. Backward: dz = dx / c + dy, with
 * off_x, off_y, off_z addressing dx, dy, dz. Offsets in elements. */
#ifndef SVK_PUSH_RESIDUAL_H
#define SVK_PUSH_RESIDUAL_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_residual)
    SVK_PUSH_U32(n)
    SVK_PUSH_U32(off_x)
    SVK_PUSH_U32(off_y)
    SVK_PUSH_U32(off_z)
    SVK_PUSH_F32(c)
SVK_PUSH_END(svk_push_residual)

#endif
