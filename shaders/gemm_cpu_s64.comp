#version 450
/* gemm_cpu.comp loading A and B and storing C, aux and aux2 through 64-bit
 * views, for devices with shaderInt64 (GEMM_CPU_64 in
 * common/gemm_cpu_body.glsl). */
#extension GL_GOOGLE_include_directive : require
#define GEMM_CPU_64
#include "common/gemm_cpu_body.glsl"
