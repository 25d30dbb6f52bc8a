/*
 * The second stage of the norms' backward passes
 * (shaders/norm_param_reduce.comp): adds the lanes' partial gain and bias
 * gradients to dg and db in a fixed order, so the same shapes always sum
 * the same way.
 *
 * Internal to lib/ops; the model records it through the norm ops.
 */
#ifndef SVK_OPS_NORM_PARAM_REDUCE_H
#define SVK_OPS_NORM_PARAM_REDUCE_H

#include "norm_rows.h"

/* dg[k * C + i] += sum over p of part[(k * bpn) * n_part * C + p * C + i]
 * and, when blocks_per_norm is 2, db likewise from the next block, for
 * k < n_norms, i < C, the sum taken in order p = 0, 1, ... */
typedef struct svk_norm_param_reduce_args {
    uint32_t C, n_norms, n_part;
    uint32_t blocks_per_norm; /* 1: gains only (rmsnorm); 2: gains and biases */
    svk_tref part;            /* [n_norms * blocks_per_norm, n_part, C] */
    svk_tref dg;              /* [n_norms, C], accumulated */
    svk_tref db;              /* [n_norms, C], accumulated; unused (may be {NULL}) with 1 block */
    const char *label;
} svk_norm_param_reduce_args;
svk_status svk_norm_param_reduce_record(svk_cmdlist *cl, const svk_norm_param_reduce_args *a);

#endif
