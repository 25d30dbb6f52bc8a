#version 450
/*
 * attention_softmax_fwd_cpu.comp (see there) with the scores' first two
 * passes (the max, and the exponentials) fetched through an RGBA32F uniform
 * texel view of the same buffer (binding 1); VEC4 only (lib/ops/attention.c
 * picks it where the rows are vec4-aligned and the buffer can be viewed).
 * lavapipe loads from a storage buffer lane by lane under the row loop's
 * mask, where a texel fetch is one call. The last pass reads what the second
 * wrote in this dispatch, which a view need not see: a storage load.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(set = 0, binding = 1) uniform textureBuffer p_t4;
#define SM_LD_S(e) texelFetch(p_t4, int((e) >> 2))
#include "common/attention_softmax_fwd_cpu_body.glsl"
