#include "siamese_norm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/push_norm_bwd.h"
#include "common/push_siamese_norm_bwd.h"
#include "common/push_siamese_norm_bwd_fused.h"
#include "common/push_siamese_norm_fwd.h"
#include "norm_param_reduce.h"
#include "residual.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

/* The block input and the model output are the same computation: the model
 * output is the block input without xn (N_x, N_y, N_out in the roles of
 * P, Q, I) and, backwards, without dxn and dy_in. */
typedef struct fwd_job {
    svk_norm_kind kind;
    uint32_t rows, C;
    float eps;
    svk_tref x, y, g, b, xn, h, mean, rstd; /* xn.buf NULL: not written */
    const char *h_name;
} fwd_job;

typedef struct bwd_job {
    svk_norm_kind kind;
    uint32_t rows, C;
    svk_tref dh, dxn, dy_in, x, y, mean, rstd, g, b, dx, dy, dg, db, scratch; /* dxn, dy_in may be absent */
    svk_tref dz;  /* may be absent */
    float dz_c;
    const char *dh_name;
} bwd_job;

static svk_status check_shape(svk_ctx *ctx, const char *op, svk_norm_kind kind, uint32_t rows, uint32_t C)
{
    if (kind != SVK_NORM_LAYERNORM && kind != SVK_NORM_RMSNORM)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: kind=%d is neither layernorm nor rmsnorm", op,
                         (int)kind);
    return svk_norm_check_rows(ctx, op, rows, "C", C);
}

/* need_xn: xn must have a buffer (the block input's forward pass). */
static svk_status record_fwd(svk_cmdlist *cl, const char *label, const char *dflt, bool need_xn, const fwd_job *j)
{
    const char *op;
    svk_ctx *ctx;
    svk_status st = svk_norm_begin(label, dflt, "x", j->x, &op, &ctx);
    if (st != SVK_OK)
        return st;
    if (need_xn && !j->xn.buf)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: operand xn has no buffer", op);
    if ((st = check_shape(ctx, op, j->kind, j->rows, j->C)) != SVK_OK)
        return st;
    if ((st = svk_norm_check_eps(ctx, op, j->eps)) != SVK_OK)
        return st;
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    uint64_t n = (uint64_t)j->rows * j->C, RM = SVK_SIAMESE_MEAN_ROWS * (uint64_t)j->rows;
    svk_range rx, ry, rg, rb = {0}, rxn = {0}, rh, rm = {0}, rr;
    if ((st = svk_op_bind(ctx, op, "x", j->x, n, &rx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "y", j->y, n, &ry)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", j->g, 3 * (uint64_t)j->C, &rg)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "b", j->b, 3 * (uint64_t)j->C, &rb)) != SVK_OK) ||
        (j->xn.buf && (st = svk_op_bind(ctx, op, "xn", j->xn, n, &rxn)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, j->h_name, j->h, n, &rh)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "mean", j->mean, RM, &rm)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "rstd", j->rstd, 3 * (uint64_t)j->rows, &rr)) != SVK_OK)
        return st;
    /* The kernel reads row element 0 of x and y after other invocations may
     * have written theirs: no in-place use. */
    const svk_norm_operand ops[] = {
        {"x", rx, false, 0}, {"y", ry, false, 0}, {"g", rg, false, 0}, {"b", rb, false, 0},
        {"xn", rxn, true, 0}, {j->h_name, rh, true, 0}, {"mean", rm, true, 0}, {"rstd", rr, true, 0},
    };
    if ((st = svk_norm_check_operands(ctx, op, ops, 8)) != SVK_OK)
        return st;

    svk_push_siamese_norm_fwd push = {
        .rows = j->rows,
        .C = j->C,
        .off_x = (uint32_t)j->x.off,
        .off_y = (uint32_t)j->y.off,
        .off_g = (uint32_t)j->g.off,
        .off_b = ln ? (uint32_t)j->b.off : 0u,
        .off_xn = j->xn.buf ? (uint32_t)j->xn.off : 0u,
        .off_h = (uint32_t)j->h.off,
        .off_mean = ln ? (uint32_t)j->mean.off : 0u,
        .off_rstd = (uint32_t)j->rstd.off,
        .flags = (ln ? 0u : SVK_SIAMESE_FLAG_RMS) | (j->xn.buf ? SVK_SIAMESE_FLAG_XN : 0u),
        .eps = j->eps,
    };
    /* Stand-ins for what the kernel does not touch: g for b (read), h for
     * xn and rstd for mean (written anyway). */
    const svk_range bind[] = {rx, ry, rg, ln ? rb : rg, j->xn.buf ? rxn : rh, rh, ln ? rm : rr, rr};
    /* Absent operands (b, xn) contribute offset 0. */
    const uint64_t offs[] = {j->x.off, j->y.off, j->g.off, ln ? j->b.off : 0, j->xn.buf ? j->xn.off : 0, j->h.off};
    const svk_norm_cpu_form form = {svk_op_vec4(j->C, offs, 6), ln ? 5u : 3u, 1, SVK_ROW_CPU_ROWS, push.flags};
    return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_SIAMESE_NORM_FWD, j->C, j->rows, form, bind, 8, &push,
                                 sizeof(push), op);
}

uint64_t svk_siamese_norm_bwd_scratch_elems(svk_norm_kind kind, uint32_t rows, uint32_t C)
{
    uint64_t bpn = kind == SVK_NORM_RMSNORM ? 1 : 2;
    uint64_t n_part = svk_norm_lanes_for(rows ? rows : 1).n_part;
    return (uint64_t)rows * C + 3 * bpn * n_part * C;
}

/* Q's (k = 1) or P's (k = 0) backward: a layernorm_bwd / rmsnorm_bwd
 * dispatch reading du from scratch. add: dy_in (ADD_DX, Q) or dxn
 * (ADD_DOUT, P), or absent. */
static svk_status record_branch(svk_cmdlist *cl, svk_ctx *ctx, const char *op, const bwd_job *j,
                                svk_norm_lanes lanes, uint32_t k, svk_tref add, svk_range radd, svk_tref in,
                                svk_range rin, svk_tref out, svk_range rout)
{
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    uint64_t n = (uint64_t)j->rows * j->C, blk = (uint64_t)lanes.n_part * j->C, bpn = ln ? 2 : 1;
    svk_buffer *sb = j->scratch.buf;
    uint64_t s0 = j->scratch.off;
    uint64_t part = s0 + n + k * bpn * blk;
    /* du and the partials are disjoint parts of the scratch buffer, and the
     * P and Q stages touch disjoint partials, so they need no barrier between
     * them; but a descriptor spans the whole buffer (lib/vk/cmd.c), and
     * synchronisation validation, which cannot know which bytes a shader
     * touches, takes the Q stage's partial writes as a hazard for the P
     * stage's read of du. Declaring the whole scratch range for both makes
     * the list record the barrier validation expects. */
    svk_range rdu = {sb, s0 * 4, svk_siamese_norm_bwd_scratch_elems(j->kind, j->rows, j->C) * 4};
    svk_range rpart = rdu;
    svk_range rm = ln ? (svk_range){j->mean.buf, (j->mean.off + k * j->rows) * 4, (uint64_t)j->rows * 4} : rdu;
    svk_range rr = {j->rstd.buf, (j->rstd.off + k * j->rows) * 4, (uint64_t)j->rows * 4};
    svk_range rg = {j->g.buf, (j->g.off + k * j->C) * 4, (uint64_t)j->C * 4};
    uint32_t flags = 0;
    if (add.buf)
        flags = k == 1 ? SVK_NORM_FLAG_ADD_DX : SVK_NORM_FLAG_ADD_DOUT;
    svk_push_norm_bwd push = {
        .rows = j->rows,
        .width = j->C,
        .rows_per_part = lanes.rows_per_part,
        .n_part = lanes.n_part,
        .off_dout = (uint32_t)s0,
        .off_add = add.buf ? (uint32_t)add.off : 0u,
        .off_x = (uint32_t)in.off,
        .off_mean = ln ? (uint32_t)(j->mean.off + k * j->rows) : 0u,
        .off_rstd = (uint32_t)(j->rstd.off + k * j->rows),
        .off_g = (uint32_t)(j->g.off + k * j->C),
        .off_dx = (uint32_t)out.off,
        .off_part = (uint32_t)part,
        .part_b = (uint32_t)blk,
        .flags = flags,
    };
    /* Without add, the input stands in for it (never read). */
    svk_range ra = add.buf ? radd : rin;
    const uint64_t offs[] = {s0, add.buf ? add.off : 0, in.off, j->g.off, out.off};
    const svk_norm_cpu_form form = {svk_op_vec4(j->C, offs, 5), 2, lanes.rows_per_part, 1, push.flags};
    if (ln) {
        const svk_range bind[] = {rdu, ra, rin, rm, rr, rg, rout, rpart};
        return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_LAYERNORM_BWD, j->C, lanes.n_part, form, bind, 8, &push,
                                     sizeof(push), op);
    }
    const svk_range bind[] = {rdu, ra, rin, rr, rg, rout, rpart};
    return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_RMSNORM_BWD, j->C, lanes.n_part, form, bind, 7, &push,
                                 sizeof(push), op);
}

/* The bindings the fused backward takes (shaders/siamese_norm_bwd_fused.comp and
 * siamese_norm_bwd_fused_cpu.comp). */
#define FUSED_BINDINGS 13u

/* Whether the backward records a fused form, one dispatch: where the
 * policy allows it (svk_op_fused_siamese_bwd_allowed: the device binds 13
 * storage buffers and the tuning leaves fused_siamese_bwd on) and, for the
 * CPU form, its loops fit the budget. *form: the CPU form's shape (its
 * flags serve both). */
static bool fused_chosen(const svk_ctx *ctx, svk_kernel_variant var, const bwd_job *j, svk_norm_lanes lanes,
                         svk_norm_cpu_form *form)
{
    if (!svk_op_fused_siamese_bwd_allowed(ctx))
        return false;
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    const uint64_t n = (uint64_t)j->rows * j->C;
    const uint32_t flags = (ln ? 0u : SVK_SIAMESE_FLAG_RMS) | (j->dxn.buf ? SVK_SIAMESE_FLAG_ADD_DXN : 0u) |
                           (j->dy_in.buf ? SVK_SIAMESE_FLAG_ADD_DY : 0u) | (j->dz.buf ? SVK_SIAMESE_FLAG_DZ : 0u);
    const uint64_t offs[] = {j->dh.off, j->dxn.buf ? j->dxn.off : 0, j->dy_in.buf ? j->dy_in.off : 0, j->x.off,
                             j->y.off, j->g.off, ln ? j->b.off : 0, j->dx.off, j->dy.off, j->scratch.off + n,
                             j->dz.buf ? j->dz.off : 0};
    *form = (svk_norm_cpu_form){svk_op_vec4(j->C, offs, 11), 2u, lanes.rows_per_part, 1, flags};
    return var != SVK_KERNEL_VARIANT_CPU || svk_norm_cpu_fits(j->C, *form);
}

/* The fused CPU form's lanes: svk_norm_lanes_for's, with a lane's rows
 * rounded up to a multiple of two row groups where it has a group or more
 * (rows >= 769): its second pass takes two groups at a time and reads and
 * writes each partial once for both (siamese_norm_bwd_fused_cpu.comp).
 * Fewer lanes than svk_norm_lanes_for's, so the scratch sized by that
 * holds their partials. A function of rows alone, as that is. */
static svk_norm_lanes fused_cpu_lanes(uint32_t rows)
{
    svk_norm_lanes l = svk_norm_lanes_for(rows);
    const uint32_t two = 2 * SVK_ROW_CPU_ROWS;
    if (l.rows_per_part >= SVK_ROW_CPU_ROWS) {
        l.rows_per_part = (uint32_t)svk_div_up(l.rows_per_part, two) * two;
        l.n_part = (uint32_t)svk_div_up(rows, l.rows_per_part);
    }
    return l;
}

/* The fused form fused_chosen() picked: the CPU form
 * (siamese_norm_bwd_fused_cpu.comp or its texel form) for the CPU
 * variant, else the portable one (siamese_norm_bwd_fused.comp). Operands
 * as record_bwd has bound and checked them. */
static svk_status record_fused(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_variant var,
                               const bwd_job *j, svk_norm_lanes lanes, svk_norm_cpu_form form,
                               const svk_range r[FUSED_BINDINGS])
{
    enum { DH, DXN, DYI, X, Y, G, B, MEAN, RSTD, DX, DY, SCRATCH, DZ };
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    uint64_t n = (uint64_t)j->rows * j->C, blk = (uint64_t)lanes.n_part * j->C, bpn = ln ? 2 : 1;
    svk_push_siamese_norm_bwd_fused push = {
        .rows = j->rows,
        .C = j->C,
        .rows_per_part = lanes.rows_per_part,
        .n_part = lanes.n_part,
        .off_dh = (uint32_t)j->dh.off,
        .off_dxn = j->dxn.buf ? (uint32_t)j->dxn.off : 0u,
        .off_dy_in = j->dy_in.buf ? (uint32_t)j->dy_in.off : 0u,
        .off_x = (uint32_t)j->x.off,
        .off_y = (uint32_t)j->y.off,
        .off_g = (uint32_t)j->g.off,
        .off_b = ln ? (uint32_t)j->b.off : 0u,
        .off_mean = ln ? (uint32_t)j->mean.off : 0u,
        .off_rstd = (uint32_t)j->rstd.off,
        .off_dx = (uint32_t)j->dx.off,
        .off_dy = (uint32_t)j->dy.off,
        .off_part = (uint32_t)(j->scratch.off + n),
        .part_b = (uint32_t)blk,
        .part_norm = (uint32_t)(bpn * blk),
        .flags = form.flags,
        .off_dz = j->dz.buf ? (uint32_t)j->dz.off : 0u,
        .dz_c = j->dz.buf ? j->dz_c : 1.0f,
    };
    /* Stand-ins for what the kernel does not touch: dh for dxn and dy_in,
     * g for b, rstd for mean, dx for dz (written anyway). */
    const svk_range bind[FUSED_BINDINGS] = {
        r[DH], j->dxn.buf ? r[DXN] : r[DH], j->dy_in.buf ? r[DYI] : r[DH], r[X], r[Y], r[G], ln ? r[B] : r[G],
        ln ? r[MEAN] : r[RSTD], r[RSTD], r[DX], r[DY], r[SCRATCH], j->dz.buf ? r[DZ] : r[DX],
    };
    if (var != SVK_KERNEL_VARIANT_CPU)
        return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_SIAMESE_NORM_BWD_FUSED, j->C, lanes.n_part, form, bind,
                                     FUSED_BINDINGS, &push, sizeof(push), op);
    return svk_norm_cpu_dispatch(cl, ctx, SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_CPU, j->C, lanes.n_part, form, bind,
                                 FUSED_BINDINGS, &push, sizeof(push), op);
}

/* The backward's operands as bind_bwd bound them ({0}: absent). */
typedef struct bwd_ranges {
    svk_range dh, dxn, dy_in, x, y, mean, rstd, g, b, dx, dy, dg, db, scratch, dz;
} bwd_ranges;

/* Binds j's operands and checks that they do not alias where the stages
 * could not take it. */
static svk_status bind_bwd(svk_ctx *ctx, const char *op, const bwd_job *j, bwd_ranges *r)
{
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    uint64_t n = (uint64_t)j->rows * j->C, C3 = 3 * (uint64_t)j->C, R3 = 3 * (uint64_t)j->rows;
    uint64_t RM = SVK_SIAMESE_MEAN_ROWS * (uint64_t)j->rows;
    uint64_t scratch_n = svk_siamese_norm_bwd_scratch_elems(j->kind, j->rows, j->C);
    *r = (bwd_ranges){0};
    svk_status st;
    if (j->dz.buf && (!(j->dz_c > 0) || !isfinite(j->dz_c)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: dz_c=%g must be finite and > 0", op, (double)j->dz_c);
    if ((st = svk_op_bind(ctx, op, j->dh_name, j->dh, n, &r->dh)) != SVK_OK ||
        (j->dxn.buf && (st = svk_op_bind(ctx, op, "dxn", j->dxn, n, &r->dxn)) != SVK_OK) ||
        (j->dy_in.buf && (st = svk_op_bind(ctx, op, "dy_in", j->dy_in, n, &r->dy_in)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "x", j->x, n, &r->x)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "y", j->y, n, &r->y)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "mean", j->mean, RM, &r->mean)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "rstd", j->rstd, R3, &r->rstd)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "g", j->g, C3, &r->g)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "b", j->b, C3, &r->b)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "dx", j->dx, n, &r->dx)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dy", j->dy, n, &r->dy)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dg", j->dg, C3, &r->dg)) != SVK_OK ||
        (ln && (st = svk_op_bind(ctx, op, "db", j->db, C3, &r->db)) != SVK_OK) ||
        (st = svk_op_bind(ctx, op, "scratch", j->scratch, scratch_n, &r->scratch)) != SVK_OK ||
        (j->dz.buf && (st = svk_op_bind(ctx, op, "dz", j->dz, n, &r->dz)) != SVK_OK))
        return st;
    /* dh is last read by the first stage, dxn and dy_in element for element
     * by the stage that writes dx or dy. */
    enum { DH, DXN, DYI };
    const svk_norm_operand ops[] = {
        {j->dh_name, r->dh, false, 0}, {"dxn", r->dxn, false, 0}, {"dy_in", r->dy_in, false, 0},
        {"x", r->x, false, 0}, {"y", r->y, false, 0}, {"mean", r->mean, false, 0}, {"rstd", r->rstd, false, 0},
        {"g", r->g, false, 0}, {"b", r->b, false, 0},
        {"dx", r->dx, true, (1u << DH) | (1u << DXN)}, {"dy", r->dy, true, (1u << DH) | (1u << DYI)},
        {"dg", r->dg, true, 0}, {"db", r->db, true, 0}, {"scratch", r->scratch, true, 0}, {"dz", r->dz, true, 0},
    };
    return svk_norm_check_operands(ctx, op, ops, 15);
}

/* Whether the fused form runs (fused_chosen), and with which lanes: the
 * CPU form's own (fused_cpu_lanes) where its loops fit with them (longer
 * lanes, so a budget that the usual ones fit may refuse them), else the
 * usual ones. */
static bool fused_lanes_chosen(const svk_ctx *ctx, svk_kernel_variant var, const bwd_job *j, svk_norm_lanes lanes,
                               svk_norm_lanes *fused_lanes, svk_norm_cpu_form *form)
{
    *fused_lanes = var == SVK_KERNEL_VARIANT_CPU ? fused_cpu_lanes(j->rows) : lanes;
    if (fused_chosen(ctx, var, j, *fused_lanes, form))
        return true;
    if (var != SVK_KERNEL_VARIANT_CPU)
        return false;
    *fused_lanes = lanes;
    return fused_chosen(ctx, var, j, *fused_lanes, form);
}

/* The staged backward's stage 1 (siamese_norm_bwd.comp): du into scratch
 * and I's partials. */
static svk_status record_stage_du(svk_cmdlist *cl, svk_ctx *ctx, const char *op, const bwd_job *j,
                                  svk_norm_lanes lanes, const bwd_ranges *r)
{
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    uint64_t n = (uint64_t)j->rows * j->C, blk = (uint64_t)lanes.n_part * j->C, bpn = ln ? 2 : 1;
    uint64_t s0 = j->scratch.off, part_i = s0 + n + 2 * bpn * blk;
    svk_push_siamese_norm_bwd push = {
        .rows = j->rows,
        .C = j->C,
        .rows_per_part = lanes.rows_per_part,
        .n_part = lanes.n_part,
        .off_dh = (uint32_t)j->dh.off,
        .off_x = (uint32_t)j->x.off,
        .off_y = (uint32_t)j->y.off,
        .off_g = (uint32_t)j->g.off,
        .off_b = ln ? (uint32_t)j->b.off : 0u,
        .off_mean = ln ? (uint32_t)j->mean.off : 0u,
        .off_rstd = (uint32_t)j->rstd.off,
        .off_du = (uint32_t)s0,
        .off_part = (uint32_t)part_i,
        .part_b = (uint32_t)blk,
        .flags = ln ? 0u : SVK_SIAMESE_FLAG_RMS,
    };
    /* Stand-ins (never read): g for b, rstd for mean. */
    const svk_range bind[] = {r->dh, r->x, r->y, r->g, ln ? r->b : r->g, ln ? r->mean : r->rstd, r->rstd, r->scratch};
    const uint64_t offs[] = {j->dh.off, j->x.off, j->y.off, j->g.off, ln ? j->b.off : 0, s0};
    const svk_norm_cpu_form form = {svk_op_vec4(j->C, offs, 6), 2u, lanes.rows_per_part, 1, push.flags};
    return svk_norm_row_dispatch(cl, ctx, SVK_KERNEL_SIAMESE_NORM_BWD, j->C, lanes.n_part, form, bind, 8, &push,
                                 sizeof(push), op);
}

/* The staged backward up to the partials' sum: du and I's partials, Q's
 * then P's backward, then dz from dx and dy. */
static svk_status record_staged(svk_cmdlist *cl, svk_ctx *ctx, const char *op, const bwd_job *j,
                                svk_norm_lanes lanes, const bwd_ranges *r)
{
    svk_status st;
    if ((st = record_stage_du(cl, ctx, op, j, lanes, r)) != SVK_OK ||
        (st = record_branch(cl, ctx, op, j, lanes, 1, j->dy_in, r->dy_in, j->y, r->y, j->dy, r->dy)) != SVK_OK ||
        (st = record_branch(cl, ctx, op, j, lanes, 0, j->dxn, r->dxn, j->x, r->x, j->dx, r->dx)) != SVK_OK)
        return st;
    if (!j->dz.buf)
        return SVK_OK;
    svk_residual_bwd_args rz = {
        .n = (uint64_t)j->rows * j->C, .c = j->dz_c, .dx = j->dx, .dy = j->dy, .dz = j->dz, .label = op};
    return svk_residual_bwd_record(cl, &rz);
}

/* One fused dispatch where the device allows it, else the stages; then the
 * partials of P, Q and I summed into dg and db. */
static svk_status record_bwd(svk_cmdlist *cl, const char *label, const char *dflt, const bwd_job *j)
{
    const char *op;
    svk_ctx *ctx;
    svk_status st;
    if ((st = svk_norm_begin(label, dflt, "x", j->x, &op, &ctx)) != SVK_OK ||
        (st = check_shape(ctx, op, j->kind, j->rows, j->C)) != SVK_OK)
        return st;
    bwd_ranges r;
    if ((st = bind_bwd(ctx, op, j, &r)) != SVK_OK)
        return st;
    const bool ln = j->kind == SVK_NORM_LAYERNORM;
    const uint64_t n = (uint64_t)j->rows * j->C;
    const svk_norm_lanes lanes = svk_norm_lanes_for(j->rows);
    svk_norm_param_reduce_args ra = {
        .C = j->C, .n_norms = 3, .n_part = lanes.n_part, .blocks_per_norm = ln ? 2u : 1u,
        .part = {j->scratch.buf, j->scratch.off + n}, .dg = j->dg, .db = ln ? j->db : (svk_tref){0}, .label = op,
    };
    svk_kernel_variant var;
    if ((st = svk_op_variant(ctx, op, &var)) != SVK_OK)
        return st;
    svk_norm_lanes fused_lanes;
    svk_norm_cpu_form fused_form;
    if (fused_lanes_chosen(ctx, var, j, lanes, &fused_lanes, &fused_form)) {
        const svk_range fused[FUSED_BINDINGS] = {r.dh,   r.dxn,  r.dy_in, r.x,  r.y,       r.g, r.b,
                                                 r.mean, r.rstd, r.dx,    r.dy, r.scratch, r.dz};
        if ((st = record_fused(cl, ctx, op, var, j, fused_lanes, fused_form, fused)) != SVK_OK)
            return st;
        ra.n_part = fused_lanes.n_part;
        return svk_norm_param_reduce_record(cl, &ra);
    }
    if ((st = record_staged(cl, ctx, op, j, lanes, &r)) != SVK_OK)
        return st;
    return svk_norm_param_reduce_record(cl, &ra);
}

svk_status svk_siamese_norm_fwd_record(svk_cmdlist *cl, const svk_siamese_norm_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    fwd_job j = {a->kind, a->rows, a->C, a->eps, a->x, a->y, a->g, a->b, a->xn, a->h, a->mean, a->rstd, "h"};
    return record_fwd(cl, a->label, "siamese_norm_fwd", true, &j);
}

svk_status svk_siamese_out_fwd_record(svk_cmdlist *cl, const svk_siamese_out_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    fwd_job j = {a->kind, a->rows, a->C, a->eps, a->x, a->y, a->g, a->b, {0}, a->out, a->mean, a->rstd, "out"};
    return record_fwd(cl, a->label, "siamese_out_fwd", false, &j);
}

svk_status svk_siamese_norm_bwd_record(svk_cmdlist *cl, const svk_siamese_norm_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    bwd_job j = {a->kind, a->rows, a->C, a->dh, a->dxn, a->dy_in, a->x, a->y, a->mean, a->rstd,
                 a->g, a->b, a->dx, a->dy, a->dg, a->db, a->scratch, a->dz, a->dz_c, "dh"};
    return record_bwd(cl, a->label, "siamese_norm_bwd", &j);
}

svk_status svk_siamese_out_bwd_record(svk_cmdlist *cl, const svk_siamese_out_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a);
    bwd_job j = {a->kind, a->rows, a->C, a->dout, {0}, {0}, a->x, a->y, a->mean, a->rstd,
                 a->g, a->b, a->dx, a->dy, a->dg, a->db, a->scratch, a->dz, a->dz_c, "dout"};
    return record_bwd(cl, a->label, "siamese_out_bwd", &j);
}
