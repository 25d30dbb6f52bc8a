#include "gelu.h"

#include "common/push_gelu.h"
#include "elem_util.h"

svk_status svk_gelu_fwd_record(svk_cmdlist *cl, const svk_gelu_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    svk_ctx *ctx = a->x.buf->ctx;
    char op[128];
    svk_elem_opname(op, "gelu_fwd", a->label);
    svk_range r[2];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "x", a->x, a->n, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, a->n, &r[1])) != SVK_OK)
        return st;
    svk_push_gelu push = {
        .n = (uint32_t)a->n,
        .off_x = svk_elem_off(a->x),
        .off_out = svk_elem_off(a->out),
    };
    const uint64_t offs[2] = {push.off_x, push.off_out};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_GELU_FWD, a->n, offs, 2, r, 2, &push, sizeof(push),
                                     a->label);
}

svk_status svk_gelu_bwd_record(svk_cmdlist *cl, const svk_gelu_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    svk_ctx *ctx = a->x.buf->ctx;
    char op[128];
    svk_elem_opname(op, "gelu_bwd", a->label);
    svk_range r[3];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "x", a->x, a->n, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dout", a->dout, a->n, &r[1])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dx", a->dx, a->n, &r[2])) != SVK_OK)
        return st;
    svk_push_gelu push = {
        .n = (uint32_t)a->n,
        .off_x = svk_elem_off(a->x),
        .off_dout = svk_elem_off(a->dout),
        .off_out = svk_elem_off(a->dx),
    };
    const uint64_t offs[3] = {push.off_x, push.off_dout, push.off_out};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_GELU_BWD, a->n, offs, 3, r, 3, &push, sizeof(push),
                                     a->label);
}
