#version 450
/*
 * LayerNorm backward, the CPU form (common/row_cpu.glsl) of
 * layernorm_bwd.comp, the same formulas, flags and partials layout:
 *   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
 *   xhat = (x - mean) rstd, dxhat = dout g (dout + add with ADD_DOUT;
 *   dx + add with ADD_DX).
 * One invocation per lane: lane p walks rows [p R, (p + 1) R) in order
 * (R = rows_per_part), RC_ROWS at a time (common/row_cpu.glsl), and sums
 * their gain and bias contributions into row p
 * of the partial blocks, which norm_param_reduce.comp then adds in lane
 * order to dg and db: deterministic, no atomics.
 * Reference: lib/ref/layernorm.c. Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows).
 *
 * dx may equal dout, x or add: each element is read before it is written,
 * by the one invocation that owns its row.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define NR_LD_DOUT(e) RC_LD(dout, dout4, e)
#define NR_LD_ADD(e) RC_LD(add, add4, e)
#define NR_LD_X(e) RC_LD(x, x4, e)
#include "common/layernorm_bwd_cpu_body.glsl"
