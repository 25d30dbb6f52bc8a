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

/* Whether two bound ranges share a byte (distinct svk_buffers never share
 * memory). Both sizes are the bytes an operation touches, never 0. */
static inline bool svk_range_overlap(svk_range a, svk_range b)
{
    return a.buf == b.buf && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

/* Which form of a kernel an operation records. Row-wise kernels (the norms,
 * the attention softmax, cross-entropy) come in two forms computing the same
 * thing:
 * PORTABLE, a workgroup (or a row of one) per tensor row reducing through
 * shared memory with barrier(), which suits GPUs; and CPU, one invocation
 * per row looping over it, with no shared memory and no barriers, which
 * suits CPU devices such as lavapipe, where a workgroup runs on one thread
 * and every barrier splits the shader into coroutines. */
typedef enum svk_kernel_variant {
    SVK_KERNEL_VARIANT_PORTABLE = 0,
    SVK_KERNEL_VARIANT_CPU,
} svk_kernel_variant;

/* The variant for ctx: $SVK_KERNEL_VARIANT ("portable" or "cpu") when set
 * and not empty, so that tests can force either on any device, else CPU on
 * CPU devices (svk_device_info.type == SVK_DEVICE_CPU) and PORTABLE
 * elsewhere. Read at each call: a list records the variant current then.
 * SVK_ERROR_INVALID_ARG, naming op, for any other value. */
svk_status svk_op_variant(svk_ctx *ctx, const char *op, svk_kernel_variant *out);

/* Whether kernels on ctx read their inputs through uniform texel buffers
 * (lib/vk/texel.h) where the device and the buffer allow: unless the
 * driver's texel fetches are the slower (svk_texel_caps.slow_fetch,
 * lib/vk/quirks.c). $SVK_TEXEL_BUFFERS overrides: "0" makes kernels record
 * their storage-buffer forms; any other non-empty value their texel forms
 * also on such a driver, but only at subgroup size 8, the one size where
 * they were seen to work there (for comparisons). Read at each call. */
bool svk_op_texel_allowed(const svk_ctx *ctx);

/* Whether fills and copies record transfer commands (svk_cmdlist_transfer):
 * true unless $SVK_TRANSFER_COPIES is "0", which makes them run
 * shaders/copy.comp instead (for comparisons). Read at each call. */
bool svk_op_transfer_allowed(void);

/* A comparison knob: true unless the environment variable name is "0".
 * Read at each call, so a test or a benchmark may flip it between
 * recordings. */
bool svk_op_env_allows(const char *name);

/* Whether elementwise kernels may move four elements per invocation
 * (svk_elem_dispatch_1d_vec4): true unless $SVK_VEC4 is "0" (for
 * comparisons and tests). Read at each call. */
bool svk_op_vec4_allowed(void);

/* Whether the CPU texel GEMM may pack operands into its scratch
 * (lib/ops/gemm_pack.h): true unless $SVK_GEMM_PACK is "0" (for
 * comparisons). Read at each call. */
bool svk_op_gemm_pack_allowed(void);

/* Whether the CPU texel GEMM may take its wide tile (16 x 8 per
 * invocation, lib/ops/gemm.c texel_tile) where it measured faster: true
 * unless $SVK_GEMM_WIDE is "0" (for comparisons). Read at each call. */
bool svk_op_gemm_wide_allowed(void);

/* Whether the CPU texel GEMM may put two rows of blocks in a subgroup for
 * products too narrow to fill it with one (lib/ops/gemm.c texel_rows2):
 * true unless $SVK_GEMM_ROWS is "0" (for comparisons). Read at each call. */
bool svk_op_gemm_rows_allowed(void);

/* Whether the CPU GEMMs may go through 64-bit views (the texel form's
 * stores, shaders/gemm_texel_s64.comp; the storage-buffer form's loads
 * and stores, gemm_cpu_s64.comp): the context enabled shaderInt64 and
 * $SVK_GEMM_STORE64 is not "0" (for comparisons, and for the conformance
 * tool, which tests both forms). Read at each call. */
bool svk_op_gemm_store64_allowed(const svk_ctx *ctx);

/* Rows per workgroup of a CPU-form row kernel (one invocation each): twice
 * the subgroup size (lavapipe's SIMD width, 4, 8 or 16 floats), within
 * [8, 64]: full SIMD batches, and workgroups small enough that a few
 * hundred rows still make one for every thread. */
uint32_t svk_op_cpu_group(const svk_ctx *ctx);

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
