/* The GEMM shaders' epilogues (SVK_GEMM_FLAG_GELU, _GELU_BWD, _RESIDUAL,
 * _DUAL_RESIDUAL in push_gemm.h): what C element e (an index into c[])
 * receives, given the result v = alpha op(A) op(B) + beta C + bias, and the
 * matching elements of aux and aux2, which are laid out as C from
 * pc.off_aux and pc.off_aux2. Include after the push block and C's
 * declaration, with GEMM_AUX_BINDING defined to the shader's first binding
 * for them (aux2 takes the next), and GEMM_EPILOGUE_VEC4 where C has a
 * vec4 view c4. The formulas are gelu_fwd.comp's, gelu_bwd.comp's and
 * residual_fwd.comp's, so a fused epilogue gives what the separate pass
 * would. */
#include "common/sigmoid.glsl"
#include "common/gelu.glsl"

/* Which epilogue runs: pc.flags, unless the shader defines GEMM_EPI_FLAGS as
 * a specialisation constant that matches it. A CPU driver runs every side
 * of a branch whose lanes it cannot prove alike, the loads and stores of
 * the epilogues not chosen included (each a loop over the SIMD lanes on
 * lavapipe); a constant leaves only the chosen one in the shader. */
#ifndef GEMM_EPI_FLAGS
#define GEMM_EPI_FLAGS pc.flags
#endif

layout(set = 0, binding = GEMM_AUX_BINDING, std430) buffer BufAux { float aux[]; };
layout(set = 0, binding = GEMM_AUX_BINDING, std430) buffer BufAux4 { vec4 aux4[]; };
layout(set = 0, binding = GEMM_AUX_BINDING + 1, std430) writeonly buffer BufAux2 { float aux2[]; };
layout(set = 0, binding = GEMM_AUX_BINDING + 1, std430) writeonly buffer BufAux24 { vec4 aux24[]; };

/* GEMM_STORE4(a, i, v): vec4 v to vec4 index i of buffer a (a##4[i]), or
 * with GEMM_STORE64 through its 64-bit view a##8 (gemm_texel.comp
 * says why; the shader declares c8 and enables the int64 types). */
#ifdef GEMM_STORE64
layout(set = 0, binding = GEMM_AUX_BINDING, std430) buffer BufAux8 { u64vec2 aux8[]; };
layout(set = 0, binding = GEMM_AUX_BINDING + 1, std430) writeonly buffer BufAux28 { u64vec2 aux28[]; };
u64vec2 svk_gemm_bits64(vec4 v)
{
    return u64vec2(packUint2x32(floatBitsToUint(v.xy)), packUint2x32(floatBitsToUint(v.zw)));
}
#define GEMM_STORE4(a, i, v) a##8[i] = svk_gemm_bits64(v)
#else
#define GEMM_STORE4(a, i, v) a##4[i] = (v)
#endif

float svk_gemm_epilogue(float v, uint e)
{
    const uint ea = e - pc.off_c + pc.off_aux;
    if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_GELU) != 0u) {
        aux[ea] = svk_gelu(v);
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_GELU_BWD) != 0u) {
        v *= svk_gelu_grad(aux[ea]);
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_RESIDUAL) != 0u) {
        v = aux[ea] + v;
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_DUAL_RESIDUAL) != 0u) {
        aux2[e - pc.off_c + pc.off_aux2] = aux[ea] + v;
        v = c[e] + v / pc.res_c;
    }
    return v;
}

#ifdef GEMM_EPILOGUE_VEC4
/* How the vec4 form reads aux and C: a shader may define these to read
 * through texel views instead (gemm_texel.comp). */
#ifndef GEMM_LOAD_AUX4
#define GEMM_LOAD_AUX4(i) aux4[i]
#endif
#ifndef GEMM_LOAD_C4
#define GEMM_LOAD_C4(i) c4[i]
#endif

/* The same for four columns at vec4 index e4 of c4[] (pc.off_c, pc.off_aux
 * and pc.off_aux2 then multiples of 4). */
vec4 svk_gemm_epilogue4(vec4 v, uint e4)
{
    const uint ea = e4 - pc.off_c / 4u + pc.off_aux / 4u;
    if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_GELU) != 0u) {
        GEMM_STORE4(aux, ea, vec4(svk_gelu(v.x), svk_gelu(v.y), svk_gelu(v.z), svk_gelu(v.w)));
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_GELU_BWD) != 0u) {
        const vec4 u = GEMM_LOAD_AUX4(ea);
        v *= vec4(svk_gelu_grad(u.x), svk_gelu_grad(u.y), svk_gelu_grad(u.z), svk_gelu_grad(u.w));
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_RESIDUAL) != 0u) {
        v = GEMM_LOAD_AUX4(ea) + v;
    } else if ((GEMM_EPI_FLAGS & SVK_GEMM_FLAG_DUAL_RESIDUAL) != 0u) {
        GEMM_STORE4(aux2, e4 - pc.off_c / 4u + pc.off_aux2 / 4u, GEMM_LOAD_AUX4(ea) + v);
        v = GEMM_LOAD_C4(e4) + v / pc.res_c;
    }
    return v;
}
#endif
