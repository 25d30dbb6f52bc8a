/*
 * LayerNorm over the last axis on the device (shaders/norm_fwd.comp,
 * norm_bwd.comp, norm_param_reduce.comp; recorded by norm.c, which it
 * shares with RMSNorm, rmsnorm.h), with the semantics of the
 * CPU reference svk_ref_layernorm_fwd / _bwd (lib/ref/ref_decls.h):
 *   out = (x - mean) * rstd * g + b,  rstd = 1 / sqrt(var + eps),
 * biased variance. Gradients of activations are written, those of g and b
 * accumulated, deterministically (bit-identical on every replay).
 * On CPU devices (or with the cpu variant forced; see svk_op_variant) the
 * row kernels are their CPU forms, shaders/<name>_cpu.comp: the same
 * results and partials layout, one invocation per row or lane, no barriers.
 */
#ifndef SVK_OPS_LAYERNORM_H
#define SVK_OPS_LAYERNORM_H

#include "ops.h"

typedef struct svk_layernorm_fwd_args {
    uint32_t rows, width;   /* each >= 1 */
    float eps;              /* finite, > 0 */
    svk_tref x;             /* [rows, width] */
    svk_tref g, b;          /* [width] */
    svk_tref out;           /* [rows, width]; may be x exactly (in place), else disjoint from every operand */
    svk_tref mean, rstd;    /* [rows] each, or {NULL}: not saved (the backward pass needs both) */
    const char *label;      /* names the dispatch in messages and timings; NULL: "layernorm_fwd" */
} svk_layernorm_fwd_args;

svk_status svk_layernorm_fwd_record(svk_cmdlist *cl, const svk_layernorm_fwd_args *a);

typedef struct svk_layernorm_bwd_args {
    uint32_t rows, width;   /* each >= 1, as in the forward pass */
    svk_tref dout;          /* [rows, width], gradient of out */
    svk_tref x;             /* [rows, width], the forward input */
    svk_tref mean, rstd;    /* [rows] each, saved by the forward pass */
    svk_tref g;             /* [width] */
    svk_tref dx;            /* [rows, width], written; may be dout or x exactly */
    svk_tref dg, db;        /* [width] each, accumulated (+=) */
    svk_tref scratch;       /* svk_layernorm_bwd_scratch_elems(rows, width) floats, clobbered */
    const char *label;      /* NULL: "layernorm_bwd" */
} svk_layernorm_bwd_args;

/* Floats of scratch svk_layernorm_bwd_record needs: the per-lane partial
 * sums of dg and db, 2 * min(rows, 256-ish lanes) * width. */
uint64_t svk_layernorm_bwd_scratch_elems(uint32_t rows, uint32_t width);

/* Two dispatches: dx and the partials, then their ordered sum into dg, db. */
svk_status svk_layernorm_bwd_record(svk_cmdlist *cl, const svk_layernorm_bwd_args *a);

#endif
