#include "embedding.h"

#include "common/push_embedding.h"
#include "elem_util.h"
#include "index_check.h"

/* What both directions begin with: the context (tokens'), the op name
 * (kernel and label) and the shape checks. */
static svk_status begin(svk_tref tokens, const char *kernel, const char *label, uint64_t B, uint64_t T, uint64_t C,
                        uint64_t V, svk_ctx **out_ctx, char op[128])
{
    svk_ctx *ctx = *out_ctx = tokens.buf->ctx;
    svk_elem_opname(op, kernel, label);
    if (!B || !T || !C || !V)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape B=%llu T=%llu C=%llu V=%llu", op,
                         (unsigned long long)B, (unsigned long long)T, (unsigned long long)C,
                         (unsigned long long)V);
    if (V > (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: V=%llu exceeds the int32 token range", op,
                         (unsigned long long)V);
    if (T > UINT32_MAX / B || C > UINT32_MAX / (B * T) || C > UINT32_MAX / V)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: B=%llu T=%llu C=%llu V=%llu spans 2^32 elements", op,
                         (unsigned long long)B, (unsigned long long)T, (unsigned long long)C,
                         (unsigned long long)V);
    return SVK_OK;
}

/* The table's rows of a call: rows [row0, row0 + rows) of V, or all. */
static svk_status table_rows(svk_ctx *ctx, const char *op, uint64_t V, uint64_t row0, uint64_t rows, uint64_t *out)
{
    if (!rows) {
        if (row0)
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: row0=%llu without rows", op,
                             (unsigned long long)row0);
        *out = V;
        return SVK_OK;
    }
    if (row0 >= V || rows > V - row0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: table rows [%llu, +%llu) outside V=%llu", op,
                         (unsigned long long)row0, (unsigned long long)rows, (unsigned long long)V);
    *out = rows;
    return SVK_OK;
}

static svk_status count_tokens(svk_cmdlist *cl, uint64_t n, uint64_t V, svk_tref tokens, svk_tref counts,
                               const char *label)
{
    svk_index_check_args ic = {.n = n, .V = V, .idx = tokens, .counts = counts, .label = label};
    return svk_index_check_record(cl, &ic);
}

svk_status svk_embedding_fwd_record(svk_cmdlist *cl, const svk_embedding_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->tokens.buf);
    svk_ctx *ctx;
    char op[128];
    svk_status st = begin(a->tokens, "embedding_fwd", a->label, a->B, a->T, a->C, a->V, &ctx, op);
    if (st != SVK_OK)
        return st;
    const uint64_t rows = a->B * a->T, n = rows * a->C;
    uint64_t table;
    if ((st = table_rows(ctx, op, a->V, a->row0, a->rows, &table)) != SVK_OK)
        return st;
    svk_range r[4];
    if ((st = svk_op_bind(ctx, op, "tokens", a->tokens, rows, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "wte", a->wte, table * a->C, &r[1])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, n, &r[3])) != SVK_OK)
        return st;
    if (a->wpe.buf) {
        if ((st = svk_op_bind(ctx, op, "wpe", a->wpe, a->T * a->C, &r[2])) != SVK_OK)
            return st;
    } else {
        r[2] = r[1]; /* never read without FLAG_WPE; wte stands in */
    }
    if (a->counts.buf && (st = count_tokens(cl, rows, a->V, a->tokens, a->counts, a->label)) != SVK_OK)
        return st;
    svk_push_embedding push = {
        .B = (uint32_t)a->B,
        .T = (uint32_t)a->T,
        .C = (uint32_t)a->C,
        .V = (uint32_t)table,
        .off_tokens = svk_elem_off(a->tokens),
        .off_table = svk_elem_off(a->wte),
        .off_wpe = a->wpe.buf ? svk_elem_off(a->wpe) : 0u,
        .off_act = svk_elem_off(a->out),
        .flags = (a->wpe.buf ? SVK_EMBEDDING_FLAG_WPE : 0u) | (a->rows ? SVK_EMBEDDING_FLAG_PART : 0u),
        .row0 = (uint32_t)a->row0,
    };
    /* Four columns per invocation where C and every offset are multiples of
     * 4 (C among the "offsets": a vec4 must not span two rows). */
    const uint64_t offs[] = {a->C, a->wte.off, a->wpe.buf ? a->wpe.off : 0, a->out.off};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_EMBEDDING_FWD, n, offs, 4, r, 4, &push, sizeof(push),
                                     a->label);
}

/* Vocabulary slices of the dwte pass (grid y). Every slice scans all the
 * tokens, so slices buy parallelism beyond the C / 64 column groups at the
 * price of repeated scans: worth it on a GPU (about 64 workgroups, a
 * uniform shared-memory broadcast per token), not on a CPU device, where
 * the column groups already cover the few cores and the repeated scans cost
 * far more than they spread (measured on lavapipe). Never more slices than
 * vocabulary rows. */
static uint32_t wte_slices(const svk_ctx *ctx, uint64_t col_groups, uint64_t V)
{
    uint64_t s = ctx->profile.cpu || col_groups >= 64 ? 1 : 64 / col_groups;
    return (uint32_t)(s < V ? s : V);
}

/* Whether the backward records its CPU form (embedding_bwd_cpu.comp):
 * the CPU variant, the device's choice of slices (forced slices are the
 * portable form's), four columns per vec4 in every operand, and B*T
 * positions within one loop's budget (SVK_OP_CPU_LOOP_BUDGET). */
static bool bwd_cpu_form(const svk_embedding_bwd_args *a, uint32_t slices, svk_kernel_variant var)
{
    if (slices || var != SVK_KERNEL_VARIANT_CPU)
        return false;
    const uint64_t offs[] = {a->dout.off, a->dwte.off, a->dwpe.buf ? a->dwpe.off : 0};
    return svk_op_vec4(a->C, offs, 3) && a->B * a->T <= SVK_OP_CPU_LOOP_BUDGET;
}

svk_status svk_embedding_bwd_record(svk_cmdlist *cl, const svk_embedding_bwd_args *a)
{
    return svk_embedding_bwd_record_sliced(cl, a, 0);
}

svk_status svk_embedding_bwd_record_sliced(svk_cmdlist *cl, const svk_embedding_bwd_args *a, uint32_t slices)
{
    SVK_CHECK_ARG(NULL, cl && a && a->tokens.buf);
    svk_ctx *ctx;
    char op[128];
    svk_status st = begin(a->tokens, "embedding_bwd", a->label, a->B, a->T, a->C, a->V, &ctx, op);
    if (st != SVK_OK)
        return st;
    const uint64_t rows = a->B * a->T, n = rows * a->C;
    uint64_t table;
    if ((st = table_rows(ctx, op, a->V, a->row0, a->rows, &table)) != SVK_OK)
        return st;
    svk_range tok, dout, dwte, dwpe = {0};
    if ((st = svk_op_bind(ctx, op, "tokens", a->tokens, rows, &tok)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dout", a->dout, n, &dout)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dwte", a->dwte, table * a->C, &dwte)) != SVK_OK ||
        (a->dwpe.buf && (st = svk_op_bind(ctx, op, "dwpe", a->dwpe, a->T * a->C, &dwpe)) != SVK_OK))
        return st;
    if (slices > table)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: slices=%u exceeds the table's %llu rows", op, slices,
                         (unsigned long long)table);
    if (a->counts.buf && (st = count_tokens(cl, rows, a->V, a->tokens, a->counts, a->label)) != SVK_OK)
        return st;

    svk_kernel_variant var;
    if ((st = svk_op_variant(ctx, op, &var)) != SVK_OK)
        return st;
    const bool cpu = bwd_cpu_form(a, slices, var);
    const svk_kernel_id k = cpu ? SVK_KERNEL_EMBEDDING_BWD_CPU : SVK_KERNEL_EMBEDDING_BWD;
    const uint64_t per = cpu ? 4 : 1; /* columns per invocation */
    svk_push_embedding push = {
        .B = (uint32_t)a->B,
        .T = (uint32_t)a->T,
        .C = (uint32_t)a->C,
        .V = (uint32_t)table,
        .off_tokens = svk_elem_off(a->tokens),
        .off_table = svk_elem_off(a->dwte),
        .off_act = svk_elem_off(a->dout),
        .flags = 0,
        .row0 = (uint32_t)a->row0,
    };
    if (cpu) {
        /* dwte: four columns of every row per invocation. */
        const svk_range rt[3] = {tok, dout, dwte};
        st = svk_elem_dispatch_1d(cl, ctx, op, k, a->C / 4, rt, 3, &push, sizeof(push), a->label);
    } else {
        const uint64_t col_groups = svk_div_up(a->C, svk_elem_wg(k));
        if (col_groups > UINT32_MAX)
            return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: C=%llu", op, (unsigned long long)a->C);
        push.slices = slices ? slices : wte_slices(ctx, col_groups, table);
        /* dwte: column groups in x, vocabulary slices in y (no grid
         * spreading: both are small, and the dispatch check reports a
         * device limit). */
        svk_dispatch d = {
            .kernel = k,
            .bindings = {tok, dout, dwte},
            .n_bindings = 3,
            .push = &push,
            .push_size = sizeof(push),
            .groups = {(uint32_t)col_groups, push.slices, 1},
            .label = a->label ? a->label : "embedding_bwd",
        };
        st = svk_cmdlist_dispatch(cl, &d);
    }
    if (st != SVK_OK || !a->dwpe.buf)
        return st;
    /* dwpe: one invocation per element of [T, C] (per four, CPU form). */
    push.off_table = svk_elem_off(a->dwpe);
    push.slices = 0;
    push.flags = SVK_EMBEDDING_FLAG_POS;
    push.V = (uint32_t)a->V; /* every valid token's position counts */
    push.row0 = 0;
    const svk_range rp[3] = {tok, dout, dwpe};
    return svk_elem_dispatch_1d(cl, ctx, op, k, a->T * a->C / per, rp, 3, &push, sizeof(push), a->label);
}
