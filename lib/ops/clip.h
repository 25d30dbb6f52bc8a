/*
 * Global gradient-norm clipping on the device (shaders/clip_sumsq.comp,
 * clip_scale.comp), as the CPU reference svk_ref_global_norm and
 * svk_ref_clip_scale (lib/ref/clip.c):
 *   norm = sqrt(sum over every gradient tensor and element of g^2),
 *   scale = min(1, max_norm / (norm + 1e-6)), 1 when max_norm == 0.
 * The result stays in device memory, out[0] = norm and out[1] = scale, where
 * the AdamW update reads the scale (svk_adamw_args.scale = out + 1): no host
 * round trip. Deterministic: a fixed reduction order, the same bits on every
 * run.
 *
 * The model's gradients are many tensors: each gets a range of slots of one
 * partials buffer (svk_clip_slots(n) slots for n elements) that one
 * clip_sumsq dispatch fills; one clip_scale dispatch then adds every slot.
 * svk_clip_record records all of it for a list of tensors; the two stages
 * are also available alone for callers that lay the slots out themselves.
 *
 * With a loss scaler (state, for fp16's dynamic loss scaling; docs/MODEL.md,
 * "Precision") the gradients are taken to be multiplied by its scale S:
 * out[0] is the norm of g / S, out[1] the clip scale times 1/S (what AdamW
 * multiplies the scaled gradients by), out_scale[0] = S, and the scaler is
 * updated as svk_ref_loss_scale_update does.
 */
#ifndef SVK_OPS_CLIP_H
#define SVK_OPS_CLIP_H

#include "ops.h"

/* Partial slots (floats) the sum of squares of n elements takes. */
uint64_t svk_clip_slots(uint64_t n);
/* Floats of partials svk_clip_record needs for count tensors of sizes[i]. */
uint64_t svk_clip_scratch_elems(uint32_t count, const uint64_t *sizes);

typedef struct svk_clip_sumsq_args {
    uint64_t n;         /* elements, 1 <= n < 2^32 */
    svk_tref x;         /* [n] */
    svk_tref partials;  /* [svk_clip_slots(n)], written */
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_clip_sumsq_args;

typedef struct svk_clip_scale_args {
    uint64_t n_partials; /* slots to add, 1 <= n_partials < 2^31 */
    svk_tref partials;   /* [n_partials] */
    float max_norm;      /* >= 0, finite; 0 turns clipping off (scale 1) */
    svk_tref out;        /* [2], written: norm, scale */
    svk_tref state;      /* [SVK_LOSS_SCALER_COUNT] (common/push_clip.h), updated; buf NULL: no loss scaling */
    svk_tref out_scale;  /* [1], written with state: the loss scale the step ran with */
    uint32_t interval;   /* with state: good steps in a row before the scale doubles, >= 1 */
    const char *label;
} svk_clip_scale_args;

typedef struct svk_clip_args {
    uint32_t count;          /* gradient tensors, >= 1 */
    const svk_tref *grads;   /* [count] */
    const uint64_t *sizes;   /* [count], elements of each, >= 1 */
    svk_tref partials;       /* [svk_clip_scratch_elems(count, sizes)], clobbered */
    float max_norm;          /* as in svk_clip_scale_args */
    svk_tref out;            /* [2], written: norm, scale */
    svk_tref state;          /* as in svk_clip_scale_args */
    svk_tref out_scale;
    uint32_t interval;
    const char *label;
} svk_clip_args;

svk_status svk_clip_sumsq_record(svk_cmdlist *cl, const svk_clip_sumsq_args *a);
svk_status svk_clip_scale_record(svk_cmdlist *cl, const svk_clip_scale_args *a);
/* Every tensor's clip_sumsq into consecutive slots, then clip_scale. */
svk_status svk_clip_record(svk_cmdlist *cl, const svk_clip_args *a);

#endif
