#version 450
/*
 * attention_softmax_bwd_cpu.comp (see there) with p and dP fetched through
 * RGBA32F uniform texel views of the same buffers (bindings 2 and 3); VEC4
 * only (lib/ops/attention.c picks it where the rows are vec4-aligned and the
 * buffers can be viewed). lavapipe loads from a storage buffer lane by lane
 * under the row loop's mask, where a texel fetch is one call. dS overwrites
 * dP in place, each element after the one invocation that owns its row has
 * fetched it for the last time, so a view that does not see its own
 * dispatch's writes reads the right values.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(set = 0, binding = 2) uniform textureBuffer p_t4;
layout(set = 0, binding = 3) uniform textureBuffer d_t4;
#define SM_LD_P(e) texelFetch(p_t4, int((e) >> 2))
#define SM_LD_D(e) texelFetch(d_t4, int((e) >> 2))
#include "common/attention_softmax_bwd_cpu_body.glsl"
