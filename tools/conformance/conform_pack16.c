/*
 * Activations kept in 16 bits (shaders/pack16.comp, unpack16.comp;
 * lib/ref/pack16.c): pack rounds x in place and writes two codes to a
 * word (or rounds alone, or writes the codes alone leaving x, or first
 * multiplies by a loss scale), unpack gives the floats back. Both are integer steps on the bits,
 * so the device must match the reference bit for bit (tolerance 0), for
 * fp16 and bf16, at sizes 1, 2, primes, around the 256-wide workgroup and
 * a million; odd sizes leave the last word's high half zero. Inputs mix
 * magnitudes from 1e-9 to 1e6 of both signs with the cases rounding turns
 * on: exact ties to even in both formats, fp16's largest value 65504 and
 * the tie 65520 that overflows, fp16 subnormals and half the least of
 * them, +-0, +-inf and NaNs. float32 subnormals are left out: a device may
 * flush them wherever it stores a float, and no activation is one in
 * practice.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "half16.h"
#include "ops/pack16.h"

static const uint32_t sizes[] = {1, 2, 7, 255, 256, 257, 4099, 1000003};

/* Bit patterns the rounding turns on; the rest of the input is random. */
static const uint32_t specials[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
    0x477fe000u, /* 65504, fp16's largest */
    0x477fefffu, 0x477ff000u, /* just under and at the tie with 65536: fp16 infinity */
    0x38800000u, 0x387fffffu, /* fp16's least normal, and just under */
    0x33800000u, 0x33000000u, 0x33000001u, /* fp16's least subnormal, half of it (ties to 0), just over */
    0x3f801000u, 0x3f803000u, /* 1 + 2^-11, 1 + 3 * 2^-11: fp16 ties, to even */
    0x3f808000u, 0x3f818000u, /* 1 + 2^-8, 1 + 3 * 2^-8: bf16 ties, to even */
    0x7f7fffffu, 0xff7fffffu, /* float32's largest: bf16 infinity */
    0x3eaaaaabu, 0xbdcccccdu, /* 1/3, -0.1 */
};

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

/* n inputs: the specials first, then random magnitudes 1e-9 .. 1e6. */
static float *inputs(cf_case *c, cf_state *cf, size_t n)
{
    float *x = cf_alloc(c, n * sizeof(float));
    if (!x)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i < sizeof(specials) / sizeof(*specials)) {
            x[i] = from_bits(specials[i]);
        } else {
            const double mag = pow(10.0, (double)cf_rng_uniform(&cf->rng, -9.0f, 6.0f));
            x[i] = (float)(cf_rng_uniform(&cf->rng, 0.0f, 1.0f) < 0.5f ? -mag : mag);
        }
    }
    return x;
}

/* out's first n elements against want's bits. */
static void compare_bits(cf_case *c, const cf_out *out, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t got = bits(out->host[i]);
        if (got != want[i]) {
            cf_fail(c, "%s[%zu] = 0x%08x, reference 0x%08x", out->name, i, got, want[i]);
            cf_compare_scalar(c, out->name, 1.0f, 0.0, 0.0);
            return;
        }
    }
    cf_compare_scalar(c, out->name, 0.0f, 0.0, 0.0);
}

/* How a pack row runs: the codes written and x rounded; x rounded alone;
 * the codes alone, x left; x multiplied by a loss scale, then rounded and
 * its codes written (the large inputs then overflow fp16, as they must). */
typedef enum { PACK_STORE, PACK_ROUND, PACK_CODES, PACK_SCALED } pack_mode;

static const char *const mode_names[] = {"", " round", " codes-only", " scaled"};

/* The loss scale of the scaled rows: a power of two, as the scaler keeps. */
#define SCALE 1024.0f

static void run_pack(cf_state *cf, uint32_t fmt, uint32_t n, pack_mode mode)
{
    char shape[64];
    snprintf(shape, sizeof(shape), "%s n=%u%s", fmt == SVK_FMT_BF16 ? "bf16" : "fp16", n, mode_names[mode]);
    cf_case *c = cf_begin(cf, "pack16", "fwd", shape);
    if (!c)
        return;
    const bool store = mode != PACK_ROUND;
    const size_t words = svk_pack16_words(n);
    float *x = inputs(c, cf, n), *rounded = cf_alloc(c, n * sizeof(float));
    uint16_t *codes = cf_alloc(c, 2 * words * sizeof(uint16_t));
    uint32_t *want_x = cf_alloc(c, n * sizeof(uint32_t)), *want_w = cf_alloc(c, words * sizeof(uint32_t));
    if (!x || !rounded || !codes || !want_x || !want_w)
        goto end;
    const float scale = SCALE;
    svk_tref scale_ref = mode == PACK_SCALED ? cf_input(c, "scale", &scale, 1) : (svk_tref){0};
    cf_out *ox = cf_output(c, "x", n, x), *op = store ? cf_output(c, "packed", words, NULL) : NULL;
    if (!ox || (store && !op))
        goto end;
    const svk_pack16_args a = {.n = n, .fmt = fmt, .x = cf_tref(ox), .packed = store ? cf_tref(op) : (svk_tref){0},
                               .scale = scale_ref, .codes_only = mode == PACK_CODES};
    if (!cf_ok(c, svk_pack16_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    memcpy(rounded, x, n * sizeof(float));
    memset(codes, 0, 2 * words * sizeof(uint16_t));
    if (mode == PACK_CODES) {
        svk_ref_pack16_codes_f32(n, fmt, x, codes);
    } else {
        /* As lib/model/plan_cpu_tmpl.c scales: exactly, by a power of two. */
        for (size_t i = 0; mode == PACK_SCALED && i < n; i++)
            rounded[i] *= scale;
        svk_ref_pack16_f32(n, fmt, rounded, codes);
    }
    for (size_t i = 0; i < n; i++)
        want_x[i] = bits(rounded[i]);
    for (size_t w = 0; w < words; w++)
        want_w[w] = codes[2 * w] | (uint32_t)codes[2 * w + 1] << 16;
    compare_bits(c, ox, want_x, n);
    if (store)
        compare_bits(c, op, want_w, words);
end:
    cf_end(c);
}

static void run_unpack(cf_state *cf, uint32_t fmt, uint32_t n)
{
    char shape[64];
    snprintf(shape, sizeof(shape), "%s n=%u", fmt == SVK_FMT_BF16 ? "bf16" : "fp16", n);
    cf_case *c = cf_begin(cf, "unpack16", "fwd", shape);
    if (!c)
        return;
    const size_t words = svk_pack16_words(n);
    float *x = inputs(c, cf, n), *packed = cf_alloc(c, words * sizeof(float)), *back = cf_alloc(c, n * sizeof(float));
    uint16_t *codes = cf_alloc(c, 2 * words * sizeof(uint16_t));
    uint32_t *want = cf_alloc(c, n * sizeof(uint32_t));
    if (!x || !packed || !back || !codes || !want)
        goto end;
    memset(codes, 0, 2 * words * sizeof(uint16_t));
    svk_ref_pack16_f32(n, fmt, x, codes);
    for (size_t w = 0; w < words; w++)
        packed[w] = from_bits(codes[2 * w] | (uint32_t)codes[2 * w + 1] << 16);
    svk_tref in = cf_input(c, "packed", packed, words);
    cf_out *ox = cf_output(c, "x", n, NULL);
    if (!ox)
        goto end;
    const svk_pack16_args a = {.n = n, .fmt = fmt, .x = cf_tref(ox), .packed = in};
    if (!cf_ok(c, svk_unpack16_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    svk_ref_unpack16_f32(n, fmt, codes, back);
    for (size_t i = 0; i < n; i++)
        want[i] = bits(back[i]);
    compare_bits(c, ox, want, n);
end:
    cf_end(c);
}

void cf_run_pack16(cf_state *cf)
{
    for (uint32_t fmt = SVK_FMT_FP16; fmt <= SVK_FMT_BF16; fmt++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
            if (cf->quick && sizes[i] > 100000)
                continue;
            run_pack(cf, fmt, sizes[i], PACK_STORE);
            if (sizes[i] == 257 || sizes[i] == 4099)
                for (pack_mode m = PACK_ROUND; m <= PACK_SCALED; m++)
                    run_pack(cf, fmt, sizes[i], m);
            run_unpack(cf, fmt, sizes[i]);
        }
}
