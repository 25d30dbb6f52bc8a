/*
 * Float32 to and from fp16 and bfloat16 codes (docs/MODEL.md,
 * "Precision"), by integer steps on the bits: round to nearest even,
 * overflow to infinity, subnormals kept, NaN kept quiet. The same steps as
 * shaders/common/half16.glsl, so the device and the CPU reference give the
 * same codes bit for bit.
 */
#ifndef SVK_REF_HALF16_H
#define SVK_REF_HALF16_H

#include <stdint.h>
#include <string.h>

#include "common/push_pack16.h" /* SVK_FMT_FP16, SVK_FMT_BF16 */

static inline uint32_t svk_half_bits(float v)
{
    uint32_t x;
    memcpy(&x, &v, sizeof(x));
    return x;
}

static inline float svk_half_float(uint32_t x)
{
    float v;
    memcpy(&v, &x, sizeof(v));
    return v;
}

static inline uint16_t svk_f16_from_f32(float v)
{
    const uint32_t x = svk_half_bits(v), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u)
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) {
        const uint32_t r = a - 0x38000000u;
        return (uint16_t)(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u)
        return (uint16_t)sign;
    const uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, s = 126u - e;
    uint32_t q = m >> s;
    const uint32_t rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u)))
        q += 1u;
    return (uint16_t)(sign | q);
}

static inline float svk_f32_from_f16(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31u)
        return svk_half_float(sign | 0x7f800000u | (m << 13));
    if (e)
        return svk_half_float(sign | ((e + 112u) << 23) | (m << 13));
    if (!m)
        return svk_half_float(sign);
    uint32_t p = 9;
    while (!(m >> p))
        p--;
    return svk_half_float(sign | ((p + 103u) << 23) | ((m << (23u - p)) & 0x7fffffu));
}

static inline uint16_t svk_bf16_from_f32(float v)
{
    const uint32_t x = svk_half_bits(v);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline float svk_f32_from_bf16(uint16_t h)
{
    return svk_half_float((uint32_t)h << 16);
}

static inline uint16_t svk_half_encode(uint32_t fmt, float v)
{
    return fmt == SVK_FMT_BF16 ? svk_bf16_from_f32(v) : svk_f16_from_f32(v);
}

static inline float svk_half_decode(uint32_t fmt, uint16_t h)
{
    return fmt == SVK_FMT_BF16 ? svk_f32_from_bf16(h) : svk_f32_from_f16(h);
}

#endif
