#include "rmsnorm.h"

#include <math.h>

#include "common/push_norm_bwd.h"
#include "common/push_norm_fwd.h"
#include "norm_param_reduce.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

svk_status svk_rmsnorm_fwd_record(svk_cmdlist *cl, const svk_rmsnorm_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const char *op = a->label ? a->label : "rmsnorm_fwd";
    if (!a->x.buf)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: operand x has no buffer", op);
    svk_ctx *ctx = a->x.buf->ctx;
    if (a->rows == 0 || a->width == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: rows=%u width=%u, each must be >= 1", op, a->rows,
                         a->width);
    if (!(a->eps > 0) || !isfinite(a->eps))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: eps=%g must be finite and > 0", op, (double)a->eps);
    uint64_t n = (uint64_t)a->rows * a->width;
    svk_range rx, rg, ro, rr = {0};
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "x", a->x, n, &rx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", a->g, a->width, &rg)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, n, &ro)) != SVK_OK ||
        (a->rstd.buf && (st = svk_op_bind(ctx, op, "rstd", a->rstd, a->rows, &rr)) != SVK_OK))
        return st;
    const svk_norm_operand ops[] = {
        {"x", rx, false, 0}, {"g", rg, false, 0}, {"out", ro, true, 1u << 0}, {"rstd", rr, true, 0},
    };
    if ((st = svk_norm_check_operands(ctx, op, ops, 4)) != SVK_OK)
        return st;

    svk_push_norm_fwd push = {
        .rows = a->rows,
        .width = a->width,
        .off_x = (uint32_t)a->x.off,
        .off_g = (uint32_t)a->g.off,
        .off_out = (uint32_t)a->out.off,
        .off_rstd = a->rstd.buf ? (uint32_t)a->rstd.off : 0u,
        .flags = a->rstd.buf ? SVK_NORM_FLAG_SAVE_RSTD : 0u,
        .eps = a->eps,
    };
    const svk_range bind[] = {rx, rg, ro, a->rstd.buf ? rr : ro};
    const uint64_t offs[] = {a->x.off, a->g.off, a->out.off};
    const svk_norm_cpu_form form = {svk_op_vec4(a->width, offs, 3), 2, 1, SVK_ROW_CPU_ROWS, push.flags};
    return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_RMSNORM_FWD, a->width, a->rows, form, bind, 4, &push,
                                 sizeof(push), op);
}

uint64_t svk_rmsnorm_bwd_scratch_elems(uint32_t rows, uint32_t width)
{
    return (uint64_t)svk_norm_lanes_for(rows ? rows : 1).n_part * width;
}

svk_status svk_rmsnorm_bwd_record(svk_cmdlist *cl, const svk_rmsnorm_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const char *op = a->label ? a->label : "rmsnorm_bwd";
    if (!a->x.buf)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: operand x has no buffer", op);
    svk_ctx *ctx = a->x.buf->ctx;
    if (a->rows == 0 || a->width == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: rows=%u width=%u, each must be >= 1", op, a->rows,
                         a->width);
    uint64_t n = (uint64_t)a->rows * a->width;
    svk_norm_lanes lanes = svk_norm_lanes_for(a->rows);
    uint64_t part_n = (uint64_t)lanes.n_part * a->width;
    svk_range rdo, rx, rr, rg, rdx, rdg, rs;
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "dout", a->dout, n, &rdo)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "x", a->x, n, &rx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "rstd", a->rstd, a->rows, &rr)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", a->g, a->width, &rg)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dx", a->dx, n, &rdx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dg", a->dg, a->width, &rdg)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "scratch", a->scratch, part_n, &rs)) != SVK_OK)
        return st;
    const svk_norm_operand ops[] = {
        {"dout", rdo, false, 0}, {"x", rx, false, 0}, {"rstd", rr, false, 0}, {"g", rg, false, 0},
        {"dx", rdx, true, (1u << 0) | (1u << 1)}, {"dg", rdg, true, 0}, {"scratch", rs, true, 0},
    };
    if ((st = svk_norm_check_operands(ctx, op, ops, 7)) != SVK_OK)
        return st;

    svk_push_norm_bwd push = {
        .rows = a->rows,
        .width = a->width,
        .rows_per_part = lanes.rows_per_part,
        .n_part = lanes.n_part,
        .off_dout = (uint32_t)a->dout.off,
        .off_x = (uint32_t)a->x.off,
        .off_rstd = (uint32_t)a->rstd.off,
        .off_g = (uint32_t)a->g.off,
        .off_dx = (uint32_t)a->dx.off,
        .off_part = (uint32_t)a->scratch.off,
    };
    const svk_range bind[] = {rdo, rdo, rx, rr, rg, rdx, rs};
    const uint64_t offs[] = {a->dout.off, a->x.off, a->g.off, a->dx.off, a->scratch.off};
    const svk_norm_cpu_form form = {svk_op_vec4(a->width, offs, 5), 2, lanes.rows_per_part, 1, push.flags};
    if ((st = svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_RMSNORM_BWD, a->width, lanes.n_part, form, bind, 7, &push,
                                    sizeof(push), op)) != SVK_OK)
        return st;
    svk_norm_param_reduce_args ra = {
        .C = a->width, .n_norms = 1, .n_part = lanes.n_part, .blocks_per_norm = 1,
        .part = a->scratch, .dg = a->dg, .label = op,
    };
    return svk_norm_param_reduce_record(cl, &ra);
}
