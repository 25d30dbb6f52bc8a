/*
 * SiameseNorm's dual residual update on the device (shaders/residual_fwd.comp,
 * residual_bwd.comp), with the semantics of svk_ref_residual_fwd / _bwd
 * (lib/ref/ref_decls.h):
 *   forward, in place:  x += z / c;  y += z
 *   backward, written:  dz = dx / c + dy
 * c is the layer's scale, sqrt(2 (l + 1)) in the model.
 */
#ifndef SVK_OPS_RESIDUAL_H
#define SVK_OPS_RESIDUAL_H

#include "ops.h"

typedef struct svk_residual_fwd_args {
    uint64_t n;             /* elements, >= 1 (rows * C in the model) */
    float c;                /* finite, nonzero */
    svk_tref x, y;          /* [n] each, updated in place; disjoint */
    svk_tref z;             /* [n], the sublayer output; disjoint from x and y */
    const char *label;      /* NULL: "residual_fwd" */
} svk_residual_fwd_args;
svk_status svk_residual_fwd_record(svk_cmdlist *cl, const svk_residual_fwd_args *a);

typedef struct svk_residual_bwd_args {
    uint64_t n;             /* elements, >= 1 */
    float c;                /* finite, nonzero */
    svk_tref dx, dy;        /* [n] each, gradients of the updated x and y */
    svk_tref dz;            /* [n], written; may be dx or dy exactly */
    const char *label;      /* NULL: "residual_bwd" */
} svk_residual_bwd_args;
svk_status svk_residual_bwd_record(svk_cmdlist *cl, const svk_residual_bwd_args *a);

#endif
