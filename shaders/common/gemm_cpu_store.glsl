/* The output loop of the CPU forms of GEMM (gemm_texel.comp,
 * gemm_cpu.comp): the invocation's TM x TN block of C from acc[],
 * rows from m0 and columns from n0, those past M or N left out. Include
 * after the epilogue (common/gemm_epilogue.glsl, with GEMM_EPILOGUE_VEC4)
 * and the declarations it reads: acc[], TM, TN, TN4, the spec constants
 * VEC_C and READ_C, C as c[] and c4[] (c8[] with GEMM_STORE64), the bias
 * as bias[] and bias4[]. Its constant-trip loops are marked [[unroll]]
 * (GL_EXT_control_flow_attributes), as gemm_texel.comp says why.
 *
 * A CPU driver stores to a storage buffer lane by lane: with VEC_C (C, the
 * bias and the epilogue's operands aligned to 4 floats, N a multiple of 4)
 * a vec4 store is one pass for four floats. The bias of the block's
 * columns is loaded once, not once per row (each load is such a pass);
 * columns past N read a valid element that is never used.
 *
 * causal (CAUSAL_OUT): nothing is stored where every column is above the
 * diagonal (n > m): those outputs are not wanted, and each store is a pass
 * over the SIMD lanes (attention's scores: about half the stores of their
 * products). A vec4 that reaches the diagonal is stored whole, so a
 * reader's vec4 up to the query reads stored values.
 *
 * acc_out (a chunk of K before the last): the sums stored as they are,
 * without alpha, C, the bias or the epilogue. */
void svk_gemm_store_block(const uint base_c, const uint m0, const uint n0, const uint M, const uint N,
                          const bool has_bias, const bool causal, const bool acc_out)
{
    if (VEC_C) {
        vec4 bias_col[TN4];
        [[unroll]] for (uint j4 = 0u; j4 < TN4; j4++)
            if (has_bias)
                bias_col[j4] = bias4[(pc.off_bias + min(n0 + 4u * j4, N - 4u)) >> 2];
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            const uint m = m0 + i;
            if (m >= M)
                break;
            [[unroll]] for (uint j4 = 0u; j4 < TN4; j4++) {
                const uint n = n0 + 4u * j4;
                if (n >= N)
                    break;
                if (causal && n > m)
                    continue;
                const uint idx = (base_c + m * pc.ldc + n) >> 2;
                if (acc_out) {
                    GEMM_STORE4(c, idx, acc[i * TN4 + j4]);
                } else {
                    vec4 v = pc.alpha * acc[i * TN4 + j4];
                    if (READ_C)
                        v += pc.beta * GEMM_LOAD_C4(idx);
                    if (has_bias)
                        v += bias_col[j4];
                    GEMM_STORE4(c, idx, svk_gemm_epilogue4(v, idx));
                }
            }
        }
        return;
    }
    float bias_col[TN];
    [[unroll]] for (uint j = 0u; j < TN; j++)
        if (has_bias)
            bias_col[j] = bias[pc.off_bias + min(n0 + j, N - 1u)];
    [[unroll]] for (uint i = 0u; i < TM; i++) {
        const uint m = m0 + i;
        if (m >= M)
            break;
        [[unroll]] for (uint j = 0u; j < TN; j++) {
            const uint n = n0 + j;
            if (n >= N)
                break;
            if (causal && n > m)
                continue;
            const uint idx = base_c + m * pc.ldc + n;
            if (acc_out) {
                c[idx] = acc[i * TN4 + j / 4u][j % 4u];
            } else {
                float v = pc.alpha * acc[i * TN4 + j / 4u][j % 4u];
                if (READ_C)
                    v += pc.beta * c[idx];
                if (has_bias)
                    v += bias_col[j];
                c[idx] = svk_gemm_epilogue(v, idx);
            }
        }
    }
}
