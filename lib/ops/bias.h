/*
 * A Linear layer's bias on the device: the broadcast add
 * (shaders/bias_fwd.comp) and its gradient, the column sums of dout
 * accumulated into dbias (svk_colsum_record, lib/ops/colsum.h). The CPU
 * reference is svk_ref_bias_fwd / svk_ref_bias_bwd (lib/ref/bias.c).
 */
#ifndef SVK_OPS_BIAS_H
#define SVK_OPS_BIAS_H

#include "colsum.h"

typedef struct svk_bias_fwd_args {
    uint64_t rows, N;   /* >= 1 each */
    svk_tref bias;      /* [N] */
    svk_tref out;       /* [rows, N], in place: out[r, j] += bias[j] */
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_bias_fwd_args;

typedef struct svk_bias_bwd_args {
    uint64_t rows, N;   /* >= 1 each */
    uint64_t ld;        /* elements between rows of dout, >= N; 0 means N */
    svk_tref dout;      /* [rows, ld] (the last row needs only N elements) */
    svk_tref dbias;     /* [N], accumulated: dbias[j] += sum over r of dout[r, j] */
    svk_tref scratch;   /* [svk_colsum_scratch_elems(rows, N)] floats, clobbered;
                         * ignored (buf may be NULL) when that is 0 */
    const char *label;
} svk_bias_bwd_args;

svk_status svk_bias_fwd_record(svk_cmdlist *cl, const svk_bias_fwd_args *a);
svk_status svk_bias_bwd_record(svk_cmdlist *cl, const svk_bias_bwd_args *a);

#endif
