/* The model's internals, shared by model.c, checkpoint.c and the backends. */
#ifndef SVK_MODEL_INTERNAL_H
#define SVK_MODEL_INTERNAL_H

#include "svk/grad_reduce.h"
#include "svk/model.h"
#include "core/error.h"
#include "plan.h"
#include "finite.h"
#include "grad_buckets.h"

/* What a backend does for the model (model.c drives it). */
typedef struct svk_backend_impl {
    const char *name;
    /* Makes the slabs of plan p (the parameter-shaped slabs keep their
     * contents across shapes) and whatever executes p. */
    svk_status (*set_plan)(svk_model *m, const svk_plan *p);
    /* Writes the batch's tokens (and targets, may be NULL; tokens NULL:
     * neither) into the input slab and runs ops [begin, end) of the
     * current plan. wait: return only when done. */
    svk_status (*run)(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                      const svk_step_hparams *h, bool wait);
    /* Copies n elements at offset of a slab to or from the host (after
     * waiting for the work in flight). */
    svk_status (*read)(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, void *dst);
    svk_status (*write)(svk_model *m, svk_slab slab, uint64_t offset, uint64_t n, const void *src);
    void (*destroy)(svk_model *m);
    /* Drops recorded work so the next run records afresh (tests compare
     * replayed with re-recorded steps); may be NULL. */
    void (*forget_recordings)(svk_model *m);
    /* The application's command buffer (svk/vulkan.h); NULL: unsupported. */
    svk_status (*record_external)(svk_model *m, void *vk_command_buffer);
    /* Outputs of the training step submitted before the latest run, which
     * may still be in flight (waits for it). Non-NULL: the backend takes a
     * training step while the previous one runs (svk_step_hparams.
     * prev_in_flight), keeping both steps' outputs. */
    svk_status (*read_prev_output)(svk_model *m, float out[SVK_OUT_COUNT]);
    /* How plans for this backend are built (plan.h) for a model of
     * configuration c on ctx; NULL: all options off. */
    svk_status (*plan_options)(svk_ctx *ctx, const svk_model_config *c, svk_plan_options *out);
    /* The memory plan p would take on ctx (NULL for the CPU backend), and
     * whether it fits there: out's device_bytes, heap fields, fits and
     * why_not (svk_model_plan_memory). Allocates nothing. */
    void (*estimate)(svk_ctx *ctx, const svk_plan *p, svk_memory_plan *out);
    /* Writes a batch and the step's numbers for an external recording. */
    svk_status (*prepare)(svk_model *m, const int32_t *tokens, const int32_t *targets, const svk_step_hparams *h);
    /* Runs ops [begin, end) of the current plan one at a time on the batch
     * (tokens NULL: the inputs are not written; begin == end: nothing runs),
     * the activations zeroed first when anything runs, and looks at the
     * probes (sorted by at) as they come: out[i] is what probes[i] held.
     * Waits for everything. */
    svk_status (*check)(svk_model *m, size_t begin, size_t end, const int32_t *tokens, const int32_t *targets,
                        const svk_step_hparams *h, const svk_finite_probe *probes, size_t n, svk_ref_finite *out);
    /* A step reduced in buckets (grad_reduce.c), its ranges [begin, end)
     * the layout's, run in order: bucket 0's settles the model, writes the
     * batch and h as run does and runs ops [forward, g->end[0]); bucket k's
     * runs [g->end[k - 1], g->end[k]) behind the ones before it, then
     * copies bucket k's gradients where staged finds them. Neither waits. */
    svk_status (*run_bucket)(svk_model *m, const svk_grad_layout *g, uint32_t k, const int32_t *tokens,
                             const int32_t *targets, const svk_step_hparams *h);
    /* Waits for run_bucket(k) alone (not for the buckets after it), then
     * copies its gradients, packed, to dst [first[k + 1] - first[k]] and
     * the step's outputs to out. */
    svk_status (*staged)(svk_model *m, const svk_grad_layout *g, uint32_t k, float *dst, float out[SVK_OUT_COUNT]);
} svk_backend_impl;

struct svk_model {
    svk_log log;                 /* used when there is no context */
    svk_ctx *ctx;
    svk_model_params params;
    svk_param_info *info;        /* the parameter list (plan-independent) */
    size_t n_params;
    uint64_t n_elems;            /* parameter elements */
    uint64_t step;               /* AdamW updates taken, by steps that have completed */
    bool step_pending;           /* a training step was submitted whose outcome is not yet read */
    bool older_pending;          /* and so was the one before it (read_prev_output reads it) */
    bool last_skipped;           /* the last completed training step was not finite: no update */
    /* Non-empty: why the model refuses every call but load and destroy (a
     * step was submitted and its outcome could not be read back, so the
     * state on the backend is not known). A successful load clears it. */
    char unusable[384];
    svk_plan plan;               /* for the current batch shape */
    /* The plan's logits tensor holds the logits of the last batch run, an
     * evaluation or a forward (a training step's backward replaces them
     * with their gradient): what svk_model_save_logits writes. */
    bool logits_kept;
    bool has_plan;
    const svk_backend_impl *impl;
    void *backend;
    /* svk_model_set_grad_reduce's reducer (NULL: none) and the host copy
     * of the gradients it is handed, kept from step to step */
    svk_grad_reduce_fn reduce_fn;
    void *reduce_user;
    float *reduce_grads;
    uint64_t reduce_cap;
    /* svk_model_set_grad_reduce_buckets's bucket call (NULL: the whole
     * gradient at once; reduce_fn is then its finish call), the size it
     * asked for, and the current plan's buckets (n 0: not cut yet) */
    svk_grad_bucket_fn bucket_fn;
    uint64_t bucket_bytes;
    svk_grad_layout layout;
};

/* The log messages go to: the context's, or the model's own. */
svk_log *svk_model_log(svk_model *m);

/* Reads the outcome of the training step in flight, if any (waiting for
 * it): a finite step counts as an update, a non-finite one was skipped on
 * the backend (plan.h, svk_step_finite). Every call that reads the step
 * count, or would overwrite the step's outputs, settles first. */
svk_status svk_model_settle(svk_model *m);

/* SVK_ERROR_INVALID_STATE, naming func and the reason, if the model is
 * unusable (see svk_model.unusable); SVK_OK otherwise. */
svk_status svk_model_check_usable(svk_model *m, const char *func);

/* What every call that runs a batch does first: checks the model, the
 * shape and the tokens (and targets, unless NULL), settles the steps in
 * flight and makes the plan for [B, T] current. func names the caller in
 * messages. */
svk_status svk_model_begin_batch(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                                 const char *func);

/* What generation does first: checks the model, settles the steps in
 * flight and makes the plan of [1, ctx] with the key-value cache's ops
 * (svk_plan_options.decode) current. */
svk_status svk_model_begin_generation(svk_model *m, const char *func);

/* One token's forward over the key-value cache of the current decode
 * plan (svk_model_begin_generation): token at position pos < ctx, whose
 * rows 0..pos-1 a window's forward (the prefill) or earlier calls left;
 * its logits [V] into logits (generate.c). */
svk_status svk_model_decode(svk_model *m, int32_t token, uint32_t pos, float *logits);

/* A training step with m's reducer (grad_reduce.c), in place of the
 * whole step's run: forward and backward, the reducer over the gradient
 * sums, then clipping and AdamW, submitted and not waited for. h is the
 * step's, from a settled model. */
svk_status svk_model_reduced_step(svk_model *m, const int32_t *tokens, const int32_t *targets,
                                  const svk_step_hparams *h, const char *func);

/* Makes the model's training state, the gradient and AdamW moment slabs
 * (zero moments), unless it holds them: a model makes them at its first
 * training step, or here, before an optimizer state is written into them.
 * When they cannot be made, the model is as it was. */
svk_status svk_model_need_train_state(svk_model *m);

/* Zeroes the AdamW moments and the step (a new model, or weights loaded
 * without their optimiser state). */
svk_status svk_model_reset_optimizer(svk_model *m);
/* fp16's loss scaler (svk_model_params.loss_scale) on the backend: its
 * scale (a power of two) and the steps in a row without overflow. Set by
 * svk_model_reset_optimizer and by loading a checkpoint. */
svk_status svk_model_set_loss_scaler(svk_model *m, float scale, uint32_t good);
svk_status svk_model_get_loss_scaler(svk_model *m, float *scale, uint32_t *good);

/* The memory report of a plan's slabs (svk_model_memory's). */
svk_memory_report svk_plan_memory_report(const svk_plan *p);

/* Tests: the next step records its command lists again instead of
 * replaying the ones it has. */
void svk_model_forget_recordings(svk_model *m);

extern const svk_backend_impl svk_backend_cpu;
extern const svk_backend_impl svk_backend_vulkan;

#endif
