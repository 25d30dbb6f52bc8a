/* The preamble of a 1-D elementwise kernel (include it after the push
 * constants): kernel.glsl, svk_elem_index (elem_index.glsl) and VEC4, four
 * elements per invocation as vec4s (lib/ops/elem_util.h says when). */
#include "kernel.glsl"
#include "elem_index.glsl"

layout(constant_id = 3) const bool VEC4 = false;
