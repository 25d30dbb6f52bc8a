#version 450
/*
 * transpose.comp for CPU devices (lavapipe): the same dst, bit for bit,
 * from 4 x 4 blocks. Each invocation fetches four rows of a block of src
 * as vec4s through an RGBA32F uniform texel view of src's buffer and
 * stores the block's four columns as four vec4 rows of dst.
 * lavapipe loads from a storage buffer lane by lane, a bounds check each;
 * a vec4 texel fetch is one call for the lanes' 4 floats each. So this
 * form fetches 16 floats in four calls where transpose.comp's VEC4 path
 * loads them in 16 lane loops. lib/ops/transpose.c picks it where rows,
 * cols, ld and both offsets are multiples of 4 and src can be viewed.
 * Reference: plain C in tools/conformance/conform_transpose.c.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

#include "common/push_transpose.h"

#include "common/kernel.glsl"

#include "common/elem_index.glsl"

layout(set = 0, binding = 0) uniform textureBuffer src_t4;
layout(set = 0, binding = 1, std430) writeonly buffer BufDst4 { vec4 dst4[]; };

void main()
{
    /* Invocation o owns block (bi, bj) = rows 4 bi .. +3, columns 4 bj ..
     * +3 of src; neighbours take neighbouring bj, so their fetches are
     * neighbouring vec4s of src's rows and src is read in address order.
     * The training step transposes weights that are not in the caches
     * (AdamW wrote them a step ago): read along the rows, its transposes
     * took 0.6-0.75 of the time of the same kernel with neighbours down
     * the columns (neighbouring stores), measured in the default and the
     * w256-l6-t256 steps (lavapipe, alternated runs). */
    const uint rb = pc.rows / 4u;
    uint o;
    if (!svk_elem_index(rb * (pc.cols / 4u), o))
        return;
    const uint cb = pc.cols / 4u;
    const uint bi = o / cb, bj = o % cb;
    const uint s = (pc.off_src + 4u * bi * pc.ld + 4u * bj) >> 2, ld4 = pc.ld >> 2;
    const vec4 r0 = texelFetch(src_t4, int(s));
    const vec4 r1 = texelFetch(src_t4, int(s + ld4));
    const vec4 r2 = texelFetch(src_t4, int(s + 2u * ld4));
    const vec4 r3 = texelFetch(src_t4, int(s + 3u * ld4));
    /* dst's rows are pc.rows = 4 rb floats long: rb vec4s apart. */
    const uint d = (pc.off_dst + 4u * bj * pc.rows + 4u * bi) >> 2;
    dst4[d] = vec4(r0.x, r1.x, r2.x, r3.x);
    dst4[d + rb] = vec4(r0.y, r1.y, r2.y, r3.y);
    dst4[d + 2u * rb] = vec4(r0.z, r1.z, r2.z, r3.z);
    dst4[d + 3u * rb] = vec4(r0.w, r1.w, r2.w, r3.w);
}
