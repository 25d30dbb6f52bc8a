/*
 * Finding NaN and infinity in a tensor on the device
 * (shaders/finite_check.comp), as the CPU reference svk_ref_finite_check
 * (lib/ref/finite_check.c): how many of each, where the first is, and the
 * largest finite magnitude. A save checks the model's state with it before
 * anything is downloaded, and svk_model_find_nonfinite checks every
 * operation's operands with it. The statistics stay on the device until the
 * host reads them.
 */
#ifndef SVK_OPS_FINITE_CHECK_H
#define SVK_OPS_FINITE_CHECK_H

#include "ops.h"
#include "ref.h"

typedef struct svk_finite_check_args {
    uint64_t rows, cols;  /* elements x[r * ld + c], r < rows, c < cols; 1 <= rows * cols < 2^31 */
    uint64_t ld;          /* a row's stride in elements, >= cols; 0: cols (dense) */
    svk_tref x;           /* [rows, ld] float (the last row needs only cols) */
    svk_tref stats;       /* [SVK_FINITE_STATS] uint32, written: decode with svk_finite_stats_decode */
    const char *label;    /* names the dispatch in messages and timings; may be NULL */
} svk_finite_check_args;

#define SVK_FINITE_STATS 4u

svk_status svk_finite_check_record(svk_cmdlist *cl, const svk_finite_check_args *a);

/* The shader's stats of n elements, in the reference's terms. */
static inline void svk_finite_stats_decode(const uint32_t raw[SVK_FINITE_STATS], uint64_t n, svk_ref_finite *out)
{
    union {
        uint32_t u;
        float f;
    } max_abs = {raw[3]};
    out->nan = raw[0];
    out->inf = raw[1];
    out->first = raw[2] ? n - raw[2] : UINT64_MAX;
    out->max_abs = max_abs.f;
}

#endif
