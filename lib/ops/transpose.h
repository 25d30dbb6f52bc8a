/*
 * Transpose on the device (shaders/transpose.comp): dst [cols, rows] =
 * src [rows, cols]^T, src with leading dimension ld, dst packed. Exact
 * (a copy). The training step uses it where a weight's forward product
 * runs faster as NN on a transposed copy than as NT on the weight
 * (lib/model/plan.c, svk_plan_options.linear_nn).
 */
#ifndef SVK_OPS_TRANSPOSE_H
#define SVK_OPS_TRANSPOSE_H

#include "ops.h"

typedef struct svk_transpose_args {
    uint32_t rows, cols;   /* of src, each >= 1 */
    uint32_t ld;           /* elements between rows of src, >= cols; 0 means cols */
    svk_tref src;          /* [rows, ld] (the last row needs only cols elements) */
    svk_tref dst;          /* [cols, rows], written; must not overlap src */
    const char *label;     /* names the dispatch in messages and timings; may be NULL */
} svk_transpose_args;

/* One float of dst per invocation, or a vec4 where rows and dst's offset
 * are multiples of 4 (and the tuning allows vec4). On CPU devices, where cols,
 * ld and src's offset are multiples of 4 too and src can be viewed, a
 * 4 x 4 block per invocation with src fetched as vec4s through an RGBA32F
 * texel view (transpose_texel.comp), measured faster on lavapipe at the
 * model's weights (an R32F view, one float per fetch, was not). */
svk_status svk_transpose_record(svk_cmdlist *cl, const svk_transpose_args *a);

#endif
