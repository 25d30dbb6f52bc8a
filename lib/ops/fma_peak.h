/* The device's multiply-add rate (shaders/fma_peak.comp): the benchmark's
 * arithmetic limit beside the copy kernel's memory one. Not part of the
 * model; the conformance tool checks it like every kernel. */
#ifndef SVK_OPS_FMA_PEAK_H
#define SVK_OPS_FMA_PEAK_H

#include "ops.h"

typedef struct svk_fma_peak_args {
    uint32_t n;        /* invocations, >= 1 */
    uint32_t iters;    /* loop iterations, 1 .. SVK_OP_CPU_LOOP_BUDGET */
    float a, b;        /* each step: acc = acc * a + b */
    svk_tref out;      /* n floats: each invocation's sum of its chains */
    const char *label; /* names the dispatch in timings (must outlive the list); NULL: "fma_peak" */
} svk_fma_peak_args;

/* Multiply-adds the dispatch performs (each counts as 2 floating-point
 * operations): n * iters * SVK_FMA_PEAK_PER_ITER. */
uint64_t svk_fma_peak_fmas(uint32_t n, uint32_t iters);

svk_status svk_fma_peak_record(svk_cmdlist *cl, const svk_fma_peak_args *a);

#endif
