/*
 * Selects the element type a reference source file is compiled for. meson
 * compiles every reference source twice, with -DSVK_REF_BITS=32 and =64; the
 * file then defines its functions with SVK_REF(name) over svk_real.
 */
#ifndef SVK_REF_REAL_H
#define SVK_REF_REAL_H

#include "ref.h"

#if SVK_REF_BITS == 32
typedef float svk_real;
#define SVK_REF(name) svk_ref_##name##_f32
#elif SVK_REF_BITS == 64
typedef double svk_real;
#define SVK_REF(name) svk_ref_##name##_f64
#else
#error "SVK_REF_BITS must be 32 or 64"
#endif

#include <math.h>

/*
 * Elementary functions for svk_real. They are evaluated in double and
 * rounded once to svk_real: for the float build that is almost always the
 * correctly rounded result (at least as close as a float libm's own), and it
 * keeps every source file free of float/double variants of each call.
 */
static inline svk_real ref_sqrt(svk_real x) { return (svk_real)sqrt((double)x); }
static inline svk_real ref_exp(svk_real x) { return (svk_real)exp((double)x); }
static inline svk_real ref_log(svk_real x) { return (svk_real)log((double)x); }
static inline svk_real ref_tanh(svk_real x) { return (svk_real)tanh((double)x); }
static inline svk_real ref_cos(svk_real x) { return (svk_real)cos((double)x); }
static inline svk_real ref_sin(svk_real x) { return (svk_real)sin((double)x); }

#endif
