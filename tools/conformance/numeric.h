/*
 * Numerics shared by the conformance tool and the tests: a seeded generator,
 * NaN poison, guard patterns and the error metric ||out - ref|| / ||ref||.
 */
#ifndef SVK_CF_NUMERIC_H
#define SVK_CF_NUMERIC_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64: small, well mixed, identical on every platform, so a seed
 * printed on one machine reproduces the inputs on another. */
typedef struct cf_rng {
    uint64_t s;
} cf_rng;
void cf_rng_seed(cf_rng *r, uint64_t seed);
uint64_t cf_rng_next(cf_rng *r);
/* Uniform in [lo, hi). */
float cf_rng_uniform(cf_rng *r, float lo, float hi);
void cf_fill_uniform(cf_rng *r, float *x, size_t n, float lo, float hi);
/* A seed from the clock, for runs that were not given one. */
uint64_t cf_seed_from_clock(void);

/* A quiet NaN with a recognisable payload, for poisoning outputs. */
float cf_nan(void);
void cf_fill_nan(float *x, size_t n);
/* The guard pattern written around outputs; any change is a stray write. */
float cf_guard_value(size_t i);
void cf_fill_guard(float *x, size_t n);
/* Index of the first guard element that changed, or -1. */
long cf_check_guard(const float *x, size_t n);

/* ||out - ref|| / ||ref|| over n values (ref in double); +inf if out holds a
 * non-finite value; the absolute ||out - ref|| when ref is all zero. */
double cf_rel_error(const float *out, const double *ref, size_t n);
/* ||out - ref|| / ||scale||, scale[i] >= |ref[i]|: for sums, scale is the
 * sum of the terms' magnitudes, which bounds the rounding error whatever
 * the sum cancels to (a single sum that happens to land near 0 would make
 * cf_rel_error's quotient as large as chance allows). */
double cf_rel_error_scaled(const float *out, const double *ref, const double *scale, size_t n);
/* Index of the largest |out - ref| (or of the first non-finite out). */
size_t cf_worst_index(const float *out, const double *ref, size_t n);

#endif
