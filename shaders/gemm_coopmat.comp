#version 450
/*
 * GEMM on cooperative matrices (tensor cores), strided-batched:
 * C = alpha * op(A) op(B) + beta * C (+ bias[n]), then the epilogue.
 * Reference: lib/ref/gemm.c. Conformance: tools/conformance/conform_gemm.c
 * (rows "coopmat", where the device has the extension).
 *
 * Mixed precision: A and B are float32 in memory and rounded to float16
 * when staged (round to nearest even; beyond 65504 they become infinite),
 * products are accumulated in float32. lib/ops/gemm_policy.c picks this only on
 * request (SVK_GEMM_VARIANT_COOPMAT, or $SVK_GEMM_COOPMAT=1) on a device
 * with a float16 x float16 + float32 shape.
 *
 * Written against GL_NV_cooperative_matrix, the one Debian 12's glslang
 * compiles; the build also embeds this module rewritten into
 * SPV_KHR_cooperative_matrix (shaders/coopmat_khr.py) for devices that
 * offer only VK_KHR_cooperative_matrix. So use only what the rewrite
 * knows: matrix types each in one role of the multiply-adds, and loads and
 * stores whose column-major flag is a constant or a specialisation
 * constant.
 *
 * A workgroup is SGM x SGN subgroups; each subgroup owns FM x FN fragments
 * of C, each LM x LN (the device's shape, spec constants). op(A) and op(B)
 * are staged through shared memory as float16, BK = KSTEPS * LK values of
 * k at a time, each tile in its operand's memory order (rows along the
 * strided axis, the contiguous axis along them, rows padded by 8 halves:
 * 16 bytes), so staging is a straight copy (vec4 loads where the operand
 * is aligned, consecutive invocations on consecutive addresses in memory
 * and in the tile), and fragments load row- or column-major to match
 * (TRANS_A and TRANS_B are compiled in). The next stage's values are
 * loaded into registers while the current one is multiplied.
 * Out-of-range rows, columns and k are staged as zeros, so any shape
 * works. Each finished fragment goes through a per-subgroup patch of
 * shared memory, where the subgroup's invocations apply alpha, beta, the
 * bias and the epilogue and store what lies inside C: the same output code
 * as the other GEMMs, for any ldc and offset.
 *
 * Batch b is workgroup z. beta == 0 never reads C.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "common/push_gemm.h" /* defines the push-constant block pc */

/* The workgroup (kernel.glsl): local_size_x = the subgroup size * SGM *
 * SGN (lib/ops/gemm.c); the device has one subgroup size, so every
 * subgroup is full. */
#include "common/kernel.glsl"
layout(constant_id = 3) const uint LM = 16;     /* fragment shape: the device's */
layout(constant_id = 4) const uint LN = 16;
layout(constant_id = 5) const uint LK = 16;
layout(constant_id = 6) const uint SGM = 2;     /* subgroups along M, along N */
layout(constant_id = 7) const uint SGN = 2;
layout(constant_id = 8) const uint FM = 2;      /* fragments per subgroup along M, along N */
layout(constant_id = 9) const uint FN = 2;
layout(constant_id = 10) const uint KSTEPS = 2; /* fragments of k per shared-memory stage */
layout(constant_id = 11) const bool TRANS_A = false;
layout(constant_id = 12) const bool TRANS_B = false;

SVK_BUF4(0, readonly, BufA, a);
SVK_BUF4(1, readonly, BufB, b);
SVK_BUF(2, SVK_RW, BufC, c);
SVK_BUF(3, readonly, BufBias, bias);
#define GEMM_AUX_BINDING 4
#include "common/gemm_epilogue.glsl"

const uint BM = SGM * FM * LM;
const uint BN = SGN * FN * LN;
const uint BK = KSTEPS * LK;
const uint THREADS = gl_WorkGroupSize.x;
/* Each tile as stored: A_ROWS rows of A_COLS contiguous values. */
const uint A_ROWS = TRANS_A ? BK : BM, A_COLS = TRANS_A ? BM : BK;
const uint B_ROWS = TRANS_B ? BN : BK, B_COLS = TRANS_B ? BK : BN;
const uint LDA_S = A_COLS + 8u;  /* halves */
const uint LDB_S = B_COLS + 8u;
const uint LDC_S = LN + 4u;      /* floats */
/* vec4 chunks of a tile each invocation stages */
const uint A_PER = (A_ROWS * A_COLS / 4u + THREADS - 1u) / THREADS;
const uint B_PER = (B_ROWS * B_COLS / 4u + THREADS - 1u) / THREADS;
shared float16_t tile_a[A_ROWS * LDA_S];
shared float16_t tile_b[B_ROWS * LDB_S];
shared float tile_c[SGM * SGN * LM * LDC_S];  /* one fragment of C per subgroup */

/* Chunk q (4 values along the contiguous axis) of a tile of `cols`
 * columns: its row and first column. */
uvec2 chunk_at(uint q, uint cols)
{
    return uvec2(q / (cols / 4u), (q % (cols / 4u)) * 4u);
}

/* load_a, load_b: four consecutive values of an operand (buffer op, vec4
 * view op4) from element e, row in range, `left` values left in the row
 * (the rest read as 0); vec4 when aligned. */
#define GEMM_LOAD4(name, op, op4) \
vec4 name(uint e, bool row_ok, uint left, bool vec) \
{ \
    if (!row_ok || left == 0u) \
        return vec4(0.0); \
    if (vec && left >= 4u) \
        return op4[e / 4u]; \
    vec4 v = vec4(0.0); \
    [[unroll]] for (uint j = 0u; j < 4u; j++) \
        if (j < left) \
            v[j] = op[e + j]; \
    return v; \
}
GEMM_LOAD4(load_a, a, a4)
GEMM_LOAD4(load_b, b, b4)

void main()
{
    const uint tid = gl_LocalInvocationID.x;
    const uint sg = gl_SubgroupID;
    const uint wm = sg / SGN, wn = sg % SGN;
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    const uint batch = gl_WorkGroupID.z % pc.batch, outer = gl_WorkGroupID.z / pc.batch;
    const uint base_a = pc.off_a + batch * pc.stride_a + outer * pc.stride2_a;
    const uint base_b = pc.off_b + batch * pc.stride_b + outer * pc.stride2_b;
    const uint base_c = pc.off_c + batch * pc.stride_c + outer * pc.stride2_c;
    /* Offsets, leading dimensions and strides all multiples of 4 (lib/ops/gemm.c). */
    const bool vec_a = (pc.flags & SVK_GEMM_FLAG_VEC4_A) != 0u;
    const bool vec_b = (pc.flags & SVK_GEMM_FLAG_VEC4_B) != 0u;

    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[FM * FN];
    [[unroll]] for (uint i = 0u; i < FM * FN; i++)
        acc[i] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

    vec4 ra[A_PER], rb[B_PER];
    /* Loads stage k0 into ra, rb. A stored transposed is [K, lda] (its
     * rows are k, m contiguous), else [M, lda]; B transposed is [N, ldb]
     * (rows n, k contiguous), else [K, ldb]. */
#define LOAD_STAGE(k0)                                                                        \
    [[unroll]] for (uint p = 0u; p < A_PER; p++) {                                            \
        const uint q = tid + p * THREADS;                                                     \
        const uvec2 rc = chunk_at(q, A_COLS);                                                 \
        const uint row = (TRANS_A ? (k0) : m0) + rc.x, col = (TRANS_A ? m0 : (k0)) + rc.y;    \
        const uint rows = TRANS_A ? pc.K : pc.M, cols = TRANS_A ? pc.M : pc.K;                \
        ra[p] = load_a(base_a + row * pc.lda + col, q < A_ROWS * A_COLS / 4u && row < rows,   \
                       cols > col ? cols - col : 0u, vec_a);                                  \
    }                                                                                         \
    [[unroll]] for (uint p = 0u; p < B_PER; p++) {                                            \
        const uint q = tid + p * THREADS;                                                     \
        const uvec2 rc = chunk_at(q, B_COLS);                                                 \
        const uint row = (TRANS_B ? n0 : (k0)) + rc.x, col = (TRANS_B ? (k0) : n0) + rc.y;    \
        const uint rows = TRANS_B ? pc.N : pc.K, cols = TRANS_B ? pc.K : pc.N;                \
        rb[p] = load_b(base_b + row * pc.ldb + col, q < B_ROWS * B_COLS / 4u && row < rows,   \
                       cols > col ? cols - col : 0u, vec_b);                                  \
    }

    /* Stores the stage loaded into r (PER chunks an invocation) into the
     * shared tile (ROWS x COLS, row stride LD_S) as float16. */
#define STORE_STAGE(tile, LD_S, r, PER, ROWS, COLS)                                           \
    [[unroll]] for (uint p = 0u; p < PER; p++) {                                              \
        const uint q = tid + p * THREADS;                                                     \
        const uvec2 rc = chunk_at(q, COLS);                                                   \
        if (q < ROWS * COLS / 4u)                                                             \
            [[unroll]] for (uint j = 0u; j < 4u; j++)                                         \
                tile[rc.x * LD_S + rc.y + j] = float16_t(r[p][j]);                            \
    }

    LOAD_STAGE(0u)
    for (uint k0 = 0u; k0 < pc.K; k0 += BK) {
        /* The stage before has been read by every subgroup. */
        barrier();
        STORE_STAGE(tile_a, LDA_S, ra, A_PER, A_ROWS, A_COLS)
        STORE_STAGE(tile_b, LDB_S, rb, B_PER, B_ROWS, B_COLS)
        barrier();
        if (k0 + BK < pc.K) {
            LOAD_STAGE(k0 + BK)
        }

        [[unroll]] for (uint ks = 0u; ks < KSTEPS; ks++) {
            fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> fa[FM];
            fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> fb[FN];
            /* Fragment (i, j) of op(A), op(B): row-major in a tile stored
             * that way, column-major in a transposed one. */
            [[unroll]] for (uint i = 0u; i < FM; i++) {
                const uint r0 = (wm * FM + i) * LM;
                coopMatLoadNV(fa[i], tile_a, TRANS_A ? ks * LK * LDA_S + r0 : r0 * LDA_S + ks * LK, LDA_S, TRANS_A);
            }
            [[unroll]] for (uint j = 0u; j < FN; j++) {
                const uint c0 = (wn * FN + j) * LN;
                coopMatLoadNV(fb[j], tile_b, TRANS_B ? c0 * LDB_S + ks * LK : ks * LK * LDB_S + c0, LDB_S, TRANS_B);
            }
            [[unroll]] for (uint i = 0u; i < FM; i++)
                [[unroll]] for (uint j = 0u; j < FN; j++)
                    acc[i * FN + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * FN + j]);
        }
    }

    const bool has_bias = (pc.flags & SVK_GEMM_FLAG_BIAS) != 0u;
    const uint cpatch = sg * LM * LDC_S;
    [[unroll]] for (uint i = 0u; i < FM; i++) {
        [[unroll]] for (uint j = 0u; j < FN; j++) {
            coopMatStoreNV(acc[i * FN + j], tile_c, cpatch, LDC_S, false);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint fm = m0 + (wm * FM + i) * LM, fn = n0 + (wn * FN + j) * LN;
            for (uint e = gl_SubgroupInvocationID; e < LM * LN; e += gl_SubgroupSize) {
                const uint m = fm + e / LN, n = fn + e % LN;
                if (m >= pc.M || n >= pc.N)
                    continue;
                const uint idx = base_c + m * pc.ldc + n;
                float v = pc.alpha * tile_c[cpatch + (e / LN) * LDC_S + e % LN];
                if (pc.beta != 0.0)
                    v += pc.beta * c[idx];
                if (has_bias)
                    v += bias[pc.off_bias + n];
                c[idx] = svk_gemm_epilogue(v, idx);
            }
            /* The next fragment overwrites the patch being read. */
            subgroupMemoryBarrierShared();
            subgroupBarrier();
        }
    }
}
