/*
 * What the norm operations (norm.c, siamese_norm.c) share about their row
 * kernels: the checks that start their recording, the workgroup shape, how the backward passes
 * split rows into lanes, the operand checks, and the choice and recording
 * of a row kernel's portable, CPU, texel or split form. The second stage of
 * the backward passes is norm_param_reduce.h.
 *
 * Internal to lib/ops; the model records these through the norm ops.
 */
#ifndef SVK_OPS_NORM_ROWS_H
#define SVK_OPS_NORM_ROWS_H

#include "common/row_cpu.h"
#include "ops.h"

/* The start of recording an op (the norm ops, residual, norm_param_reduce):
 * *op = label, or dflt where label is NULL; *ctx = the context of operand
 * `name`, t, which must have a buffer ("<op>: operand <name> has no
 * buffer"). The caller has checked its own arguments (SVK_CHECK_ARG). */
svk_status svk_norm_begin(const char *label, const char *dflt, const char *name, svk_tref t, const char **op,
                          svk_ctx **ctx);

/* rows and the row width (named width_name in the message) each >= 1. */
svk_status svk_norm_check_rows(svk_ctx *ctx, const char *op, uint32_t rows, const char *width_name, uint32_t width);

/* eps finite and > 0. */
svk_status svk_norm_check_eps(svk_ctx *ctx, const char *op, float eps);

/* Workgroup shape of a row kernel for rows of `width` elements: spec[0]
 * invocations per row (32 for rows up to 256 wide, so that narrow rows do
 * not leave most of a workgroup idle, else 256), spec[1] rows per workgroup,
 * spec[2] = 1; 256 invocations in all, or the device's limit if lower. */
void svk_norm_row_spec(const svk_ctx *ctx, uint32_t width, uint32_t spec[3]);

/* The backward passes give lane p rows [p * rows_per_part, (p + 1) *
 * rows_per_part); at most SVK_NORM_MAX_PARTS lanes, so the partials stay
 * small and the ordered second stage short. A function of rows alone: the
 * same shapes always sum in the same order. */
#define SVK_NORM_MAX_PARTS 256u
typedef struct svk_norm_lanes {
    uint32_t rows_per_part;
    uint32_t n_part;
} svk_norm_lanes;
svk_norm_lanes svk_norm_lanes_for(uint32_t rows);

/* Fails unless ranges a and b are disjoint, or (allow_equal) the same
 * operand exactly: the row kernels work in place only element for element. */
svk_status svk_norm_check_disjoint(svk_ctx *ctx, const char *op, const char *name_a, svk_range a,
                                   const char *name_b, svk_range b, bool allow_equal);

/* One operand of an operation, for svk_norm_check_operands(). */
typedef struct svk_norm_operand {
    const char *name;
    svk_range r;        /* r.buf NULL: absent, skipped */
    bool written;
    uint32_t may_equal; /* bit j: this operand may be operand j exactly (in place) */
} svk_norm_operand;
/* Every written operand must be disjoint from every other operand, except
 * the exact equalities may_equal allows (in either direction). */
svk_status svk_norm_check_operands(svk_ctx *ctx, const char *op, const svk_norm_operand *ops, uint32_t n);

/* What svk_norm_row_dispatch needs to know to record a row kernel's CPU
 * form. */
typedef struct svk_norm_cpu_form {
    bool vec4;              /* svk_op_vec4() of the width and the offsets the kernel walks */
    uint32_t passes;        /* the kernel's loops over a row, per row */
    uint32_t rows_per_unit; /* rows a unit walks one after another: 1 forward, rows_per_part backward */
    uint32_t group;         /* units one invocation takes at once, one walk of the loops serving them
                             * all (common/row_cpu.h): SVK_ROW_CPU_ROWS rows forward, 1 lane backward */
    uint32_t flags;         /* the push constants' flags, compiled into the CPU form (RC_FLAGS) */
} svk_norm_cpu_form;

/* Records a row kernel (layernorm_*, rmsnorm_*, siamese_norm_*; `kernel` is
 * the portable one) over `units` rows (forward) or lanes (backward) of
 * `width` elements, in the variant svk_op_variant() picks:
 *   PORTABLE: `kernel`, shaped by svk_norm_row_spec();
 *   CPU: its *_CPU form (shaders/<name>_cpu.comp, common/row_cpu.glsl),
 *        one invocation per form.group units, svk_op_cpu_group()
 *        invocations per workgroup, stepping 4 elements at a time when
 *        form.vec4; but the portable form when its loops, at most
 *        rows_per_unit * (passes * width / step + 1) iterations (a group
 *        runs them once for all its units), would exceed
 *        SVK_OP_CPU_LOOP_BUDGET.
 * Same bindings and push constants either way; workgroups spread by
 * svk_op_grid(). */
svk_status svk_norm_row_dispatch(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id kernel, uint32_t width,
                                 uint32_t units, svk_norm_cpu_form form, const svk_range *bindings,
                                 uint32_t n_bindings, const void *push, uint32_t push_size, const char *label);

/* Whether a CPU form's loops over rows of `width` stay within
 * SVK_OP_CPU_LOOP_BUDGET (as svk_norm_row_dispatch decides). */
bool svk_norm_cpu_fits(uint32_t width, svk_norm_cpu_form form);

/* Records CPU form cpu_kernel as svk_norm_row_dispatch's CPU variant does,
 * for a CPU form that svk_norm_row_dispatch does not map from a portable
 * kernel (the fused SiameseNorm backward, which its op picks itself); the
 * caller has checked svk_norm_cpu_fits(). Where the form has a split form
 * (the <name>_split rows of shaders/meson.build) and the rows are wide enough (below), each
 * group of rows (or lane of partials) goes to a subgroup rather than to
 * one invocation. */
svk_status svk_norm_cpu_dispatch(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id cpu_kernel, uint32_t width,
                                 uint32_t units, svk_norm_cpu_form form, const svk_range *bindings,
                                 uint32_t n_bindings, const void *push, uint32_t push_size, const char *label);

/* The narrowest rows the split forms take (svk_norm_cpu_dispatch):
 * SVK_NORM_SPLIT_WIDE_MIN_WIDTH for RMSNorm's forward (one pass fewer to
 * share) and SiameseNorm's fused backward (16 sums a row to reduce),
 * SVK_NORM_SPLIT_MIN_WIDTH for the other four: the widths from which the
 * split form measured faster on lavapipe (--tune norm_split=0 compares). */
#define SVK_NORM_SPLIT_MIN_WIDTH 512u
#define SVK_NORM_SPLIT_WIDE_MIN_WIDTH 1024u

#endif
