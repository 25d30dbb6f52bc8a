/* The extensions that the variant defines of shaders/meson.build need:
 * SVK_TEXEL, operands fetched through RGBA32F uniform texel views, and
 * SVK_SPLIT, a row shared by the lanes of a subgroup (row_split.glsl).
 * Include first, before any declaration. */
#ifdef SVK_TEXEL
#extension GL_EXT_samplerless_texture_functions : require
#endif
#ifdef SVK_SPLIT
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
