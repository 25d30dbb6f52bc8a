#version 450
/*
 * siamese_norm_bwd_fused_cpu.comp (see there) with the rows of dh, dxn,
 * dy_in, x and y read through RGBA32F uniform texel views (bindings 13 to
 * 17, the same buffers as bindings 0 to 4), four elements per fetch; VEC4
 * only (lib/ops picks it where the rows are vec4-aligned and the buffers
 * can be viewed).
 *
 * Why: lavapipe runs a storage-buffer load whose address differs per lane
 * as a loop over the SIMD lanes, under the row loop's lane mask; a texel
 * fetch is one call of a gather. dx may be dxn or dh, and dy dy_in or dh:
 * each element is fetched (in every pass) before the one invocation that
 * owns its row writes it, in the last pass, so a view that does not see
 * the writes of its own dispatch reads the right values.
 * Same results, bit for bit. Reference and conformance as the CPU form.
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require

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
#include "common/siamese_norm_bwd_fused_cpu_body.glsl"
