#version 450
/*
 * layernorm_fwd_texel.comp (see there) with each group of rows shared by
 * the lanes of a subgroup instead of owned by one invocation: the split
 * form, for wide rows on CPU devices (common/row_split.glsl says why and
 * how; lib/ops/norm_param_reduce.c picks it). Same outputs to within the
 * sums' rounding (their order differs).
 * Reference: svk_ref_layernorm_fwd (lib/ref/layernorm.c). Conformance:
 * tools/conformance/conform_norm.c, the "fwd-cpu" rows at widths from
 * SVK_NORM_SPLIT_MIN_WIDTH on (lib/ops/norm_param_reduce.h).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(set = 0, binding = 6) uniform textureBuffer x_t4;
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define RS_SPLIT
#include "common/layernorm_fwd_cpu_body.glsl"
