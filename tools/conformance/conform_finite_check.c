/*
 * Finiteness statistics (shaders/finite_check.comp; lib/ref/finite_check.c):
 * counts of NaN and infinity, the first non-finite index and the largest
 * finite magnitude of awkward shapes (1, primes, one workgroup's width and
 * one past it, a million), dense and with a row stride whose gap holds NaN
 * that must not be counted. Patterns: all finite (with -0, denormals and
 * +-FLT_MAX, the largest finite value), one NaN as the last element, one
 * -inf as the first, and about 1% of the elements non-finite at random
 * places with every kind of NaN bits (quiet, signalling, negative, any
 * payload). Every statistic is an integer or an element of the input, so
 * the device must agree with the reference exactly.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "ops/finite_check.h"

enum pattern { CLEAN, LAST_NAN, FIRST_NEG_INF, SCATTERED, N_PATTERNS };
static const char *const pattern_names[N_PATTERNS] = {"finite", "last NaN", "first -inf", "1% non-finite"};

typedef struct fc_case {
    uint32_t rows, cols, ld; /* ld 0: dense */
    int quick;
} fc_case;

static const fc_case cases[] = {
    {1, 1, 0, 1},       {1, 7, 0, 1},      {1, 256, 0, 1},   {1, 257, 0, 1},  {13, 31, 37, 1},
    {1, 100003, 0, 1},  {97, 129, 131, 0}, {1, 1000003, 0, 0}, {1024, 1000, 1003, 0},
};

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static void fill(cf_case *c, float *x, const fc_case *e, uint64_t ld, enum pattern p)
{
    const uint64_t n = (uint64_t)e->rows * e->cols;
    float *u = cf_random(c, 2 * n + 8, 0.0f, 1.0f);
    if (!u)
        return;
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, 0x7fffffffu};
    for (uint64_t r = 0; r < e->rows; r++)
        for (uint64_t col = 0; col < ld; col++) {
            const uint64_t i = r * e->cols + col;
            float *at = &x[r * ld + col];
            if (col >= e->cols) {
                *at = NAN; /* the stride's gap: never looked at */
                continue;
            }
            const float a = u[2 * i], b = u[2 * i + 1];
            *at = (a - 0.5f) * 8.0f;
            if (b < 0.01f)
                *at = b < 0.005f ? -0.0f : 1e-40f; /* -0 and a denormal */
            else if (b > 0.995f)
                *at = b > 0.9975f ? FLT_MAX : -FLT_MAX;
            if (p == SCATTERED && a < 0.01f) {
                if (a < 0.004f)
                    *at = a < 0.002f ? INFINITY : -INFINITY;
                else
                    *at = from_bits(nans[(uint64_t)(b * 5.0f) % 5u]);
            }
        }
    if (p == LAST_NAN)
        x[(uint64_t)(e->rows - 1) * ld + e->cols - 1] = NAN;
    if (p == FIRST_NEG_INF)
        x[0] = -INFINITY;
}

static void run_case(cf_state *cf, const fc_case *e, enum pattern p)
{
    const uint64_t ld = e->ld ? e->ld : e->cols, n = (uint64_t)e->rows * e->cols;
    const uint64_t span = (uint64_t)(e->rows - 1) * ld + e->cols;
    char shape[96];
    snprintf(shape, sizeof(shape), "%ux%u%s%.0u %s", e->rows, e->cols, e->ld ? " ld " : "", e->ld,
             pattern_names[p]);
    cf_case *c = cf_begin(cf, "finite_check", "fwd", shape);
    if (!c)
        return;
    /* Room for the last row's gap too, which fill() poisons. */
    float *x = cf_alloc(c, (size_t)(e->rows * ld) * sizeof(float));
    if (!x)
        goto end;
    fill(c, x, e, ld, p);
    cf_out *out = cf_output(c, "stats", SVK_FINITE_STATS, NULL);
    if (!out)
        goto end;
    svk_finite_check_args a = {
        .rows = e->rows, .cols = e->cols, .ld = e->ld, .x = cf_input(c, "x", x, span), .stats = cf_tref(out),
    };
    if (!cf_ok(c, svk_finite_check_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *dx = cf_to_double(c, x, (size_t)span);
    if (!dx)
        goto end;
    svk_ref_finite want, got;
    svk_ref_finite_check_f64(e->rows, e->cols, ld, dx, &want);
    uint32_t raw[SVK_FINITE_STATS];
    memcpy(raw, out->host, sizeof(raw));
    svk_finite_stats_decode(raw, n, &got);
    const bool ok = got.nan == want.nan && got.inf == want.inf && got.first == want.first &&
                    got.max_abs == (double)(float)want.max_abs;
    if (!ok)
        cf_fail(c, "got %llu NaN, %llu inf, first %lld, max |x| %.9g; reference %llu, %llu, %lld, %.9g",
                (unsigned long long)got.nan, (unsigned long long)got.inf, (long long)got.first, got.max_abs,
                (unsigned long long)want.nan, (unsigned long long)want.inf, (long long)want.first, want.max_abs);
    /* Exact (the row's error is 0 or 1): counts, an index and a maximum
     * involve no arithmetic. */
    cf_compare_scalar(c, "stats", ok ? 0.0f : 1.0f, 0.0, 0.5);
end:
    cf_end(c);
}

void cf_run_finite_check(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int p = 0; p < N_PATTERNS; p++)
            if (!cf->quick || cases[i].quick)
                run_case(cf, &cases[i], (enum pattern)p);
}
