#include "norm_param_reduce.h"

#include <string.h>

#include "common/push_norm_param_reduce.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

svk_status svk_norm_param_reduce_record(svk_cmdlist *cl, const svk_norm_param_reduce_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const char *op;
    svk_ctx *ctx;
    svk_status st = svk_norm_begin(a->label, "norm_param_reduce", "partials", a->part, &op, &ctx);
    if (st != SVK_OK)
        return st;
    if (a->C == 0 || a->n_norms == 0 || a->n_part == 0 || a->blocks_per_norm < 1 || a->blocks_per_norm > 2)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: C=%u n_norms=%u n_part=%u blocks_per_norm=%u (each >= 1, blocks_per_norm 1 or 2)", op,
                         a->C, a->n_norms, a->n_part, a->blocks_per_norm);
    uint64_t cols = (uint64_t)a->n_norms * a->C;
    uint64_t outs = cols * a->blocks_per_norm;
    svk_range rp, rg, rb;
    if ((st = svk_op_bind(ctx, op, "partials", a->part, outs * a->n_part, &rp)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dg", a->dg, cols, &rg)) != SVK_OK)
        return st;
    if (a->blocks_per_norm == 2) {
        if ((st = svk_op_bind(ctx, op, "db", a->db, cols, &rb)) != SVK_OK ||
            (st = svk_norm_check_disjoint(ctx, op, "dg", rg, "db", rb, false)) != SVK_OK)
            return st;
    } else {
        rb = rg; /* never read: a stand-in for binding 2 */
    }
    if ((st = svk_norm_check_disjoint(ctx, op, "partials", rp, "dg", rg, false)) != SVK_OK ||
        (st = svk_norm_check_disjoint(ctx, op, "partials", rp, "db", rb, false)) != SVK_OK)
        return st;

    /* GPUs (the portable variant) split each column's partials into 8
     * slices added in a tree (norm_param_reduce.comp); CPU devices sum
     * them in one loop per column, with no barrier. */
    svk_kernel_variant var;
    if ((st = svk_op_variant(ctx, op, &var)) != SVK_OK)
        return st;
    uint32_t spec[3];
    memcpy(spec, svk_kernel_info_get(SVK_KERNEL_NORM_PARAM_REDUCE)->spec_defaults, sizeof(spec));
    if (var != SVK_KERNEL_VARIANT_CPU) {
        spec[0] = 32;
        spec[1] = 8;
    }
    svk_push_norm_param_reduce push = {
        .C = a->C,
        .n_norms = a->n_norms,
        .n_part = a->n_part,
        .blocks_per_norm = a->blocks_per_norm,
        .off_part = (uint32_t)a->part.off,
        .off_dg = (uint32_t)a->dg.off,
        .off_db = a->blocks_per_norm == 2 ? (uint32_t)a->db.off : 0u,
    };
    svk_dispatch d = {
        .kernel = SVK_KERNEL_NORM_PARAM_REDUCE,
        .spec = spec,
        .bindings = {rp, rg, rb},
        .n_bindings = 3,
        .push = &push,
        .push_size = sizeof(push),
        .label = op,
    };
    if ((st = svk_op_grid(ctx, op, svk_div_up(outs, spec[0]), d.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &d);
}
