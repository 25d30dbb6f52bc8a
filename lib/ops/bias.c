#include "bias.h"

#include "common/push_bias.h"
#include "elem_util.h"

svk_status svk_bias_fwd_record(svk_cmdlist *cl, const svk_bias_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->out.buf);
    svk_ctx *ctx = a->out.buf->ctx;
    char op[128];
    svk_elem_opname(op, "bias_fwd", a->label);
    if (a->rows == 0 || a->N == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape rows=%llu N=%llu", op,
                         (unsigned long long)a->rows, (unsigned long long)a->N);
    if (a->N > UINT32_MAX / a->rows)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: out of %llu x %llu spans 2^32 elements", op,
                         (unsigned long long)a->rows, (unsigned long long)a->N);
    const svk_op_operand operands[] = {{"bias", a->bias, a->N}, {"out", a->out, a->rows * a->N}};
    svk_range r[2];
    svk_status st = svk_op_bind_all(ctx, op, operands, 2, r);
    if (st != SVK_OK)
        return st;
    svk_push_bias push = {
        .rows = (uint32_t)a->rows,
        .N = (uint32_t)a->N,
        .off_bias = svk_elem_off(a->bias),
        .off_out = svk_elem_off(a->out),
    };
    return svk_elem_dispatch_1d(cl, ctx, op, SVK_KERNEL_BIAS_FWD, a->rows * a->N, r, 2, &push, sizeof(push),
                                a->label);
}

svk_status svk_bias_bwd_record(svk_cmdlist *cl, const svk_bias_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->dout.buf);
    svk_colsum_args c = {
        .rows = a->rows,
        .N = a->N,
        .ld = a->ld,
        .src = a->dout,
        .dst = a->dbias,
        .scratch = a->scratch,
        .label = a->label,
    };
    return svk_colsum_record_named(cl, &c, "bias_bwd", "dout", "dbias");
}
