#include "swiglu.h"

#include "common/push_swiglu.h"
#include "elem_util.h"

svk_status svk_swiglu_fwd_record(svk_cmdlist *cl, const svk_swiglu_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->gate.buf);
    char op[128];
    svk_elem_opname(op, "swiglu_fwd", a->label);
    const svk_op_operand operands[] = {{"gate", a->gate, a->n}, {"up", a->up, a->n}, {"out", a->out, a->n}};
    svk_push_swiglu push = {
        .n = (uint32_t)a->n,
        .off_gate = svk_elem_off(a->gate),
        .off_up = svk_elem_off(a->up),
        .off_out = svk_elem_off(a->out),
    };
    return svk_elem_record(cl, a->gate.buf->ctx, op, SVK_KERNEL_SWIGLU_FWD, a->n, operands, 3, &push, sizeof(push),
                           a->label);
}

svk_status svk_swiglu_bwd_record(svk_cmdlist *cl, const svk_swiglu_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->gate.buf);
    svk_ctx *ctx = a->gate.buf->ctx;
    char op[128];
    svk_elem_opname(op, "swiglu_bwd", a->label);
    const svk_op_operand operands[] = {
        {"gate", a->gate, a->n}, {"up", a->up, a->n}, {"dout", a->dout, a->n},
        {"dgate", a->dgate, a->n}, {"dup", a->dup, a->n},
    };
    svk_range r[5];
    svk_status st = svk_op_bind_all(ctx, op, operands, 5, r);
    if (st != SVK_OK)
        return st;
    if (svk_range_overlap(r[3], r[4]))
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
    return svk_elem_dispatch_operands(cl, ctx, op, SVK_KERNEL_SWIGLU_BWD, a->n, operands, 5, r, &push, sizeof(push),
                                      a->label);
}
