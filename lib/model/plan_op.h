/*
 * One operation of a step plan (plan.h): its kind, and its operands by
 * name, in a struct per kind. Operands are plan tensor ids (SVK_NONE where
 * absent); shapes are in elements, row-major, and a leading dimension of 0
 * means dense rows. Every op is the CPU reference's function of the same
 * name (lib/ref/) and one device operation (lib/ops/); plan_operands.c
 * lists what each kind reads and writes.
 */
#ifndef SVK_MODEL_PLAN_OP_H
#define SVK_MODEL_PLAN_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/push_clip.h"   /* SVK_LOSS_SCALER_COUNT */
#include "common/push_pack16.h" /* SVK_FMT_FP16, SVK_FMT_BF16 */

#define SVK_NONE UINT32_MAX

/* Every kind of op, once: X(KIND, name, fn). The opcodes, their names
 * (svk_plan_opcode_name) and each backend's table of functions
 * (SVK_PLAN_OP_FN: the function named fn in plan_cpu_tmpl.c, plan_vk.c
 * and plan_operands.c) all come from this list, so adding a kind here is
 * what makes every backend name its function for it. */
#define SVK_PLAN_OPS(X)                                                                                             \
    X(ZERO, zero, zero)                                                                                            \
    X(COPY, copy, copy)                                                                                            \
    X(ADD, add, add)                                                                                               \
    X(EMBED_FWD, embed_fwd, embed_fwd)                                                                             \
    X(EMBED_BWD, embed_bwd, embed_bwd)                                                                             \
    X(NORM_FWD, norm_fwd, norm_fwd)                                                                                \
    X(NORM_BWD, norm_bwd, norm_bwd)                                                                                \
    X(SIAMESE_FWD, siamese_fwd, siamese_fwd)                                                                       \
    X(SIAMESE_BWD, siamese_bwd, siamese_bwd)                                                                       \
    X(SOUT_FWD, sout_fwd, sout_fwd)                                                                                \
    X(SOUT_BWD, sout_bwd, sout_bwd)                                                                                \
    X(GEMM, gemm, gemm)                                                                                            \
    X(ROPE_FWD, rope_fwd, rope)                                                                                    \
    X(ROPE_BWD, rope_bwd, rope)                                                                                    \
    X(ATTN_FWD, attn_fwd, attn_fwd)                                                                                \
    X(ATTN_BWD, attn_bwd, attn_bwd)                                                                                \
    X(SWIGLU_FWD, swiglu_fwd, swiglu_fwd)                                                                          \
    X(SWIGLU_BWD, swiglu_bwd, swiglu_bwd)                                                                          \
    X(BIAS_BWD, bias_bwd, bias_bwd)                                                                                \
    X(XENT, xent, xent)                                                                                            \
    X(CLIP, clip, clip)                                                                                            \
    X(ADAMW, adamw, adamw)                                                                                         \
    X(TRANSPOSE, transpose, transpose)                                                                             \
    X(EMBED_DECODE, embed_decode, embed_decode)                                                                    \
    X(ATTN_DECODE, attn_decode, attn_decode)                                                                    \
    X(PACK16, pack16, pack16)                                                                                      \
    X(UNPACK16, unpack16, pack16)

#define SVK_PLAN_OP_ENUM(kind, name, fn) SVK_OP_##kind,
#define SVK_PLAN_OP_NAME(kind, name, fn) #name,
#define SVK_PLAN_OP_FN(kind, name, fn) [SVK_OP_##kind] = fn,

typedef enum svk_plan_opcode { SVK_PLAN_OPS(SVK_PLAN_OP_ENUM) SVK_OP_COUNT_ } svk_plan_opcode;

/* Fusions: work an op does besides its own, which the plan would otherwise
 * write as an op of its own after it, so that its operands make one pass
 * instead of two. The plan decides them (svk_plan_op.fuse) and both
 * backends honour them: the CPU backend computes what the separate op
 * would, the device records one operation. Each brings the operands its
 * line names. */
enum {
    SVK_FUSE_GELU = 1,           /* GEMM: fused.act = gelu(C), the MLP's activation */
    SVK_FUSE_GELU_BWD = 2,       /* GEMM: C *= gelu'(fused.act), the activation's backward */
    SVK_FUSE_RESIDUAL = 4,       /* GEMM, beta 0: C = fused.residual + z, z the product (z is not stored) */
    SVK_FUSE_DUAL_RESIDUAL = 8,  /* GEMM, beta 0: C += z / fused.scale, fused.residual_out = fused.residual + z */
    SVK_FUSE_BIAS_GRAD = 16,     /* GEMM with ta (a Linear's dW += dy^T x): fused.dbias += column sums of A */
    SVK_FUSE_RESIDUAL_GRAD = 32, /* SIAMESE_BWD, SOUT_BWD: dz = dx / dz_c + dy from the dx and dy they write */
};

/* n elements from dst's offset in its slab = 0 (may run on past dst
 * into the tensors after it: the whole gradient slab). */
typedef struct svk_plan_zero {
    uint32_t dst;
    uint64_t n;
} svk_plan_zero;

/* COPY: dst = src; ADD: dst += src; n elements each. */
typedef struct svk_plan_elementwise {
    uint32_t dst, src;
    uint64_t n;
} svk_plan_elementwise;

/* out [B*T, C] = wte [V, C] rows of tokens (int32 [B*T]) + wpe [ctx, C]
 * (optional) rows 0..T-1; the count of bad tokens goes to output (the
 * output tensor, SVK_OUT_VALID_TOKENS). */
typedef struct svk_plan_embed_fwd {
    uint32_t out, tokens, wte, wpe, output;
    uint64_t B, T, C, V;
} svk_plan_embed_fwd;

/* dwte += and dwpe += (optional) from dout [B*T, C]. */
typedef struct svk_plan_embed_bwd {
    uint32_t dwte, dwpe, tokens, dout;
    uint64_t B, T, C, V;
} svk_plan_embed_bwd;

/* The rows and width of a norm, and which: RMSNorm or LayerNorm (whose
 * beta and mean exist only for LayerNorm). */
typedef struct svk_plan_norm_shape {
    uint64_t rows, width;
    bool rms;
} svk_plan_norm_shape;

/* out [rows, width] = norm(x) * gamma + beta; mean and rstd [rows] saved. */
typedef struct svk_plan_norm_fwd {
    svk_plan_norm_shape shape;
    uint32_t out, mean, rstd, x, gamma, beta;
} svk_plan_norm_fwd;

/* dx written, dgamma and dbeta accumulated, from dout. */
typedef struct svk_plan_norm_bwd {
    svk_plan_norm_shape shape;
    uint32_t dx, dgamma, dbeta, dout, x, mean, rstd, gamma;
} svk_plan_norm_bwd;

/* Rows of SiameseNorm's saved LayerNorm means: those of P's, Q's and I's
 * inputs, which the CPU reference reads, then two the device's kernels
 * keep besides (lib/ops/siamese_norm.h; the Vulkan backend checks at
 * compile time that its SVK_SIAMESE_MEAN_ROWS fits). */
#define SVK_PLAN_SIAMESE_MEAN_ROWS 5u

/* SiameseNorm at a sublayer's input (docs/MODEL.md): xn = P(x),
 * h = I(xn + Q(y)). gamma and beta are [3, width]: P, Q, I. mean is
 * [SVK_PLAN_SIAMESE_MEAN_ROWS, rows], rstd [3, rows]. */
typedef struct svk_plan_siamese_fwd {
    svk_plan_norm_shape shape;
    uint32_t xn, h, mean, rstd, x, y, gamma, beta;
} svk_plan_siamese_fwd;

/* Its backward: dx and dy (the streams' gradients below) written, dgamma
 * and dbeta accumulated, from dh, dxn (x's gradient from above) and dy_in
 * (y's). work: the CPU reference's scratch [2, rows, width]. With
 * SVK_FUSE_RESIDUAL_GRAD also dz = dx / dz_c + dy: the gradient of the
 * sublayer output that made x and y (c_l of the sublayer below), or with
 * dz_c = 1 the embedding's. */
typedef struct svk_plan_siamese_bwd {
    svk_plan_norm_shape shape;
    uint32_t dx, dy, dgamma, dbeta;
    uint32_t dh, dxn, dy_in, x, y, mean, rstd, gamma, beta, work;
    uint32_t dz;
    float dz_c;
} svk_plan_siamese_bwd;

/* SiameseNorm's output: out = N_out(N_x(x) + N_y(y)), gamma and beta
 * [3, width]: N_x, N_y, N_out; work as SIAMESE_BWD's. */
typedef struct svk_plan_sout_fwd {
    svk_plan_norm_shape shape;
    uint32_t out, mean, rstd, x, y, gamma, beta, work;
} svk_plan_sout_fwd;

/* Its backward from dout, as SIAMESE_BWD's (dz likewise). */
typedef struct svk_plan_sout_bwd {
    svk_plan_norm_shape shape;
    uint32_t dx, dy, dgamma, dbeta;
    uint32_t dout, x, y, mean, rstd, gamma, beta, work;
    uint32_t dz;
    float dz_c;
} svk_plan_sout_bwd;

/* The operands of a GEMM's fusions (svk_plan_op.fuse), laid out as C;
 * SVK_NONE where its fusion is off. */
typedef struct svk_plan_gemm_fused {
    uint32_t act;          /* GELU: written; GELU_BWD: read */
    uint32_t residual;     /* RESIDUAL, DUAL_RESIDUAL: the stream read */
    uint32_t residual_out; /* DUAL_RESIDUAL: written */
    float scale;           /* DUAL_RESIDUAL: c_l */
    uint32_t dbias;        /* BIAS_GRAD: [M], accumulated */
} svk_plan_gemm_fused;

/* C [M, N] = alpha op(A) op(B) + beta C (+ bias [N] on every row); op(A)
 * [M, K] is A or, with ta, A^T; op(B) [K, N] is B or, with tb, B^T. */
typedef struct svk_plan_gemm {
    uint32_t c, a, b, bias;
    uint64_t M, N, K;
    bool ta, tb;
    float alpha, beta;
    struct {
        uint64_t a, b, c;
    } ld;
    svk_plan_gemm_fused fused;
} svk_plan_gemm;

/* RoPE on the queries and keys of qkv [B*T, 3C] in place (ROPE_BWD: the
 * inverse rotation of their gradients). */
typedef struct svk_plan_rope {
    uint32_t qkv;
    uint64_t B, T, C, H;
    float theta;
} svk_plan_rope;

/* Causal attention of qkv [B*T, 3C] into out [B*T, C]. att: the
 * probabilities [B, H, T, T], or with flash the softmax statistics
 * [B, H, T, 2] (lib/ops/attention.h). */
typedef struct svk_plan_attn_fwd {
    uint32_t out, att, qkv;
    uint64_t B, T, C, H;
    bool flash;
} svk_plan_attn_fwd;

/* dqkv written from dout; flash also reads the forward's out. */
typedef struct svk_plan_attn_bwd {
    uint32_t dqkv, dout, qkv, att, out;
    uint64_t B, T, C, H;
    bool flash;
} svk_plan_attn_bwd;

/* out = silu(gate) * up, n elements. */
typedef struct svk_plan_swiglu_fwd {
    uint32_t out, gate, up;
    uint64_t n;
} svk_plan_swiglu_fwd;

typedef struct svk_plan_swiglu_bwd {
    uint32_t dgate, dup, gate, up, dout;
    uint64_t n;
} svk_plan_swiglu_bwd;

/* dbias [N] += column sums of dout [rows, N] (rows ld apart). */
typedef struct svk_plan_bias_bwd {
    uint32_t dbias, dout;
    uint64_t rows, N, ld;
} svk_plan_bias_bwd;

/* Cross-entropy of logits [rows, V] against targets (int32 [rows]): each
 * row's loss into losses (from row row0 of the step's), and unless
 * SVK_NONE dlogits = (softmax - onehot) / count, count being the counted
 * targets of the whole step, step_targets [step_rows] (all its
 * micro-batches'); dlogits may be logits, in place. first: count
 * them here, into output (SVK_OUT_VALID_TARGETS, BAD_TARGETS), which the
 * later micro-batches read; last: the mean of the step's losses, all
 * step_rows from the start of losses, into output (SVK_OUT_LOSS). One
 * batch: row0 0, step_rows = rows, first and last. */
typedef struct svk_plan_xent {
    uint32_t output, dlogits, logits, targets, losses, step_targets;
    uint64_t rows, V, row0, step_rows;
    bool first, last;
} svk_plan_xent;

/* The L2 norm of n elements from grads (the whole gradient slab) and the
 * clip scale, into output. With a loss scaler (else SVK_NONE) the
 * gradients are scaled by it: the norm is unscaled, the clip scale is
 * the multiplier of the scaled gradients, the scale goes to output
 * (SVK_OUT_LOSS_SCALE) and the scaler is updated (interval: the steps
 * without overflow before it doubles). */
typedef struct svk_plan_clip {
    uint32_t output, grads, scaler;
    uint64_t n;
    uint32_t interval;
} svk_plan_clip;

/* AdamW over n elements from the offsets of p, g, m and v (a group of
 * svk_plan_param_group, spanning tensors), with weight decay or not; output
 * holds the clip scale, and no update happens unless the loss and gradient
 * norm there pass svk_step_finite. */
typedef struct svk_plan_adamw {
    uint32_t p, g, m, v, output;
    uint64_t n;
    bool decay;
} svk_plan_adamw;

/* dst [cols, rows] = src [rows, cols] transposed. */
typedef struct svk_plan_transpose {
    uint32_t dst, src;
    uint64_t rows, cols;
} svk_plan_transpose;

/* One token's embedding at its position (generation with a key-value
 * cache, plan_decode.c): out [1, C] = wte [V, C] row step[0] + wpe [ctx, C]
 * (optional) row step[1]; step is int32 [2] in the input slab. A token
 * outside [0, V) or a position outside [0, ctx) gives zeros. */
typedef struct svk_plan_embed_decode {
    uint32_t out, step, wte, wpe;
    uint64_t C, V, ctx;
} svk_plan_embed_decode;

/* One token's causal attention over a key-value cache at position
 * pos = step[1] (int32 [2], input slab): qkv [1, 3C] is the token's
 * queries, keys and values, RoPE'd at pos when rope (theta); that row is
 * stored as row pos of cache [ctx, 3C] (the prefill's qkv: rows 0..pos-1
 * hold the earlier tokens', keys rotated), then out [1, C] = softmax of
 * its queries against keys 0..pos, times their values. A position
 * outside [0, ctx) writes nothing. */
typedef struct svk_plan_attn_decode {
    uint32_t out, qkv, cache, step;
    uint64_t C, H, ctx;
    bool rope;
    float theta;
} svk_plan_attn_decode;

/* An activation kept in 16 bits (svk_plan.precision; docs/MODEL.md,
 * "Precision"). PACK16: x [n] rounded in place to fmt's nearest values and
 * their codes written to packed (SVK_NONE: rounded only). UNPACK16: x [n]
 * = the values of packed's codes. packed holds two codes per float-sized
 * element, element 2i in the low half of element i (the CPU backend's
 * slab of doubles: n uint16 codes in order). scaler (PACK16; SVK_NONE:
 * none): x is first multiplied by its loss scale. codes_only (PACK16, with
 * packed): x is left as it is, its codes a 16-bit copy. */
typedef struct svk_plan_pack16 {
    uint32_t x, packed, scaler;
    uint64_t n;
    uint32_t fmt; /* SVK_FMT_FP16 or SVK_FMT_BF16 */
    bool codes_only;
} svk_plan_pack16;

typedef struct svk_plan_op {
    svk_plan_opcode code;
    uint32_t fuse;  /* SVK_FUSE_* */
    char label[48]; /* e.g. "blocks.2.attn.qkv" */
    union {         /* the member named after code */
        svk_plan_zero zero;
        svk_plan_elementwise copy, add;
        svk_plan_embed_fwd embed_fwd;
        svk_plan_embed_bwd embed_bwd;
        svk_plan_norm_fwd norm_fwd;
        svk_plan_norm_bwd norm_bwd;
        svk_plan_siamese_fwd siamese_fwd;
        svk_plan_siamese_bwd siamese_bwd;
        svk_plan_sout_fwd sout_fwd;
        svk_plan_sout_bwd sout_bwd;
        svk_plan_gemm gemm;
        svk_plan_rope rope; /* ROPE_FWD and ROPE_BWD */
        svk_plan_attn_fwd attn_fwd;
        svk_plan_attn_bwd attn_bwd;
        svk_plan_swiglu_fwd swiglu_fwd;
        svk_plan_swiglu_bwd swiglu_bwd;
        svk_plan_bias_bwd bias_bwd;
        svk_plan_xent xent;
        svk_plan_clip clip;
        svk_plan_adamw adamw;
        svk_plan_transpose transpose;
        svk_plan_embed_decode embed_decode;
        svk_plan_attn_decode attn_decode;
        svk_plan_pack16 pack16; /* PACK16 and UNPACK16 */
    };
} svk_plan_op;

const char *svk_plan_opcode_name(svk_plan_opcode code);

#endif
