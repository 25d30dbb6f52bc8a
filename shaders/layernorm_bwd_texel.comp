#version 450
/*
 * layernorm_bwd_cpu.comp (see there) with the rows of dout, add and x fetched
 * through RGBA32F uniform texel views of the same buffers (bindings 8 to 10); VEC4
 * only (lib/ops/norm_param_reduce.c picks it where the rows are vec4-aligned
 * and the buffers can be viewed). lavapipe loads from a storage buffer lane
 * by lane under the row loop's mask, where a texel fetch is one call.
 * dx may be dout or the added gradient: each element is fetched before
 * the one invocation that owns its row writes it, so views that do not
 * see their own dispatch's writes read the right values.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require

layout(set = 0, binding = 8) uniform textureBuffer dout_t4;
layout(set = 0, binding = 9) uniform textureBuffer add_t4;
layout(set = 0, binding = 10) uniform textureBuffer x_t4;
#define NR_LD_DOUT(e) texelFetch(dout_t4, int((e) >> 2))
#define NR_LD_ADD(e) texelFetch(add_t4, int((e) >> 2))
#define NR_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#include "common/layernorm_bwd_cpu_body.glsl"
