/*
 * GELU, tanh form, on the device (shaders/gelu_fwd.comp, gelu_bwd.comp):
 * elementwise over n values of any shape (in the model [rows, F]). The CPU
 * reference is svk_ref_gelu_fwd / svk_ref_gelu_bwd (lib/ref/gelu.c).
 */
#ifndef SVK_OPS_GELU_H
#define SVK_OPS_GELU_H

#include "ops.h"

typedef struct svk_gelu_fwd_args {
    uint64_t n;         /* elements, >= 1 */
    svk_tref x;         /* [n] */
    svk_tref out;       /* [n], written: gelu(x); may be x (in place) */
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_gelu_fwd_args;

typedef struct svk_gelu_bwd_args {
    uint64_t n;         /* elements, >= 1 */
    svk_tref x;         /* [n], the forward input */
    svk_tref dout;      /* [n] */
    svk_tref dx;        /* [n], written: dout * gelu'(x); may be dout or x */
    const char *label;
} svk_gelu_bwd_args;

svk_status svk_gelu_fwd_record(svk_cmdlist *cl, const svk_gelu_fwd_args *a);
svk_status svk_gelu_bwd_record(svk_cmdlist *cl, const svk_gelu_bwd_args *a);

#endif
