/*
 * RMSNorm over the last axis on the device (shaders/norm_fwd.comp,
 * norm_bwd.comp with SVK_RMSNORM, norm_param_reduce.comp; recorded by
 * norm.c as LayerNorm without b and mean), with the semantics of the CPU
 * reference svk_ref_rmsnorm_fwd / _bwd (lib/ref/ref_decls.h):
 *   out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps).
 * dx is written, dg accumulated, deterministically.
 * On CPU devices (or with the cpu variant forced; see svk_op_variant) the
 * row kernels are their CPU forms, shaders/<name>_cpu.comp: the same
 * results and partials layout, one invocation per row or lane, no barriers.
 */
#ifndef SVK_OPS_RMSNORM_H
#define SVK_OPS_RMSNORM_H

#include "ops.h"

typedef struct svk_rmsnorm_fwd_args {
    uint32_t rows, width;   /* each >= 1 */
    float eps;              /* finite, > 0 */
    svk_tref x;             /* [rows, width] */
    svk_tref g;             /* [width] */
    svk_tref out;           /* [rows, width]; may be x exactly (in place), else disjoint from every operand */
    svk_tref rstd;          /* [rows], or {NULL}: not saved */
    const char *label;      /* NULL: "rmsnorm_fwd" */
} svk_rmsnorm_fwd_args;

svk_status svk_rmsnorm_fwd_record(svk_cmdlist *cl, const svk_rmsnorm_fwd_args *a);

typedef struct svk_rmsnorm_bwd_args {
    uint32_t rows, width;   /* each >= 1 */
    svk_tref dout;          /* [rows, width] */
    svk_tref x;             /* [rows, width], the forward input */
    svk_tref rstd;          /* [rows], saved by the forward pass */
    svk_tref g;             /* [width] */
    svk_tref dx;            /* [rows, width], written; may be dout or x exactly */
    svk_tref dg;            /* [width], accumulated (+=) */
    svk_tref scratch;       /* svk_rmsnorm_bwd_scratch_elems(rows, width) floats, clobbered */
    const char *label;      /* NULL: "rmsnorm_bwd" */
} svk_rmsnorm_bwd_args;

uint64_t svk_rmsnorm_bwd_scratch_elems(uint32_t rows, uint32_t width);

svk_status svk_rmsnorm_bwd_record(svk_cmdlist *cl, const svk_rmsnorm_bwd_args *a);

#endif
