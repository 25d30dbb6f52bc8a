/*
 * SiameseNorm's fused norms on the device (shaders/siamese_norm_fwd.comp,
 * siamese_norm_bwd.comp, layernorm_bwd.comp / rmsnorm_bwd.comp,
 * norm_param_reduce.comp), with the semantics of the CPU reference
 * (lib/ref/ref_decls.h):
 *
 *   block input  xn = P(x),  h = I(xn + Q(y))          svk_ref_siamese_norm_fwd/_bwd
 *   model output out = N_out(N_x(x) + N_y(y))          svk_ref_siamese_out_fwd/_bwd
 *
 * Three norms of one kind (layernorm or rmsnorm). Gains and biases are
 * [3, C] in the order P, Q, I (N_x, N_y, N_out); rstd [3, rows] likewise,
 * LayerNorm's mean [SVK_SIAMESE_MEAN_ROWS, rows] (below). Gradients of activations are written, those of g and b
 * accumulated, deterministically (bit-identical on every replay).
 *
 * Forward: one pass over each row computes all three norms and saves their
 * statistics. Backward, where the device allows 13 storage buffers per
 * shader: one dispatch computing dx, dy (and dz) and the gain and bias
 * partials of all three norms, recomputing du (the gradient of I's input)
 * wherever it needs it (shaders/siamese_norm_bwd_fused.comp), then the
 * ordered sum of the partials. Otherwise, or with the tuning's fused_siamese_bwd=0
 * (for comparisons and tests), staged, no dispatch binding more than 8
 * buffers: du into scratch, then Q's and P's backward, then the partials'
 * sum. On CPU devices (or with the cpu variant forced; see svk_op_variant)
 * the row kernels are their CPU forms, shaders/<name>_cpu.comp (the fused
 * one siamese_norm_bwd_fused_cpu.comp): the same results and partials
 * layout, one invocation per row or lane, no barriers. The scratch layout
 * is the same for all.
 */
#ifndef SVK_OPS_SIAMESE_NORM_H
#define SVK_OPS_SIAMESE_NORM_H

#include "ops.h"
#include "svk/config.h" /* svk_norm_kind */

/* Rows of LayerNorm's saved means: those of P's, Q's and I's inputs, then
 * P's and Q's once more as m, the mean of x - K with K the row's first
 * element. The forward computes each mean as K + m (a float mean of a row
 * with a large offset is off by half an ulp of the offset), and the
 * backward recomputes P(x) and Q(y) from the same K and m without summing
 * x and y again. */
#define SVK_SIAMESE_MEAN_ROWS 5u

typedef struct svk_siamese_norm_fwd_args {
    svk_norm_kind kind;
    uint32_t rows, C;       /* each >= 1 */
    float eps;              /* finite, > 0 */
    svk_tref x;             /* [rows, C], the post-norm stream */
    svk_tref y;             /* [rows, C], the pre-norm stream */
    svk_tref g;             /* [3, C]: P, Q, I */
    svk_tref b;             /* [3, C]: P, Q, I (layernorm; ignored, may be {NULL}, for rmsnorm) */
    svk_tref xn;            /* [rows, C], written: P(x) */
    svk_tref h;             /* [rows, C], written: I(xn + Q(y)) */
    svk_tref mean;          /* [SVK_SIAMESE_MEAN_ROWS, rows], written (layernorm; ignored, may be {NULL}, for rmsnorm) */
    svk_tref rstd;          /* [3, rows], written */
    const char *label;      /* NULL: "siamese_norm_fwd" */
} svk_siamese_norm_fwd_args;
/* The outputs must be disjoint from every operand (no in-place use). */
svk_status svk_siamese_norm_fwd_record(svk_cmdlist *cl, const svk_siamese_norm_fwd_args *a);

typedef struct svk_siamese_norm_bwd_args {
    svk_norm_kind kind;
    uint32_t rows, C;       /* each >= 1, as in the forward pass */
    svk_tref dh;            /* [rows, C], gradient of h */
    svk_tref dxn;           /* [rows, C] or {NULL} (zero): gradient reaching xn from its later use */
    svk_tref dy_in;         /* [rows, C] or {NULL} (zero): gradient reaching y from its later use */
    svk_tref x, y;          /* [rows, C], the forward inputs (xn and h are not needed) */
    svk_tref mean, rstd;    /* [SVK_SIAMESE_MEAN_ROWS, rows] and [3, rows], saved by the forward pass (mean: layernorm only) */
    svk_tref g, b;          /* [3, C] each (b: layernorm only) */
    svk_tref dx;            /* [rows, C], written; may be dxn or dh exactly */
    svk_tref dy;            /* [rows, C], written: dy_in + the gradient through Q; may be dy_in or dh exactly */
    svk_tref dg, db;        /* [3, C] each, accumulated (+=) (db: layernorm only) */
    svk_tref scratch;       /* svk_siamese_norm_bwd_scratch_elems(kind, rows, C) floats, clobbered */
    svk_tref dz;            /* [rows, C] or {NULL}: also written, dz = dx / dz_c + dy (see "dz of a backward pass") */
    float dz_c;             /* finite, > 0, with dz */
    const char *label;      /* NULL: "siamese_norm_bwd" */
} svk_siamese_norm_bwd_args;

/* dz of a backward pass: it may also write dz = dx / dz_c + dy, from the dx
 * and dy it computes, as svk_residual_bwd_record() would (the same formula,
 * the same floats): the gradient of the residual branch z of the sublayer
 * below (x = x + z / c, y = y + z), or with dz_c = 1 the gradient of the
 * embedding (x = y = e). The fused CPU form writes it in its last pass,
 * one row stream instead of a dispatch that reads dx and dy again; the
 * others record svk_residual_bwd_record(). dz must be disjoint from every
 * other operand. */

/* Floats of scratch the backward passes (block input and model output)
 * need: du [rows, C], then the gain (and bias) partials of the three norms. */
uint64_t svk_siamese_norm_bwd_scratch_elems(svk_norm_kind kind, uint32_t rows, uint32_t C);

svk_status svk_siamese_norm_bwd_record(svk_cmdlist *cl, const svk_siamese_norm_bwd_args *a);

typedef struct svk_siamese_out_fwd_args {
    svk_norm_kind kind;
    uint32_t rows, C;
    float eps;
    svk_tref x, y;          /* [rows, C], the two streams after the last block */
    svk_tref g, b;          /* [3, C]: N_x, N_y, N_out (b: layernorm only) */
    svk_tref out;           /* [rows, C], written; disjoint from every operand */
    svk_tref mean, rstd;    /* [SVK_SIAMESE_MEAN_ROWS, rows] and [3, rows], written (mean: layernorm only) */
    const char *label;      /* NULL: "siamese_out_fwd" */
} svk_siamese_out_fwd_args;
svk_status svk_siamese_out_fwd_record(svk_cmdlist *cl, const svk_siamese_out_fwd_args *a);

typedef struct svk_siamese_out_bwd_args {
    svk_norm_kind kind;
    uint32_t rows, C;
    svk_tref dout;          /* [rows, C] */
    svk_tref x, y;          /* [rows, C], the forward inputs */
    svk_tref mean, rstd;    /* [SVK_SIAMESE_MEAN_ROWS, rows] and [3, rows], saved by the forward pass (mean: layernorm only) */
    svk_tref g, b;          /* [3, C] (b: layernorm only) */
    svk_tref dx, dy;        /* [rows, C], written; either may be dout exactly */
    svk_tref dg, db;        /* [3, C], accumulated (db: layernorm only) */
    svk_tref scratch;       /* svk_siamese_norm_bwd_scratch_elems(kind, rows, C) floats, clobbered */
    svk_tref dz;            /* [rows, C] or {NULL}: also written, dz = dx / dz_c + dy (see "dz of a backward pass") */
    float dz_c;             /* finite, > 0, with dz */
    const char *label;      /* NULL: "siamese_out_bwd" */
} svk_siamese_out_bwd_args;
svk_status svk_siamese_out_bwd_record(svk_cmdlist *cl, const svk_siamese_out_bwd_args *a);

#endif
