/*
 * What builds a plan (plan.c, plan_model.c): the builder's state and the
 * pieces the model is written in, tensors, ops, parameters found by name,
 * Linears and norms. Private to those files.
 *
 * Allocation failures do not stop the build: they set oom, ops go to a
 * sink and tensors are SVK_NONE, and svk_plan_build reports the failure at
 * the end, so the model reads as a straight sequence of calls.
 */
#ifndef SVK_MODEL_PLAN_BUILDER_H
#define SVK_MODEL_PLAN_BUILDER_H

#include "plan.h"

/* The batch shape and configuration sizes every block is built from. */
typedef struct svk_pb_dims {
    uint64_t B, T, N, C, H, F, V; /* a micro-batch's: B rows of T, N = B * T positions */
    uint64_t FL;                  /* the GELU MLP's activations' leading dimension (svk_plan.mlp_ld), >= F */
} svk_pb_dims;

typedef struct svk_pb {
    svk_plan *p;
    svk_log *log;
    svk_pb_dims d;
    size_t cap_t, cap_o;
    bool oom;
    int overflow;         /* the slab whose size wrapped + 1, or 0 */
    uint32_t wt;          /* linear_nn: the tensor each Linear's weight is transposed into */
    bool bias_grad_apart; /* svk_plan_options.bias_grad_apart */
    uint32_t *kv_cache;   /* decode plans: [layers], each attention's qkv tensor, the decode's cache; else NULL */
    bool decoding;        /* the forward being written is one token's, over kv_cache (plan_decode.c) */
    uint32_t *slots;      /* the parameters' names hashed (svk_pb_param): parameter index, or SVK_NONE */
    size_t mask;          /* slots has mask + 1 entries, a power of two */
    svk_plan_op sink;     /* takes an op's fields after an allocation failure */
} svk_pb;

/* A new tensor of elems elements at the end of its slab (param: its index
 * in the parameter list, or -1); SVK_NONE when out of memory. */
uint32_t svk_pb_tensor(svk_pb *b, svk_slab slab, uint64_t elems, int32_t param, const char *fmt, ...)
    SVK_PRINTF(5, 6);

/* A new tensor naming elems elements of tensor base from its element
 * offset (within base: nothing is allocated); SVK_NONE when base is or out
 * of memory. */
uint32_t svk_pb_view(svk_pb *b, uint32_t base, uint64_t offset, uint64_t elems, const char *fmt, ...)
    SVK_PRINTF(5, 6);

/* A new op at the end of the plan, zeroed but for its code and label. */
svk_plan_op *svk_pb_op(svk_pb *b, svk_plan_opcode code, const char *fmt, ...) SVK_PRINTF(3, 4);

/* Hashes the parameters' names for svk_pb_param; false when out of
 * memory. */
bool svk_pb_index_params(svk_pb *b);

/* The tensor in slab of the parameter named by fmt (SVK_SLAB_PARAM: the
 * weight, SVK_SLAB_GRAD: its gradient), or SVK_NONE where the
 * configuration has none (a bias with bias = false, wpe with rope). */
uint32_t svk_pb_param(svk_pb *b, svk_slab slab, const char *fmt, ...) SVK_PRINTF(3, 4);

/* C = op(A) op(B) (+ bias), alpha 1, beta 0 (written) or 1 (accumulated). */
svk_plan_op *svk_pb_gemm(svk_pb *b, const char *label, uint32_t c, uint32_t a, uint32_t bm, uint32_t bias, bool ta,
                         bool tb, uint64_t M, uint64_t N, uint64_t K, float beta);

/* Where a sublayer's output z goes: the residual update its last GEMM
 * makes (SVK_FUSE_RESIDUAL: c = in + z; SVK_FUSE_DUAL_RESIDUAL:
 * c += z / scale, out = in + z), so z itself is never stored. */
typedef struct svk_pb_residual {
    uint32_t fuse;
    uint32_t c, in, out;
    float scale;
} svk_pb_residual;

/* Forward of the Linear called name: y [rows, out] = x [rows, in] W^T + b
 * (with linear_nn, W is first transposed into b->wt and the product is NN:
 * the same sums in the same order). Returns the GEMM, for its fusions and
 * leading dimensions. */
svk_plan_op *svk_pb_linear_fwd(svk_pb *b, const char *name, uint32_t y, uint32_t x, uint64_t rows, uint64_t out,
                               uint64_t in);

/* Its gradients: dx (= or, with accumulate, +=) dy W; dW += dy^T x; db +=
 * colsum(dy). dx SVK_NONE: not wanted. gelu_in != SVK_NONE: x was
 * gelu(gelu_in), and dx is gelu_in's gradient, dy W times gelu'(gelu_in).
 * ld_in: the leading dimension of x, dx and gelu_in ([rows, in]), ld_out
 * that of dy ([rows, out]); 0: dense. */
typedef struct svk_pb_linear_grad {
    uint32_t dx, dy, x, gelu_in;
    bool accumulate;
    uint64_t ld_in, ld_out;
} svk_pb_linear_grad;
void svk_pb_linear_bwd(svk_pb *b, const char *name, const svk_pb_linear_grad *g, uint64_t rows, uint64_t out,
                       uint64_t in);

/* The norm called name (its gain name.weight, its bias name.bias) over
 * [N, C]: out = norm(x), mean and rstd saved. */
void svk_pb_norm_fwd(svk_pb *b, const char *name, uint32_t out, uint32_t mean, uint32_t rstd, uint32_t x);

/* Its backward: dx = the gradient of x from dout; the gain's and bias's
 * gradients accumulated. */
void svk_pb_norm_bwd(svk_pb *b, const char *name, uint32_t dx, uint32_t dout, uint32_t x, uint32_t mean,
                     uint32_t rstd);

/* COPY (dst = src) or ADD (dst += src) of n elements. */
void svk_pb_elementwise(svk_pb *b, svk_plan_opcode code, const char *label, uint32_t dst, uint32_t src, uint64_t n);

/* Appends the model's step (docs/MODEL.md) to the plan: forward, loss,
 * backward, clipping and AdamW, with the phases marked (plan_model.c).
 * The parameters and the inputs and outputs are registered already. */
void svk_pb_model(svk_pb *b);

/* The forward pass alone over b->d's rows, with activations of its own
 * (with b->decoding, one token's: plan_decode.c); returns its logits'
 * tensor (SVK_NONE when out of memory). */
uint32_t svk_pb_forward(svk_pb *b);

/* A decode plan's step: the forward over the window alone, its
 * activations one set for every block but each attention's qkv (the
 * key-value cache, into b->kv_cache), with phases.loss at its end. */
void svk_pb_prefill(svk_pb *b);

/* Appends one token's forward over the key-value cache of the step's
 * forward (svk_plan_options.decode) to a plan of B = 1, T = ctx
 * (plan_decode.c). */
void svk_pb_decode(svk_pb *b);

#endif
