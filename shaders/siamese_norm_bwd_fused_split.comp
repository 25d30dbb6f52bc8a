#version 450
/*
 * siamese_norm_bwd_fused_texel.comp (see there) with each lane of partials
 * walked by the lanes of a subgroup instead of by one invocation: the split
 * form, for wide rows on CPU devices (common/row_split.glsl says why and
 * how; lib/ops/norm_param_reduce.c picks it). Same outputs to within the
 * sums' rounding (their order differs).
 * Reference: svk_ref_siamese_norm_bwd, svk_ref_siamese_out_bwd
 * (lib/ref/siamese_norm.c). Conformance: tools/conformance/conform_norm.c,
 * the "bwd-cpu" rows at widths from SVK_NORM_SPLIT_WIDE_MIN_WIDTH on.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(set = 0, binding = 13) uniform textureBuffer dh_t4;
layout(set = 0, binding = 14) uniform textureBuffer dxn_t4;
layout(set = 0, binding = 15) uniform textureBuffer dyi_t4;
layout(set = 0, binding = 16) uniform textureBuffer x_t4;
layout(set = 0, binding = 17) uniform textureBuffer y_t4;
#define SN_LD_DH(e) texelFetch(dh_t4, int((e) >> 2))
#define SN_LD_DXN(e) texelFetch(dxn_t4, int((e) >> 2))
#define SN_LD_DYI(e) texelFetch(dyi_t4, int((e) >> 2))
#define SN_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define SN_LD_Y(e) texelFetch(y_t4, int((e) >> 2))
#define RS_SPLIT
#include "common/siamese_norm_bwd_fused_cpu_body.glsl"
