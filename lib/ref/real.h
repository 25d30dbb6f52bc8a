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

#endif
