#version 450
/*
 * SiameseNorm backward in one dispatch, a CPU form (common/row_cpu.glsl)
 * for devices that allow 13 storage buffers per shader stage. It computes
 * what the staged CPU form (siamese_norm_bwd_cpu, then layernorm_bwd_cpu /
 * rmsnorm_bwd_cpu for Q and P; lib/ops/siamese_norm.c) computes, with the
 * same partials layout and formulas (P's and Q's means of du's terms
 * rearranged, below; the partials are the same bits):
 *   u = P(x) + Q(y), recomputed as the forward did; h = I(u)
 *   du = I's backward of dh
 *   dx = P's backward of du (+ dxn),  dy = Q's backward of du (+ dy_in)
 * and the lanes' gain and bias partials of P, Q and I, which
 * norm_param_reduce.comp then adds to dg and db in lane order; with
 * SVK_SIAMESE_FLAG_DZ also dz = dx / dz_c + dy, the residual gradient of
 * the sublayer below (residual_bwd.comp's formula, from the same floats).
 *
 * Why: on lavapipe these kernels pay per row stream (one vec4 access per
 * four elements of a row, a loop over the SIMD lanes each), not per byte.
 * The staged form writes du to scratch and reads it back, and each of its
 * three row kernels reads its inputs twice: 22 streams per row. Here du is
 * recomputed from x, y and dh wherever it is needed, which is arithmetic,
 * and P's and Q's sums, linear in I's, are taken beside them:
 *   1. I's, P's and Q's sums (x, y, dh, dxn), a group of rows at a time
 *   2. dx and dy, the six partials (x, y, dh, dxn, dy_in; dx, dy and dz
 *      written), two groups at a time, so that each partial is read and
 *      written once per two groups
 * 11 streams, and one dispatch instead of three; dz is one more, against
 * three and a dispatch for residual_bwd. P's and Q's LayerNorm means are
 * the forward's K + m (SVK_SIAMESE_MEAN_ROWS), not summed again: a pass
 * over x and y fewer.
 *
 * Lanes as in layernorm_bwd_cpu.comp: lane p walks rows [p R, (p + 1) R)
 * in order (common/row_cpu_lanes.glsl, RC_LANE_ROWS two groups: pass 1
 * RC_ROWS rows at a time, pass 2 up to twice that); the partials take the rows' contributions in row order. dx may
 * be dxn or dh exactly, dy may be dy_in or dh: a row's
 * element is read before it is written, in the last pass, by the one
 * invocation that owns the row.
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "bwd-cpu" rows; "bwd-cpu-staged" are the staged form).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define SN_LD_DH(e) RC_LD(dh, dh4, e)
#define SN_LD_DXN(e) RC_LD(dxn, dxn4, e)
#define SN_LD_DYI(e) RC_LD(dyi, dyi4, e)
#define SN_LD_X(e) RC_LD(x, x4, e)
#define SN_LD_Y(e) RC_LD(y, y4, e)
#include "common/siamese_norm_bwd_fused_cpu_body.glsl"
