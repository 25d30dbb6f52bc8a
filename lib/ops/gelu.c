#include "gelu.h"

#include "common/push_gelu.h"
#include "elem_util.h"

svk_status svk_gelu_fwd_record(svk_cmdlist *cl, const svk_gelu_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    char op[128];
    svk_elem_opname(op, "gelu_fwd", a->label);
    const svk_op_operand operands[] = {{"x", a->x, a->n}, {"out", a->out, a->n}};
    svk_push_gelu push = {
        .n = (uint32_t)a->n,
        .off_x = svk_elem_off(a->x),
        .off_out = svk_elem_off(a->out),
    };
    return svk_elem_record(cl, a->x.buf->ctx, op, SVK_KERNEL_GELU_FWD, a->n, operands, 2, &push, sizeof(push),
                           a->label);
}

svk_status svk_gelu_bwd_record(svk_cmdlist *cl, const svk_gelu_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    char op[128];
    svk_elem_opname(op, "gelu_bwd", a->label);
    const svk_op_operand operands[] = {{"x", a->x, a->n}, {"dout", a->dout, a->n}, {"dx", a->dx, a->n}};
    svk_push_gelu push = {
        .n = (uint32_t)a->n,
        .off_x = svk_elem_off(a->x),
        .off_dout = svk_elem_off(a->dout),
        .off_out = svk_elem_off(a->dx),
    };
    return svk_elem_record(cl, a->x.buf->ctx, op, SVK_KERNEL_GELU_BWD, a->n, operands, 3, &push, sizeof(push),
                           a->label);
}
