#include "swiglu.h"

#include "common/push_swiglu.h"
#include "elem_util.h"

svk_status svk_swiglu_fwd_record(svk_cmdlist *cl, const svk_swiglu_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->gate.buf);
    svk_ctx *ctx = a->gate.buf->ctx;
    char op[128];
    svk_elem_opname(op, "swiglu_fwd", a->label);
    svk_range r[3];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "gate", a->gate, a->n, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "up", a->up, a->n, &r[1])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, a->n, &r[2])) != SVK_OK)
        return st;
    svk_push_swiglu push = {
        .n = (uint32_t)a->n,
        .off_gate = svk_elem_off(a->gate),
        .off_up = svk_elem_off(a->up),
        .off_out = svk_elem_off(a->out),
    };
    const uint64_t offs[3] = {push.off_gate, push.off_up, push.off_out};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_SWIGLU_FWD, a->n, offs, 3, r, 3, &push, sizeof(push),
                                     a->label);
}

svk_status svk_swiglu_bwd_record(svk_cmdlist *cl, const svk_swiglu_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->gate.buf);
    svk_ctx *ctx = a->gate.buf->ctx;
    char op[128];
    svk_elem_opname(op, "swiglu_bwd", a->label);
    svk_range r[5];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "gate", a->gate, a->n, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "up", a->up, a->n, &r[1])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dout", a->dout, a->n, &r[2])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dgate", a->dgate, a->n, &r[3])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dup", a->dup, a->n, &r[4])) != SVK_OK)
        return st;
    if (a->dgate.buf == a->dup.buf && a->dgate.off < a->dup.off + a->n && a->dup.off < a->dgate.off + a->n)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: dgate (element %llu) and dup (element %llu) overlap",
                         op, (unsigned long long)a->dgate.off, (unsigned long long)a->dup.off);
    svk_push_swiglu push = {
        .n = (uint32_t)a->n,
        .off_gate = svk_elem_off(a->gate),
        .off_up = svk_elem_off(a->up),
        .off_dout = svk_elem_off(a->dout),
        .off_out = svk_elem_off(a->dgate),
        .off_dup = svk_elem_off(a->dup),
    };
    const uint64_t offs[5] = {push.off_gate, push.off_up, push.off_dout, push.off_out, push.off_dup};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_SWIGLU_BWD, a->n, offs, 5, r, 5, &push, sizeof(push),
                                     a->label);
}
