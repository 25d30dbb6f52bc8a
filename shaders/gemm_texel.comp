#version 450
/*
 * GEMM, strided-batched, for CPU Vulkan devices (lavapipe), reading its
 * operands through uniform texel buffers; shaders/meson.build builds it as
 * gemm_texel and, with GEMM_STORE64 (below), gemm_texel_s64:
 *   C = alpha * op(A) op(B) + beta * C (+ bias[n]).
 * Same contract and push constants as shaders/gemm.comp (the portable
 * variant) and shaders/gemm_cpu.comp (the storage-buffer form of this one,
 * its fallback); lib/ops/gemm_policy.c picks one per call. Reference: lib/ref/gemm.c.
 *
 * Why texel buffers: Mesa's llvmpipe (22.3) compiles a storage-buffer (or
 * shared-memory) load whose address differs per lane into a loop over the
 * SIMD lanes with a bounds check each, and a texelFetch from a
 * textureBuffer into a call of a generated fetch function: for an RGBA32F
 * view, one 16-byte load per lane and a transpose (about 45 instructions
 * for 8 lanes x 4 floats), for R32F one hardware gather. GEMM on a CPU
 * driver is bound by its loads; this form runs about 3 times faster than
 * the storage-buffer one at the training step's shapes.
 *
 * Why no shared memory and no barrier: on a CPU driver a workgroup is a loop
 * over SIMD batches, every barrier() a coroutine switch, and shared memory
 * costs what a buffer does. Each invocation owns a TM x TN block of C and
 * reads op(A) and op(B) straight into registers, four (or eight: KV) steps
 * of k at a time;
 * invocation (x, y) of the grid takes rows y*TM .. +TM-1 and columns
 * x*TN .. +TN-1, so the workgroup's shape (spec constants 0, 1) decides
 * which neighbours share a SIMD batch (lavapipe runs x fastest).
 *
 * Bindings: A and B twice each, as RGBA32F views (vec4 fetches along the
 * operand's contiguous dimension: k for A [M, K] and B [N, K], m for A
 * [K, M], n for B [K, N]) and as R32F views (one float per fetch); C, the
 * bias and the epilogue's aux and aux2 are storage buffers, touched once per
 * output (as vec4s where aligned), and aux and C are also RGBA32F views for
 * the output loop's reads (TEXEL_EPI, below). Views start at the buffer's
 * first byte: element offsets as in the other forms; an index fits an int,
 * as a buffer is at most maxStorageBufferRange (< 2^32) bytes.
 *
 * One path: every invocation runs the same loop, with rows and columns past
 * M and N clamped to valid ones (every fetch in bounds; those results are
 * not stored), vec4 fetches where the host found the operand aligned
 * (VEC_A, VEC_B), floats otherwise, then the last K % 4 steps (KTAIL, a
 * constant) one at a time. A CPU driver runs both sides of a branch when
 * its lanes differ, and a loop that no lane enters still costs one pass of
 * its fetches, so edge blocks get no loop of their own. Each output is
 * summed in one float in increasing k, so the result is deterministic and
 * the same whatever the block shape and the subgroup size. beta == 0 never
 * reads C.
 *
 * Loop budget: lavapipe ends a shader's loops silently once a SIMD batch
 * has run 65535 iterations in all (SVK_OP_CPU_LOOP_BUDGET, lib/ops/ops.h).
 * The k loop runs K / 4 iterations at most, every other loop has a constant trip
 * count and is unrolled; the host records the portable form where K is too
 * long for that.
 *
 * Those loops are marked [[unroll]] (here and in common/gemm_cpu_store.glsl)
 * rather than left to NIR's heuristics: a loop left rolled indexes acc[]
 * at run time, and lavapipe then reads and writes it lane by lane. With
 * the wide tile (TN 8, lib/ops/gemm_policy.c texel_tile) the unmarked loops of
 * the weight gradients' products ran 12 times slower.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
/* GEMM_STORE64: C, aux and aux2 are stored as vec4s through 64-bit views,
 * a pair of u64 per vec4. Mesa 22.3's llvmpipe stores a value whose
 * address differs per lane one lane and one component at a time, a bounds
 * check each: two components instead of four halve those
 * (docs/PERFORMANCE.md, "64-bit stores"). The module then needs
 * shaderInt64, so the form without it stays, for devices that lack it and
 * for the weight gradients (lib/ops/gemm_policy.c). */
#ifdef GEMM_STORE64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

#include "common/push_gemm.h" /* defines the push-constant block pc */

#include "common/kernel.glsl"
layout(constant_id = 3) const uint TM = 16;          /* rows of C per invocation, a multiple of 4 */
layout(constant_id = 4) const uint TN = 4;          /* columns of C per invocation, a multiple of 4 */
layout(constant_id = 5) const bool TRANS_A = false; /* A is [K, M] (must match pc.flags) */
layout(constant_id = 6) const bool TRANS_B = false; /* B is [N, K] (must match pc.flags) */
/* Operand may be read as vec4s along its contiguous dimension: offset,
 * leading dimension and batch strides multiples of 4 and, where that
 * dimension is M (A [K, M]) or N (B [K, N]), M or N too. */
layout(constant_id = 7) const bool VEC_A = false;
layout(constant_id = 8) const bool VEC_B = false;
layout(constant_id = 9) const uint KTAIL = 0;       /* K % 4 (must match pc.K) */
/* The subgroup size to share op(A) over (0: share nothing); see kloop.
 * The host sets it only where every subgroup is SG invocations of one
 * workgroup row: local_size_y 1, local_size_x a multiple of SG, and a
 * device with one subgroup size (the SubgroupSize of a SPIR-V 1.5 shader
 * is then that size; lavapipe runs full SIMD batches). With ROWS2 (below)
 * local_size_x is SG. */
layout(constant_id = 10) const uint SG = 0;
/* C (and the bias) may be accessed as vec4s: their offsets, ldc and batch
 * strides multiples of 4, and N too, so that four columns from a multiple
 * of 4 are all inside C or all outside. */
layout(constant_id = 11) const bool VEC_C = false;
/* The bias and epilogue bits of pc.flags (SVK_GEMM_FLAG_BIAS, _GELU,
 * _GELU_BWD, _RESIDUAL, _DUAL_RESIDUAL), and whether beta != 0 (C is read),
 * both as the host set them: compiled in, so that the output loop holds
 * only what this call does (common/gemm_epilogue.glsl says why). */
layout(constant_id = 12) const uint EPI_FLAGS = 0u;
layout(constant_id = 13) const bool READ_C = false;

layout(set = 0, binding = 0) uniform textureBuffer a4; /* A, RGBA32F */
layout(set = 0, binding = 1) uniform textureBuffer a1; /* A, R32F */
layout(set = 0, binding = 2) uniform textureBuffer b4; /* B, RGBA32F */
layout(set = 0, binding = 3) uniform textureBuffer b1; /* B, R32F */
SVK_BUF4(4, SVK_RW, BufC, c);
#ifdef GEMM_STORE64
layout(set = 0, binding = 4, std430) buffer BufC8 { u64vec2 c8[]; };
#endif
SVK_BUF4(5, readonly, BufBias, bias);
/* aux and C again, as RGBA32F views (read only): with TEXEL_EPI the output
 * loop's vec4 reads of them (GELU_BWD, RESIDUAL, DUAL_RESIDUAL and beta)
 * are texel fetches, not storage loads, which lavapipe runs lane by lane
 * (2.4 ms of the default step's 13 in the MLP's GELU_BWD GEMMs). Each
 * element of C is read by the invocation that then writes it, before it
 * does, and by no other. Without TEXEL_EPI, A stands in for both. */
layout(set = 0, binding = 8) uniform textureBuffer aux_t4;
layout(set = 0, binding = 9) uniform textureBuffer c_t4;
const bool TEXEL_EPI = (EPI_FLAGS & SVK_GEMM_SPEC_TEXEL_EPI) != 0u;
/* SUM_A: also sum_a[m] += the sum over k of op(A)[m, k], for m < M
 * (svk_gemm_args.sum_a: a Linear's bias gradient, the column sums of dy in
 * its weight gradient dy^T x). The host sets it only with TRANS_A, op(A)
 * shared over the subgroup (SG, a multiple of TM / 4), a dense product and
 * one matrix: each lane then adds the items of op(A) it fetches for the
 * subgroup, a quad of rows at a step of k, into one vec4 (rsum below), and
 * the sums cost two additions per iteration where the 16 rows summed by
 * every invocation cost a quarter of the multiply-adds (measured 10-15%).
 * Without SUM_A, C stands in for the binding. */
SVK_BUF(10, SVK_RW, BufSumA, sum_a);
const bool SUM_A = (EPI_FLAGS & SVK_GEMM_FLAG_SUM_A) != 0u;
/* A chunk of K (SVK_GEMM_SPEC_ACC_IN, _ACC_OUT in push_gemm.h): with
 * ACC_IN the block's accumulators start from C, read through C's texel
 * view where TEXEL_EPI; with ACC_OUT they are stored as they are. */
const bool ACC_IN = (EPI_FLAGS & SVK_GEMM_SPEC_ACC_IN) != 0u;
const bool ACC_OUT = (EPI_FLAGS & SVK_GEMM_SPEC_ACC_OUT) != 0u;
/* Vec4s of k per iteration of the k loop: 2 with SVK_GEMM_SPEC_K8 (the
 * host sets it only where k_hi - k_lo is a multiple of 8). */
const uint KV = (EPI_FLAGS & SVK_GEMM_SPEC_K8) != 0u ? 2u : 1u;
/* ROWS2 (SVK_GEMM_SPEC_ROWS2, with SG): the subgroup's lanes are two rows
 * of SW = SG / 2 blocks of C, lanes 0 .. SW-1 the first. For a product
 * whose blocks along N fill at most half a subgroup (attention's heads of
 * 32 at 16 lanes: 8 blocks of 4 columns), which would otherwise leave half
 * the lanes computing clamped columns. lavapipe packs only consecutive x
 * into a SIMD batch (its y and z are loops around it), so the two rows
 * must come from one row of invocations, not from local_size_y 2. */
const bool ROWS2 = (EPI_FLAGS & SVK_GEMM_SPEC_ROWS2) != 0u;
#define GEMM_LOAD_AUX4(i) (TEXEL_EPI ? texelFetch(aux_t4, int(i)) : aux4[i])
#define GEMM_LOAD_C4(i) (TEXEL_EPI ? texelFetch(c_t4, int(i)) : c4[i])
#define GEMM_AUX_BINDING 6
#define GEMM_EPI_FLAGS EPI_FLAGS
#define GEMM_EPILOGUE_VEC4
#include "common/gemm_epilogue.glsl"
#include "common/gemm_causal.glsl"

const uint TM4 = TM / 4u;
const uint TN4 = TN / 4u;
const uint SG1 = SG == 0u ? 1u : SG;
/* The lanes that share one op(A), and the rows of blocks a subgroup holds. */
const uint SW = ROWS2 ? SG1 / 2u : SG1;
const uint GROUPS = ROWS2 ? 2u : 1u;
const uint R = (TM + SW - 1u) / SW; /* items of op(A) each lane fetches when sharing */

/* acc[i * TN4 + j / 4][j % 4]: row i, column j of the invocation's block. */
vec4 acc[TM * TN4];
/* SUM_A: this lane's part of the sums of the block's rows 4 q .. 4 q + 3,
 * q = lane % TM4: its own items of op(A) (A [K, M]: item p is a quad of
 * rows at one step of k, quad p % TM4, and lane l fetches items l + r SG). */
vec4 rsum;

/* What the k loop reads of the push constants and the invocation's place,
 * set once in main(): llvmpipe re-reads a push constant at every use, as a
 * per-lane gather under a loop's lane mask. */
uint M, N, K, lda, ldb, base_a, base_b, m0, n0;
/* The k loop's steps (common/gemm_causal.glsl): all of K & ~3 unless the
 * call promises zeros. */
uint k_lo, k_hi;

float fa(uint e) { return texelFetch(a1, int(e)).x; }
float fb(uint e) { return texelFetch(b1, int(e)).x; }

/* Item p (0 <= p < TM) of op(A) for the four steps k .. k+3, a vec4:
 *  A [M, K]: row m0 + p, A[m, k .. k+3];
 *  A [K, M]: step k + p / TM4, A[k + p / TM4, m0 + 4 (p % TM4) .. +3].
 * Rows past M are clamped to valid ones (their results are never stored):
 * one by one, or, when VEC_A (M a multiple of 4), the whole quad to the
 * last, so that a vec4 fetch stays in the row. */
vec4 a_item(uint k, uint p)
{
    if (!TRANS_A) {
        const uint e = base_a + min(m0 + p, M - 1u) * lda + k;
        return VEC_A ? texelFetch(a4, int(e >> 2)) : vec4(fa(e), fa(e + 1u), fa(e + 2u), fa(e + 3u));
    }
    const uint row = base_a + (k + p / TM4) * lda, m = m0 + 4u * (p % TM4);
    if (VEC_A)
        return texelFetch(a4, int((row + min(m, M - 4u)) >> 2));
    return vec4(fa(row + min(m, M - 1u)), fa(row + min(m + 1u, M - 1u)), fa(row + min(m + 2u, M - 1u)),
                fa(row + min(m + 3u, M - 1u)));
}

/*
 * The k loop, 4 KV steps at a time, then the last KTAIL steps one by one.
 *
 * share (a compile-time constant at each call, which is inlined): the SW
 * invocations of a row of the subgroup (all SG of it but with ROWS2) have
 * the same m0, so they need the same op(A); lane l fetches items l, l +
 * SW, ... of its row's and subgroupShuffle from a compile-time lane hands
 * each item round (with ROWS2, one shuffle from each row and a select).
 * On lavapipe a texel fetch is a call (about 45 instructions for a vec4,
 * and every vector register is saved around it), so this takes most of
 * op(A)'s fetches out of the loop:
 * 2 fetches of A and 4 of B per 256 multiply-adds at 16x4 and 8 lanes. The
 * result is the same bits either way.
 */
void kloop(const bool share)
{
    const uint lane = share ? gl_SubgroupInvocationID : 0u;
    const uint K4 = K & ~3u;
    for (uint k0 = k_lo; k0 < k_hi; k0 += 4u * KV) {
        /* arow[h * TM + i][kk] = op(A)[m0 + i, k0 + 4 h + kk] */
        vec4 arow[KV * TM];
        /* brow[(h * 4 + kk) * TN4 + j4] = op(B)[k0 + 4 h + kk, n0 + 4 j4 .. +3] */
        vec4 brow[KV * 4u * TN4];
        [[unroll]] for (uint h = 0u; h < KV; h++) {
            const uint k = k0 + 4u * h;
            vec4 item[TM];
            if (share) {
                vec4 own[R];
                [[unroll]] for (uint r = 0u; r < R; r++)
                    own[r] = a_item(k, min(lane % SW + r * SW, TM - 1u));
                if (SUM_A)
                    [[unroll]] for (uint r = 0u; r < R; r++)
                        if (lane + r * SW < TM)
                            rsum += own[r];
                [[unroll]] for (uint p = 0u; p < TM; p++) {
                    item[p] = subgroupShuffle(own[p / SW], p % SW);
                    [[unroll]] for (uint q = 1u; q < GROUPS; q++) {
                        const vec4 v = subgroupShuffle(own[p / SW], q * SW + p % SW);
                        item[p] = lane / SW == q ? v : item[p];
                    }
                }
            } else {
                [[unroll]] for (uint p = 0u; p < TM; p++)
                    item[p] = a_item(k, p);
            }
            if (!TRANS_A) {
                [[unroll]] for (uint p = 0u; p < TM; p++)
                    arow[h * TM + p] = item[p];
            } else {
                [[unroll]] for (uint p = 0u; p < TM; p++)
                    [[unroll]] for (uint r = 0u; r < 4u; r++)
                        arow[h * TM + 4u * (p % TM4) + r][p / TM4] = item[p][r];
            }
            if (!TRANS_B) {
                [[unroll]] for (uint kk = 0u; kk < 4u; kk++) {
                    const uint row = base_b + (k + kk) * ldb;
                    [[unroll]] for (uint j4 = 0u; j4 < TN4; j4++) {
                        const uint n = n0 + 4u * j4;
                        brow[(h * 4u + kk) * TN4 + j4] =
                            VEC_B ? texelFetch(b4, int((row + min(n, N - 4u)) >> 2))
                                  : vec4(fb(row + min(n, N - 1u)), fb(row + min(n + 1u, N - 1u)),
                                         fb(row + min(n + 2u, N - 1u)), fb(row + min(n + 3u, N - 1u)));
                    }
                }
            } else {
                [[unroll]] for (uint j = 0u; j < TN; j++) {
                    const uint e = base_b + min(n0 + j, N - 1u) * ldb + k;
                    const vec4 t =
                        VEC_B ? texelFetch(b4, int(e >> 2)) : vec4(fb(e), fb(e + 1u), fb(e + 2u), fb(e + 3u));
                    [[unroll]] for (uint kk = 0u; kk < 4u; kk++)
                        brow[(h * 4u + kk) * TN4 + j / 4u][j % 4u] = t[kk];
                }
            }
        }
        /* Each accumulator takes its 4 KV steps of k together. The block's
         * accumulators outnumber the registers, so llvmpipe keeps them in
         * memory (and they live across the fetch calls): this order loads
         * and stores each once per iteration, not once per step (10-20% at
         * the training step's shapes, with four steps). Same bits: each
         * output still sums its k in increasing order. */
        [[unroll]] for (uint i = 0u; i < TM; i++)
            [[unroll]] for (uint j4 = 0u; j4 < TN4; j4++)
                [[unroll]] for (uint h = 0u; h < KV; h++)
                    [[unroll]] for (uint kk = 0u; kk < 4u; kk++)
                        acc[i * TN4 + j4] = fma(vec4(arow[h * TM + i][kk]), brow[(h * 4u + kk) * TN4 + j4],
                                                acc[i * TN4 + j4]);
    }
    /* The last K % 4 steps (a constant count, unrolled), clamped. */
    [[unroll]] for (uint t = 0u; t < KTAIL; t++) {
        const uint k = K4 + t;
        float av[TM];
        vec4 bv[TN4];
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            const uint m = min(m0 + i, M - 1u);
            av[i] = fa(base_a + (TRANS_A ? k * lda + m : m * lda + k));
        }
        [[unroll]] for (uint j = 0u; j < TN; j++) {
            const uint n = min(n0 + j, N - 1u);
            bv[j / 4u][j % 4u] = fb(base_b + (TRANS_B ? n * ldb + k : k * ldb + n));
        }
        [[unroll]] for (uint i = 0u; i < TM; i++)
            [[unroll]] for (uint j4 = 0u; j4 < TN4; j4++)
                acc[i * TN4 + j4] = fma(vec4(av[i]), bv[j4], acc[i * TN4 + j4]);
        /* Every lane fetched the step: lane q < TM4 counts quad q's. */
        if (SUM_A)
            for (uint q = 0u; q < TM4; q++)
                if (lane == q)
                    rsum += vec4(av[4u * q], av[4u * q + 1u], av[4u * q + 2u], av[4u * q + 3u]);
    }
}

/* SUM_A, after the k loop: quad q of the block's rows sums the lanes
 * l = q (mod TM4) in lane order (a fixed order for a given subgroup size),
 * and the subgroup whose columns start at 0, one per block of rows, adds
 * the sums to sum_a. */
void store_sum_a(const uint n_first)
{
    const uint lane = gl_SubgroupInvocationID;
    vec4 tot = vec4(0.0);
    for (uint l = 0u; l < SG; l++) {
        const vec4 v = subgroupShuffle(rsum, l);
        if (l % TM4 == lane % TM4)
            tot += v;
    }
    if (n_first != 0u || lane >= TM4)
        return;
    for (uint r = 0u; r < 4u; r++) {
        const uint m = m0 + 4u * lane + r;
        if (m < M)
            sum_a[pc.off_sum_a + m] += tot[r];
    }
}

/* ACC_IN: the block's accumulators from C (the sums of the chunks of K
 * before this dispatch's); outputs past M or N stay 0 and are never
 * stored. */
void load_acc(const uint base_c)
{
    for (uint i = 0u; i < TM; i++) {
        const uint m = m0 + i;
        if (m >= M)
            break;
        for (uint j = 0u; j < TN; j++) {
            const uint n = n0 + j;
            if (n >= N)
                break;
            const uint idx = base_c + m * pc.ldc + n;
            if (!VEC_C)
                acc[i * TN4 + j / 4u][j % 4u] = c[idx];
            else if (j % 4u == 0u)
                acc[i * TN4 + j / 4u] = GEMM_LOAD_C4(idx >> 2);
        }
    }
}

#include "common/gemm_cpu_store.glsl"

void main()
{
    M = pc.M;
    N = pc.N;
    K = pc.K;
    lda = pc.lda;
    ldb = pc.ldb;
    const uint batch = gl_WorkGroupID.z % pc.batch, outer = gl_WorkGroupID.z / pc.batch;
    if (ROWS2) {
        const uint x = gl_LocalInvocationID.x;
        m0 = (gl_WorkGroupID.y * 2u + x / SW) * TM;
        n0 = (gl_WorkGroupID.x * SW + x % SW) * TN;
    } else {
        m0 = gl_GlobalInvocationID.y * TM;
        n0 = gl_GlobalInvocationID.x * TN;
    }
    base_a = pc.off_a + batch * pc.stride_a + outer * pc.stride2_a;
    base_b = pc.off_b + batch * pc.stride_b + outer * pc.stride2_b;
    const uint base_c = pc.off_c + batch * pc.stride_c + outer * pc.stride2_c;

    for (uint i = 0u; i < TM * TN4; i++)
        acc[i] = vec4(0.0);
    if (ACC_IN)
        load_acc(base_c);
    rsum = vec4(0.0);
    /* Sharing op(A), the subgroup must run the loop as one: the same steps
     * for all of it, from its first invocation's columns. */
    uint n_first = n0;
    for (uint l = 0u; l < SG; l++)
        n_first = min(n_first, subgroupShuffle(n0, l));
    svk_gemm_k_range(pc.flags, K, m0, TM, n_first, k_lo, k_hi);
    /* ROWS2: the steps either row of blocks needs, the union of their
     * ranges (adjacent or overlapping, as the rows are). A step outside a
     * row's own range is a zero term of its sums, as in svk_gemm_k_range. */
    if (ROWS2) {
        uint lo = k_lo, hi = k_hi;
        for (uint l = 0u; l < SG; l++) {
            lo = min(lo, subgroupShuffle(k_lo, l));
            hi = max(hi, subgroupShuffle(k_hi, l));
        }
        k_lo = lo;
        k_hi = hi;
    }

    /* Every invocation runs the k loop, also those whose block lies past M
     * or N (the grid rounds up), so that the subgroup is whole. No runtime
     * check of the subgroup: a check that llvmpipe cannot fold (it does not
     * fold gl_SubgroupSize) would compile both loops, and the one not taken
     * still costs a pass of its fetches (about 6% at K = 128). */
    kloop(SG != 0u);
    if (SUM_A)
        store_sum_a(n_first);

    /* (one test: glslang 12 emits a short-circuit && of spec constants as
     * a branch whose result spirv-val finds used outside it) */
    const bool has_bias = (EPI_FLAGS & (SVK_GEMM_FLAG_BIAS | SVK_GEMM_SPEC_ACC_OUT)) == SVK_GEMM_FLAG_BIAS;
    svk_gemm_store_block(base_c, m0, n0, M, N, has_bias, (pc.flags & SVK_GEMM_FLAG_CAUSAL_OUT) != 0u, ACC_OUT);
}
