/*
 * CPU reference kernels: the oracle every Vulkan kernel is compared with.
 *
 * Each kernel lives in its own file, lib/ref/<kernel>.c, written once over
 * the type svk_real and compiled twice (see lib/ref/meson.build):
 *   svk_ref_<kernel>_f32   float, the precision the GPU computes in;
 *   svk_ref_<kernel>_f64   double, for finite-difference gradient checks and
 *                          as the high-precision oracle of conformance tests.
 * This header declares both by including ref_decls.h once per type.
 *
 * The reference is written for clarity, not speed: plain loops, no SIMD,
 * built without fast-math, and it needs no Vulkan.
 */
#ifndef SVK_REF_REF_H
#define SVK_REF_REF_H

#include <stddef.h>
#include <stdint.h>

/* Which normalisation a fused norm kernel (siamese_norm.c) applies; the
 * values are the reference's own, not a public ABI. */
enum svk_ref_norm {
    SVK_REF_LAYERNORM = 0, /* (u - mean) * rstd * g + b, rstd = 1/sqrt(var + eps) */
    SVK_REF_RMSNORM = 1,   /* u * rstd * g, rstd = 1/sqrt(mean(u^2) + eps) */
};

/* What svk_ref_finite_check finds in an array. */
typedef struct svk_ref_finite {
    uint64_t nan, inf;  /* elements that are NaN, and +-infinity */
    uint64_t first;     /* the index of the first of them; UINT64_MAX when there is none */
    double max_abs;     /* the largest |x| among the finite elements (0 when none) */
} svk_ref_finite;

#define SVK_REF_TYPE float
#define SVK_REF_NAME(name) svk_ref_##name##_f32
#include "ref_decls.h"
#undef SVK_REF_TYPE
#undef SVK_REF_NAME

#define SVK_REF_TYPE double
#define SVK_REF_NAME(name) svk_ref_##name##_f64
#include "ref_decls.h"
#undef SVK_REF_TYPE
#undef SVK_REF_NAME

#endif
