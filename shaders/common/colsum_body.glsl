/* The body of shaders/colsum.comp and colsum_texel.comp (see there); the
 * latter defines SVK_COLSUM_TEXEL. */
#include "common/push_colsum.h"

/* Ahead of the helpers: glslang gives gl_WorkGroupSize its specialised
 * value only after this declaration (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "common/grid.glsl"

layout(constant_id = 3) const bool VEC4 = false;

#ifdef SVK_COLSUM_TEXEL
/* src as an RGBA32F view: four columns per fetch (VEC4 only). */
layout(set = 0, binding = 0) uniform textureBuffer src_t4;
#define SRC4(i) texelFetch(src_t4, int(i))
#else
layout(set = 0, binding = 0, std430) readonly buffer BufSrc { float src[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufSrc4 { vec4 src4[]; };
#define SRC4(i) src4[i]
#endif
layout(set = 0, binding = 1, std430) buffer BufDst { float dst[]; };
layout(set = 0, binding = 1, std430) buffer BufDst4 { vec4 dst4[]; };

void main()
{
    const uint wg = gl_WorkGroupSize.x;
    const uint g = svk_group_index();
    const uint cols = VEC4 ? pc.N / 4u : pc.N;
    if (g > (cols - 1u) / wg)
        return;
    const uint c = g * wg + gl_LocalInvocationID.x;
    if (c >= cols)
        return;
    const uint block = gl_WorkGroupID.z;
    const uint r0 = block * pc.rows_per_block;
    const uint r1 = min(r0 + pc.rows_per_block, pc.rows);
    if (VEC4) {
        vec4 sum4 = vec4(0.0);
        for (uint r = r0; r < r1; r++)
            sum4 += SRC4((pc.off_src + r * pc.ld) / 4u + c);
        if ((pc.flags & SVK_COLSUM_FLAG_ACCUMULATE) != 0u)
            dst4[pc.off_dst / 4u + c] += sum4;
        else
            dst4[(pc.off_dst + block * pc.N) / 4u + c] = sum4;
        return;
    }
#ifndef SVK_COLSUM_TEXEL
    float sum = 0.0;
    for (uint r = r0; r < r1; r++)
        sum += src[pc.off_src + r * pc.ld + c];
    if ((pc.flags & SVK_COLSUM_FLAG_ACCUMULATE) != 0u)
        dst[pc.off_dst + c] += sum;
    else
        dst[pc.off_dst + block * pc.N + c] = sum;
#endif
}
