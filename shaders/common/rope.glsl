/*
 * The body of shaders/rope_fwd.comp and rope_bwd.comp (reference
 * lib/ref/rope.c): RoPE in place on the q and k parts of qkv [B, T, 3C].
 * The including shader defines ROPE_SIGN (+1.0 forward, -1.0 backward: the
 * rotation is orthogonal, so the gradient is rotated by the negative angle).
 *
 * Invocation (row, i) handles pair i (columns i and i + D/2) of every head
 * of q and of k at token row = b * T + t: they share one angle
 * t * theta^(-2i/D), which is computed once. The spec allows a float32
 * angle; this one is better: inv_freq = r^i by binary powering of the
 * two-float r = theta^(-2/D), the angle t * inv_freq as a two-float, then
 * tf_sincos's exact range reduction (common/twofloat.glsl). So sin and cos
 * match the double reference to about a float rounding even at t ~ 1e3 rad,
 * where a plain float angle would already be off by up to ~6e-5.
 */
#include "common/push_rope.h"
#include "common/grid.glsl"
#include "common/twofloat.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) buffer BufQKV { float qkv[]; };

void main()
{
    const uint g = svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (g >= pc.rows * pc.pairs) /* the op checks that the product fits 32 bits */
        return;
    const uint row = g / pc.pairs, i = g % pc.pairs;
    const uint t = row % pc.T;

    vec2 inv = vec2(1.0, 0.0), base = vec2(pc.r_hi, pc.r_lo);
    for (uint e = i; e != 0u; e >>= 1) {
        if ((e & 1u) != 0u)
            inv = tf_mul(inv, base);
        base = tf_mul(base, base);
    }
    const vec2 two = tf_two_prod(float(t), inv.x);
    const vec2 angle = tf_fast_two_sum(two.x, two.y + float(t) * inv.y);
    const vec2 sc = tf_sincos(angle);
    const float s = ROPE_SIGN * sc.x, c = sc.y;

    const uint D = 2u * pc.pairs;
    const uint rbase = pc.off + row * 3u * pc.C + i;
    for (uint part = 0u; part < 2u; part++) { /* q, then k */
        for (uint h = 0u; h < pc.H; h++) {
            const uint ia = rbase + part * pc.C + h * D, ib = ia + pc.pairs;
            const float a = qkv[ia], b = qkv[ib];
            qkv[ia] = a * c - b * s;
            qkv[ib] = a * s + b * c;
        }
    }
}
