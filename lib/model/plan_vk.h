/*
 * Plan ops recorded as device operations (plan_vk.c): one lib/ops call per
 * op kind, over the buffers the Vulkan backend (backend_vk.c) made for the
 * plan's tensors.
 */
#ifndef SVK_MODEL_PLAN_VK_H
#define SVK_MODEL_PLAN_VK_H

#include "ops/ops.h"
#include "plan.h"
#include "svk/model.h" /* svk_optimizer */
#include "vk_windows.h"

/* What a recording binds: the buffers of one parity of the double-buffered
 * inputs and outputs (backend_vk.c), and the step's constants. */
typedef struct svk_plan_vk_rec {
    const svk_plan *p;
    svk_cmdlist *cl;
    svk_log *log;
    const svk_optimizer *opt;
    svk_buffer *const *slab;   /* [SVK_SLAB_COUNT]: the parameter-shaped slabs (ACT, INPUT, OUTPUT unused) */
    svk_buffer *const *act;    /* [n_tensors]: each activation's buffer */
    svk_buffer *input, *output; /* this parity's */
    svk_buffer *prev_output;   /* the other parity's: the previous step's outputs */
    svk_buffer *step;          /* this parity's learning rate and bias corrections (svk_adamw_step_values) */
    svk_buffer *scratch;       /* svk_plan_vk_scratch_elems floats */
    svk_buffer *clip_partials; /* svk_plan_vk_clip_partials_elems floats */
    const svk_vk_windows *win; /* [SVK_SLAB_ACT]: the parameter-shaped slabs, bound whole or in windows */
    const svk_vk_windows *act_win; /* [n_tensors] or NULL: activations past one binding, in windows */
} svk_plan_vk_rec;

/* Where tensor id lives ({NULL, 0} for SVK_NONE): its first element. */
svk_tref svk_plan_vk_tensor(const svk_plan_vk_rec *r, uint32_t id);
/* Element elem of tensor id (counted from its start; it may lie past its
 * end, in its slab), and in *reach (unless NULL) how many elements from
 * there that one operand can address: a parameter-shaped slab past one
 * binding is bound in windows (vk_windows.h). */
svk_tref svk_plan_vk_at(const svk_plan_vk_rec *r, uint32_t id, uint64_t elem, uint64_t *reach);

/* Whether every op of p that touches tensor id can run in parts (GEMMs
 * without a fused epilogue or bias, the cross-entropy, ZERO, COPY, ADD):
 * an activation past one binding is then made in windows, not refused. */
bool svk_plan_vk_splits(const svk_plan *p, uint32_t id);

/* The clipping's partial sums for the gradients of p on ctx, whose sweep
 * goes in parts where the slab is windowed. */
uint64_t svk_plan_vk_clip_partials_elems(svk_ctx *ctx, const svk_plan *p);

/* Records op o, with its fusions, into r->cl. */
svk_status svk_plan_vk_record_op(const svk_plan_vk_rec *r, const svk_plan_op *o);

/* The scratch floats the largest op of p needs on ctx's device. */
uint64_t svk_plan_vk_scratch_elems(svk_ctx *ctx, const svk_plan *p);

#endif
