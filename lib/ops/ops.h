/*
 * What every device operation (lib/ops/<kernel>.c) shares: operands as a
 * buffer plus an element offset, their bounds checks, and the workgroup grid
 * of a 1-D problem.
 */
#ifndef SVK_OPS_OPS_H
#define SVK_OPS_OPS_H

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

/* Spreads `groups` workgroups over x and y so that neither exceeds the
 * device's limit (shaders recover the linear index with svk_group_index()
 * from shaders/common/grid.glsl). SVK_ERROR_TOO_LARGE if even x*y cannot. */
svk_status svk_op_grid(svk_ctx *ctx, const char *op, uint64_t groups, uint32_t out[3]);

/* ceil(n / d) for d > 0. */
static inline uint64_t svk_div_up(uint64_t n, uint64_t d)
{
    return (n + d - 1) / d;
}

#endif
