#version 450
/*
 * GEMM, strided-batched: C = alpha * op(A) op(B) + beta * C (+ bias[n]).
 * Reference: lib/ref/gemm.c. Conformance: tools/conformance/conform_gemm.c.
 *
 * The portable variant: classic shared-memory tiling with register blocking.
 * A workgroup of WG_X x WG_Y invocations computes a BM x BN tile of C
 * (BM = WG_Y * TM, BN = WG_X * TN); each invocation owns TM x TN outputs,
 * spaced WG_Y rows and WG_X columns apart so that, for each k, invocations
 * of one row of the workgroup read the same A values from shared memory
 * (a broadcast) and neighbours read neighbouring B values. K is walked in
 * tiles of BK staged through shared memory. No subgroup operations: the
 * result does not depend on the subgroup size.
 *
 * Batch b is workgroup z. beta == 0 never reads C (BLAS semantics: NaN in
 * an output that is being overwritten must not survive).
 *
 * SVK_GEMM_FLAG_SUM_A (a Linear's bias gradient beside its weight
 * gradient, svk_gemm_args.sum_a): the workgroups of the first column of
 * tiles also sum their rows of op(A) as they read them from the staged
 * tile, in increasing k, and their first column of invocations adds the
 * sums to sum_a (or, with SUM_A_STORE, split-K's partial products, stores
 * matrix b's at b M). The other workgroups skip it (a branch uniform over
 * the workgroup).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/push_gemm.h" /* defines the push-constant block pc */

#include "common/kernel.glsl"
layout(constant_id = 3) const uint TM = 4;  /* rows of C per invocation */
layout(constant_id = 4) const uint TN = 4;  /* columns of C per invocation */
layout(constant_id = 5) const uint BK = 16; /* K per shared-memory stage */

SVK_BUF(0, readonly, BufA, a);
SVK_BUF(1, readonly, BufB, b);
SVK_BUF(2, SVK_RW, BufC, c);
SVK_BUF(3, readonly, BufBias, bias);
SVK_BUF(6, SVK_RW, BufSumA, sum_a);
#define GEMM_AUX_BINDING 4
#include "common/gemm_epilogue.glsl"

const uint WG_X = gl_WorkGroupSize.x;
const uint WG_Y = gl_WorkGroupSize.y;
const uint BM = WG_Y * TM;
const uint BN = WG_X * TN;
const uint THREADS = WG_X * WG_Y;

/* Rows of the tiles are padded by one float: staging a non-transposed A
 * (or a transposed B) writes down a column of the tile, BM (BN) floats
 * apart, which would put a warp's stores in one shared-memory bank. */
const uint LDA_S = BM + 1u, LDB_S = BN + 1u;
shared float tile_a[BK * LDA_S]; /* [BK][BM + 1]: op(A) tile, k-major */
shared float tile_b[BK * LDB_S]; /* [BK][BN + 1]: op(B) tile, k-major */

/* Stages the tile op(X)[x0:x0+BX, k0:k0+BK] of an operand (buffer buf
 * from base, leading dimension ld, nx rows in op(X)) into the shared tile
 * (k-major, row stride LD_S); zeros past the edges. along_k: X is stored
 * with k contiguous (A as [M, lda], B transposed as [N, ldb]), else with x
 * contiguous (A transposed as [K, lda], B as [K, ldb]); consecutive
 * invocations take consecutive addresses either way. */
#define GEMM_STAGE(tile, LD_S, BX, buf, base, ld, x0, nx, along_k)            \
    [[unroll]] for (uint i = tid; i < BX * BK; i += THREADS) {                \
        uint xx, kk;                                                          \
        if (along_k) { kk = i % BK; xx = i / BK; }                            \
        else         { xx = i % BX; kk = i / BX; }                            \
        const uint gx = (x0) + xx, gk = k0 + kk;                              \
        float v = 0.0;                                                        \
        if (gx < (nx) && gk < pc.K)                                           \
            v = buf[(base) + ((along_k) ? gx * (ld) + gk : gk * (ld) + gx)];  \
        tile[kk * LD_S + xx] = v;                                             \
    }

void main()
{
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint tid = ty * WG_X + tx;
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    const uint batch = gl_WorkGroupID.z % pc.batch, outer = gl_WorkGroupID.z / pc.batch;
    const bool trans_a = (pc.flags & SVK_GEMM_FLAG_TRANS_A) != 0u;
    const bool trans_b = (pc.flags & SVK_GEMM_FLAG_TRANS_B) != 0u;
    const uint base_a = pc.off_a + batch * pc.stride_a + outer * pc.stride2_a;
    const uint base_b = pc.off_b + batch * pc.stride_b + outer * pc.stride2_b;
    const uint base_c = pc.off_c + batch * pc.stride_c + outer * pc.stride2_c;

    float acc[TM * TN];
    [[unroll]] for (uint i = 0u; i < TM * TN; i++)
        acc[i] = 0.0;
    const bool sums = (pc.flags & SVK_GEMM_FLAG_SUM_A) != 0u && gl_WorkGroupID.x == 0u;
    float rsum[TM];
    [[unroll]] for (uint i = 0u; i < TM; i++)
        rsum[i] = 0.0;

    for (uint k0 = 0u; k0 < pc.K; k0 += BK) {
        /* Stage op(A)[m0:m0+BM, k0:k0+BK] and op(B)[k0:k0+BK, n0:n0+BN]. */
        GEMM_STAGE(tile_a, LDA_S, BM, a, base_a, pc.lda, m0, pc.M, !trans_a)
        GEMM_STAGE(tile_b, LDB_S, BN, b, base_b, pc.ldb, n0, pc.N, trans_b)
        barrier();

        [[unroll]] for (uint kk = 0u; kk < BK; kk++) {
            float ra[TM];
            float rb[TN];
            [[unroll]] for (uint i = 0u; i < TM; i++)
                ra[i] = tile_a[kk * LDA_S + ty + i * WG_Y];
            [[unroll]] for (uint j = 0u; j < TN; j++)
                rb[j] = tile_b[kk * LDB_S + tx + j * WG_X];
            [[unroll]] for (uint i = 0u; i < TM; i++)
                [[unroll]] for (uint j = 0u; j < TN; j++)
                    acc[i * TN + j] += ra[i] * rb[j];
            if (sums)
                [[unroll]] for (uint i = 0u; i < TM; i++)
                    rsum[i] += ra[i];
        }
        /* The next stage overwrites the tiles this one is still reading. */
        barrier();
    }

    if (sums && tx == 0u) {
        const bool store = (pc.flags & SVK_GEMM_FLAG_SUM_A_STORE) != 0u;
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            const uint m = m0 + ty + i * WG_Y;
            if (m >= pc.M)
                continue;
            if (store)
                sum_a[pc.off_sum_a + batch * pc.M + m] = rsum[i];
            else
                sum_a[pc.off_sum_a + m] += rsum[i];
        }
    }

    const bool has_bias = (pc.flags & SVK_GEMM_FLAG_BIAS) != 0u;
    [[unroll]] for (uint i = 0u; i < TM; i++) {
        const uint m = m0 + ty + i * WG_Y;
        if (m >= pc.M)
            continue;
        [[unroll]] for (uint j = 0u; j < TN; j++) {
            const uint n = n0 + tx + j * WG_X;
            if (n >= pc.N)
                continue;
            const uint idx = base_c + m * pc.ldc + n;
            float v = pc.alpha * acc[i * TN + j];
            if (pc.beta != 0.0)
                v += pc.beta * c[idx];
            if (has_bias)
                v += bias[pc.off_bias + n];
            c[idx] = svk_gemm_epilogue(v, idx);
        }
    }
}
