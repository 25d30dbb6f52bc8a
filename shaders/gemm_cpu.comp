#version 450
/* GEMM for CPU devices through storage buffers (the texel form's fallback):
 * common/gemm_cpu_body.glsl, where it is written and explained. */
#extension GL_GOOGLE_include_directive : require
#include "common/gemm_cpu_body.glsl"
