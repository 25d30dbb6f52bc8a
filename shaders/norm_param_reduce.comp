#version 450
/*
 * The second stage of every norm backward pass: adds the per-lane partial
 * sums of the gain and bias gradients (written by layernorm_bwd, rmsnorm_bwd
 * and siamese_norm_bwd) to dg and db, which accumulate (+=) as the
 * reference's do. A fixed order, so the result is bit-identical from run
 * to run, with no atomics.
 *
 * A workgroup is WG_X outputs x SLICES (local size y). With one slice (CPU
 * devices) each invocation sums its column of partials in lane order. With
 * more (GPUs, lib/ops/norm_param_reduce.c), slice s of a column sums lanes
 * [s L, (s + 1) L) in order and the slices' sums are added in a fixed tree
 * through shared memory: a column of 256 partials is then 32 dependent
 * loads and adds, not 256, and 8 times as many invocations share the work.
 * Reference: the dg/db sums of lib/ref/layernorm.c and rmsnorm.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_param_reduce.h"

#include "common/kernel.glsl"

SVK_BUF(0, readonly, BufPart, part);
SVK_BUF(1, SVK_RW, BufDg, dg);
SVK_BUF(2, SVK_RW, BufDb, db);

const uint WG_X = gl_WorkGroupSize.x;
const uint SLICES = gl_WorkGroupSize.y;
shared float red[WG_X * SLICES];

void main()
{
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint t = svk_group_index() * WG_X + tx;
    const uint C = pc.C;
    const bool on = t < pc.n_norms * pc.blocks_per_norm * C;
    if (SLICES == 1u && !on)
        return; /* no barriers below with one slice */
    const uint blk = t / C, i = t % C;
    const uint src = pc.off_part + blk * pc.n_part * C + i;
    const uint per = (pc.n_part + SLICES - 1u) / SLICES;
    const uint p0 = ty * per, p1 = min(p0 + per, pc.n_part);
    float s = 0.0;
    if (on)
        for (uint p = p0; p < p1; p++)
            s += part[src + p * C];
    if (SLICES > 1u) {
        red[ty * WG_X + tx] = s;
        barrier();
        uint span = 1u;
        while (span < SLICES)
            span <<= 1u;
        for (uint h = span >> 1u; h > 0u; h >>= 1u) {
            if (ty < h && ty + h < SLICES)
                red[ty * WG_X + tx] += red[(ty + h) * WG_X + tx];
            barrier();
        }
        s = red[tx];
        if (ty != 0u)
            return;
    }
    if (!on)
        return;
    const uint k = blk / pc.blocks_per_norm;
    if (blk % pc.blocks_per_norm != 0u)
        db[pc.off_db + k * C + i] += s;
    else
        dg[pc.off_dg + k * C + i] += s;
}
