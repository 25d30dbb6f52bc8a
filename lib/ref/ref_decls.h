/*
 * Prototypes of the reference kernels for one element type. Included by
 * ref.h twice, with SVK_REF_TYPE / SVK_REF_NAME set; no include guard on
 * purpose. Shapes are given beside each pointer; all arrays are row-major.
 */

/* GEMM, strided-batched, BLAS semantics:
 *   C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] (+ bias, broadcast over rows)
 * op(A) is [M, K]: A is stored [M, lda] (trans_a = 0) or [K, lda] (trans_a = 1).
 * op(B) is [K, N]: B is stored [K, ldb] (trans_b = 0) or [N, ldb] (trans_b = 1).
 * C is [M, ldc]. Batch b starts at A + b*stride_a (likewise B, C); bias is
 * [N] or NULL and shared by all batches. When beta == 0, C is not read (so
 * NaN in C does not propagate), as in BLAS. Accumulates in SVK_REF_TYPE. */
void SVK_REF_NAME(gemm)(int trans_a, int trans_b, size_t M, size_t N, size_t K,
                        SVK_REF_TYPE alpha,
                        const SVK_REF_TYPE *A, size_t lda, size_t stride_a,
                        const SVK_REF_TYPE *B, size_t ldb, size_t stride_b,
                        SVK_REF_TYPE beta,
                        SVK_REF_TYPE *C, size_t ldc, size_t stride_c,
                        const SVK_REF_TYPE *bias, size_t batch);
