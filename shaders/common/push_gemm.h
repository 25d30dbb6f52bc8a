/* Push constants of shaders/gemm.comp (see push_defs.h). Offsets, leading
 * dimensions and batch strides are in elements (floats), relative to the
 * start of each bound buffer. */
#ifndef SVK_PUSH_GEMM_H
#define SVK_PUSH_GEMM_H
#include "push_defs.h"

SVK_PUSH_BEGIN(svk_push_gemm)
    SVK_PUSH_U32(M)
    SVK_PUSH_U32(N)
    SVK_PUSH_U32(K)
    SVK_PUSH_U32(lda)
    SVK_PUSH_U32(ldb)
    SVK_PUSH_U32(ldc)
    SVK_PUSH_U32(off_a)
    SVK_PUSH_U32(off_b)
    SVK_PUSH_U32(off_c)
    SVK_PUSH_U32(off_bias)
    SVK_PUSH_U32(stride_a)
    SVK_PUSH_U32(stride_b)
    SVK_PUSH_U32(stride_c)
    /* Workgroup z = o * batch + b: matrix b of outer group o, at
     * off + b * stride + o * stride2. */
    SVK_PUSH_U32(batch)
    SVK_PUSH_U32(stride2_a)
    SVK_PUSH_U32(stride2_b)
    SVK_PUSH_U32(stride2_c)
    SVK_PUSH_U32(flags)     /* SVK_GEMM_FLAG_* */
    SVK_PUSH_U32(off_aux)   /* the epilogue's operand, laid out as C (its ldc and strides) */
    SVK_PUSH_U32(off_aux2)  /* DUAL_RESIDUAL's second stream out, laid out as C */
    SVK_PUSH_F32(res_c)     /* DUAL_RESIDUAL's divisor of the x stream's update */
    SVK_PUSH_F32(alpha)
    SVK_PUSH_F32(beta)
    SVK_PUSH_U32(off_sum_a) /* SVK_GEMM_FLAG_SUM_A's output */
SVK_PUSH_END(svk_push_gemm)

#define SVK_GEMM_FLAG_TRANS_A 1u
#define SVK_GEMM_FLAG_TRANS_B 2u
#define SVK_GEMM_FLAG_BIAS 4u
/* Epilogues (common/gemm_epilogue.glsl), after alpha, beta and the bias:
 * GELU: C gets the result r and aux gelu(r) (the MLP's pre-activation and
 * activation in one pass); GELU_BWD: C gets r * gelu'(aux), aux holding
 * the pre-activation (the activation's backward folded into the GEMM that
 * produces its incoming gradient). */
#define SVK_GEMM_FLAG_GELU 32u
#define SVK_GEMM_FLAG_GELU_BWD 64u
/* Residual epilogues (beta 0; z = alpha op(A) op(B) + bias): RESIDUAL:
 * C = aux + z (a residual add, into a new stream); DUAL_RESIDUAL: C += z /
 * res_c, aux2 = aux + z (SiameseNorm's dual update, residual_fwd.comp's
 * formulas: C the new x stream, in place, aux the old y stream, aux2 the
 * new one). */
#define SVK_GEMM_FLAG_RESIDUAL 128u
#define SVK_GEMM_FLAG_DUAL_RESIDUAL 256u
/* What the caller promises of the structure (svk_gemm_args.causal), per
 * matrix of the batch, row m and column n of C and step k: CAUSAL_OUT:
 * only C[m, n] with n <= m is needed (attention's scores: the rest of C
 * may be left as it was, or anything finite); A_LOWER: op(A)[m, k] = 0 for k > m;
 * A_UPPER: op(A)[m, k] = 0 for k < m (causal probabilities and their
 * transposes). The CPU forms skip the steps and blocks these make zero
 * (common/gemm_causal.glsl); the portable form computes them, which gives
 * the same C (the terms skipped are exact zeros). */
#define SVK_GEMM_FLAG_CAUSAL_OUT 512u
#define SVK_GEMM_FLAG_A_LOWER 1024u
#define SVK_GEMM_FLAG_A_UPPER 2048u
/* Not a push-constant flag: a bit of gemm_texel.comp's EPI_FLAGS
 * specialisation, set where the output loop may read aux and C through
 * their RGBA32F texel views (bindings 8 and 9) instead of storage loads. */
#define SVK_GEMM_SPEC_TEXEL_EPI 4096u
/* SUM_A (svk_gemm_args.sum_a): the kernel also adds the row sums of op(A)
 * to sum_a, from off_sum_a (gemm.comp: binding 6, a push flag;
 * gemm_texel.comp: binding 10, a bit of its EPI_FLAGS). With SUM_A_STORE
 * (gemm.comp only: split-K's partial products) matrix b of the batch
 * stores its sums at off_sum_a + b M instead. */
#define SVK_GEMM_FLAG_SUM_A 8192u
#define SVK_GEMM_FLAG_SUM_A_STORE 16384u
/* Not push-constant flags: bits of gemm_texel.comp's EPI_FLAGS for a
 * product recorded as dispatches over consecutive chunks of K
 * (lib/ops/gemm_policy.c says when): ACC_IN, the accumulators start from what C
 * holds (the previous chunk's); ACC_OUT, they are stored to C as they are,
 * without alpha, the bias or the epilogue (a chunk before the last). Each
 * output is then still one float summed in increasing k: the same bits as
 * one dispatch. */
#define SVK_GEMM_SPEC_ACC_IN 32768u
#define SVK_GEMM_SPEC_ACC_OUT 65536u
/* gemm_texel.comp's spec constant 12 only: the k loop takes eight steps
 * of k per iteration, not four (a dense product whose K & ~3 is a
 * multiple of 8). */
#define SVK_GEMM_SPEC_K8 131072u
/* gemm_texel.comp's spec constant 12 only: each subgroup (the workgroup's
 * one row of SG invocations) takes two rows of blocks of C, SG / 2 blocks
 * each, for a product too narrow to fill it with one (lib/ops/gemm_policy.c,
 * texel_rows2). */
#define SVK_GEMM_SPEC_ROWS2 262144u
/* Only shaders/gemm_cpu.comp reads these: the operand's offset, leading
 * dimension and batch stride are all multiples of 4 elements, so it may be
 * read as vec4s along its contiguous dimension. */
#define SVK_GEMM_FLAG_VEC4_A 8u
#define SVK_GEMM_FLAG_VEC4_B 16u

#endif
