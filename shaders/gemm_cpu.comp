#version 450
/*
 * GEMM, strided-batched, for CPU Vulkan devices (lavapipe), through storage
 * buffers; shaders/meson.build builds it as gemm_cpu and, with GEMM_CPU_64
 * (below), gemm_cpu_s64:
 *   C = alpha * op(A) op(B) + beta * C (+ bias[n]).
 * Same contract and push constants as shaders/gemm.comp (the portable
 * variant). On CPU devices lib/ops/gemm_policy.c picks shaders/gemm_texel.comp,
 * the same method reading uniform texel buffers (about 3 times faster on
 * lavapipe), and this one where an operand cannot be viewed as a texel
 * buffer or $SVK_TEXEL_BUFFERS=0. Reference: lib/ref/gemm.c.
 *
 * Why a separate variant: on a CPU driver a workgroup is a loop over SIMD
 * subgroups, every barrier() is a coroutine switch, and a shared-memory
 * access costs as much as a buffer access, so the portable kernel's staging
 * through shared memory buys nothing and its barriers cost a lot. Here there
 * is no shared memory and no barrier: each invocation owns a TM x TN block
 * of C and reads op(A) and op(B) straight from the buffers into registers,
 * four steps of k at a time.
 *
 * Layout: the workgroup is a row of WG_X invocations (local_size_y/z must be
 * 1). All invocations of workgroup (x, y) share the rows y*TM .. y*TM+TM-1;
 * invocation i takes the columns x*WG_X*TN + i*TN .. +TN-1.
 *
 * Two paths, chosen per workgroup (a uniform branch):
 *  - fast: the workgroup's block lies inside C and both operands are
 *    vec4-aligned (SVK_GEMM_FLAG_VEC4_A/B: offset, leading dimension and
 *    batch stride multiples of 4). op(A) and op(B) are read as vec4s along
 *    their contiguous dimension (a CPU driver pays per load instruction and
 *    lane, so one vec4 load beats four float loads), k in chunks of 4 and a
 *    scalar tail.
 *  - generic: anything else (edge blocks, odd offsets): float loads with
 *    rows and columns beyond M, N clamped to the last valid one (always in
 *    bounds), skipped at the store.
 * Both sum each output in one float accumulator in increasing k, so the
 * result is deterministic and does not depend on the path, the subgroup size
 * or the block shape. No subgroup operations. beta == 0 never reads C.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require /* common/gemm_cpu_store.glsl */
/* GEMM_CPU_64: the aligned (vec4) loads of A and B and the stores of C,
 * aux and aux2 go through 64-bit views, a pair of u64 per vec4. lavapipe
 * loads and stores a value whose address differs per lane one lane and
 * one component at a time, a bounds check each: two components instead of
 * four halve those. Measured on lavapipe of Mesa 25.0.7 (which runs this
 * form): docs/PERFORMANCE.md. The module then needs shaderInt64, so the
 * form without it stays, for devices that lack it. */
#ifdef GEMM_CPU_64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define GEMM_STORE64
#endif

#include "common/push_gemm.h" /* defines the push-constant block pc */

#include "common/kernel.glsl"
layout(constant_id = 3) const uint TM = 16;         /* rows of C per invocation, a multiple of 4 */
layout(constant_id = 4) const uint TN = 4;          /* columns of C per invocation, a multiple of 4 */
layout(constant_id = 5) const bool TRANS_A = false; /* must match pc.flags */
layout(constant_id = 6) const bool TRANS_B = false; /* must match pc.flags */
/* The subgroup size the host expects (0: share nothing). When the shader
 * runs at exactly this size and WG_X is a multiple of it, the fast path
 * spreads the loads of op(A), which every invocation of the workgroup needs,
 * over the subgroup and hands the values round with subgroupShuffle from a
 * compile-time lane; at any other size it loads them itself. */
layout(constant_id = 7) const uint SG = 0;
/* The bias and epilogue bits of pc.flags and whether beta != 0, as the
 * host set them: compiled in, as in gemm_texel.comp. */
layout(constant_id = 8) const uint EPI_FLAGS = 0u;
layout(constant_id = 9) const bool READ_C = false;
/* C (and the bias, aux and aux2) may be accessed as vec4s: as
 * gemm_texel.comp's VEC_C (lib/ops/gemm.c sets both alike). */
layout(constant_id = 10) const bool VEC_C = false;

/* Each operand is bound once and seen both as floats and as vec4s. */
SVK_BUF4(0, readonly, BufA, a);
SVK_BUF4(1, readonly, BufB, b);
#ifdef GEMM_CPU_64
layout(set = 0, binding = 0, std430) readonly buffer BufA8 { u64vec2 a8[]; };
layout(set = 0, binding = 1, std430) readonly buffer BufB8 { u64vec2 b8[]; };
layout(set = 0, binding = 2, std430) buffer BufC8 { u64vec2 c8[]; };
/* the vec4 whose bits a pair of u64 hold (the bits as they are, NaNs too) */
vec4 svk_gemm_from64(const u64vec2 v)
{
    return vec4(uintBitsToFloat(unpackUint2x32(v.x)), uintBitsToFloat(unpackUint2x32(v.y)));
}
#define GEMM_LOAD4(buf, i) svk_gemm_from64(buf##8[i])
#else
#define GEMM_LOAD4(buf, i) buf##4[i]
#endif
SVK_BUF4(2, SVK_RW, BufC, c);
SVK_BUF4(3, readonly, BufBias, bias);
#define GEMM_AUX_BINDING 4
#define GEMM_EPI_FLAGS EPI_FLAGS
#define GEMM_EPILOGUE_VEC4
#include "common/gemm_epilogue.glsl"
#include "common/gemm_causal.glsl"

const uint WG_X = gl_WorkGroupSize.x;
const uint TN4 = TN / 4u;

/* acc[i * TN4 + j / 4][j % 4]: row i, column j of the invocation's block. */
vec4 acc[TM * TN4];

/* Four consecutive floats of a buffer at element e: one vec4 load when vec
 * (e is then a multiple of 4), else four float loads. */
vec4 load4_a(uint e, bool vec)
{
    return vec ? GEMM_LOAD4(a, e >> 2) : vec4(a[e], a[e + 1u], a[e + 2u], a[e + 3u]);
}
vec4 load4_b(uint e, bool vec)
{
    return vec ? GEMM_LOAD4(b, e >> 2) : vec4(b[e], b[e + 1u], b[e + 2u], b[e + 3u]);
}

/* Item p (0 <= p < TM) of op(A) for the steps k .. k+3, the p-th of the
 * k loop's pa[]: row m0 + p of A [M, K], or for A [K, M] step k + p / TM4
 * of rows m0 + 4 (p % TM4) .. +3. Unless vec (the block inside C), rows
 * past M are clamped to the last (their results are never stored). */
vec4 a_item(const uint base_a, const uint m0, const uint k, const uint p, const bool vec)
{
    if (!TRANS_A) {
        const uint m = vec ? m0 + p : min(m0 + p, pc.M - 1u);
        return load4_a(base_a + m * pc.lda + k, vec);
    }
    const uint TM4 = TM / 4u;
    const uint row = base_a + (k + p / TM4) * pc.lda, m = m0 + 4u * (p % TM4);
    return vec ? load4_a(row + m, true)
               : vec4(a[row + min(m, pc.M - 1u)], a[row + min(m + 1u, pc.M - 1u)], a[row + min(m + 2u, pc.M - 1u)],
                      a[row + min(m + 3u, pc.M - 1u)]);
}

/*
 * The k loop. vec and share are compile-time constants at every call (the
 * function is inlined and folded), so each call is its own straight-line
 * loop: a CPU driver runs both sides of a branch whenever it cannot prove
 * one side empty, so the hot loop must contain none.
 *  vec: the block lies inside C and the operands are vec4-aligned: vec4
 *       loads along each operand's contiguous dimension. Otherwise rows and
 *       columns past M, N are clamped to the last valid one (always in
 *       bounds; those results are never stored) and loaded as floats.
 *  share: the subgroup is SG invocations of this workgroup, so the loads of
 *       op(A) (the same for every invocation) are spread over it and passed
 *       round with subgroupShuffle from compile-time lanes.
 */
void kloop(const bool vec, const bool share, uint base_a, uint base_b, uint m0, uint n0)
{
    const uint TM4 = TM / 4u;
    const uint lane = share ? gl_SubgroupInvocationID : 0u;
    const uint K4 = pc.K & ~3u;
    /* The steps the call's structure leaves (common/gemm_causal.glsl); a
     * subgroup sharing op(A) runs them as one, from its first columns. */
    uint n_first = n0;
    if (share)
        for (uint l = 0u; l < SG; l++)
            n_first = min(n_first, subgroupShuffle(n0, l));
    uint k_lo, k_hi;
    svk_gemm_k_range(pc.flags, pc.K, m0, TM, n_first, k_lo, k_hi);
    for (uint k = k_lo; k < k_hi; k += 4u) {
        /* op(A)[m0 .. m0+TM-1, k .. k+3] as TM vec4s, the p-th being row p
         * (A [M, K]) or, for A [K, M], step k + p / TM4 of rows
         * m0 + 4 (p % TM4) .. +3. */
        vec4 pa[TM];
        if (share) {
            const uint R = (TM + SG - 1u) / SG;
            vec4 own[R];
            for (uint r = 0u; r < R; r++)
                own[r] = a_item(base_a, m0, k, min(lane + r * SG, TM - 1u), vec);
            for (uint p = 0u; p < TM; p++)
                pa[p] = subgroupShuffle(own[p / SG], p % SG);
        } else {
            for (uint p = 0u; p < TM; p++)
                pa[p] = a_item(base_a, m0, k, p, vec);
        }
        /* arow[i][kk] = op(A)[m0 + i, k + kk] */
        vec4 arow[TM];
        if (!TRANS_A) {
            for (uint p = 0u; p < TM; p++)
                arow[p] = pa[p];
        } else {
            for (uint p = 0u; p < TM; p++)
                for (uint r = 0u; r < 4u; r++)
                    arow[4u * (p % TM4) + r][p / TM4] = pa[p][r];
        }
        /* brow[kk * TN4 + j4] = op(B)[k + kk, n0 + 4 j4 .. +3] */
        vec4 brow[4u * TN4];
        if (!TRANS_B) {
            for (uint kk = 0u; kk < 4u; kk++)
                for (uint j4 = 0u; j4 < TN4; j4++) {
                    const uint row = base_b + (k + kk) * pc.ldb, n = n0 + 4u * j4;
                    brow[kk * TN4 + j4] = vec ? load4_b(row + n, true)
                                              : vec4(b[row + min(n, pc.N - 1u)], b[row + min(n + 1u, pc.N - 1u)],
                                                     b[row + min(n + 2u, pc.N - 1u)], b[row + min(n + 3u, pc.N - 1u)]);
                }
        } else {
            for (uint j = 0u; j < TN; j++) {
                const uint n = vec ? n0 + j : min(n0 + j, pc.N - 1u);
                const vec4 t = load4_b(base_b + n * pc.ldb + k, vec);
                for (uint kk = 0u; kk < 4u; kk++)
                    brow[kk * TN4 + j / 4u][j % 4u] = t[kk];
            }
        }
        /* Each accumulator takes its four steps of k together. The block's
         * accumulators outnumber the registers, so llvmpipe keeps them in
         * memory (and they live across the fetch calls): this order loads
         * and stores each once per iteration, not four times (10-20% at
         * the training step's shapes). Same bits: each output still sums
         * its k in increasing order. */
        for (uint i = 0u; i < TM; i++)
            for (uint j4 = 0u; j4 < TN4; j4++)
                for (uint kk = 0u; kk < 4u; kk++)
                    acc[i * TN4 + j4] += arow[i][kk] * brow[kk * TN4 + j4];
    }
    /* The last K % 4 steps, one at a time, clamped. */
    for (uint k = K4; k < pc.K; k++) {
        for (uint i = 0u; i < TM; i++) {
            const uint m = min(m0 + i, pc.M - 1u);
            const float av = a[base_a + (TRANS_A ? k * pc.lda + m : m * pc.lda + k)];
            for (uint j = 0u; j < TN; j++) {
                const uint n = min(n0 + j, pc.N - 1u);
                const float bv = b[base_b + (TRANS_B ? n * pc.ldb + k : k * pc.ldb + n)];
                acc[i * TN4 + j / 4u][j % 4u] += av * bv;
            }
        }
    }
}

#include "common/gemm_cpu_store.glsl"

void main()
{
    const uint batch = gl_WorkGroupID.z % pc.batch, outer = gl_WorkGroupID.z / pc.batch;
    const uint m0 = gl_WorkGroupID.y * TM;
    const uint wg_n0 = gl_WorkGroupID.x * (WG_X * TN);
    const uint n0 = wg_n0 + gl_LocalInvocationID.x * TN;
    const uint base_a = pc.off_a + batch * pc.stride_a + outer * pc.stride2_a;
    const uint base_b = pc.off_b + batch * pc.stride_b + outer * pc.stride2_b;
    const uint base_c = pc.off_c + batch * pc.stride_c + outer * pc.stride2_c;

    for (uint i = 0u; i < TM * TN4; i++)
        acc[i] = vec4(0.0);

    /* Both conditions are uniform over the workgroup (they depend on its id,
     * the push constants and the subgroup size only). */
    const uint vec4_both = SVK_GEMM_FLAG_VEC4_A | SVK_GEMM_FLAG_VEC4_B;
    const bool vec = (pc.flags & vec4_both) == vec4_both && m0 + TM <= pc.M && wg_n0 + WG_X * TN <= pc.N;
    const bool share = SG != 0u && gl_SubgroupSize == SG && WG_X % SG == 0u;
    if (share && vec)
        kloop(true, true, base_a, base_b, m0, n0);
    else if (share)
        kloop(false, true, base_a, base_b, m0, n0);
    else
        kloop(false, false, base_a, base_b, m0, n0);

    /* gemm_cpu.comp leaves CAUSAL_OUT's unwanted outputs to be stored (the
     * contract allows either) and runs K in one dispatch. */
    svk_gemm_store_block(base_c, m0, n0, pc.M, pc.N, (EPI_FLAGS & SVK_GEMM_FLAG_BIAS) != 0u, false, false);
}
