/*
 * Where a step's gradients can be reduced in buckets (svk/grad_reduce.h,
 * svk_model_set_grad_reduce_buckets): which op of the backward completes
 * each parameter's gradient, and the cut of the parameters, in that order,
 * into buckets of about a given size, each with the op after which it is
 * complete. The layout depends on the plan's ops alone, so every process
 * with the same configuration and batch options cuts the same buckets.
 */
#ifndef SVK_MODEL_GRAD_BUCKETS_H
#define SVK_MODEL_GRAD_BUCKETS_H

#include "plan.h"

/* The most buckets a step is cut into: each is an op range of its own on
 * the Vulkan backend (vk_submit.h holds them), and past a few dozen a
 * bucket's fixed costs (a wait, a reducer call) outweigh the overlap. */
#define SVK_GRAD_BUCKETS_MAX 32

/* n elements of the gradient slab from offset. */
typedef struct svk_grad_span {
    uint64_t offset, n;
} svk_grad_span;

/* The buckets of a plan. The packed array (what the reducer sees) holds
 * every gradient once: bucket k is its elements [first[k], first[k + 1]),
 * which are the gradient slab's spans span[span_first[k] ..
 * span_first[k + 1]) back to back. Bucket k is complete once ops
 * [phases.forward, end[k]) have run: end rises with k, and the last is
 * phases.clip. Every loss op (the outputs' loss and counts) lies before
 * end[0]. */
typedef struct svk_grad_layout {
    uint32_t n;
    size_t *end;          /* [n] */
    uint64_t *first;      /* [n + 1]; first[n] is the gradient slab's size */
    size_t *span_first;   /* [n + 1] */
    svk_grad_span *span;  /* [span_first[n]] */
} svk_grad_layout;

/* The size a bucket reaches before the next begins, for bucket_bytes 0:
 * a quarter of the gradients, at least SVK_GRAD_BUCKET_BYTES_MIN, so that
 * a small model is one bucket or two, whose reduction is latency more
 * than bandwidth. */
#define SVK_GRAD_BUCKET_BYTES_MIN (1ull << 20)

/* The buckets of plan p (a training plan) for buckets of bucket_bytes
 * (0: the default above); a bucket ends only between ops, so it may hold
 * more (one op completing many parameters) and the last may hold less. */
svk_status svk_grad_layout_build(svk_log *log, const svk_plan *p, uint64_t bucket_bytes, svk_grad_layout *out);
void svk_grad_layout_free(svk_grad_layout *g);

#endif
