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
    svk_buffer *clip_partials; /* svk_clip_scratch_elems of the gradient slab */
} svk_plan_vk_rec;

/* Where tensor id lives ({NULL, 0} for SVK_NONE). */
svk_tref svk_plan_vk_tensor(const svk_plan_vk_rec *r, uint32_t id);

/* Records op o, with its fusions, into r->cl. */
svk_status svk_plan_vk_record_op(const svk_plan_vk_rec *r, const svk_plan_op *o);

/* The scratch floats the largest op of p needs on ctx's device. */
uint64_t svk_plan_vk_scratch_elems(svk_ctx *ctx, const svk_plan *p);

#endif
