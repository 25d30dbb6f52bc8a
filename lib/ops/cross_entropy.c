#include "cross_entropy.h"

#include "common/push_cross_entropy.h"
#include "elem_util.h"
#include "index_check.h"

/* Workgroup width of the row kernel: about V / 4 (each invocation takes
 * ~4 logits per pass), a power of two in [32, 256]. A narrow row with a
 * wide workgroup mostly idles and pays for every level of its reduction
 * trees; on lavapipe, which runs a workgroup's invocations in SIMD batches
 * between barriers, V = 256 takes ~4x less time at width 64 than at 256. */
static uint32_t row_width(uint64_t V)
{
    uint32_t wg = 32;
    while (wg < 256 && wg * 4 < V)
        wg *= 2;
    return wg;
}

/* The step a batch belongs to: its own rows, or a->step's. */
static void step_of(const svk_cross_entropy_args *a, uint64_t *rows, svk_tref *targets, svk_tref *losses, bool *count,
                    bool *mean)
{
    if (a->step.rows == 0) {
        *rows = a->rows, *targets = a->targets, *losses = a->losses, *count = *mean = true;
        return;
    }
    *rows = a->step.rows, *targets = a->step.targets, *losses = a->step.losses;
    *count = a->step.count, *mean = a->step.mean;
}

/* The row kernel: portable, one workgroup per row; CPU (svk_op_variant),
 * one invocation per row, shaders/cross_entropy_cpu.comp, 4 logits at a
 * time when V and the offsets allow. */
static svk_status record_rows(svk_cmdlist *cl, svk_ctx *ctx, const char *op, const svk_cross_entropy_args *a,
                              const svk_push_cross_entropy *push, const svk_range rows_b[5])
{
    svk_kernel_variant var;
    svk_status st = svk_op_variant(ctx, op, &var);
    if (st != SVK_OK)
        return st;
    uint32_t spec[4] = {row_width(a->V), 1, 1, 0};
    svk_kernel_id k = SVK_KERNEL_CROSS_ENTROPY;
    uint64_t groups = a->rows;
    /* The CPU form loops over a row 3 times, or once (zeroing dlogits) for a
     * row that does not count, and a SIMD batch may hold both kinds. */
    const uint64_t offs[] = {push->off_logits, push->off_dlogits};
    const bool vec4 = svk_op_vec4(a->V, offs, 2);
    if (var == SVK_KERNEL_VARIANT_CPU && 4 * svk_div_up(a->V, vec4 ? 4 : 1) <= SVK_OP_CPU_LOOP_BUDGET) {
        k = SVK_KERNEL_CROSS_ENTROPY_CPU;
        spec[0] = svk_op_cpu_group(ctx);
        spec[3] = vec4 ? 1u : 0u;
        groups = svk_div_up(a->rows, spec[0]);
    }
    return svk_elem_dispatch_spec(cl, ctx, op, k, spec, groups, 1, rows_b, 5, push, sizeof(*push), a->label);
}

/* The step's mean loss from all its rows' losses. */
static svk_status record_mean(svk_cmdlist *cl, svk_ctx *ctx, const char *op, const svk_cross_entropy_args *a,
                              svk_push_cross_entropy push, uint64_t step_rows, svk_tref step_losses,
                              const svk_range bound[5])
{
    enum { COUNTS = 3, LOSS = 4 };
    svk_range losses;
    svk_status st = svk_op_bind(ctx, op, "step losses", step_losses, step_rows, &losses);
    if (st != SVK_OK)
        return st;
    push.rows = (uint32_t)step_rows;
    push.off_losses = svk_elem_off(step_losses);
    const svk_range loss_b[3] = {losses, bound[COUNTS], bound[LOSS]};
    return svk_elem_dispatch(cl, ctx, op, SVK_KERNEL_CROSS_ENTROPY_LOSS, 1, 1, loss_b, 3, &push, sizeof(push),
                             a->label);
}

svk_status svk_cross_entropy_record(svk_cmdlist *cl, const svk_cross_entropy_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->logits.buf);
    svk_ctx *ctx = a->logits.buf->ctx;
    char op[128];
    svk_elem_opname(op, "cross_entropy", a->label);
    uint64_t step_rows;
    svk_tref step_targets, step_losses;
    bool count, mean;
    step_of(a, &step_rows, &step_targets, &step_losses, &count, &mean);
    /* The shaders' strided loops over V and rows must not wrap 32 bits. */
    if (a->rows == 0 || a->V == 0 || a->rows >= (1ull << 31) || a->V >= (1ull << 31) || step_rows < a->rows ||
        step_rows >= (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: rows=%llu V=%llu step rows=%llu, each must be in 1..2^31-1 (step rows >= rows)", op,
                         (unsigned long long)a->rows, (unsigned long long)a->V, (unsigned long long)step_rows);
    if (a->V > UINT32_MAX / a->rows)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: logits of %llu x %llu span 2^32 elements", op,
                         (unsigned long long)a->rows, (unsigned long long)a->V);
    const uint64_t n = a->rows * a->V;
    const svk_op_operand operands[] = {
        {"logits", a->logits, n}, {"targets", a->targets, a->rows}, {"losses", a->losses, a->rows},
        {"counts", a->counts, 2}, {"loss", a->loss, 1},
    };
    enum { LOGITS, TARGETS, LOSSES, COUNTS, LOSS };
    svk_range bound[5], dlogits;
    svk_status st = svk_op_bind_all(ctx, op, operands, 5, bound);
    if (st != SVK_OK)
        return st;
    if (a->dlogits.buf) {
        if ((st = svk_op_bind(ctx, op, "dlogits", a->dlogits, n, &dlogits)) != SVK_OK)
            return st;
        if (a->dlogits.buf == a->logits.buf && a->dlogits.off != a->logits.off &&
            a->dlogits.off < a->logits.off + n && a->logits.off < a->dlogits.off + n)
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                             "%s: dlogits (element %llu) overlaps logits (element %llu) without being it", op,
                             (unsigned long long)a->dlogits.off, (unsigned long long)a->logits.off);
    } else {
        dlogits = bound[LOSSES]; /* never written without FLAG_DLOGITS; losses, written anyway, stands in */
    }
    if (count) {
        const svk_index_check_args ic = {
            .n = step_rows, .V = a->V, .idx = step_targets, .counts = a->counts,
            .has_ignore = true, .ignore = -1, .label = a->label,
        };
        if ((st = svk_index_check_record(cl, &ic)) != SVK_OK)
            return st;
    }
    const svk_push_cross_entropy push = {
        .rows = (uint32_t)a->rows, .V = (uint32_t)a->V, .off_logits = svk_elem_off(a->logits),
        .off_targets = svk_elem_off(a->targets), .off_dlogits = a->dlogits.buf ? svk_elem_off(a->dlogits) : 0u,
        .off_losses = svk_elem_off(a->losses), .off_counts = svk_elem_off(a->counts),
        .off_loss = svk_elem_off(a->loss), .flags = a->dlogits.buf ? SVK_CROSS_ENTROPY_FLAG_DLOGITS : 0u,
    };
    const svk_range rows_b[5] = {bound[LOGITS], bound[TARGETS], bound[COUNTS], dlogits, bound[LOSSES]};
    if ((st = record_rows(cl, ctx, op, a, &push, rows_b)) != SVK_OK || !mean)
        return st;
    return record_mean(cl, ctx, op, a, push, step_rows, step_losses, bound);
}
