/*
 * Gradient reduction between processes: the hook through which a caller
 * trains one model on several devices or machines, data-parallel
 * (docs/DISTRIBUTED.md). Each process holds a replica of the model and
 * runs its own rows of every batch; between the backward pass and the
 * clipping, the model hands the step's gradient sums to the caller, who
 * adds them up across the processes (MPI_Allreduce, say) so that every
 * replica clips and updates from the same gradient. libsvk itself knows no
 * transport: an application that embeds it needs no MPI.
 */
#ifndef SVK_GRAD_REDUCE_H
#define SVK_GRAD_REDUCE_H

#include "model.h"

SVK_BEGIN_DECLS

/* One optimizer step's sums on this process, to be replaced in place by
 * their totals over all processes (element by element, every process
 * getting the same bits, or the replicas drift apart). Sums rather than
 * means, so that the step is the mean over every counted target of the
 * global batch, as one process with the whole batch computes it, however
 * the targets fall between processes. */
typedef struct svk_grad_sums {
    /* [count]: each parameter's gradient of the sum of this process's
     * per-target losses (the step's loss before its division by the
     * target count), every parameter back to back, in an order that
     * depends on the configuration alone (so it is the same on every
     * process). Host memory, valid during the call only. */
    float *grads;
    uint64_t count;     /* svk_model_param_count */
    double loss_sum;    /* the sum of this process's per-target losses */
    uint64_t targets;   /* this process's counted targets (svk_step_info.valid_targets) */
} svk_grad_sums;

/* Called once per optimizer step (after all of svk_model_train_step_accum's
 * micro-batches, before clipping and AdamW), on the thread that trains;
 * returns 0 on success. Anything else fails the step: no update is
 * applied, and the training call returns SVK_ERROR_INVALID_STATE naming the
 * code (the model stays usable). A non-finite sum is passed on, not
 * refused: every process then skips the step (svk_step_info.skipped). */
typedef int (*svk_grad_reduce_fn)(void *user, svk_grad_sums *sums);

/* Sets (fn non-NULL) or clears (fn NULL) m's reducer. With one, each
 * training step runs in two parts, forward and backward, then clipping and
 * AdamW, the gradients passing through host memory between them (4 bytes
 * a parameter each way), and svk_step_info then reports the totals: the
 * loss is loss_sum / targets, valid_targets the total, the gradient norm
 * that of the reduced gradient. Without one a step is recorded and
 * replayed as a whole, as if this function did not exist. A step of the
 * Vulkan backend with a reducer is waited for (no overlap with the next).
 * Thread-safety: as svk_model's. */
SVK_API svk_status svk_model_set_grad_reduce(svk_model *model, svk_grad_reduce_fn fn, void *user);

SVK_END_DECLS

#endif
