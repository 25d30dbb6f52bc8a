#version 450
/*
 * One token's causal attention over a key-value cache (generation), one
 * workgroup per head; the position pos comes from the step buffer, so one
 * recording serves every token. Reference: svk_ref_attention_decode
 * (lib/ref/decode.c).
 *
 * First the token's q, k and v of this head go to row pos of the cache
 * [ctx, 3C], q and k rotated by RoPE at pos with the arithmetic of
 * common/rope.glsl, so that the row equals what the window's forward
 * would have left there. Then the keys 0..pos in tiles of one per lane:
 * the tile's scores, their maximum and sum by fixed-order tree reductions
 * in shared memory (no subgroup operations: any subgroup size gives the
 * same bits), and an online softmax (running maximum and sum, the
 * accumulators rescaled) over the tiles. Each lane owns the output
 * columns d = lane + k * L of a chunk of ACC columns and sums its
 * products in key order. Heads wider than ACC take several chunks, the
 * scores recomputed per chunk.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_decode.h"

#include "common/kernel.glsl"
#include "common/twofloat.glsl"

#define ACC 256u
#define LMAX 256u

layout(set = 0, binding = 0, std430) readonly buffer BufStep { int step[]; };
SVK_BUF(1, readonly, BufQkv, qkv);
/* Row pos is written, then read by other lanes after the barrier. */
layout(set = 0, binding = 2, std430) coherent buffer BufCache { float cache[]; };
SVK_BUF(3, writeonly, BufOut, outv);

shared float red[LMAX];
shared float ps[LMAX];
shared float acc[ACC];

/* rope.glsl's rotation angle of pair i at position t: sin, cos. */
vec2 angle_sincos(uint i, uint t)
{
    vec2 inv = vec2(1.0, 0.0), base = vec2(pc.r_hi, pc.r_lo);
    for (uint e = i; e != 0u; e >>= 1) {
        if ((e & 1u) != 0u)
            inv = tf_mul(inv, base);
        base = tf_mul(base, base);
    }
    const vec2 two = tf_two_prod(float(t), inv.x);
    return tf_sincos(tf_fast_two_sum(two.x, two.y + float(t) * inv.y));
}

/* This head's q, k (rotated with ROPE) and v into cache row pos. */
void store_row(uint h, uint pos, uint D)
{
    const uint L = gl_WorkGroupSize.x, lane = gl_LocalInvocationID.x, C = pc.C;
    const uint src = pc.off_a + h * D, dst = pc.off_b + pos * 3u * C + h * D;
    for (uint d = lane; d < D; d += L)
        cache[dst + 2u * C + d] = qkv[src + 2u * C + d];
    if ((pc.flags & SVK_DECODE_FLAG_ROPE) == 0u) {
        for (uint d = lane; d < D; d += L) {
            cache[dst + d] = qkv[src + d];
            cache[dst + C + d] = qkv[src + C + d];
        }
        return;
    }
    const uint half_d = D / 2u;
    for (uint i = lane; i < half_d; i += L) {
        const vec2 sc = angle_sincos(i, pos);
        const float s = sc.x, c = sc.y;
        for (uint part = 0u; part < 2u; part++) { /* q, then k */
            const float a = qkv[src + part * C + i], b = qkv[src + part * C + i + half_d];
            cache[dst + part * C + i] = a * c - b * s;
            cache[dst + part * C + i + half_d] = a * s + b * c;
        }
    }
}

/* red[0] = the maximum (or, with sum, the sum) of red[0 .. L), in a fixed
 * tree; every lane reads it after. L is a power of two. */
float reduce(bool sum)
{
    const uint lane = gl_LocalInvocationID.x;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1) {
        if (lane < s)
            red[lane] = sum ? red[lane] + red[lane + s] : max(red[lane], red[lane + s]);
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

/* Columns [d0, d0 + ACC) of the head's output. */
void attend(uint h, uint pos, uint D, uint d0)
{
    const uint L = gl_WorkGroupSize.x, lane = gl_LocalInvocationID.x, C = pc.C;
    const uint qrow = pc.off_b + pos * 3u * C + h * D, dn = min(ACC, D - d0);
    for (uint d = lane; d < dn; d += L)
        acc[d] = 0.0;
    float m = 0.0, l = 0.0;
    for (uint j0 = 0u; j0 <= pos; j0 += L) {
        const uint j = j0 + lane;
        float s = 0.0;
        if (j <= pos) {
            const uint krow = pc.off_b + j * 3u * C + C + h * D;
            for (uint d = 0u; d < D; d++)
                s += cache[qrow + d] * cache[krow + d];
            s *= pc.scale;
        }
        red[lane] = j <= pos ? s : -3.402823466e38;
        const float tile_max = reduce(false);
        const float m_new = j0 == 0u ? tile_max : max(m, tile_max);
        const float corr = j0 == 0u ? 0.0 : exp(m - m_new);
        const float p = j <= pos ? exp(s - m_new) : 0.0;
        ps[lane] = p;
        red[lane] = p;
        l = l * corr + reduce(true);
        const uint jn = min(L, pos + 1u - j0);
        for (uint d = lane; d < dn; d += L) {
            float a = acc[d] * corr;
            for (uint jj = 0u; jj < jn; jj++)
                a += ps[jj] * cache[pc.off_b + (j0 + jj) * 3u * C + 2u * C + h * D + d0 + d];
            acc[d] = a;
        }
        m = m_new;
        barrier();
    }
    for (uint d = lane; d < dn; d += L)
        outv[pc.off_out + h * D + d0 + d] = acc[d] / l;
}

void main()
{
    const uint h = svk_group_index();
    const int p = step[pc.off_step + 1u];
    if (h >= pc.H || p < 0 || uint(p) >= pc.ctx)
        return;
    const uint pos = uint(p), D = pc.C / pc.H;
    store_row(h, pos, D);
    memoryBarrierBuffer();
    barrier();
    for (uint d0 = 0u; d0 < D; d0 += ACC) {
        attend(h, pos, D, d0);
        barrier();
    }
}
