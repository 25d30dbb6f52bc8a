#include "residual.h"

#include <math.h>

#include "common/push_residual.h"
#include "elem_util.h"
#include "norm_rows.h"

static svk_status check(svk_ctx *ctx, const char *op, uint64_t n, float c)
{
    if (n == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: n=0, must be >= 1", op);
    if (n > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: n=%llu exceeds 2^32 - 1 elements", op,
                         (unsigned long long)n);
    if (c == 0 || !isfinite(c))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: c=%g must be finite and nonzero", op, (double)c);
    return SVK_OK;
}

static svk_status dispatch(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id kernel, uint64_t n,
                           const svk_range bind[3], const svk_push_residual *push)
{
    const uint64_t offs[3] = {push->off_x, push->off_y, push->off_z};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, kernel, n, offs, 3, bind, 3, push, sizeof(*push), op);
}

svk_status svk_residual_fwd_record(svk_cmdlist *cl, const svk_residual_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const char *op;
    svk_ctx *ctx;
    svk_status st;
    if ((st = svk_norm_begin(a->label, "residual_fwd", "x", a->x, &op, &ctx)) != SVK_OK ||
        (st = check(ctx, op, a->n, a->c)) != SVK_OK)
        return st;
    svk_range rx, ry, rz;
    if ((st = svk_op_bind(ctx, op, "x", a->x, a->n, &rx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "y", a->y, a->n, &ry)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "z", a->z, a->n, &rz)) != SVK_OK)
        return st;
    const svk_norm_operand ops[] = {{"x", rx, true, 0}, {"y", ry, true, 0}, {"z", rz, false, 0}};
    if ((st = svk_norm_check_operands(ctx, op, ops, 3)) != SVK_OK)
        return st;
    svk_push_residual push = {
        .n = (uint32_t)a->n, .off_x = (uint32_t)a->x.off, .off_y = (uint32_t)a->y.off,
        .off_z = (uint32_t)a->z.off, .c = a->c,
    };
    const svk_range bind[3] = {rx, ry, rz};
    return dispatch(cl, ctx, op, SVK_KERNEL_RESIDUAL_FWD, a->n, bind, &push);
}

svk_status svk_residual_bwd_record(svk_cmdlist *cl, const svk_residual_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const char *op;
    svk_ctx *ctx;
    svk_status st;
    if ((st = svk_norm_begin(a->label, "residual_bwd", "dx", a->dx, &op, &ctx)) != SVK_OK ||
        (st = check(ctx, op, a->n, a->c)) != SVK_OK)
        return st;
    svk_range rdx, rdy, rdz;
    if ((st = svk_op_bind(ctx, op, "dx", a->dx, a->n, &rdx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dy", a->dy, a->n, &rdy)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dz", a->dz, a->n, &rdz)) != SVK_OK)
        return st;
    const svk_norm_operand ops[] = {{"dx", rdx, false, 0}, {"dy", rdy, false, 0}, {"dz", rdz, true, 3u}};
    if ((st = svk_norm_check_operands(ctx, op, ops, 3)) != SVK_OK)
        return st;
    svk_push_residual push = {
        .n = (uint32_t)a->n, .off_x = (uint32_t)a->dx.off, .off_y = (uint32_t)a->dy.off,
        .off_z = (uint32_t)a->dz.off, .c = a->c,
    };
    const svk_range bind[3] = {rdx, rdy, rdz};
    return dispatch(cl, ctx, op, SVK_KERNEL_RESIDUAL_BWD, a->n, bind, &push);
}
