/*
 * Size arithmetic that reports overflow instead of wrapping. Tensor sizes
 * are products of caller-chosen numbers (B * T * C * 4 bytes, B * H * T * T
 * attention scores), and a wrapped product would allocate a small buffer
 * that kernels then overrun, so every such product goes through these.
 */
#ifndef SVK_CORE_CHECKED_H
#define SVK_CORE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

/* *out = a * b; false (and *out = UINT64_MAX) if it does not fit. */
static inline bool svk_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (__builtin_mul_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return false;
    }
    return true;
}

/* *out = a + b; false (and *out = UINT64_MAX) if it does not fit. */
static inline bool svk_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (__builtin_add_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return false;
    }
    return true;
}

#endif
