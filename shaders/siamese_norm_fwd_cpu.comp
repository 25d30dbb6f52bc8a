#version 450
/*
 * SiameseNorm block input (or model output), the CPU form
 * (common/row_cpu.glsl) of siamese_norm_fwd.comp: one invocation per
 * RC_ROWS rows computing all three norms with the same statistics (shifted
 * two-pass LayerNorm, see there) and the same outputs:
 *   xn = P(x) (SVK_SIAMESE_FLAG_XN),  h = I(xn + Q(y)),
 * statistics of siamese_norm_fwd.comp (P, Q, I; LayerNorm's m too). u = P(x) + Q(y) is kept in h between
 * passes (the invocation reads back only what it wrote).
 * Reference: svk_ref_siamese_norm_fwd, svk_ref_siamese_out_fwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c
 * (the "-cpu" rows). xn and h must not overlap x or y (as in the portable
 * form; lib/ops/siamese_norm.c checks).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#define SN_LD_X(e) RC_LD(x, x4, e)
#define SN_LD_Y(e) RC_LD(y, y4, e)
#include "common/siamese_norm_fwd_cpu_body.glsl"
