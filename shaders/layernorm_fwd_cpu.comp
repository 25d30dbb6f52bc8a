#version 450
/*
 * LayerNorm forward, the CPU form (common/row_cpu.glsl) of
 * layernorm_fwd.comp: one invocation per RC_ROWS rows, the same shifted
 * two-pass statistics (see there), the same outputs:
 *   out = (x - mean) * rstd * g + b,  rstd = 1 / sqrt(var + eps).
 * Reference: lib/ref/layernorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 *
 * out may equal x: the invocation owning a row reads each element before it
 * writes it, and reads the shift K first.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define NR_LD_X(e) RC_LD(x, x4, e)
#include "common/layernorm_fwd_cpu_body.glsl"
