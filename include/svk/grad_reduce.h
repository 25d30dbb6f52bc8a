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

/* Bucketed reduction: the same sums, handed over in buckets as the backward
 * pass completes them, so that the reduction of one overlaps the device's
 * work on the rest. The step's gradient array is then in bucket order,
 * bucket after bucket (an order that again depends on the configuration
 * and svk_model_train_step_accum's accum alone); a bucket is the
 * gradients of the parameters that the backward of the step's last
 * micro-batch completes together (all earlier micro-batches run before the
 * first bucket), at least bucket_bytes of them but where one op completes
 * more. */
typedef struct svk_grad_bucket {
    /* [count]: elements [offset, offset + count) of the step's gradient
     * array, sums as in svk_grad_sums.grads. Host memory that stays valid
     * until the step's finish call returns, by which time it must hold the
     * totals over all processes. */
    float *grads;
    uint64_t offset, count;
    uint32_t index;    /* 0, 1, ...: the buckets come in this order */
    uint32_t buckets;  /* the step's buckets, the same on every step of a batch shape */
} svk_grad_bucket;

/* Called for each bucket, in order, on the thread that trains, once the
 * device has completed it and while it runs the rest of the backward;
 * starts the bucket's reduction and may return before it is done
 * (MPI_Iallreduce). Returns 0 on success; anything else fails the step as
 * svk_grad_reduce_fn's failure does, and the finish call is not made. */
typedef int (*svk_grad_bucket_fn)(void *user, const svk_grad_bucket *bucket);

typedef struct svk_grad_reducer {
    svk_grad_bucket_fn bucket;  /* required */
    /* Required: called after the last bucket, with sums->grads the whole
     * gradient array (every bucket's memory, back to back); it completes
     * every bucket's reduction and replaces loss_sum and targets by their
     * totals, as svk_grad_reduce_fn does (the gradients it need not touch
     * again). */
    svk_grad_reduce_fn finish;
    void *user;                 /* passed to both */
    /* The gradient bytes a bucket holds before the next begins; 0: a
     * quarter of the model's, at least 1 MiB (so that a small model is one
     * bucket). Raised where it would make more than 32 buckets. Default 0. */
    uint64_t bucket_bytes;
    uint64_t reserved[4];       /* zero */
} svk_grad_reducer;

/* Sets (r non-NULL) or clears (r NULL) m's reducer, in buckets; it takes
 * the place of svk_model_set_grad_reduce's, as that takes this one's. A
 * step then runs as a few ranges recorded once (the forward and the
 * backward up to where each bucket is complete, each followed by the
 * bucket's copy to host memory, then clipping and AdamW), all submitted
 * before the first bucket is handed over, and the gradients, the loss and
 * the norm come out as svk_model_set_grad_reduce's: the same values, in
 * other places of the array. On the CPU backend, which runs ranges as they
 * are submitted, nothing overlaps. *r is copied.
 * Thread-safety: as svk_model's. */
SVK_API svk_status svk_model_set_grad_reduce_buckets(svk_model *model, const svk_grad_reducer *r);

SVK_END_DECLS

#endif
