/* Reference rotary position embedding (docs/MODEL.md, "Building blocks", pos = rope). */
#include "real.h"

/*
 * Rotates the q and k parts of each head at each position by sign * angle.
 * The angle is t * inv_freq rounded in svk_real, inv_freq = theta^(-2i/D)
 * computed in double and rounded once: for the float build that is the
 * float32 angle docs/MODEL.md allows, and cos/sin of it are then accurate to a
 * rounding (ref_cos, ref_sin).
 */
static void rotate(size_t B, size_t T, size_t t0, size_t C, size_t H, svk_real theta,
                   svk_real sign, svk_real *qkv)
{
    size_t D = C / H, half = D / 2;
    for (size_t b = 0; b < B; b++) {
        for (size_t t = 0; t < T; t++) {
            svk_real *row = qkv + (b * T + t) * 3 * C;
            for (size_t i = 0; i < half; i++) {
                svk_real inv_freq =
                    (svk_real)pow((double)theta, -2.0 * (double)i / (double)D);
                svk_real angle = (svk_real)(t0 + t) * inv_freq;
                svk_real c = ref_cos(angle), s = sign * ref_sin(angle);
                for (size_t part = 0; part < 2; part++) { /* q, then k */
                    for (size_t h = 0; h < H; h++) {
                        svk_real *e = row + part * C + h * D;
                        svk_real a = e[i], bb = e[i + half];
                        e[i] = a * c - bb * s;
                        e[i + half] = a * s + bb * c;
                    }
                }
            }
        }
    }
}

void SVK_REF(rope_fwd)(size_t B, size_t T, size_t C, size_t H, svk_real theta,
                       svk_real *qkv)
{
    rotate(B, T, 0, C, H, theta, 1, qkv);
}

/* The rotation is orthogonal: its transpose, the rotation by -angle, maps
 * the gradient of the rotated values to that of the originals. */
void SVK_REF(rope_bwd)(size_t B, size_t T, size_t C, size_t H, svk_real theta,
                       svk_real *dqkv)
{
    rotate(B, T, 0, C, H, theta, -1, dqkv);
}

void SVK_REF(rope_fwd_at)(size_t C, size_t H, size_t pos, svk_real theta, svk_real *row)
{
    rotate(1, 1, pos, C, H, theta, 1, row);
}
