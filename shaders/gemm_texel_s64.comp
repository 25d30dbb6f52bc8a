#version 450
/* gemm_texel.comp storing C, aux and aux2 through 64-bit views, for
 * devices with shaderInt64 (GEMM_STORE64 in common/gemm_texel_body.glsl). */
#extension GL_GOOGLE_include_directive : require
#define GEMM_STORE64
#include "common/gemm_texel_body.glsl"
