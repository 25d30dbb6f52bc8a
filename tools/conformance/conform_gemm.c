/*
 * GEMM (shaders/gemm.comp; gemm_texel.comp, built as gemm_texel and
 * gemm_texel_s64; gemm_cpu.comp, as gemm_cpu and gemm_cpu_s64;
 * lib/ref/gemm.c), each case once per
 * kernel: rows "portable" (gemm.comp), "cpu" (the CPU variant as it runs
 * where texel buffers are usable: gemm_texel_s64 where the device has
 * shaderInt64 and op(A) is A, else gemm_texel.comp), "cpu-st32"
 * (gemm_texel.comp where row "cpu" ran the 64-bit form, forced by
 * gemm_store64=0), "cpu-ssbo" (the CPU variant falling back to the
 * storage-buffer form, forced by lowering the context's
 * maxTexelBufferElements to 0, as a buffer too large to view would:
 * gemm_cpu_s64 where the device has shaderInt64, else gemm_cpu)
 * and "cpu-ssbo32" (gemm_cpu.comp where "cpu-ssbo" ran the 64-bit form).
 * Each row checks that svk_gemm_record chose the kernel it names. Every
 * transpose combination, awkward shapes (1, primes, non-multiples of every
 * tile), batches and two-level batches, padded leading dimensions and batch
 * strides, operands at element offsets that are and are not multiples of 4
 * (the vec4 paths), alpha/beta and bias.
 * Padding columns and the slack between batches lie inside the output buffer
 * and must come back untouched, bit for bit; in the inputs they, and the
 * elements before and after each operand, are NaN, so a kernel that reads
 * outside op(A) or op(B) and lets it reach a result fails. The causal
 * structures (svk_gemm_structure) run with op(A) zero where promised, and
 * CAUSAL_OUT compares C on and below the diagonal. Every case gets the
 * split-K scratch svk_gemm_scratch_elems asks for (NaN before), so the
 * portable rows run split-K wherever a GPU would (lib/ops/gemm_split.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "ops/gemm.h"
#include "vk/vk_context.h"

/* ||out - ref|| / ||ref||: float32 accumulation over K terms of random sign
 * errs by about sqrt(K) * 2^-24 relative; 1e-5 leaves room for K in the
 * thousands. Products without an epilogue measure against each output's
 * larger of |ref| and the root of its terms' squares (run_case says why). */
static const double TOL_GEMM = 1e-5;
/* The coopmat rows round A and B to float16 (unit roundoff 2^-11, 4.9e-4)
 * before multiplying; a product errs by up to twice that relative, and
 * the relative norm of the error stays about there whatever K. */
static const double TOL_GEMM_F16 = 4e-3;

/* DUAL_RESIDUAL's divisor: sqrt(6), the model's c at its third layer. */
static const float RES_C = 2.4494898f;

typedef struct gemm_case {
    int ta, tb;
    uint32_t M, N, K, batch;
    float alpha, beta;
    int bias;
    uint32_t pad;      /* extra elements per row of every operand, and between batches */
    int quick;         /* part of --quick */
    uint32_t outer;    /* groups of `batch` matrices (0: one), as attention's sequences of heads */
    uint32_t in_off;   /* element offset of A and B in their buffers (NaN before) */
    int epi;           /* svk_gemm_epilogue: 1 GELU (aux written), 2 GELU_BWD (aux read),
                        * 3 RESIDUAL (aux read), 4 DUAL_RESIDUAL (C in and out, aux read, aux2 written) */
    int out4;          /* C (and aux) at element 64: the kernels' vec4 stores where ldc allows */
    int structure;     /* svk_gemm_structure: A_LOWER, A_UPPER: op(A) zero where promised;
                        * CAUSAL_OUT: only C's lower triangle compared (the rest must be finite) */
    int sum_a;         /* also sum_a += the row sums of op(A) (trans_a, one matrix) */
} gemm_case;

static const gemm_case cases[] = {
    {0, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 17, 33, 65, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 1, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {1, 0, 333, 257, 129, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 0, 128, 128, 128, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 1024, 384, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 1, 1, 300, 77, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 300, 1, 77, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 65, 63, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 7, 5, 1999, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 0, 61, 67, 71, 1, 0.5f, -1.5f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 45, 131, 19, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 31, 29, 23, 1, 2.0f, 1.0f, 1, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 1, 5, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 37, 41, 43, 1, 1.0f, 0.5f, 0, 3, 0, 1, 0, 0, 0, 0, 0},
    {0, 0, 37, 29, 41, 5, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 64, 64, 16, 3, 1.0f, 0.0f, 0, 2, 0, 1, 0, 0, 0, 0, 0},
    {1, 0, 13, 11, 66, 7, 1.0f, 0.0f, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    /* Long k loops: lavapipe silently ends a shader's loops after 65535
     * iterations in all, so a kernel that loops per element of k (or
     * does not unroll its inner loops) comes back short here. */
    {0, 0, 9, 70, 20011, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {1, 1, 9, 70, 20000, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 1, 64, 256, 4096, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    /* Products with A [M, K] and K > 2048, which gemm_texel.comp runs as
     * dispatches over chunks of 1024 steps of k, the sums kept in C
     * between them (lib/ops/gemm_policy.c, svk_gemm_policy_k_chunks): a last chunk with a
     * K % 4 tail, alpha, the bias and the epilogues applied once at the
     * end, C's rows not vec4-aligned (N odd, padded) and aligned, batches;
     * and products that read C (beta, the dual residual), which are not
     * chunked. */
    {0, 0, 37, 45, 2053, 1, 0.5f, 0.0f, 1, 3, 1, 1, 0, 1, 0, 0, 0},
    {0, 0, 33, 64, 3072, 2, 1.0f, 0.0f, 0, 0, 1, 2, 0, 2, 1, 0, 0},
    {0, 1, 40, 36, 2500, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 3, 1, 0, 0},
    {0, 0, 21, 19, 2100, 1, 1.0f, 1.0f, 0, 1, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 24, 32, 2200, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 4, 1, 0, 0},
    /* Operands read along k whose rows are 2 or 4 KiB apart, which the
     * CPU texel form copies into its scratch with a wider leading
     * dimension first (lib/ops/gemm_pack.h): B of NT (with bias and
     * GELU), A of NN with K % 4 != 0 (the padding makes lda 1024), B of
     * TT beside sum_a, and both with the chunks of K above. */
    {0, 1, 37, 70, 512, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 1, 1, 0, 0},
    {0, 0, 33, 20, 1022, 1, 0.5f, 0.0f, 0, 2, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 40, 64, 1024, 1, 1.0f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {0, 1, 20, 40, 3072, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 3, 1, 0, 0},
    /* Training shapes: dW = X^T dY over 1024 tokens, aligned. */
    {1, 0, 128, 512, 1024, 1, 1.0f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    /* Split-K on GPUs (few tiles of C, long K): beta 0 and 1, parts of K
     * not a multiple of the k tile, every transpose, a padded C (which
     * does not split: ldc != N). */
    {1, 0, 128, 128, 1024, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 37, 29, 1000, 1, 0.5f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 5, 129, 768, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 64, 64, 832, 1, 2.0f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 130, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 61, 67, 1024, 1, 1.0f, 0.0f, 0, 3, 1, 1, 0, 0, 0, 0, 0},
    /* Two batch levels, groups of `batch` matrices a further pad apart. */
    {0, 1, 19, 19, 8, 3, 0.5f, 0.0f, 0, 1, 1, 5, 0, 0, 0, 0, 0},
    {1, 0, 32, 32, 32, 4, 1.0f, 0.0f, 0, 0, 1, 3, 0, 0, 0, 0, 0},
    /* One operand vec4-aligned and the other not, each way round, and
     * blocks cut by M, N and K % 4 at once. */
    {0, 0, 33, 31, 64, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 34, 32, 63, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 36, 45, 50, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 0, 35, 44, 52, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 100, 60, 128, 1, 1.0f, 0.5f, 1, 0, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 99, 61, 127, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {1, 1, 20, 24, 36, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 21, 25, 37, 2, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 0},
    /* Operands at element offsets: a multiple of 4 (vec4 fetches) and not. */
    {0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 0, 0, 1, 1, 3, 0, 0, 0, 0},
    {1, 0, 64, 64, 64, 1, 1.0f, 0.0f, 1, 0, 1, 1, 4, 0, 0, 0, 0},
    {0, 1, 33, 64, 32, 2, 1.0f, 0.0f, 0, 4, 1, 1, 8, 0, 0, 0, 0},
    {1, 1, 24, 28, 40, 1, 1.0f, -1.0f, 0, 0, 1, 1, 2, 0, 0, 0, 0},
    {0, 0, 24, 32, 44, 3, 1.0f, 0.0f, 0, 4, 1, 2, 4, 0, 0, 0, 0},
    /* The training step's shapes (tokens x features), aligned. */
    {0, 0, 1024, 128, 512, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {0, 1, 1024, 512, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 0, 0, 0, 0},
    /* C at element 64: vec4 stores (ldc, N and the offsets multiples of 4)
     * and, cut by N or padded, the scalar ones from there. */
    {0, 1, 100, 60, 128, 1, 1.0f, 0.5f, 1, 0, 1, 1, 0, 0, 1, 0, 0},
    {1, 0, 64, 64, 64, 1, 1.0f, 0.0f, 1, 0, 1, 1, 4, 0, 1, 0, 0},
    {0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 1, 4, 1, 1, 0, 0, 1, 0, 0},
    /* Epilogues: GELU (the MLP's fc: C the pre-activation, aux gelu of it)
     * and GELU_BWD (the MLP's proj backward: C times gelu' of aux), at the
     * training shapes with vec4 stores and at awkward ones. */
    {0, 1, 1024, 512, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 1, 1, 0, 0},
    {0, 0, 37, 41, 43, 1, 1.0f, 0.0f, 1, 5, 1, 1, 0, 1, 0, 0, 0},
    {1, 0, 24, 32, 44, 3, 1.0f, 0.0f, 1, 4, 1, 2, 4, 1, 1, 0, 0},
    {0, 0, 1024, 512, 128, 1, 1.0f, 0.0f, 0, 0, 0, 1, 0, 2, 1, 0, 0},
    {1, 1, 31, 29, 23, 1, 2.0f, 1.0f, 1, 0, 1, 1, 0, 2, 0, 0, 0},
    {0, 1, 64, 64, 16, 3, 1.0f, 0.0f, 0, 4, 1, 1, 0, 2, 1, 0, 0},
    /* Residual epilogues: the attention and MLP projections' C = x + z
     * (pre, post) and SiameseNorm's x += z / c, y' = y + z. */
    {0, 1, 1024, 128, 512, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 3, 1, 0, 0},
    {0, 1, 37, 41, 43, 1, 1.0f, 0.0f, 1, 5, 1, 1, 0, 3, 0, 0, 0},
    {0, 1, 1024, 128, 512, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 4, 1, 0, 0},
    {0, 1, 37, 41, 43, 1, 0.5f, 0.0f, 1, 5, 1, 1, 0, 4, 0, 0, 0},
    {1, 0, 24, 32, 44, 3, 1.0f, 0.0f, 0, 4, 1, 2, 4, 4, 1, 0, 0},
    /* The Linears' forwards as CPU devices run them, NN on a transposed
     * weight (svk_plan_options.linear_nn): qkv (N = 3C = 384: the 16 x 8
     * tile in rows of 16 invocations), the MLP's fc with its GELU, the
     * projections with SiameseNorm's residual; at the training shapes and
     * with 37 or 53 rows. */
    {0, 0, 1024, 384, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 0, 1, 0, 0},
    {0, 0, 37, 384, 128, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 0, 1, 0, 0},
    {0, 0, 1024, 512, 128, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 1, 1, 0, 0},
    {0, 0, 53, 512, 128, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 1, 1, 0, 0},
    {0, 0, 1024, 128, 512, 1, 1.0f, 0.0f, 1, 0, 0, 1, 0, 4, 1, 0, 0},
    {0, 0, 37, 128, 128, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 4, 1, 0, 0},
    /* The 16 x 8 tile's NN products with K >= 256, whose k loop takes eight
     * steps of k per iteration (lib/ops/gemm_policy.c texel_k8): K % 4 tails,
     * operands off a vec4 (padded rows, offsets of 1), beta, the bias and
     * the GELU backward's and the dual residual's epilogues. */
    {0, 0, 37, 64, 259, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 0, 1, 0, 0},
    {0, 0, 29, 128, 264, 1, 1.0f, 0.5f, 0, 3, 1, 1, 1, 0, 0, 0, 0},
    {0, 0, 53, 512, 256, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 2, 1, 0, 0},
    {0, 0, 40, 128, 392, 1, 1.0f, 0.0f, 1, 0, 1, 1, 0, 4, 1, 0, 0},
    /* Causal structure (attention's products): scores wanted on and below
     * the diagonal only (q k^T, dout v^T), op(A) lower (P v, dS k) and
     * upper (P^T dout, dS^T q) triangular; one matrix, a prime side and
     * the step's T = 128, batches of heads and sequences, rectangles. */
    {0, 1, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, SVK_GEMM_CAUSAL_OUT, 0},
    {0, 1, 37, 37, 32, 3, 0.5f, 0.0f, 0, 0, 1, 2, 0, 0, 0, SVK_GEMM_CAUSAL_OUT, 0},
    {0, 1, 128, 128, 64, 2, 0.125f, 0.0f, 0, 0, 0, 2, 0, 0, 1, SVK_GEMM_CAUSAL_OUT, 0},
    {0, 1, 131, 129, 13, 1, 1.0f, 0.5f, 0, 3, 1, 1, 0, 0, 0, SVK_GEMM_CAUSAL_OUT, 0},
    {0, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, SVK_GEMM_A_LOWER, 0},
    {0, 0, 37, 32, 37, 3, 1.0f, 0.0f, 0, 0, 1, 2, 0, 0, 0, SVK_GEMM_A_LOWER, 0},
    {0, 0, 128, 64, 128, 2, 1.0f, 0.0f, 0, 0, 0, 2, 0, 0, 1, SVK_GEMM_A_LOWER, 0},
    {0, 0, 50, 20, 33, 1, 1.0f, 0.0f, 0, 1, 1, 1, 0, 0, 0, SVK_GEMM_A_LOWER, 0},
    {0, 0, 33, 20, 50, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, SVK_GEMM_A_LOWER, 0},
    {1, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, SVK_GEMM_A_UPPER, 0},
    {1, 0, 37, 32, 37, 3, 1.0f, 0.0f, 0, 0, 1, 2, 0, 0, 0, SVK_GEMM_A_UPPER, 0},
    {1, 0, 128, 64, 128, 2, 1.0f, 0.0f, 0, 0, 0, 2, 0, 0, 1, SVK_GEMM_A_UPPER, 0},
    {1, 0, 50, 20, 33, 1, 1.0f, 0.0f, 0, 1, 1, 1, 0, 0, 0, SVK_GEMM_A_UPPER, 0},
    {1, 0, 33, 20, 50, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, SVK_GEMM_A_UPPER, 0},
    /* sum_a, a Linear's bias gradient beside its weight gradient: the
     * training shapes (dW += dy^T x over 1024 tokens, split on GPUs), one
     * element, K % 4 of 1 to 3, rows cut by the block, padded, at offsets. */
    {1, 0, 128, 512, 1024, 1, 1.0f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 384, 128, 1024, 1, 1.0f, 1.0f, 0, 0, 0, 1, 0, 0, 0, 0, 1},
    {1, 0, 128, 128, 1024, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 1, 1, 1, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 7, 5, 1999, 1, 1.0f, 0.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 37, 29, 1001, 1, 0.5f, 1.0f, 0, 0, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 61, 67, 1026, 1, 1.0f, 0.0f, 0, 3, 1, 1, 0, 0, 0, 0, 1},
    {1, 0, 64, 64, 64, 1, 1.0f, 0.0f, 0, 0, 1, 1, 4, 0, 1, 0, 1},
    {1, 0, 35, 44, 52, 1, 1.0f, 0.0f, 0, 0, 1, 1, 3, 0, 0, 0, 1},
};

/* A stored operand: rows x cols with leading dimension ld, batches stride
 * apart, outer groups of them stride2 apart. */
typedef struct layout {
    uint32_t rows, cols, ld, stride, stride2;
    size_t total;
} layout;

static layout make_layout(uint32_t rows, uint32_t cols, uint32_t pad, uint32_t batch, uint32_t outer)
{
    layout l = {rows, cols, cols + pad, 0, 0, 0};
    l.stride = rows * l.ld + pad;
    l.stride2 = batch * l.stride + pad;
    l.total = (size_t)outer * l.stride2;
    return l;
}

/* Whether element i of a layout lies in one of its batch x outer matrices
 * (else it is padding or slack). */
static bool inside(const layout *l, size_t i, uint32_t batch)
{
    size_t in_group = i % l->stride2, in_batch = in_group % l->stride, col = in_batch % l->ld;
    return in_group < (size_t)batch * l->stride && in_batch < (size_t)l->rows * l->ld && col < l->cols;
}

/* Zeroes op(A)[m, k] where the case promises zeros (A_LOWER: k > m;
 * A_UPPER: k < m) in every matrix of A's layout. */
static void zero_structure(const gemm_case *g, const layout *A, uint32_t outer, float *a)
{
    if (g->structure != SVK_GEMM_A_LOWER && g->structure != SVK_GEMM_A_UPPER)
        return;
    for (uint32_t o = 0; o < outer; o++)
        for (uint32_t b = 0; b < g->batch; b++)
            for (uint32_t m = 0; m < g->M; m++)
                for (uint32_t k = 0; k < g->K; k++)
                    if (g->structure == SVK_GEMM_A_LOWER ? k > m : k < m)
                        a[(size_t)o * A->stride2 + (size_t)b * A->stride +
                          (g->ta ? (size_t)k * A->ld + m : (size_t)m * A->ld + k)] = 0.0f;
}

/* An input operand: random inside its matrices, NaN in their padding and
 * slack and in the off elements before it and a few after, uploaded. */
static svk_tref poisoned_input(cf_case *c, const char *name, const layout *l, uint32_t batch, uint32_t off,
                               float **host, const gemm_case *structure_of)
{
    const size_t after = 7, n = off + l->total + after;
    float *x = cf_random(c, n, -1, 1);
    *host = x ? x + off : NULL;
    if (!x)
        return (svk_tref){0};
    cf_fill_nan(x, off);
    cf_fill_nan(x + off + l->total, after);
    for (size_t i = 0; i < l->total; i++)
        if (!inside(l, i, batch))
            x[off + i] = NAN;
    if (structure_of)
        zero_structure(structure_of, l, l->total / l->stride2, x + off);
    svk_tref t = cf_input(c, name, x, n);
    t.off = off;
    return t;
}

/* A conformance row: the variant asked for and the kernel that must run. */
typedef struct gemm_row {
    const char *name;
    svk_gemm_variant variant;
    svk_kernel_id kernel;
    bool force_fallback;   /* maxTexelBufferElements 0 while the case records */
    bool store32;          /* gemm_store64=0 while the case records */
    double tol;
} gemm_row;

static void run_case(cf_state *cf, const gemm_case *g, const gemm_row *row)
{
    char shape[96];
    static const char *const epi_names[] = {"", " gelu", " gelu-bwd", " residual", " dual-residual"};
    static const char *const structure_names[] = {"", " causal-out", " A-lower", " A-upper"};
    snprintf(shape, sizeof(shape), "%s%s %ux%ux%u%s%s%s%s%s%s%s%s", g->ta ? "T" : "N", g->tb ? "T" : "N", g->M,
             g->N, g->K, g->batch > 1 ? " batched" : "", g->bias ? " bias" : "", g->beta != 0 ? " beta" : "",
             g->pad ? " padded" : "", epi_names[g->epi], g->out4 ? " C@64" : "", structure_names[g->structure],
             g->sum_a ? " sum_a" : "");
    const uint32_t outer = g->outer ? g->outer : 1;
    if (g->batch > 1 || outer > 1) {
        size_t len = strlen(shape);
        snprintf(shape + len, sizeof(shape) - len, outer > 1 ? " x%u x%u" : " x%u", g->batch, outer);
    }
    if (g->in_off) {
        size_t len = strlen(shape);
        snprintf(shape + len, sizeof(shape) - len, " @%u", g->in_off);
    }
    cf_case *c = cf_begin(cf, "gemm", row->name, shape);
    if (!c)
        return;
    layout A = make_layout(g->ta ? g->K : g->M, g->ta ? g->M : g->K, g->pad, g->batch, outer);
    layout B = make_layout(g->tb ? g->N : g->K, g->tb ? g->K : g->N, g->pad, g->batch, outer);
    layout C = make_layout(g->M, g->N, g->pad, g->batch, outer);
    float *ha, *hb, *hbias = cf_random(c, g->N, -1, 1);
    svk_tref ta = poisoned_input(c, "A", &A, g->batch, g->in_off, &ha, g);
    svk_tref tb = poisoned_input(c, "B", &B, g->batch, g->in_off, &hb, NULL);
    /* C's initial contents: random where beta reads them; NaN elsewhere
     * (inside the padding too), so reading C when beta == 0 shows. */
    float *hc = cf_alloc(c, C.total * sizeof(float));
    if (!ha || !hb || !hbias || !hc)
        goto end;
    cf_fill_nan(hc, C.total);
    if (g->beta != 0 || g->epi == 4) /* DUAL_RESIDUAL reads C (the x stream) with beta 0 */
        for (uint32_t o = 0; o < outer; o++)
            for (uint32_t b = 0; b < g->batch; b++)
                for (uint32_t m = 0; m < g->M; m++)
                    cf_fill_uniform(&cf->rng, hc + (size_t)o * C.stride2 + (size_t)b * C.stride + (size_t)m * C.ld,
                                    g->N, -1, 1);
    svk_tref tbias = g->bias ? cf_input(c, "bias", hbias, g->N) : (svk_tref){0};
    cf_out *out = cf_output_at(c, "C", C.total, hc, g->out4);
    /* The epilogue's aux, laid out as C: written by GELU (NaN before, the
     * padding must stay so), read by GELU_BWD (pre-activations around the
     * curve's bend, NaN in the padding). */
    float *haux = NULL;
    cf_out *aux_out = NULL, *aux2_out = NULL;
    svk_tref taux = {0}, taux2 = {0};
    if (g->epi == 1) {
        aux_out = cf_output_at(c, "aux", C.total, NULL, g->out4);
        if (!aux_out)
            goto end;
        taux = cf_tref(aux_out);
    } else if (g->epi >= 2) {
        haux = g->epi == 2 ? cf_random(c, C.total, -3, 3) : cf_random(c, C.total, -1, 1);
        if (!haux)
            goto end;
        for (size_t i = 0; i < C.total; i++)
            if (!inside(&C, i, g->batch))
                haux[i] = NAN;
        taux = cf_input(c, "aux", haux, C.total);
    }
    if (g->epi == 4) {
        aux2_out = cf_output_at(c, "aux2", C.total, NULL, g->out4);
        if (!aux2_out)
            goto end;
        taux2 = cf_tref(aux2_out);
    }
    /* sum_a: random before (it accumulates). */
    float *hsum = g->sum_a ? cf_random(c, g->M, -1, 1) : NULL;
    cf_out *sum_out = hsum ? cf_output_at(c, "sum_a", g->M, hsum, 0) : NULL;
    if (!out || (g->sum_a && !sum_out))
        goto end;
    svk_gemm_args args = {
        .shape = {.trans_a = g->ta, .trans_b = g->tb, .M = g->M, .N = g->N, .K = g->K, .batch = g->batch,
                  .outer = g->outer},
        .alpha = g->alpha, .beta = g->beta,
        .a = {.buf = ta.buf, .off = ta.off, .ld = A.ld, .stride = A.stride, .stride2 = A.stride2},
        .b = {.buf = tb.buf, .off = tb.off, .ld = B.ld, .stride = B.stride, .stride2 = B.stride2},
        .c = {.buf = out->buf, .off = cf_tref(out).off, .ld = C.ld, .stride = C.stride, .stride2 = C.stride2},
        .bias = tbias,
        .variant = row->variant,
        .epi = {.kind = (svk_gemm_epilogue)g->epi, .aux = taux, .aux2 = taux2, .res_c = RES_C},
        .structure = (svk_gemm_structure)g->structure,
        .sum_a = {.buf = sum_out ? sum_out->buf : NULL, .off = sum_out ? cf_tref(sum_out).off : 0},
    };
    svk_texel_caps saved = cf->ctx->profile.texel;
    if (row->force_fallback)
        cf->ctx->profile.texel.max_elements = 0;
    /* Split-K's partials (or sum_a's column sums): NaN before, never compared. */
    const uint64_t scratch_n = svk_gemm_scratch_elems(cf->ctx, &args);
    cf_out *scratch = scratch_n ? cf_output_at(c, "scratch", scratch_n, NULL, 0) : NULL;
    if (scratch_n && !scratch) {
        cf->ctx->profile.texel.max_elements = saved.max_elements;
        goto end;
    }
    if (scratch) {
        args.scratch = (svk_gemm_scratch){scratch->buf, cf_tref(scratch).off, scratch_n};
    }
    const svk_ctx_tuning tuning = cf_tuning(cf);
    svk_ctx_tuning store32 = tuning;
    store32.off |= SVK_TUNE_OFF_GEMM_STORE64;
    if (row->store32)
        cf_tune(cf, &store32);
    svk_kernel_id kernel;
    svk_status st = svk_gemm_kernel(&args, &kernel);
    if (st == SVK_OK)
        st = svk_gemm_record(cf_list(c), &args);
    cf_tune(cf, &tuning);
    /* Only the limit is restored: that the fallback was logged stays. */
    cf->ctx->profile.texel.max_elements = saved.max_elements;
    if (!cf_ok(c, st))
        goto end;
    /* Products with op(A) = A^T take the 32-bit stores (lib/ops/gemm_policy.c,
     * texel_kernel). */
    const svk_kernel_id want = row->kernel == SVK_KERNEL_GEMM_TEXEL_S64 && g->ta ? SVK_KERNEL_GEMM_TEXEL : row->kernel;
    if (kernel != want) {
        cf_fail(c, "recorded kernel '%s', the row tests '%s'", svk_kernel_info_get(kernel)->name,
                svk_kernel_info_get(want)->name);
        goto end;
    }
    if (row->force_fallback && !cf->ctx->texel_fallback_logged) {
        cf_fail(c, "fell back to storage buffers without saying why");
        goto end;
    }
    if (!cf_run(c))
        goto end;

    /* The reference reads only inside the matrices: the NaN padding stays
     * out of it as it must stay out of the kernels' results. */
    double *da = cf_to_double(c, ha, A.total), *db = cf_to_double(c, hb, B.total);
    double *dc = cf_to_double(c, hc, C.total), *dbias = cf_to_double(c, hbias, g->N);
    double *x0 = cf_to_double(c, hc, C.total); /* DUAL_RESIDUAL's x stream before */
    if (!da || !db || !dc || !dbias || !x0)
        goto end;
    for (uint32_t o = 0; o < outer; o++)
        svk_ref_gemm_f64(g->ta, g->tb, g->M, g->N, g->K, g->alpha, da + (size_t)o * A.stride2, A.ld, A.stride,
                         db + (size_t)o * B.stride2, B.ld, B.stride, g->beta, dc + (size_t)o * C.stride2, C.ld, C.stride,
                         g->bias ? dbias : NULL, g->batch);
    /* Without an epilogue C is compared against scale[i] = max(|C_ref|,
     * the root of the sum of its terms' squares) instead of |C_ref| alone
     * (cf_compare_scaled): a float sum of K terms errs by about sqrt(K)
     * 2^-24 of that root, so an output whose terms cancel far below it (a
     * 1 x 1 product is one such draw in a hundred) would otherwise fail by
     * chance. Where the terms do not cancel the root is about |C_ref|, and
     * the metric, the tolerance with it, is the plain one. */
    double *scale = NULL;
    if (!g->epi) {
        double *sa = cf_alloc(c, A.total * sizeof(double)), *sb = cf_alloc(c, B.total * sizeof(double));
        double *sc = cf_alloc(c, C.total * sizeof(double)), *sbias = cf_alloc(c, g->N * sizeof(double));
        scale = cf_alloc(c, C.total * sizeof(double));
        if (!sa || !sb || !sc || !sbias || !scale)
            goto end;
        for (size_t i = 0; i < A.total; i++)
            sa[i] = inside(&A, i, g->batch) ? (double)ha[i] * ha[i] : 0;
        for (size_t i = 0; i < B.total; i++)
            sb[i] = inside(&B, i, g->batch) ? (double)hb[i] * hb[i] : 0;
        for (size_t i = 0; i < C.total; i++)
            sc[i] = inside(&C, i, g->batch) && g->beta != 0.0f ? (double)hc[i] * hc[i] : 0;
        for (uint32_t n = 0; n < g->N; n++)
            sbias[n] = (double)hbias[n] * hbias[n];
        for (uint32_t o = 0; o < outer; o++)
            svk_ref_gemm_f64(g->ta, g->tb, g->M, g->N, g->K, (double)g->alpha * g->alpha,
                             sa + (size_t)o * A.stride2, A.ld, A.stride, sb + (size_t)o * B.stride2, B.ld, B.stride,
                             (double)g->beta * g->beta, sc + (size_t)o * C.stride2, C.ld, C.stride,
                             g->bias ? sbias : NULL, g->batch);
        for (size_t i = 0; i < C.total; i++)
            scale[i] = inside(&C, i, g->batch) ? fmax(fabs(dc[i]), sqrt(sc[i])) : 0;
    }
    /* The epilogue on the reference's result z: gelu of it into aux, or
     * times gelu' of aux (lib/ref/gelu.c); aux + z; x + z / c and aux + z
     * (lib/ref/residual.c's formulas). */
    double *daux = g->epi ? cf_alloc(c, C.total * sizeof(double)) : NULL;
    if (g->epi && !daux)
        goto end;
    for (size_t i = 0; g->epi && i < C.total; i++) {
        if (!inside(&C, i, g->batch)) {
            daux[i] = 0;
            continue;
        }
        if (g->epi == 1) {
            svk_ref_gelu_fwd_f64(1, &dc[i], &daux[i]);
        } else if (g->epi == 2) {
            const double x = haux[i], dout = dc[i];
            svk_ref_gelu_bwd_f64(1, &x, &dout, &dc[i]);
        } else if (g->epi == 3) {
            dc[i] = (double)haux[i] + dc[i];
        } else {
            daux[i] = (double)haux[i] + dc[i];
            dc[i] = x0[i] + dc[i] / (double)RES_C;
        }
    }
    /* Padding and slack: the reference leaves them as they were (NaN); the
     * metric needs finite values, so compare them bitwise here and give the
     * metric zeros there. */
    for (size_t i = 0; i < C.total; i++) {
        if (inside(&C, i, g->batch))
            continue;
        if (memcmp(&out->host[i], &hc[i], sizeof(float)))
            cf_fail(c, "C: element %zu outside the result (padding or batch slack) was written", i);
        cf_out *w = aux_out ? aux_out : aux2_out; /* the epilogue's output */
        if (w && !isnan(w->host[i]))
            cf_fail(c, "%s: element %zu outside the result (padding or batch slack) was written", w->name, i);
        dc[i] = out->host[i] = 0;
        if (w)
            w->host[i] = 0;
        if (scale)
            scale[i] = 0;
    }
    /* CAUSAL_OUT: above the diagonal C is unspecified, left as it was (the
     * NaN it was poisoned with, or beta's C) or written finite; it leaves
     * the comparison. */
    for (size_t i = 0; g->structure == SVK_GEMM_CAUSAL_OUT && i < C.total; i++) {
        if (!inside(&C, i, g->batch) || (i % C.stride2) % C.stride % C.ld <= (i % C.stride2) % C.stride / C.ld)
            continue;
        if (memcmp(&out->host[i], &hc[i], sizeof(float)) && !isfinite(out->host[i]))
            cf_fail(c, "C: element %zu above the diagonal was written, not finite", i);
        dc[i] = out->host[i] = 0;
        if (scale)
            scale[i] = 0;
    }
    if (scale)
        cf_compare_scaled(c, out, dc, scale, row->tol);
    else
        cf_compare(c, out, dc, row->tol);
    if (aux_out || aux2_out)
        cf_compare(c, aux_out ? aux_out : aux2_out, daux, row->tol);
    if (sum_out) {
        /* op(A) is A [K, M] transposed, one matrix. */
        double *dsum = cf_to_double(c, hsum, g->M);
        if (!dsum)
            goto end;
        for (uint32_t k = 0; k < g->K; k++)
            for (uint32_t m = 0; m < g->M; m++)
                dsum[m] += da[(size_t)k * A.ld + m];
        cf_compare(c, sum_out, dsum, row->tol);
    }
end:
    cf_end(c);
}

void cf_run_gemm(cf_state *cf)
{
    /* The CPU variant runs gemm_texel.comp wherever the device reads both
     * float formats as uniform texel buffers (lavapipe does) and
     * the driver fetches them fast (or the tuning asks for them). */
    const svk_texel_caps *tc = &cf->ctx->profile.texel;
    const bool texel = tc->r32f && tc->rgba32f && svk_op_texel_allowed(cf->ctx);
    /* Without subgroupShuffle both CPU forms give way to the portable one. */
    const bool sh = cf->ctx->profile.subgroup_shuffle;
    /* With shaderInt64 (and the tuning's gemm_store64 on) the texel form
     * stores through 64-bit views where op(A) is A, and the storage-buffer
     * form loads and stores through them; the 32-bit forms are then rows
     * 2 and 5's. */
    const bool s64 = svk_op_gemm_store64_allowed(cf->ctx);
    const svk_kernel_id texel_id = s64 ? SVK_KERNEL_GEMM_TEXEL_S64 : SVK_KERNEL_GEMM_TEXEL;
    const svk_kernel_id cpu_id = s64 ? SVK_KERNEL_GEMM_CPU_S64 : SVK_KERNEL_GEMM_CPU;
    const gemm_row rows[] = {
        {"portable", SVK_GEMM_VARIANT_PORTABLE, SVK_KERNEL_GEMM, false, false, TOL_GEMM},
        {texel ? "cpu" : "cpu-ssbo", SVK_GEMM_VARIANT_CPU,
         !sh ? SVK_KERNEL_GEMM : texel ? texel_id : cpu_id, false, false, TOL_GEMM},
        {"cpu-st32", SVK_GEMM_VARIANT_CPU, SVK_KERNEL_GEMM_TEXEL, false, true, TOL_GEMM},
        {"cpu-ssbo", SVK_GEMM_VARIANT_CPU, sh ? cpu_id : SVK_KERNEL_GEMM, true, false, TOL_GEMM},
        {"coopmat", SVK_GEMM_VARIANT_COOPMAT, SVK_KERNEL_GEMM_COOPMAT, false, false, TOL_GEMM_F16},
        /* (forced off the texel form only where the device has one) */
        {"cpu-ssbo32", SVK_GEMM_VARIANT_CPU, SVK_KERNEL_GEMM_CPU, texel, true, TOL_GEMM},
    };
    const svk_device_info *di = &cf->ctx->info;
    if (di->coopmat_m)
        printf("gemm: coopmat rows: cooperative matrices of %u x %u x %u (%s), float16 operands, tolerance %g\n",
               di->coopmat_m, di->coopmat_k, di->coopmat_n,
               di->coopmat_khr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix", TOL_GEMM_F16);
    else
        printf("gemm: no coopmat rows: device '%s' has no cooperative matrices libsvk can use "
               "(VK_KHR_ or VK_NV_cooperative_matrix, float16 x float16 + float32, one subgroup size)\n", di->name);
    for (size_t v = 0; v < sizeof(rows) / sizeof(rows[0]); v++) {
        if (v == 2 && !(texel && sh && s64))
            continue; /* row 1 was gemm_texel.comp, or no texel form runs */
        if (v == 3 && !texel)
            continue; /* row 1 was the storage-buffer form already */
        if (v == 4 && !di->coopmat_m)
            continue;
        if (v == 5 && !(sh && s64))
            continue; /* the storage-buffer form ran 32-bit already */
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            /* (row 1 ran gemm_texel.comp on op(A) = A^T already; row 5,
             * whose form differs from row 3's only in its loads' and
             * stores' widths, runs the quick cases) */
            if ((!cf->quick || cases[i].quick) && !(v == 2 && cases[i].ta) && !(v == 5 && !cases[i].quick))
                run_case(cf, &cases[i], &rows[v]);
    }
}
