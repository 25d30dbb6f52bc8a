#version 450
/* RoPE forward, in place on q and k of qkv [B, T, 3C]: see common/rope.glsl. */
#extension GL_GOOGLE_include_directive : require
#define ROPE_SIGN 1.0
#include "common/rope.glsl"
