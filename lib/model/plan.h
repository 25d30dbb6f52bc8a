/*
 * The training step as a plan: the ordered list of kernel invocations over
 * named tensors that one step of the model runs — forward, loss, backward,
 * clipping, AdamW — for one configuration and batch shape. The model's
 * structure is written once, in plan_model.c (docs/MODEL.md); both backends
 * execute the plan (plan_cpu_tmpl.c with the CPU reference, plan_vk.c
 * recording device operations for backend_vk.c), so they cannot disagree
 * on the model. Its ops are defined in plan_op.h.
 *
 * Tensors live in slabs by lifetime; every tensor has an element offset in
 * its slab, assigned when the plan is built. Parameters, their gradients and
 * the two AdamW moments are laid out in the same order (the parameter list
 * of params.h), so parameter i has the same offset in all four slabs.
 */
#ifndef SVK_MODEL_PLAN_H
#define SVK_MODEL_PLAN_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "params.h"
#include "plan_op.h"

typedef enum svk_slab {
    SVK_SLAB_PARAM = 0,   /* weights */
    SVK_SLAB_GRAD,        /* their gradients (zeroed at the start of each step) */
    SVK_SLAB_ADAM_M,      /* AdamW first moments */
    SVK_SLAB_ADAM_V,      /* AdamW second moments */
    SVK_SLAB_STATE,       /* what else outlives a step: fp16's loss scaler (svk_plan.loss_scaler) */
    SVK_SLAB_ACT,         /* activations and their gradients, one step's life */
    SVK_SLAB_INPUT,       /* int32 tokens [B, T] and targets [B, T], written by the host each step */
    SVK_SLAB_OUTPUT,      /* results the host may read: loss, counts, gradient norm */
    SVK_SLAB_COUNT
} svk_slab;

/* The gradient and moment slabs: a model's training state, which a model
 * that has never trained does not hold (svk_plan.train_state). */
static inline bool svk_slab_is_train_state(svk_slab k)
{
    return k == SVK_SLAB_GRAD || k == SVK_SLAB_ADAM_M || k == SVK_SLAB_ADAM_V;
}

/* Elements of SVK_SLAB_OUTPUT: floats, then int32 counts (stored as int32
 * bits on every backend, as the device kernels write them). */
enum {
    SVK_OUT_LOSS = 0,       /* mean cross-entropy of the step */
    SVK_OUT_GRAD_NORM,      /* global L2 norm of the gradients, before clipping */
    SVK_OUT_CLIP_SCALE,     /* min(1, max_norm / (norm + 1e-6)), right after GRAD_NORM */
    SVK_OUT_VALID_TARGETS,  /* int32: targets in [0, V) */
    SVK_OUT_BAD_TARGETS,    /* int32: targets outside [-1, V), right after VALID_TARGETS */
    SVK_OUT_VALID_TOKENS,   /* int32: tokens in [0, V) */
    SVK_OUT_BAD_TOKENS,     /* int32: tokens outside [0, V), right after VALID_TOKENS */
    SVK_OUT_LOSS_SCALE,     /* the loss scale the step ran with (loss scaling only: else not written) */
    SVK_OUT_COUNT
};

/* Whether a training step's update is applied: its loss is finite and so
 * is the square of its gradient norm, in float. Otherwise AdamW leaves the
 * parameters and moments as they were (and the step count is not advanced):
 * a NaN or Inf would poison every later step. The square is the device's
 * view: it sums the squares in float, so a norm past sqrt(FLT_MAX) ~ 1.8e19
 * is Inf there, while the CPU reference sums in double; testing the square
 * makes both backends skip the same steps. shaders/adamw.comp applies the
 * same rule on the device. */
static inline bool svk_step_finite(float loss, float grad_norm)
{
    const float sq = grad_norm * grad_norm;
    return isfinite(loss) && isfinite(sq);
}

typedef struct svk_plan_tensor {
    char name[80];
    svk_slab slab;
    uint64_t elems;
    uint64_t offset;      /* elements from the start of the slab */
    int32_t param;        /* index into the parameter list, or -1 */
} svk_plan_tensor;

/* Where the phases of a step begin in ops[]. A step of several
 * micro-batches (svk_plan.micro) repeats forward, loss and backward once per
 * micro-batch: loss and backward mark the first micro-batch's, clip follows
 * the last one's backward. The step's loss op writes the logits'
 * gradient in place of the logits; an evaluation runs [forward, loss),
 * then [eval, eval_end) after the step: the loss alone (empty in a plan of
 * several micro-batches, or a decode plan). A plan built with
 * svk_plan_options.decode has one more range, [decode, decode_end): one
 * token's forward over the key-value cache (plan_decode.c); in other
 * plans both are eval_end. */
typedef struct svk_plan_phases {
    size_t forward, loss, backward, clip, optimizer, end;
    size_t eval, eval_end;
    size_t decode, decode_end;
} svk_plan_phases;

typedef struct svk_plan {
    svk_model_config config;
    uint32_t B, T;        /* the whole step's batch: micro micro-batches of B / micro rows */
    uint32_t micro;       /* micro-batches per step, >= 1 (svk_plan_options.micro_batches) */
    svk_param_info *params;
    size_t n_params;
    svk_plan_tensor *tensors;
    size_t n_tensors;
    svk_plan_op *ops;
    size_t n_ops;
    svk_plan_phases phases;
    uint64_t slab_elems[SVK_SLAB_COUNT];
    uint32_t tokens, targets, logits, output; /* well-known tensor ids; tokens and targets: [B, T] */
    uint32_t losses;      /* [B * T]: each position's loss, the step's mean reduced from them */
    /* decode plans (else SVK_NONE): the token and its position, int32 [2]
     * in the input slab, and that token's logits [1, V] */
    uint32_t decode_step, decode_logits;
    float eps;
    bool flash_attention; /* attention saves the softmax stats, not the probabilities */
    bool linear_nn;       /* see svk_plan_options */
    bool recompute;       /* see svk_plan_options */
    uint32_t precision;   /* see svk_plan_options */
    /* [SVK_LOSS_SCALER_COUNT] in SVK_SLAB_STATE (shaders/common/push_clip.h),
     * in every plan so that the slab keeps its size across plans */
    uint32_t loss_scaler;
    bool loss_scaling;    /* see svk_plan_options */
    uint32_t loss_scale_interval; /* see svk_plan_options */
    uint64_t mlp_ld;      /* the GELU MLP's [N, F] activations' leading dimension (F: dense) */
    /* The gradient and moment slabs exist with this plan (not
     * svk_plan_options.frozen): a model makes them at its first need, a
     * training step or an optimizer state loaded, and keeps them. */
    bool train_state;
} svk_plan;

/* How a backend wants its plans built; all false is the CPU backend's.
 *  flash_attention  the attention ops are the flash pair (attn_fwd.flash),
 *                   which keep [B, H, T, 2] per attention sublayer for the
 *                   backward instead of [B, H, T, T]; only the Vulkan
 *                   backend runs it;
 *  linear_nn        each block Linear (qkv, attn.proj, the MLP's fc or
 *                   gate and up, and proj) runs forward on a transposed
 *                   copy of its weight (a TRANSPOSE op into the activation
 *                   tensor linear.wt before each, then an NN GEMM), for
 *                   devices whose NN products are faster than their NT
 *                   ones (lavapipe: gemm_texel's 16 x 8 tile applies to NN
 *                   only; the MLP's fc 1.2-1.35 times faster, qkv about
 *                   1.13, the projection with K = F 1.4 to 1.7). The sums
 *                   are the same: the results do not change;
 *  mlp_ld           the leading dimension of the GELU MLP's activations
 *                   [N, F] (its pre-activation a, g = gelu(a) and a's
 *                   gradient), >= F; 0 or F: dense. A CPU device's GEMM
 *                   reads an operand whose rows share L1 sets from a
 *                   padded copy (lib/ops/gemm_pack.h); written padded by
 *                   the GEMM that produces it, it is read in place. The
 *                   results do not change;
 *  bias_grad_apart  each Linear's bias gradient is a BIAS_BWD op of its
 *                   own after its weight gradient, not fused into that
 *                   GEMM (SVK_FUSE_BIAS_GRAD): for tests, which check that
 *                   both give the same gradients;
 *  micro_batches    gradient accumulation: the step's B rows run as this
 *                   many micro-batches of B / micro_batches rows (0 or 1:
 *                   one), each its forward, loss and backward over the same
 *                   activations, adding into the gradients, which are
 *                   zeroed once; then one clipping and one update. The
 *                   loss is the mean over every counted target of the step
 *                   and each micro-batch's gradient is divided by that
 *                   count, so the step is the whole batch's, with the
 *                   activation memory of one micro-batch;
 *  recompute        activation recomputation: only each block's input is
 *                   kept through the step, and the backward runs the
 *                   block's forward again before its own (plan_model.c);
 *                   the same results, bit for bit, for the activation
 *                   memory of about one block;
 *  precision        0: every activation in float32; SVK_FMT_FP16 or
 *                   SVK_FMT_BF16: the activations the backward pass reads
 *                   are kept in 16 bits (docs/MODEL.md, "Precision"): each
 *                   is rounded where it is made (PACK16), the forward going
 *                   on from the rounded value, and its codes kept; the
 *                   blocks share one set of float32 tensors, which the
 *                   backward fills again from the codes (UNPACK16) before
 *                   each sublayer's. The residual streams stay float32.
 *                   With recompute nothing is kept in 16 bits, the
 *                   recomputed activations rounded alike, so the results
 *                   are the same bits as without. Decode plans
 *                   ignore it (generation keeps nothing for a backward);
 *  loss_scaling     with precision SVK_FMT_FP16: dynamic loss scaling
 *                   (docs/MODEL.md, "Precision"): the logits' gradient is
 *                   multiplied by the scale in loss_scaler where it is
 *                   rounded, and CLIP unscales the norm and the update and
 *                   updates the scaler, doubling the scale after
 *                   loss_scale_interval (>= 1) steps in a row without
 *                   overflow;
 *  decode           B = 1 and T = ctx only: a plan for generation, whose
 *                   step is the window's forward alone (no loss, no
 *                   backward), then one token's forward
 *                   over a key-value cache, the window forward's own qkv
 *                   tensors (svk_plan_phases.decode, plan_decode.c);
 *  frozen           a plan for a model that has never needed its training
 *                   state: the gradient and AdamW moment slabs are laid out
 *                   as ever but not made (svk_plan.train_state false), and
 *                   the step does not start by zeroing the gradients, so
 *                   only its forward and loss, and a decode plan's ops, may
 *                   run (svk_plan_runnable). */
typedef struct svk_plan_options {
    bool flash_attention;
    bool linear_nn;
    uint64_t mlp_ld;
    bool bias_grad_apart;
    uint32_t micro_batches;
    bool recompute;
    uint32_t precision;
    bool loss_scaling;
    uint32_t loss_scale_interval;
    bool decode;
    bool frozen;
} svk_plan_options;

/* Builds the plan of a valid configuration for batches [B, T] (T <= ctx;
 * B a multiple of opt->micro_batches); opt NULL: all options off. */
svk_status svk_plan_build(svk_log *log, const svk_model_config *c, uint32_t B, uint32_t T, const svk_plan_options *opt,
                          svk_plan *out);
void svk_plan_free(svk_plan *p);

/* Whether ops [begin, end) of p may run: without the training state
 * (svk_plan.train_state), none past the loss of the step's first
 * micro-batch (its backward, clipping and update read and write the
 * gradient and moment slabs). */
bool svk_plan_runnable(const svk_plan *p, size_t begin, size_t end);

/* Writes a batch into the input slab: tokens, and targets (NULL: all -1,
 * no loss anywhere); tokens NULL: nothing (a run of decode ops, which read
 * decode_step alone). */
void svk_plan_write_inputs(const svk_plan *p, int32_t *input_slab, const int32_t *tokens, const int32_t *targets);

/* Tensor id of a parameter's (or gradient's, ...) tensor. */
uint32_t svk_plan_param_tensor(const svk_plan *p, size_t param, svk_slab slab);
/* The parameters with (or without) weight decay lie back to back in each
 * of the four parameter-shaped slabs: the group's first tensor in slab, and
 * its elements in *elems (SVK_NONE and 0 when the group is empty). */
uint32_t svk_plan_param_group(const svk_plan *p, bool decay, svk_slab slab, uint64_t *elems);
/* The tensor at the start (offset 0) of a parameter-shaped slab. */
uint32_t svk_plan_slab_start(const svk_plan *p, svk_slab slab);

/* One float operand of a plan op: the rows x cols elements
 * tensor[offset + r * ld + c] that it reads and/or writes. */
typedef struct svk_plan_operand {
    uint32_t tensor;     /* plan tensor id */
    const char *role;    /* what the op calls it: "A", "x", "dout", ... */
    bool read, written;  /* written: = or += */
    uint64_t offset;     /* elements into the tensor (may run past its end into the slab: ZERO, CLIP, ADAMW) */
    uint64_t rows, cols, ld;
} svk_plan_operand;

#define SVK_PLAN_MAX_OPERANDS 16

/* o's float operands (integer ones, tokens, targets and counts, are left
 * out), inputs first; returns their number (lib/model/plan_operands.c). */
uint32_t svk_plan_op_operands(const svk_plan *p, const svk_plan_op *o, svk_plan_operand out[SVK_PLAN_MAX_OPERANDS]);


/* What changes from step to step, or from run to run, and so is not part of
 * the plan: the optimiser's hyperparameters and the step number. */
typedef struct svk_step_hparams {
    float lr;            /* this update's learning rate */
    uint64_t t;          /* the update's number, from 1, counting a step still in flight as applied */
    float beta1, beta2, adam_eps, weight_decay;
    float max_norm;      /* clipping threshold; 0 = off */
    bool prev_in_flight; /* the previous training step is still running (its outcome unknown): if
                            it is skipped, this update is number t - 1 (Vulkan backend only) */
} svk_step_hparams;

/* The CPU backend (plan_cpu_tmpl.c): runs ops [begin, end) of the plan with
 * the reference kernels over host slabs of float (_f32) or double (_f64);
 * slab[SVK_SLAB_INPUT] holds int32 in both. */
svk_status svk_plan_cpu_run_f32(svk_log *log, const svk_plan *p, void *const slabs[SVK_SLAB_COUNT], size_t begin,
                                size_t end, const svk_step_hparams *h);
svk_status svk_plan_cpu_run_f64(svk_log *log, const svk_plan *p, void *const slabs[SVK_SLAB_COUNT], size_t begin,
                                size_t end, const svk_step_hparams *h);

#endif
