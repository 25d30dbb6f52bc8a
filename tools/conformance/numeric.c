#include <math.h>
#include <string.h>
#include <time.h>

#include "core/rng.h"
#include "numeric.h"

void cf_rng_seed(cf_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x9e3779b97f4a7c15ull;
}

uint64_t cf_rng_next(cf_rng *r)
{
    return svk_splitmix64(&r->s);
}

float cf_rng_uniform(cf_rng *r, float lo, float hi)
{
    double u = (double)(cf_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * u);
}

void cf_fill_uniform(cf_rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cf_rng_uniform(r, lo, hi);
}

uint64_t cf_seed_from_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec) % 1000000000u;
}

float cf_nan(void)
{
    uint32_t bits = 0x7fc0dead;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

void cf_fill_nan(float *x, size_t n)
{
    float v = cf_nan();
    for (size_t i = 0; i < n; i++)
        x[i] = v;
}

float cf_guard_value(size_t i)
{
    return 1234.5f + (float)(i % 97);
}

void cf_fill_guard(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cf_guard_value(i);
}

long cf_check_guard(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float g = cf_guard_value(i);
        if (memcmp(&x[i], &g, sizeof(g)) != 0)
            return (long)i;
    }
    return -1;
}

double cf_rel_error(const float *out, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return INFINITY;
        double d = (double)out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den == 0 ? sqrt(num) : sqrt(num / den);
}

double cf_rel_error_scaled(const float *out, const double *ref, const double *scale, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return INFINITY;
        double d = (double)out[i] - ref[i];
        num += d * d;
        den += scale[i] * scale[i];
    }
    return den == 0 ? sqrt(num) : sqrt(num / den);
}

size_t cf_worst_index(const float *out, const double *ref, size_t n)
{
    size_t worst = 0;
    double wd = -1;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return i;
        double d = fabs((double)out[i] - ref[i]);
        if (d > wd) {
            wd = d;
            worst = i;
        }
    }
    return worst;
}
