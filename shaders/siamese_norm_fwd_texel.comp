#version 450
/*
 * siamese_norm_fwd_cpu.comp (see there) with the rows of x and y read
 * through RGBA32F uniform texel views (bindings 8 and 9, the same buffers as
 * bindings 0 and 1), four elements per fetch; VEC4 only (lib/ops picks it
 * where the rows are vec4-aligned and both buffers can be viewed).
 *
 * Why: lavapipe runs a storage-buffer load whose address differs per lane
 * as a loop over the SIMD lanes, under the row loop's lane mask; a texel
 * fetch is one call of a gather. The reads of h (u, written by this
 * invocation earlier in the same dispatch) stay storage loads: a texel view
 * need not see a write of the same dispatch.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require

layout(set = 0, binding = 8) uniform textureBuffer x_t4;
layout(set = 0, binding = 9) uniform textureBuffer y_t4;
#define SN_LD_X(e) texelFetch(x_t4, int((e) >> 2))
#define SN_LD_Y(e) texelFetch(y_t4, int((e) >> 2))
#include "common/siamese_norm_fwd_cpu_body.glsl"
