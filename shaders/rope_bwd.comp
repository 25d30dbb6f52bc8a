#version 450
/* RoPE backward, in place on dqkv [B, T, 3C]: the rotation by the negative
 * angle (the transpose of the forward rotation). See common/rope.glsl. */
#extension GL_GOOGLE_include_directive : require
#define ROPE_SIGN -1.0
#include "common/rope.glsl"
