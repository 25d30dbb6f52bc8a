#version 450
/*
 * RMSNorm forward, the CPU form (common/row_cpu.glsl) of rmsnorm_fwd.comp:
 * one invocation per RC_ROWS rows,
 *   out = x * rstd * g,  rstd = 1 / sqrt(mean(x^2) + eps).
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). out may equal x (each element is read, then written).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define NR_LD_X(e) RC_LD(x, x4, e)
#include "common/rmsnorm_fwd_cpu_body.glsl"
