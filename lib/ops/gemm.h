/*
 * GEMM on the device (shaders/gemm.comp), recorded into a command list:
 *   C[o, b] = alpha * op(A[o, b]) op(B[o, b]) + beta * C[o, b] (+ bias[n])
 * then an optional epilogue (svk_gemm_epilogue), with the conventions of the CPU reference (lib/ref/ref_decls.h): op(A) is
 * [M, K], op(B) is [K, N], row-major with leading dimensions, strided batches.
 */
#ifndef SVK_OPS_GEMM_H
#define SVK_OPS_GEMM_H

#include <stdbool.h>
#include "ops.h"
#include "vk/cmd.h"

/* Which shader runs the GEMM. AUTO follows the rule of every operation
 * (svk_op_variant, lib/ops/ops.h): the tuning's forced variant when set
 * (SVK_KERNEL_VARIANT), else CPU on
 * CPU devices (lavapipe) and PORTABLE elsewhere. All compute the same
 * thing, summing each output in increasing k; conformance runs each.
 *
 * CPU records shaders/gemm_texel.comp, which reads A and B through uniform
 * texel buffers, when svk_op_texel_allowed(ctx) and both operands can be
 * viewed as R32F and RGBA32F texel buffers (lib/vk/texel.h); otherwise it
 * falls back to shaders/gemm_cpu.comp, the same method on storage buffers,
 * and says why once per context (a warning). Either CPU form gives way to
 * PORTABLE on a device without subgroupShuffle in compute shaders, when K
 * is too long for lavapipe's loop budget (SVK_OP_CPU_LOOP_BUDGET) or the
 * grid too large for the device.
 *
 * COOPMAT records shaders/gemm_coopmat.comp: cooperative matrices (tensor
 * cores), A and B rounded to float16, products summed in float32 in the
 * order the hardware chooses, so results differ from the float32 forms by
 * about float16's rounding (relative 2^-11 per operand) and values beyond
 * 65504 overflow. It is never chosen by default: AUTO takes it where the
 * variant would be PORTABLE and the tuning asks (SVK_GEMM_COOPMAT=1), on a device
 * that has it (svk_device_info.coopmat_m; a warning once per context
 * where it has not). Asked for explicitly on such a device it is
 * SVK_ERROR_UNSUPPORTED. */
typedef enum svk_gemm_variant {
    SVK_GEMM_VARIANT_AUTO = 0,
    SVK_GEMM_VARIANT_PORTABLE,     /* shaders/gemm.comp: shared-memory tiles */
    SVK_GEMM_VARIANT_CPU,          /* gemm_texel.comp, else gemm_cpu.comp: registers only, no barriers */
    SVK_GEMM_VARIANT_CPU_SSBO,     /* gemm_cpu.comp, the CPU form's fallback (tests, comparisons) */
    SVK_GEMM_VARIANT_COOPMAT,      /* gemm_coopmat.comp: cooperative matrices, float16 in (opt-in) */
} svk_gemm_variant;

/* What the GEMM does with each result r before storing it, saving a pass
 * over memory (and a dispatch) of what would otherwise follow it:
 *  GELU      C = r, aux = gelu(r): the MLP's pre-activation, kept for the
 *            backward pass, and its activation (gelu_fwd's formula);
 *  GELU_BWD  C = r * gelu'(aux), aux read: the pre-activation; the GEMM
 *            producing the activation's gradient hands on the
 *            pre-activation's (gelu_bwd's formula).
 * and, with beta 0 and z = alpha op(A) op(B) + bias (the sublayer's output):
 *  RESIDUAL       C = aux + z: a residual add into a new stream (pre- and
 *                 post-norm's x + F(x));
 *  DUAL_RESIDUAL  C += z / res_c, aux2 = aux + z: SiameseNorm's dual update
 *                 (residual_fwd's formulas), C the new x stream in place,
 *                 aux the old y stream and aux2 the new one.
 * aux and aux2 are laid out as C: from their offsets, with C's ld and
 * batch strides; they must not overlap A, B, C or each other. */
typedef enum svk_gemm_epilogue {
    SVK_GEMM_EPILOGUE_NONE = 0,
    SVK_GEMM_EPILOGUE_GELU,
    SVK_GEMM_EPILOGUE_GELU_BWD,
    SVK_GEMM_EPILOGUE_RESIDUAL,
    SVK_GEMM_EPILOGUE_DUAL_RESIDUAL,
} svk_gemm_epilogue;

/* What the caller promises of every matrix's structure (row m and column
 * n of C, step k), so that a kernel may leave out work; the CPU forms do
 * (common/gemm_causal.glsl), the portable one computes everything. C is
 * the same either way wherever it is defined, the terms left out being
 * exact zeros, provided op(B) is finite.
 *  CAUSAL_OUT  only C[m, n] with n <= m is wanted: the rest of C is
 *              unspecified, finite where written (the CPU forms leave
 *              most of it as it was), read by no one (attention's scores,
 *              whose softmax reads only keys up to the query);
 *  A_LOWER     op(A)[m, k] == 0 for k > m (causal probabilities P, and
 *              their gradient dS, times V or K);
 *  A_UPPER     op(A)[m, k] == 0 for k < m (their transposes, P^T and
 *              dS^T, in the key and value gradients). */
typedef enum svk_gemm_structure {
    SVK_GEMM_DENSE = 0,
    SVK_GEMM_CAUSAL_OUT,
    SVK_GEMM_A_LOWER,
    SVK_GEMM_A_UPPER,
} svk_gemm_structure;

/* The product's shape: op(A) [M, K] times op(B) [K, N], `batch` matrices
 * in each of `outer` groups. */
typedef struct svk_gemm_shape {
    bool trans_a, trans_b;         /* op(A) = A^T (A stored [K, M]); op(B) = B^T (B stored [N, K]) */
    uint32_t M, N, K;              /* each >= 1 */
    uint32_t batch;                /* >= 1; 0 is taken as 1 */
    /* A second batch level, for operands with two batch strides (attention:
     * heads within a sequence, sequences within the batch): outer groups of
     * `batch` matrices. 0 is taken as 1. */
    uint32_t outer;
} svk_gemm_shape;

/* A, B or C as stored: row-major from off, rows ld apart, the batch's
 * matrices stride apart and the outer groups stride2 apart (elements). */
typedef struct svk_gemm_matrix {
    svk_buffer *buf;
    uint64_t off;
    uint32_t ld;                   /* 0 means the packed value (the stored width) */
    uint64_t stride;               /* 0 means packed (rows * ld) */
    uint64_t stride2;              /* with outer > 1 */
} svk_gemm_matrix;

/* The epilogue (svk_gemm_epilogue) and its operands, laid out as C. */
typedef struct svk_gemm_epilogue_args {
    svk_gemm_epilogue kind;        /* default NONE */
    svk_tref aux;                  /* the epilogue's operand (NONE: unused) */
    svk_tref aux2;                 /* DUAL_RESIDUAL's second output */
    float res_c;                   /* DUAL_RESIDUAL's divisor, finite and nonzero */
} svk_gemm_epilogue_args;

/* Room for split-K partials (lib/ops/gemm_split.c), sum_a's column sum or
 * the texel form's packed operands: elems floats from off, clobbered, not
 * overlapping any operand; buf NULL: none. With it, a GEMM whose C has too
 * few tiles to fill a GPU is cut along K into batched partial products and
 * a column sum, where svk_gemm_scratch_elems says it would be. */
typedef struct svk_gemm_scratch {
    svk_buffer *buf;
    uint64_t off, elems;
} svk_gemm_scratch;

/* [M] floats from off, or buf NULL: also sum_a[m] += the sum over k of
 * op(A)[m, k]. A Linear's bias gradient beside its weight gradient:
 * dW = dy^T x with A = dy [K, M] transposed, db = colsum(dy). Needs
 * trans_a, one matrix (batch and outer 1) and the DENSE structure; must not
 * overlap A, B or C. gemm.comp adds the sums as it reads op(A)'s tiles
 * (split-K: beside each partial product, then a column sum of the partial
 * sums); gemm_texel.comp in its k loop where it shares op(A) over the
 * subgroup (a fixed order for the device's subgroup size); elsewhere (the
 * storage-buffer CPU form, coopmat) a column sum of A (lib/ops/colsum.c) is
 * recorded before the product. svk_gemm_scratch_elems counts the room any
 * of these needs. */
typedef struct svk_gemm_sum_a {
    svk_buffer *buf;
    uint64_t off;                  /* elements */
    /* Internal (lib/ops/gemm_split.c): the portable kernel stores the sums
     * of matrix b of a batch at off + b M (split-K's partial sums). */
    bool per_matrix;
} svk_gemm_sum_a;

typedef struct svk_gemm_args {
    svk_gemm_shape shape;
    float alpha, beta;
    svk_gemm_matrix a, b, c;
    svk_tref bias;                 /* [N] floats; buf NULL: none */
    svk_gemm_epilogue_args epi;
    svk_gemm_structure structure;  /* default DENSE */
    svk_gemm_variant variant;      /* default AUTO */
    svk_gemm_scratch scratch;
    svk_gemm_sum_a sum_a;
    const char *label;
} svk_gemm_args;

/* Floats of scratch svk_gemm_record would use for g on ctx's device now:
 * split-K's partials, or sum_a's column sum where the kernel does not add
 * it itself (0: none); g's buffers are not looked at. */
uint64_t svk_gemm_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g);
/* The part of that the CPU texel form's packed operands take
 * (lib/ops/gemm_pack.h), which GEMMs with a bias (never split) need too. */
uint64_t svk_gemm_pack_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g);

/* The leading dimension for an activation [rows, K] that ctx's GEMMs then
 * read as A [M, K] in place: where they run gemm_texel.comp with packing
 * allowed (CPU devices), K widened as lib/ops/gemm_pack.h would pack it,
 * whether or not this K would need it (a wider row costs memory, not
 * time), so that the GEMM producing it writes the layout its readers want
 * and nothing is copied; K elsewhere. */
uint32_t svk_gemm_activation_ld(svk_ctx *ctx, uint32_t K);

/* The variant a GEMM asking for AUTO gets on ctx's device now (the rule of
 * svk_gemm_variant, tuning included): what a training step's GEMMs
 * run, for tools that report it. Logs no fallback warning. */
svk_status svk_gemm_auto_variant(svk_ctx *ctx, svk_gemm_variant *out);

/* Checks shapes against the buffers and records the dispatch. */
svk_status svk_gemm_record(svk_cmdlist *cl, const svk_gemm_args *g);

/* The kernel svk_gemm_record would record for g now (SVK_KERNEL_GEMM,
 * _GEMM_CPU, _GEMM_CPU_S64, _GEMM_TEXEL, _GEMM_TEXEL_S64 or _GEMM_COOPMAT), without recording or logging anything: for
 * tests that must know which path they exercise, and for benchmarks. */
svk_status svk_gemm_kernel(const svk_gemm_args *g, svk_kernel_id *out);

/* Whether id is one of the texel forms (gemm_texel.comp, gemm_texel_s64.comp). */
bool svk_gemm_kernel_is_texel(svk_kernel_id id);

#endif
