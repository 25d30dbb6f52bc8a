#version 450
/*
 * rmsnorm_fwd_cpu.comp (see there) with the rows of x fetched through
 * RGBA32F uniform texel views of the same buffers (binding 4); VEC4
 * only (lib/ops/norm_param_reduce.c picks it where the rows are vec4-aligned
 * and the buffers can be viewed). lavapipe loads from a storage buffer lane
 * by lane under the row loop's mask, where a texel fetch is one call.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require

layout(set = 0, binding = 4) uniform textureBuffer x_t4;
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#include "common/rmsnorm_fwd_cpu_body.glsl"
