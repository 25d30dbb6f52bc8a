/*
 * LayerNorm and RMSNorm (layernorm.h, rmsnorm.h): one recording for both.
 * RMSNorm is LayerNorm without the bias b and the mean (no b, mean, db
 * operands, one block of partials rather than two) and with its own
 * kernels, the SVK_RMSNORM forms of shaders/norm_fwd.comp, norm_bwd.comp.
 */
#include "layernorm.h"
#include "rmsnorm.h"

#include "common/push_norm_bwd.h"
#include "common/push_norm_fwd.h"
#include "core/error.h"
#include "norm_param_reduce.h"

/* b, mean (forward) and mean, db (backward) are {0} for RMSNorm. */
typedef struct fwd_job {
    bool rms;
    uint32_t rows, width;
    float eps;
    svk_tref x, g, b, out, mean, rstd;
} fwd_job;

typedef struct bwd_job {
    bool rms;
    uint32_t rows, width;
    svk_tref dout, x, mean, rstd, g, dx, dg, db, scratch;
} bwd_job;

static svk_status record_fwd(svk_cmdlist *cl, const char *label, const char *dflt, const fwd_job *j)
{
    const char *op;
    svk_ctx *ctx;
    svk_status st;
    if ((st = svk_norm_begin(label, dflt, "x", j->x, &op, &ctx)) != SVK_OK ||
        (st = svk_norm_check_rows(ctx, op, j->rows, "width", j->width)) != SVK_OK ||
        (st = svk_norm_check_eps(ctx, op, j->eps)) != SVK_OK)
        return st;
    const bool ln = !j->rms;
    uint64_t n = (uint64_t)j->rows * j->width;
    svk_range rx, rg, rb = {0}, ro, rm = {0}, rr = {0};
    if ((st = svk_op_bind(ctx, op, "x", j->x, n, &rx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", j->g, j->width, &rg)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "b", j->b, j->width, &rb)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "out", j->out, n, &ro)) != SVK_OK ||
        (j->mean.buf && (st = svk_op_bind(ctx, op, "mean", j->mean, j->rows, &rm)) != SVK_OK) ||
        (j->rstd.buf && (st = svk_op_bind(ctx, op, "rstd", j->rstd, j->rows, &rr)) != SVK_OK))
        return st;
    const svk_norm_operand ops[] = {
        {"x", rx, false, 0}, {"g", rg, false, 0}, {"b", rb, false, 0},
        {"out", ro, true, 1u << 0}, {"mean", rm, true, 0}, {"rstd", rr, true, 0},
    };
    if ((st = svk_norm_check_operands(ctx, op, ops, 6)) != SVK_OK)
        return st;

    svk_push_norm_fwd push = {
        .rows = j->rows,
        .width = j->width,
        .off_x = (uint32_t)j->x.off,
        .off_g = (uint32_t)j->g.off,
        .off_b = (uint32_t)j->b.off,
        .off_out = (uint32_t)j->out.off,
        .off_mean = j->mean.buf ? (uint32_t)j->mean.off : 0u,
        .off_rstd = j->rstd.buf ? (uint32_t)j->rstd.off : 0u,
        .flags = (j->mean.buf ? SVK_NORM_FLAG_SAVE_MEAN : 0u) | (j->rstd.buf ? SVK_NORM_FLAG_SAVE_RSTD : 0u),
        .eps = j->eps,
    };
    /* Bindings x, g, [b,] out, [mean,] rstd. An absent statistic is never
     * written; out, which is, stands in. */
    svk_range bind[6];
    uint32_t nb = 0;
    bind[nb++] = rx;
    bind[nb++] = rg;
    if (ln)
        bind[nb++] = rb;
    bind[nb++] = ro;
    if (ln)
        bind[nb++] = j->mean.buf ? rm : ro;
    bind[nb++] = j->rstd.buf ? rr : ro;
    /* RMSNorm's absent b contributes offset 0. */
    const uint64_t offs[] = {j->x.off, j->g.off, j->b.off, j->out.off};
    const svk_norm_cpu_form form = {svk_op_vec4(j->width, offs, 4), ln ? 3u : 2u, 1, SVK_ROW_CPU_ROWS, push.flags};
    return svk_norm_row_dispatch(cl, ctx, ln ? SVK_KERNEL_LAYERNORM_FWD : SVK_KERNEL_RMSNORM_FWD, j->width, j->rows,
                                 form, bind, nb, &push, sizeof(push), op);
}

/* Blocks of partials per lane: dg, and db for LayerNorm. */
static uint64_t bwd_blocks(bool rms)
{
    return rms ? 1 : 2;
}

static uint64_t bwd_scratch_elems(bool rms, uint32_t rows, uint32_t width)
{
    return bwd_blocks(rms) * svk_norm_lanes_for(rows ? rows : 1).n_part * width;
}

static svk_status record_bwd(svk_cmdlist *cl, const char *label, const char *dflt, const bwd_job *j)
{
    const char *op;
    svk_ctx *ctx;
    svk_status st;
    if ((st = svk_norm_begin(label, dflt, "x", j->x, &op, &ctx)) != SVK_OK ||
        (st = svk_norm_check_rows(ctx, op, j->rows, "width", j->width)) != SVK_OK)
        return st;
    const bool ln = !j->rms;
    uint64_t n = (uint64_t)j->rows * j->width;
    svk_norm_lanes lanes = svk_norm_lanes_for(j->rows);
    uint64_t part_n = (uint64_t)lanes.n_part * j->width;
    svk_range rdo, rx, rm = {0}, rr, rg, rdx, rdg, rdb = {0}, rs;
    if ((st = svk_op_bind(ctx, op, "dout", j->dout, n, &rdo)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "x", j->x, n, &rx)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "mean", j->mean, j->rows, &rm)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "rstd", j->rstd, j->rows, &rr)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", j->g, j->width, &rg)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dx", j->dx, n, &rdx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dg", j->dg, j->width, &rdg)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "db", j->db, j->width, &rdb)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "scratch", j->scratch, bwd_blocks(j->rms) * part_n, &rs)) != SVK_OK)
        return st;
    const svk_norm_operand ops[] = {
        {"dout", rdo, false, 0}, {"x", rx, false, 0}, {"mean", rm, false, 0}, {"rstd", rr, false, 0},
        {"g", rg, false, 0}, {"dx", rdx, true, (1u << 0) | (1u << 1)}, {"dg", rdg, true, 0},
        {"db", rdb, true, 0}, {"scratch", rs, true, 0},
    };
    if ((st = svk_norm_check_operands(ctx, op, ops, 9)) != SVK_OK)
        return st;

    svk_push_norm_bwd push = {
        .rows = j->rows,
        .width = j->width,
        .rows_per_part = lanes.rows_per_part,
        .n_part = lanes.n_part,
        .off_dout = (uint32_t)j->dout.off,
        .off_add = 0,
        .off_x = (uint32_t)j->x.off,
        .off_mean = (uint32_t)j->mean.off,
        .off_rstd = (uint32_t)j->rstd.off,
        .off_g = (uint32_t)j->g.off,
        .off_dx = (uint32_t)j->dx.off,
        .off_part = (uint32_t)j->scratch.off,
        .part_b = ln ? (uint32_t)part_n : 0u,
        .flags = 0,
    };
    /* Bindings dout, add, x, [mean,] rstd, g, dx, partials. No add operand:
     * dout stands in for it (never read). */
    svk_range bind[8];
    uint32_t nb = 0;
    bind[nb++] = rdo;
    bind[nb++] = rdo;
    bind[nb++] = rx;
    if (ln)
        bind[nb++] = rm;
    bind[nb++] = rr;
    bind[nb++] = rg;
    bind[nb++] = rdx;
    bind[nb++] = rs;
    const uint64_t offs[] = {j->dout.off, j->x.off, j->g.off, j->dx.off, j->scratch.off};
    const svk_norm_cpu_form form = {svk_op_vec4(j->width, offs, 5), 2, lanes.rows_per_part, 1, push.flags};
    if ((st = svk_norm_row_dispatch(cl, ctx, ln ? SVK_KERNEL_LAYERNORM_BWD : SVK_KERNEL_RMSNORM_BWD, j->width,
                                    lanes.n_part, form, bind, nb, &push, sizeof(push), op)) != SVK_OK)
        return st;
    svk_norm_param_reduce_args ra = {
        .C = j->width, .n_norms = 1, .n_part = lanes.n_part, .blocks_per_norm = (uint32_t)bwd_blocks(j->rms),
        .part = j->scratch, .dg = j->dg, .db = j->db, .label = op,
    };
    return svk_norm_param_reduce_record(cl, &ra);
}

svk_status svk_layernorm_fwd_record(svk_cmdlist *cl, const svk_layernorm_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const fwd_job j = {false, a->rows, a->width, a->eps, a->x, a->g, a->b, a->out, a->mean, a->rstd};
    return record_fwd(cl, a->label, "layernorm_fwd", &j);
}

svk_status svk_rmsnorm_fwd_record(svk_cmdlist *cl, const svk_rmsnorm_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const fwd_job j = {true, a->rows, a->width, a->eps, a->x, a->g, {0}, a->out, {0}, a->rstd};
    return record_fwd(cl, a->label, "rmsnorm_fwd", &j);
}

uint64_t svk_layernorm_bwd_scratch_elems(uint32_t rows, uint32_t width)
{
    return bwd_scratch_elems(false, rows, width);
}

uint64_t svk_rmsnorm_bwd_scratch_elems(uint32_t rows, uint32_t width)
{
    return bwd_scratch_elems(true, rows, width);
}

svk_status svk_layernorm_bwd_record(svk_cmdlist *cl, const svk_layernorm_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const bwd_job j = {false, a->rows, a->width, a->dout, a->x, a->mean, a->rstd, a->g, a->dx, a->dg, a->db,
                       a->scratch};
    return record_bwd(cl, a->label, "layernorm_bwd", &j);
}

svk_status svk_rmsnorm_bwd_record(svk_cmdlist *cl, const svk_rmsnorm_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    const bwd_job j = {true, a->rows, a->width, a->dout, a->x, {0}, a->rstd, a->g, a->dx, a->dg, {0}, a->scratch};
    return record_bwd(cl, a->label, "rmsnorm_bwd", &j);
}
