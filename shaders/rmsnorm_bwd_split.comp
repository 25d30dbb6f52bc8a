#version 450
/*
 * rmsnorm_bwd_texel.comp (see there) with each lane of partials walked by
 * the lanes of a subgroup instead of by one invocation: the split form,
 * for wide rows on CPU devices (common/row_split.glsl says why and how;
 * lib/ops/norm_param_reduce.c picks it). Same outputs to within the sums'
 * rounding (their order differs).
 * Reference: svk_ref_rmsnorm_bwd (lib/ref/rmsnorm.c). Conformance:
 * tools/conformance/conform_norm.c, the "bwd-cpu" rows at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on (lib/ops/norm_param_reduce.h).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(set = 0, binding = 7) uniform textureBuffer dout_t4;
layout(set = 0, binding = 8) uniform textureBuffer add_t4;
layout(set = 0, binding = 9) uniform textureBuffer x_t4;
#define NR_LD_DOUT(e) texelFetch(dout_t4, int((e) >> 2))
#define NR_LD_ADD(e) texelFetch(add_t4, int((e) >> 2))
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define RS_SPLIT
#include "common/rmsnorm_bwd_cpu_body.glsl"
