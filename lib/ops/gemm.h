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
 * aux and aux2 are laid out as C: from off_aux (off_aux2), with C's ldc and
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

typedef struct svk_gemm_args {
    bool trans_a, trans_b;
    uint32_t M, N, K;              /* each >= 1 */
    uint32_t batch;                /* >= 1; 0 is taken as 1 */
    float alpha, beta;
    svk_buffer *a, *b, *c;
    svk_buffer *bias;              /* [N] floats, or NULL */
    uint64_t off_a, off_b, off_c, off_bias; /* elements */
    uint32_t lda, ldb, ldc;        /* elements; 0 means the packed value */
    uint64_t stride_a, stride_b, stride_c;  /* elements between batches; 0 means packed */
    /* A second batch level, for operands with two batch strides (attention:
     * heads within a sequence, sequences within the batch): outer groups of
     * `batch` matrices, stride2_* elements apart. outer 0 is taken as 1. */
    uint32_t outer;
    uint64_t stride2_a, stride2_b, stride2_c;
    const char *label;
    svk_gemm_variant variant;      /* default AUTO */
    svk_gemm_epilogue epilogue;    /* default NONE */
    svk_buffer *aux;               /* the epilogue's operand (NONE: unused) */
    uint64_t off_aux;              /* elements */
    svk_buffer *aux2;              /* DUAL_RESIDUAL's second output */
    uint64_t off_aux2;
    float res_c;                   /* DUAL_RESIDUAL's divisor, finite and nonzero */
    svk_gemm_structure structure;  /* default DENSE */
    /* Room for split-K partials (lib/ops/gemm_split.c): scratch_elems
     * floats from off_scratch, clobbered, not overlapping any operand; or
     * NULL. With it, a GEMM whose C has too few tiles to fill a GPU is cut
     * along K into batched partial products and a column sum, where
     * svk_gemm_scratch_elems says it would be. */
    svk_buffer *scratch;
    uint64_t off_scratch, scratch_elems;
    /* [M] floats, or NULL: also sum_a[m] += the sum over k of op(A)[m, k].
     * A Linear's bias gradient beside its weight gradient: dW = dy^T x with
     * A = dy [K, M] transposed, db = colsum(dy). Needs trans_a, one matrix
     * (batch and outer 1) and the DENSE structure; must not overlap A, B or
     * C. gemm.comp adds the sums as it reads op(A)'s tiles (split-K: beside
     * each partial product, then a column sum of the partial sums);
     * gemm_texel.comp in its k loop where it shares op(A) over the subgroup
     * (a fixed order for the device's subgroup size); elsewhere (the
     * storage-buffer CPU form, coopmat) a column sum of A (lib/ops/colsum.c)
     * is recorded before the product. svk_gemm_scratch_elems counts the
     * room any of these needs. */
    svk_buffer *sum_a;
    uint64_t off_sum_a;
    /* Internal (lib/ops/gemm_split.c): the portable kernel stores the sums
     * of matrix b of a batch at sum_a + b M (split-K's partial sums). */
    bool sum_a_per_matrix;
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
