#include "fma_peak.h"

#include "common/push_fma_peak.h"
#include "elem_util.h"

uint64_t svk_fma_peak_fmas(uint32_t n, uint32_t iters)
{
    return (uint64_t)n * iters * SVK_FMA_PEAK_PER_ITER;
}

svk_status svk_fma_peak_record(svk_cmdlist *cl, const svk_fma_peak_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->out.buf);
    svk_ctx *ctx = a->out.buf->ctx;
    const char *op = a->label ? a->label : "fma_peak";
    if (a->n == 0 || a->iters == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: n=%u invocations and iters=%u must be >= 1", op,
                         a->n, a->iters);
    /* lavapipe would end the loop early, silently, and the count of work
     * would be wrong; the budget is far more than a timing needs. */
    if (a->iters > SVK_OP_CPU_LOOP_BUDGET)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: iters=%u, at most %u", op, a->iters,
                         (unsigned)SVK_OP_CPU_LOOP_BUDGET);
    svk_range r;
    svk_status st = svk_op_bind(ctx, op, "out", a->out, a->n, &r);
    if (st != SVK_OK)
        return st;
    svk_push_fma_peak push = {
        .n = a->n, .iters = a->iters, .off_out = svk_elem_off(a->out), .a = a->a, .b = a->b,
    };
    return svk_elem_dispatch_1d(cl, ctx, op, SVK_KERNEL_FMA_PEAK, a->n, &r, 1, &push, sizeof(push), a->label);
}
