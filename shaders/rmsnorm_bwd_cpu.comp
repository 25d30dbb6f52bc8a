#version 450
/*
 * RMSNorm backward, the CPU form (common/row_cpu.glsl) of
 * rmsnorm_bwd.comp, the same formulas, flags and partials layout:
 *   dx = rstd (dxhat - xhat mean(dxhat xhat)),  xhat = x rstd, dxhat = dout g.
 * Lanes (one invocation each), the deterministic gain partials and in-place
 * use as in layernorm_bwd_cpu.comp.
 * Reference: lib/ref/rmsnorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define NR_LD_DOUT(e) RC_LD(dout, dout4, e)
#define NR_LD_ADD(e) RC_LD(add, add4, e)
#define NR_LD_X(e) RC_LD(x, x4, e)
#include "common/rmsnorm_bwd_cpu_body.glsl"
