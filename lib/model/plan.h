/*
 * The training step as a plan: the ordered list of kernel invocations over
 * named tensors that one step of the model runs — forward, loss, backward,
 * clipping, AdamW — for one configuration and batch shape. This is the one
 * place the model's structure is written (docs/MODEL.md); both
 * backends execute it (plan_cpu.c with the CPU reference, plan_vk.c by
 * recording device operations), so they cannot disagree on the model.
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

typedef enum svk_slab {
    SVK_SLAB_PARAM = 0,   /* weights */
    SVK_SLAB_GRAD,        /* their gradients (zeroed at the start of each step) */
    SVK_SLAB_ADAM_M,      /* AdamW first moments */
    SVK_SLAB_ADAM_V,      /* AdamW second moments */
    SVK_SLAB_ACT,         /* activations and their gradients, one step's life */
    SVK_SLAB_INPUT,       /* int32 tokens [B, T] and targets [B, T], written by the host each step */
    SVK_SLAB_OUTPUT,      /* results the host may read: loss, counts, gradient norm */
    SVK_SLAB_COUNT
} svk_slab;

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

#define SVK_NONE UINT32_MAX

typedef struct svk_plan_tensor {
    char name[80];
    svk_slab slab;
    uint64_t elems;
    uint64_t offset;      /* elements from the start of the slab */
    int32_t param;        /* index into the parameter list, or -1 */
} svk_plan_tensor;

typedef enum svk_plan_opcode {
    SVK_OP_ZERO,          /* dims[0] elements from t0's offset in its slab = 0 (may span tensors) */
    SVK_OP_COPY,          /* t0 = t1 */
    SVK_OP_ADD,           /* t0 += t1 */
    SVK_OP_EMBED_FWD,     /* t0 out [N,C] = wte t2 [tokens t1] + wpe t3 (opt); output t4 counts bad tokens; dims B,T,C,V */
    SVK_OP_EMBED_BWD,     /* dwte t0 +=, dwpe t1 (opt) +=, tokens t2, dout t3 */
    SVK_OP_NORM_FWD,      /* out t0, mean t1 (layernorm), rstd t2, x t3, g t4, b t5 (layernorm); dims rows, width */
    SVK_OP_NORM_BWD,      /* dx t0, dg t1 +=, db t2 +=, dout t3, x t4, mean t5, rstd t6, g t7 */
    SVK_OP_SIAMESE_FWD,   /* xn t0, h t1, mean t2, rstd t3, x t4, y t5, g t6 [3,C], b t7 */
    SVK_OP_SIAMESE_BWD,   /* dx t0, dy t1, dg t2, db t3, dh t4, dxn t5, dy_in t6, x t7, y t8, mean t9, rstd t10,
                             g t11, b t12, work t13, then dz t14 = dx / f[0] + dy: the residual gradient of the
                             sublayer below (c = f[0]), or with f[0] = 1 the embedding's */
    SVK_OP_SOUT_FWD,      /* out t0, mean t1, rstd t2, x t3, y t4, g t5, b t6, work t7 */
    SVK_OP_SOUT_BWD,      /* dx t0, dy t1, dg t2, db t3, dout t4, x t5, y t6, mean t7, rstd t8, g t9, b t10, work t11,
                             then dz t12 = dx / f[0] + dy as SIAMESE_BWD's */
    SVK_OP_GEMM,          /* C t0 = alpha op(A t1) op(B t2) + beta C (+ bias t3); dims M, N, K; flags TA|TB;
                             ld[] the leading dimensions of A, B and C (0: dense);
                             then with flag GELU t4 = gelu(C), with GELU_BWD C *= gelu'(t4) (the MLP's
                             activation folded into its GEMMs: lib/ops/gemm.h, svk_gemm_epilogue);
                             with RESIDUAL (beta 0) C = t4 + z, with DUAL_RESIDUAL C += z / f[2] and
                             t5 = t4 + z, z the GEMM's result (a sublayer's output into the residual
                             streams) */
    SVK_OP_ROPE_FWD,      /* qkv t0 in place; dims B, T, C, H; f[0] = theta */
    SVK_OP_ROPE_BWD,      /* dqkv t0 in place */
    SVK_OP_ATTN_FWD,      /* out t0, att t1, qkv t2; dims B, T, C, H. att: the probabilities [B, H, T, T],
                             or with flag FLASH the softmax stats [B, H, T, 2] (lib/ops/attention.h) */
    SVK_OP_ATTN_BWD,      /* dqkv t0, dout t1, qkv t2, att t3; with flag FLASH the forward's out t4 */
    SVK_OP_SWIGLU_FWD,    /* out t0 = silu(gate t1) * up t2 */
    SVK_OP_SWIGLU_BWD,    /* dgate t0, dup t1, gate t2, up t3, dout t4 */
    SVK_OP_BIAS_BWD,      /* dbias t0 += column sums of dout t1 [rows, N] (leading dimension ld[0], 0: N);
                             dims rows, N */
    SVK_OP_XENT,          /* output t0 (loss, counts), dlogits t1, logits t2, targets t3; dims rows, V */
    SVK_OP_CLIP,          /* output t0: norm of dims[0] elements from t1 (the whole grad slab), clip scale */
    SVK_OP_ADAMW,         /* dims[0] elements from the offsets of p t0, g t1, m t2, v t3 (a group of
                             svk_plan_param_group, spanning tensors), output t4 (clip scale; no update
                             unless the loss and gradient norm there pass svk_step_finite); flags DECAY */
    SVK_OP_TRANSPOSE,     /* dst t0 [cols, rows] = src t1 [rows, cols] transposed; dims rows, cols */
    SVK_OP_COUNT_
} svk_plan_opcode;

#define SVK_PLAN_MAX_T 15
enum {
    SVK_FLAG_TA = 1, SVK_FLAG_TB = 2, SVK_FLAG_DECAY = 4, SVK_FLAG_RMS = 8, SVK_FLAG_FLASH = 16,
    SVK_FLAG_GELU = 32, SVK_FLAG_GELU_BWD = 64, SVK_FLAG_RESIDUAL = 128, SVK_FLAG_DUAL_RESIDUAL = 256,
};

typedef struct svk_plan_op {
    svk_plan_opcode code;
    uint32_t t[SVK_PLAN_MAX_T];  /* tensor ids, SVK_NONE where absent */
    uint64_t dims[4];
    uint64_t ld[3];              /* GEMM, BIAS_BWD: leading dimensions (see the opcode; 0: dense) */
    float f[3];
    uint32_t flags;
    char label[48];              /* e.g. "blocks.2.attn.qkv" */
} svk_plan_op;

/* Where the phases of a step begin in ops[]. */
typedef struct svk_plan_phases {
    size_t forward, loss, backward, clip, optimizer, end;
} svk_plan_phases;

typedef struct svk_plan {
    svk_model_config config;
    uint32_t B, T;
    svk_param_info *params;
    size_t n_params;
    svk_plan_tensor *tensors;
    size_t n_tensors;
    svk_plan_op *ops;
    size_t n_ops;
    svk_plan_phases phases;
    uint64_t slab_elems[SVK_SLAB_COUNT];
    uint32_t tokens, targets, logits, output; /* well-known tensor ids */
    float eps;
    bool flash_attention; /* attention saves the softmax stats, not the probabilities */
    bool linear_nn;       /* see svk_plan_options */
    uint64_t mlp_ld;      /* the GELU MLP's [N, F] activations' leading dimension (F: dense) */
} svk_plan;

/* How a backend wants its plans built; all false is the CPU backend's.
 *  flash_attention  the attention ops are the flash pair (flag FLASH),
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
 *                   results do not change. */
typedef struct svk_plan_options {
    bool flash_attention;
    bool linear_nn;
    uint64_t mlp_ld;
} svk_plan_options;

/* Builds the plan of a valid configuration for batches [B, T] (T <= ctx);
 * opt NULL: all options off. */
svk_status svk_plan_build(svk_log *log, const svk_model_config *c, uint32_t B, uint32_t T, const svk_plan_options *opt,
                          svk_plan *out);
void svk_plan_free(svk_plan *p);

/* Writes a batch into the input slab: tokens, and targets (NULL: all -1,
 * no loss anywhere). */
void svk_plan_write_inputs(const svk_plan *p, int32_t *input_slab, const int32_t *tokens, const int32_t *targets);

/* Tensor id of a parameter's (or gradient's, ...) tensor. */
uint32_t svk_plan_param_tensor(const svk_plan *p, size_t param, svk_slab slab);
/* The parameters with (or without) weight decay lie back to back in each
 * of the four parameter-shaped slabs: the group's first tensor in slab, and
 * its elements in *elems (SVK_NONE and 0 when the group is empty). */
uint32_t svk_plan_param_group(const svk_plan *p, bool decay, svk_slab slab, uint64_t *elems);
/* The tensor at the start (offset 0) of a parameter-shaped slab. */
uint32_t svk_plan_slab_start(const svk_plan *p, svk_slab slab);

const char *svk_plan_opcode_name(svk_plan_opcode code);

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

#endif

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
