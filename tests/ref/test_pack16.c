/*
 * The 16-bit rounding of the reference (lib/ref/half16.h, pack16.c),
 * against definitions it does not share code with: for every fp16 and
 * bf16 code, decoding then encoding gives the code back; every midpoint
 * between neighbouring codes (exact in float32) rounds to the even one,
 * and a float32 ulp either side to the nearer; fp16 overflows to infinity
 * exactly from 65520; and, where the compiler has _Float16 (its own
 * conversion, round to nearest even), random floats of every magnitude
 * round as it does.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half16.h"
#include "ref.h"
#include "ref_test_util.h"

static float next_up(float x)
{
    return nextafterf(x, INFINITY);
}

static float next_down(float x)
{
    return nextafterf(x, -INFINITY);
}

/* Every code's round trip, and the midpoints to its positive neighbour. */
static void run_codes(rt *t, uint32_t fmt, const char *name)
{
    const uint32_t top = fmt == SVK_FMT_BF16 ? 0x7f80u : 0x7c00u; /* +infinity */
    int bad_trip = 0, bad_mid = 0, bad_near = 0;
    for (uint32_t h = 0; h <= 0xffffu; h++) {
        const float v = svk_half_decode(fmt, (uint16_t)h);
        if (isnan(v)) {
            bad_trip += !isnan(svk_half_decode(fmt, svk_half_encode(fmt, v)));
            continue;
        }
        bad_trip += svk_half_encode(fmt, v) != h;
        const uint32_t mag = h & 0x7fffu;
        if (mag >= top)
            continue;
        /* The next code away from zero, and the midpoint between them. */
        const uint16_t h2 = (uint16_t)(h + 1);
        const float v2 = svk_half_decode(fmt, h2);
        if (isinf(v2))
            continue; /* the largest finite value: the overflow check below */
        const float mid = (float)(((double)v + (double)v2) / 2);
        const uint16_t even = (h & 1u) ? h2 : (uint16_t)h;
        bad_mid += svk_half_encode(fmt, mid) != even;
        /* Toward zero (h's side) and away from it (h2's); -0 counts as negative. */
        const float in = signbit(v) ? next_up(mid) : next_down(mid);
        const float out = signbit(v) ? next_down(mid) : next_up(mid);
        bad_near += svk_half_encode(fmt, in) != h || svk_half_encode(fmt, out) != h2;
    }
    rt_check(t, !bad_trip, "%s: every code decodes and encodes back (%d wrong)", name, bad_trip);
    rt_check(t, !bad_mid, "%s: every midpoint rounds to the even code (%d wrong)", name, bad_mid);
    rt_check(t, !bad_near, "%s: an ulp either side of every midpoint rounds to the nearer (%d wrong)", name,
             bad_near);
}

static void run_edges(rt *t)
{
    rt_check(t, svk_f16_from_f32(65504.0f) == 0x7bffu && svk_f16_from_f32(next_down(65520.0f)) == 0x7bffu &&
                    svk_f16_from_f32(65520.0f) == 0x7c00u && svk_f16_from_f32(-1e30f) == 0xfc00u,
             "fp16: 65504 and just under 65520 stay finite; 65520 and -1e30 are infinite");
    rt_check(t, svk_f16_from_f32(ldexpf(1, -25)) == 0 && svk_f16_from_f32(next_up(ldexpf(1, -25))) == 1 &&
                    svk_f16_from_f32(-ldexpf(1, -26)) == 0x8000u,
             "fp16: half the least subnormal ties to zero, just over to it, a quarter is -0");
    rt_check(t, svk_bf16_from_f32(FLT_MAX) == 0x7f80u && svk_bf16_from_f32(-INFINITY) == 0xff80u,
             "bf16: float32's largest rounds to infinity; -infinity stays");
    const float qnan = svk_f32_from_f16(svk_f16_from_f32(NAN)), bnan = svk_f32_from_bf16(svk_bf16_from_f32(NAN));
    const float snan = svk_half_float(0x7f800001u);
    rt_check(t, isnan(qnan) && isnan(bnan) && isnan(svk_f32_from_f16(svk_f16_from_f32(snan))) &&
                    isnan(svk_f32_from_bf16(svk_bf16_from_f32(snan))),
             "NaN, signalling ones included, stays NaN in both");
    float x[3] = {1.0f / 3, -0.1f, 70000.0f};
    uint16_t codes[3];
    svk_ref_pack16_f32(3, SVK_FMT_FP16, x, codes);
    double back[3];
    svk_ref_unpack16_f64(3, SVK_FMT_FP16, codes, back);
    rt_check(t, x[0] == (float)back[0] && x[1] == (float)back[1] && isinf(x[2]) && isinf(back[2]),
             "pack16 rounds in place to what unpack16 gives back (1/3 -> %.9g, -0.1 -> %.9g, 70000 -> inf)",
             (double)x[0], (double)x[1]);
}

#ifdef __FLT16_MANT_DIG__
static void run_float16(rt *t)
{
    int bad = 0;
    uint32_t first = 0;
    for (uint32_t i = 0; i < 4000000; i++) {
        const uint32_t u = (uint32_t)rt_next(t);
        const float v = svk_half_float(u);
        if (isnan(v) || (fabsf(v) < FLT_MIN && v != 0))
            continue; /* NaN payloads differ by design; float32 subnormals are left out on the device */
        const _Float16 h = (_Float16)v;
        uint16_t want;
        memcpy(&want, &h, 2);
        if (svk_f16_from_f32(v) != want && !bad++)
            first = u;
    }
    rt_check(t, !bad, "fp16: 4M random float32 bit patterns round as the compiler's _Float16 (%d differ, first 0x%08x)",
             bad, first);
}
#endif

int main(int argc, char **argv)
{
    rt t;
    rt_init(&t, argc, argv);
    run_codes(&t, SVK_FMT_FP16, "fp16");
    run_codes(&t, SVK_FMT_BF16, "bf16");
    run_edges(&t);
#ifdef __FLT16_MANT_DIG__
    run_float16(&t);
#endif
    return rt_finish(&t, "test_pack16");
}
