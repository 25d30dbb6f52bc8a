/* The preamble every compute kernel shares (include it ahead of the other
 * common helpers): the workgroup size from specialisation constants 0, 1, 2,
 * the grid's workgroup index (grid.glsl) and the buffer declarations below.
 *
 * The workgroup size comes ahead of the helpers: glslang gives
 * gl_WorkGroupSize its specialised value only after this declaration
 * (before it, the default 1). */
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#include "grid.glsl"

/* Access qualifier of a buffer both read and written (GLSL has no word for
 * it), for SVK_BUF and SVK_BUF4. */
#define SVK_RW

/* A float storage buffer `name[]` at set 0, binding b, with access q
 * (readonly, writeonly or SVK_RW) and block name Blk. */
#define SVK_BUF(b, q, Blk, name) \
    layout(set = 0, binding = b, std430) q buffer Blk { float name[]; }

/* The same, and the vec4 view `name4[]` of the same binding (block Blk4),
 * for the kernels that move four floats at a time (VEC4, RC_LD). */
#define SVK_BUF4(b, q, Blk, name) \
    SVK_BUF(b, q, Blk, name); \
    layout(set = 0, binding = b, std430) q buffer Blk##4 { vec4 name##4[]; }

/* A buffer that a family's bindings header declares for all the family's
 * forms: with its vec4 view (SVK_BUF4) in the forms that define SVK_VIEW4
 * before including this file, the CPU forms, which move rows as vec4s
 * (row_cpu.glsl); as SVK_BUF in the others. */
#ifdef SVK_VIEW4
#define SVK_BUFV SVK_BUF4
#else
#define SVK_BUFV SVK_BUF
#endif
