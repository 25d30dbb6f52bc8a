#include "index_check.h"

#include "common/push_index_check.h"
#include "elem_util.h"

svk_status svk_index_check_record(svk_cmdlist *cl, const svk_index_check_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->idx.buf);
    svk_ctx *ctx = a->idx.buf->ctx;
    char op[128];
    svk_elem_opname(op, "index_check", a->label);
    /* The shader's strided loop must not wrap a 32-bit index. */
    if (a->n >= (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: n=%llu indices, at most 2^31 - 1", op,
                         (unsigned long long)a->n);
    if (a->V == 0 || a->V > (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: V=%llu outside 1..2^31", op,
                         (unsigned long long)a->V);
    const svk_op_operand operands[] = {{"idx", a->idx, a->n}, {"counts", a->counts, 2}};
    svk_range r[2];
    svk_status st = svk_op_bind_all(ctx, op, operands, 2, r);
    if (st != SVK_OK)
        return st;
    svk_push_index_check push = {
        .n = (uint32_t)a->n,
        .V = (uint32_t)a->V,
        .off_idx = svk_elem_off(a->idx),
        .off_counts = svk_elem_off(a->counts),
        .ignore = a->ignore,
        .flags = a->has_ignore ? SVK_INDEX_CHECK_FLAG_IGNORE : 0u,
    };
    return svk_elem_dispatch(cl, ctx, op, SVK_KERNEL_INDEX_CHECK, 1, 1, r, 2, &push, sizeof(push), a->label);
}
