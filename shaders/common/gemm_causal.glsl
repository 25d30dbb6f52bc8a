/* The k steps a block of C needs, given what pc.flags promises of the
 * structure (SVK_GEMM_FLAG_CAUSAL_OUT, _A_LOWER, _A_UPPER in push_gemm.h),
 * for the CPU forms' k loops: [k_lo, k_hi), multiples of 4 within
 * [0, K & ~3], for rows m0 .. m0 + tm - 1. The loops still sum each output
 * in increasing k: every step left out is an exact zero term (op(A) is 0
 * there), so C keeps its bits, as long as op(B) is finite where op(A) is 0.
 * The last K % 4 steps (the tail after the loop) are always run: where the
 * block does not reach them they are zero terms too.
 *
 * CAUSAL_OUT leaves out the whole loop of a block whose columns all lie
 * above the diagonal (from n_first on, all > m0 + tm - 1), whose outputs
 * are then only the tail's sum: finite, and not to be used (the texel
 * form does not store them). n_first must
 * be the same for invocations that exchange values inside the loop (a
 * shared op(A)): the smallest first column of the subgroup. */
void svk_gemm_k_range(uint flags, uint K, uint m0, uint tm, uint n_first, out uint k_lo, out uint k_hi)
{
    const uint K4 = K & ~3u;
    k_lo = (flags & SVK_GEMM_FLAG_A_UPPER) != 0u ? min(K4, m0 & ~3u) : 0u;
    k_hi = (flags & SVK_GEMM_FLAG_A_LOWER) != 0u ? min(K4, (m0 + tm + 3u) & ~3u) : K4;
    if ((flags & SVK_GEMM_FLAG_CAUSAL_OUT) != 0u && n_first >= m0 + tm)
        k_hi = k_lo;
}
