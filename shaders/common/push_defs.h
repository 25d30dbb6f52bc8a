/*
 * Push-constant blocks are written once, in shaders/common/push_<kernel>.h,
 * with these macros, and included by both the GLSL shader and the C code
 * that fills them, so the two layouts cannot drift apart. Only 32-bit
 * scalars are allowed: their std430 push-constant layout equals the C
 * struct layout with no padding on every ABI libsvk targets. The C side
 * asserts the size against the 128 bytes every Vulkan device guarantees.
 */
#ifndef SVK_PUSH_DEFS_H
#define SVK_PUSH_DEFS_H

#ifdef VULKAN /* defined by glslang when compiling GLSL for Vulkan */
#  define SVK_PUSH_BEGIN(name) layout(push_constant) uniform name##_block {
#  define SVK_PUSH_U32(field) uint field;
#  define SVK_PUSH_I32(field) int field;
#  define SVK_PUSH_F32(field) float field;
#  define SVK_PUSH_END(name) } pc;
#else
#  include <stdint.h>
#  define SVK_PUSH_BEGIN(name) typedef struct name {
#  define SVK_PUSH_U32(field) uint32_t field;
#  define SVK_PUSH_I32(field) int32_t field;
#  define SVK_PUSH_F32(field) float field;
#  define SVK_PUSH_END(name)                                                  \
       } name;                                                                \
       _Static_assert(sizeof(name) <= 128, #name " exceeds 128 bytes of push constants");
#endif

#endif
