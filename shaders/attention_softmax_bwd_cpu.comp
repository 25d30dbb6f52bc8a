#version 450
/*
 * Softmax backward, in place: the CPU form (common/row_cpu.glsl) of
 * attention_softmax_bwd.comp, with the same result: for row r, query
 * t = r % T, with p the saved probabilities and d = dP,
 *   dS_j = p_j (dP_j - sum_k p_k dP_k)  for keys j <= t,  0 for keys j > t.
 * One invocation per row (see attention_softmax_fwd_cpu.comp); the dot
 * product is compensated (rc_add); the VEC4 chunk holding key t is masked
 * as in the forward form.
 * Reference: svk_ref_attention_bwd (lib/ref/attention.c). Conformance:
 * tools/conformance/conform_attention.c (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require

#define SM_LD_P(e) RC_LD(p, p4, e)
#define SM_LD_D(e) RC_LD(d, d4, e)
#include "common/attention_softmax_bwd_cpu_body.glsl"
