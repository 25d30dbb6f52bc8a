#version 450
/*
 * colsum.comp for CPU devices (lavapipe): the same sums, in the same order,
 * with src read through an RGBA32F uniform texel view, four columns per
 * fetch (VEC4 only; lib/ops/colsum.c picks it where src can be viewed).
 * lavapipe runs a storage-buffer load whose address differs per lane as a
 * loop over the lanes, and inside the row loop under its lane mask; a texel
 * fetch is one call. The default step's bias gradients went from 5.7-8.5 to
 * 3.3-4.5 ms. Reference: lib/ref/bias.c (bias_bwd). Conformance:
 * tools/conformance/conform_bias.c (the "-cpu" rows).
 */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

#define SVK_COLSUM_TEXEL
#include "common/colsum_body.glsl"
