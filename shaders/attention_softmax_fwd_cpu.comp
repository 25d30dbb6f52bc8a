#version 450
/*
 * Causal softmax over keys, in place: the CPU form (common/row_cpu.glsl) of
 * attention_softmax_fwd.comp, with the same result: row r of the
 * [B, H, T, T] scores, query t = r % T, becomes
 *   p_j = exp(s_j - max) / sum  for keys j <= t,  0 for keys j > t.
 * One invocation per row; neighbouring rows (t, t + 1, ...) share a SIMD
 * batch, so their loops over t + 1 keys have nearly the same length. The sum
 * is compensated (rc_add): a row of up to T terms summed in sequence.
 * With VEC4 (T and the offset multiples of 4) the chunk holding key t is
 * masked: its keys past t count as -inf for the max and 0 for the sum, and
 * are written 0.
 * Reference: svk_ref_attention_fwd (lib/ref/attention.c). Conformance:
 * tools/conformance/conform_attention.c (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require

#define SM_LD_S(e) RC_LD(p, p4, e)
#include "common/attention_softmax_fwd_cpu_body.glsl"
