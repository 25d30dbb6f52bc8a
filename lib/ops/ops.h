/*
 * What every device operation (lib/ops/<kernel>.c) shares: operands as a
 * buffer plus an element offset, their bounds checks, and the workgroup grid
 * of a 1-D problem.
 */
#ifndef SVK_OPS_OPS_H
#define SVK_OPS_OPS_H

#include "policy.h"
#include "vk/cmd.h"

/* A tensor operand: elements [off, off + n) of a buffer of 4-byte elements
 * (float32 or int32). The element count n comes from the operation's shape. */
typedef struct svk_tref {
    svk_buffer *buf;
    uint64_t off;   /* elements */
} svk_tref;

/* Checks that t holds n elements and that they are addressable with 32-bit
 * element offsets (push constants), and fills the range the dispatch
 * declares. op and what name the operation and operand in the message. */
svk_status svk_op_bind(svk_ctx *ctx, const char *op, const char *what, svk_tref t, uint64_t n,
                       svk_range *out);

/* An operand to bind: t, n elements of it, named what in the messages. */
typedef struct svk_op_operand {
    const char *what;
    svk_tref t;
    uint64_t n;
} svk_op_operand;

/* svk_op_bind() of operands[0..count) in order into out[0..count); stops
 * at the first that fails and returns its status. */
svk_status svk_op_bind_all(svk_ctx *ctx, const char *op, const svk_op_operand *operands, uint32_t count,
                           svk_range *out);

/* Spreads `groups` workgroups over x and y so that neither exceeds the
 * device's limit (shaders recover the linear index with svk_group_index()
 * from shaders/common/grid.glsl). SVK_ERROR_TOO_LARGE if even x*y cannot. */
svk_status svk_op_grid(svk_ctx *ctx, const char *op, uint64_t groups, uint32_t out[3]);

/* ceil(n / d) for d > 0. */
static inline uint64_t svk_div_up(uint64_t n, uint64_t d)
{
    return (n + d - 1) / d;
}

/* Whether two bound ranges share a byte (distinct svk_buffers never share
 * memory). Both sizes are the bytes an operation touches, never 0. */
static inline bool svk_range_overlap(svk_range a, svk_range b)
{
    return a.buf == b.buf && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

/* Whether a CPU-form row kernel may step 4 elements at a time (the VEC4
 * specialisation, shaders/common/row_cpu.glsl): the row width and the n
 * element offsets (of every operand it walks element by element) all
 * multiples of 4, so that every row starts on a vec4. */
bool svk_op_vec4(uint64_t width, const uint64_t *offs, uint32_t n);

/* The most loop iterations, all loops and paths of one invocation
 * together, that an operation lets a CPU-form kernel run; beyond it the
 * operation records the portable form. lavapipe ends every loop once a
 * SIMD batch has run 65535 iterations in total (Mesa's
 * LP_MAX_TGSI_LOOP_ITERATIONS), silently; this keeps a margin for the
 * estimates' rounding. */
#define SVK_OP_CPU_LOOP_BUDGET 49152u

#endif
