#version 450
/* GEMM for CPU devices through texel buffers, storing C as vec4s:
 * common/gemm_texel_body.glsl, where it is written and explained. */
#extension GL_GOOGLE_include_directive : require
#include "common/gemm_texel_body.glsl"
