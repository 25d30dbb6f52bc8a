/*
 * Causal multi-head self-attention on the device (docs/MODEL.md, "Building blocks"), with
 * the semantics of svk_ref_attention_fwd / _bwd (lib/ref/ref_decls.h):
 *   qkv [B, T, 3C]: q = columns 0..C, k = C..2C, v = 2C..3C; head j uses
 *   columns j*D..(j+1)*D of each part, D = C / H;
 *   s = q k^T / sqrt(D) over keys <= query, P = softmax(s), out = P v,
 *   heads concatenated: out [B, T, C].
 * Apply RoPE (lib/ops/rope.h) to qkv first when the model uses it.
 *
 * Two forward paths:
 *  - materialised (svk_attention_fwd_record): GEMMs plus a causal row
 *    softmax; saves P as att [B, H, T, T] for the backward pass, 0 above the
 *    diagonal, exactly as the reference does.
 *  - flash (svk_attention_flash_fwd_record): one fused kernel with an online
 *    softmax; out and each row's softmax statistics (its largest score m
 *    and denominator l: stats [B, H, T, 2]), no [B, H, T, T] storage. Its
 *    backward (svk_attention_flash_bwd_record) recomputes P from q, k and
 *    the stats, tile by tile. D <= 256. On GPUs this is the training step's attention; on
 *    lavapipe its long serial loops run far slower than the materialised
 *    path's GEMMs (docs/PERFORMANCE.md), so the step keeps that there
 *    (svk_attention_flash_preferred).
 * On CPU devices (or with the cpu variant forced; see svk_op_variant) the
 * causal softmax and its backward are their CPU forms,
 * shaders/attention_softmax_*_cpu.comp: one invocation per row, no
 * barriers, the same results.
 *
 * Shapes: B, T, C, H >= 1, C % H == 0; every operand must fit the 32-bit
 * element offsets of the push constants (svk_op_bind) and the device's
 * storage-buffer range.
 */
#ifndef SVK_OPS_ATTENTION_H
#define SVK_OPS_ATTENTION_H

#include "ops.h"

typedef struct svk_attention_fwd_args {
    uint32_t B, T, C, H;
    svk_tref qkv;      /* [B, T, 3C], read */
    svk_tref out;      /* [B, T, C], written */
    svk_tref att;      /* [B, H, T, T], written: the probabilities, 0 above the diagonal */
    const char *label; /* for messages and timings; NULL: "attention" */
} svk_attention_fwd_args;

typedef struct svk_attention_bwd_args {
    uint32_t B, T, C, H;
    svk_tref dout;     /* [B, T, C], read */
    svk_tref qkv;      /* [B, T, 3C], read: as fed to the forward pass (after RoPE) */
    svk_tref att;      /* [B, H, T, T], read: from svk_attention_fwd_record */
    svk_tref dqkv;     /* [B, T, 3C], written (all of q, k and v) */
    /* svk_attention_scratch_elems(B, T, H) floats, clobbered: dP = dO V^T,
     * then dS in place. Must not overlap any other operand. */
    svk_tref scratch;
    const char *label; /* NULL: "attention" */
} svk_attention_bwd_args;

typedef struct svk_attention_flash_args {
    uint32_t B, T, C, H;
    svk_tref qkv;      /* [B, T, 3C], read */
    svk_tref out;      /* [B, T, C], written */
    /* [B, H, T, 2], written: m, l of each query row (svk_ref_attention_stats);
     * an even element offset */
    svk_tref stats;
    const char *label; /* NULL: "attention_flash" */
} svk_attention_flash_args;

typedef struct svk_attention_flash_bwd_args {
    uint32_t B, T, C, H;
    svk_tref dout;     /* [B, T, C], read */
    svk_tref qkv;      /* [B, T, 3C], read: as fed to the forward pass (after RoPE) */
    svk_tref out;      /* [B, T, C], read: the forward's out */
    svk_tref stats;    /* [B, H, T, 2], read: the forward's stats (even offset) */
    svk_tref dqkv;     /* [B, T, 3C], written (all of q, k and v) */
    /* svk_attention_flash_scratch_elems(B, T, H) floats, clobbered: each
     * query row's sum of dout * out. Must not overlap any other operand. */
    svk_tref scratch;
    const char *label; /* NULL: "attention_flash" */
} svk_attention_flash_bwd_args;

/* Floats of the backward scratch: B * H * T * T (the size of att). */
uint64_t svk_attention_scratch_elems(uint32_t B, uint32_t T, uint32_t H);

/* Per batch index: S = q k^T / sqrt(D) into att (one GEMM batched over the
 * heads), the causal softmax over all B*H*T rows in place, out = P v (one
 * GEMM batched over the heads). 2B + 1 dispatches. */
svk_status svk_attention_fwd_record(svk_cmdlist *cl, const svk_attention_fwd_args *a);

/* dv = P^T dout; dP = dout v^T into scratch; dS = P (dP - rowsum(P dP)) in
 * place; dq = dS k / sqrt(D); dk = dS^T q / sqrt(D). 4B + 1 dispatches. */
svk_status svk_attention_bwd_record(svk_cmdlist *cl, const svk_attention_bwd_args *a);

/* Floats of the flash backward's scratch: B * H * T (the stats are twice that). */
uint64_t svk_attention_flash_scratch_elems(uint32_t B, uint32_t T, uint32_t H);

/* Whether the training step should use the flash pair on ctx's device:
 * the tuning's choice (SVK_ATTENTION, "flash" or "scores") when set, else
 * flash on every device but a CPU one. */
svk_status svk_attention_flash_preferred(svk_ctx *ctx, bool *out);

/* The fused forward: out and stats, one dispatch. */
svk_status svk_attention_flash_fwd_record(svk_cmdlist *cl, const svk_attention_flash_args *a);

/* The fused backward: dq (and the scratch) from one kernel over query
 * blocks, then dk and dv from one over key blocks. 2 dispatches. */
svk_status svk_attention_flash_bwd_record(svk_cmdlist *cl, const svk_attention_flash_bwd_args *a);

#endif
