/*
 * SwiGLU gating on the device (shaders/swiglu_fwd.comp, swiglu_bwd.comp):
 * out = silu(gate) * up elementwise, gate and up separate arrays (in the
 * model each [rows, F], the outputs of the gate and up Linears). The CPU
 * reference is svk_ref_swiglu_fwd / svk_ref_swiglu_bwd (lib/ref/swiglu.c).
 */
#ifndef SVK_OPS_SWIGLU_H
#define SVK_OPS_SWIGLU_H

#include "ops.h"

typedef struct svk_swiglu_fwd_args {
    uint64_t n;         /* elements, >= 1 */
    svk_tref gate;      /* [n] */
    svk_tref up;        /* [n] */
    svk_tref out;       /* [n], written; may be gate or up */
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_swiglu_fwd_args;

typedef struct svk_swiglu_bwd_args {
    uint64_t n;         /* elements, >= 1 */
    svk_tref gate, up;  /* [n] each, the forward inputs */
    svk_tref dout;      /* [n] */
    svk_tref dgate;     /* [n], written: dout * up * silu'(gate) */
    svk_tref dup;       /* [n], written: dout * silu(gate) */
    /* dgate and dup may each be one of the inputs (element for element), but
     * not each other. */
    const char *label;
} svk_swiglu_bwd_args;

svk_status svk_swiglu_fwd_record(svk_cmdlist *cl, const svk_swiglu_fwd_args *a);
svk_status svk_swiglu_bwd_record(svk_cmdlist *cl, const svk_swiglu_bwd_args *a);

#endif
