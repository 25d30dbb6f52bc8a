/* Reference GEMM: the textbook triple loop, one dot product per output. */
#include "real.h"

static svk_real elem(const svk_real *m, size_t ld, int trans, size_t r, size_t c)
{
    /* Element (r, c) of op(m): stored transposed when trans is set. */
    return trans ? m[c * ld + r] : m[r * ld + c];
}

void SVK_REF(gemm)(int trans_a, int trans_b, size_t M, size_t N, size_t K,
                   svk_real alpha,
                   const svk_real *A, size_t lda, size_t stride_a,
                   const svk_real *B, size_t ldb, size_t stride_b,
                   svk_real beta,
                   svk_real *C, size_t ldc, size_t stride_c,
                   const svk_real *bias, size_t batch)
{
    for (size_t b = 0; b < batch; b++) {
        const svk_real *a = A + b * stride_a; /* op(a): [M, K] */
        const svk_real *bm = B + b * stride_b; /* op(bm): [K, N] */
        svk_real *c = C + b * stride_c;        /* [M, ldc] */
        for (size_t m = 0; m < M; m++) {
            for (size_t n = 0; n < N; n++) {
                svk_real acc = 0;
                for (size_t k = 0; k < K; k++)
                    acc += elem(a, lda, trans_a, m, k) * elem(bm, ldb, trans_b, k, n);
                svk_real v = alpha * acc;
                if (beta != 0)
                    v += beta * c[m * ldc + n];
                if (bias)
                    v += bias[n];
                c[m * ldc + n] = v;
            }
        }
    }
}
