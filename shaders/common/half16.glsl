/* Float32 to and from the 16-bit formats activations are kept in
 * (docs/MODEL.md, "Precision"): IEEE binary16 (fp16) and bfloat16 (bf16),
 * 16-bit codes in the low half of a uint. Integer arithmetic on the bits,
 * not packHalf2x16 or float16_t conversions, whose rounding Vulkan leaves
 * to the implementation (and which some flush subnormals): round to
 * nearest even everywhere, so every device and the CPU reference
 * (lib/core/half.h, the same steps in C) give the same codes bit for bit. */
#ifndef SVK_HALF16_GLSL
#define SVK_HALF16_GLSL

/* The formats' codes, as push_pack16.h defines them for the host too. */
#ifndef SVK_FMT_FP16
#define SVK_FMT_FP16 1u
#define SVK_FMT_BF16 2u
#endif

uint svk_f16_from_f32(float v)
{
    const uint x = floatBitsToUint(v), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u)                      /* NaN: quiet, top payload bits kept */
        return sign | 0x7e00u | ((a >> 13) & 0x3ffu);
    if (a >= 0x477ff000u)                     /* rounds past 65504: infinity */
        return sign | 0x7c00u;
    if (a >= 0x38800000u) {                   /* a normal fp16 */
        const uint r = a - 0x38000000u;       /* exponent rebiased from 127 to 15 */
        return sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
    }
    if (a < 0x33000000u)                      /* below half the least subnormal */
        return sign;
    const uint e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, s = 126u - e; /* s in [14, 24] */
    uint q = m >> s;
    const uint rem = m & ((1u << s) - 1u), mid = 1u << (s - 1u);
    if (rem > mid || (rem == mid && (q & 1u) != 0u))
        q += 1u;
    return sign | q;
}

float svk_f32_from_f16(uint h)
{
    const uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31u)
        return uintBitsToFloat(sign | 0x7f800000u | (m << 13));
    if (e != 0u)
        return uintBitsToFloat(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0u)
        return uintBitsToFloat(sign);
    const uint p = uint(findMSB(m));          /* a subnormal: m 2^-24, normalised */
    return uintBitsToFloat(sign | ((p + 103u) << 23) | ((m << (23u - p)) & 0x7fffffu));
}

uint svk_bf16_from_f32(float v)
{
    const uint x = floatBitsToUint(v);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (x >> 16) | 0x0040u;
    return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}

float svk_f32_from_bf16(uint h)
{
    return uintBitsToFloat(h << 16);
}

uint svk_half_encode(uint fmt, float v)
{
    return fmt == SVK_FMT_BF16 ? svk_bf16_from_f32(v) : svk_f16_from_f32(v);
}

float svk_half_decode(uint fmt, uint h)
{
    return fmt == SVK_FMT_BF16 ? svk_f32_from_bf16(h) : svk_f32_from_f16(h);
}

#endif
