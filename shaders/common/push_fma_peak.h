/* Push constants of shaders/fma_peak.comp (see push_defs.h). */
#ifndef SVK_PUSH_FMA_PEAK_H
#define SVK_PUSH_FMA_PEAK_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_fma_peak)
    SVK_PUSH_U32(n)        /* invocations, one output each */
    SVK_PUSH_U32(iters)    /* loop iterations, SVK_FMA_PEAK_PER_ITER multiply-adds per lane each */
    SVK_PUSH_U32(off_out)
    SVK_PUSH_F32(a)        /* every step is acc = acc * a + b */
    SVK_PUSH_F32(b)
SVK_PUSH_END(svk_push_fma_peak)

/* Accumulators (scalars) per invocation, and unrolled steps of each per
 * loop iteration: the shader's constants, which the host needs to count
 * the work. On lavapipe (Zen 5 host, 256-bit, 2026-12-04) 8 x 8 was the
 * fastest of 8/16 chains x 2/4/8 steps, by 5-10% over 16 x 4 (more live
 * accumulators spill; fewer steps leave the loop's lane-mask blends
 * unamortised); 4 chains ran at 60%, latency-bound. A GPU has occupancy
 * to spare either way. */
#define SVK_FMA_PEAK_CHAINS 8u
#define SVK_FMA_PEAK_UNROLL 8u
#define SVK_FMA_PEAK_PER_ITER (SVK_FMA_PEAK_CHAINS * SVK_FMA_PEAK_UNROLL)

#endif
