#include "finite_check.h"

#include "common/push_finite_check.h"
#include "elem_util.h"

svk_status svk_finite_check_record(svk_cmdlist *cl, const svk_finite_check_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    svk_ctx *ctx = a->x.buf->ctx;
    char op[128];
    svk_elem_opname(op, "finite_check", a->label);
    const uint64_t ld = a->ld ? a->ld : a->cols;
    if (a->rows == 0 || a->cols == 0 || ld < a->cols)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: rows=%llu cols=%llu ld=%llu (need rows, cols >= 1 "
                         "and ld >= cols)", op, (unsigned long long)a->rows, (unsigned long long)a->cols,
                         (unsigned long long)ld);
    /* The shader's strided index and its n - i encoding stay in 32 bits. */
    if (a->rows > (1ull << 31) / a->cols || a->rows * a->cols >= (1ull << 31) || ld > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: %llu x %llu elements (ld %llu), at most 2^31 - 1", op,
                         (unsigned long long)a->rows, (unsigned long long)a->cols, (unsigned long long)ld);
    svk_range r[2];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "x", a->x, (a->rows - 1) * ld + a->cols, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "stats", a->stats, SVK_FINITE_STATS, &r[1])) != SVK_OK)
        return st;
    svk_push_finite_check push = {
        .n = (uint32_t)(a->rows * a->cols),
        .cols = (uint32_t)a->cols,
        .ld = (uint32_t)ld,
        .off_x = svk_elem_off(a->x),
        .off_stats = svk_elem_off(a->stats),
    };
    return svk_elem_dispatch(cl, ctx, op, SVK_KERNEL_FINITE_CHECK, 1, 1, r, 2, &push, sizeof(push), a->label);
}
