/*
 * The choices of the operations whose families have few (lib/ops/<op>.c
 * asks; GEMM's many are lib/ops/gemm_policy.c's): the kernel variant, the
 * texel, vec4, split and fused forms, the attention form, the CPU forms'
 * workgroup. Each is a function of the device profile and the context's
 * tuning (lib/vk/device_profile.h, lib/vk/tuning.h), decided when an
 * operation records, never from the environment.
 */
#ifndef SVK_OPS_POLICY_H
#define SVK_OPS_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/context.h"
#include "vk/tuning.h"

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

/* The variant for ctx: the tuning's forced one (SVK_KERNEL_VARIANT,
 * lib/vk/tuning.h), so that tests and tools can record either on any
 * device, else CPU on CPU devices (the device profile) and PORTABLE
 * elsewhere. Read at each call: the tuning may change between recordings,
 * and a list records the variant current then.
 * Never fails today (op names the operation for a message). */
svk_status svk_op_variant(svk_ctx *ctx, const char *op, svk_kernel_variant *out);

/* Whether the tuning leaves the decision off_bit (SVK_TUNE_OFF_*,
 * lib/vk/tuning.h) on: true unless a comparison switched it off. */
bool svk_op_tune_on(const svk_ctx *ctx, uint32_t off_bit);

/* Whether kernels on ctx read their inputs through uniform texel buffers
 * (lib/vk/texel.h) where the device and the buffer allow: unless the
 * driver's texel fetches are the slower (svk_texel_caps.slow_fetch,
 * lib/vk/quirks.c). The tuning's texel switch overrides: OFF makes kernels
 * record their storage-buffer forms; ON their texel forms also on such a
 * driver, but only at subgroup size 8, the one size where they were seen
 * to work there (for comparisons). */
bool svk_op_texel_allowed(const svk_ctx *ctx);

/* Whether fills and copies record transfer commands (svk_cmdlist_transfer),
 * unless the tuning's transfer_copies=0 makes them run shaders/copy.comp. */
bool svk_op_transfer_allowed(const svk_ctx *ctx);

/* Whether elementwise kernels may move four elements per invocation
 * (svk_elem_dispatch_1d_vec4), unless the tuning's vec4=0. */
bool svk_op_vec4_allowed(const svk_ctx *ctx);

/* Whether the CPU texel GEMM may pack operands into its scratch
 * (lib/ops/gemm_pack.h), unless the tuning's gemm_pack=0. */
bool svk_op_gemm_pack_allowed(const svk_ctx *ctx);

/* Whether the CPU texel GEMM may take its wide tile (16 x 8 per
 * invocation, lib/ops/gemm_policy.c texel_tile), unless the tuning's gemm_wide=0. */
bool svk_op_gemm_wide_allowed(const svk_ctx *ctx);

/* Whether the CPU texel GEMM may put two rows of blocks in a subgroup for
 * products too narrow to fill it with one (lib/ops/gemm_policy.c texel_rows2),
 * unless the tuning's gemm_rows=0. */
bool svk_op_gemm_rows_allowed(const svk_ctx *ctx);

/* Whether the CPU GEMMs may go through 64-bit views (the texel form's
 * stores, the gemm_texel_s64 row of shaders/meson.build; the
 * storage-buffer form's loads and stores, gemm_cpu_s64): the context enabled shaderInt64 and the
 * tuning's gemm_store64 is not 0 (the conformance tool tests both). */
bool svk_op_gemm_store64_allowed(const svk_ctx *ctx);

/* Whether SiameseNorm's backward may run as one fused kernel: the device
 * binds its 13 storage buffers and the tuning leaves fused_siamese_bwd on. */
bool svk_op_fused_siamese_bwd_allowed(const svk_ctx *ctx);

/* The lanes a norm's split form shares each group of rows over
 * (norm_rows.h), 0 for none. */
uint32_t svk_op_norm_split_lanes(const svk_ctx *ctx);

/* Whether the training step's attention is the flash pair: the tuning's
 * choice (SVK_ATTENTION), else on every device but a CPU one. */
bool svk_op_flash_attention(const svk_ctx *ctx);

/* Rows per workgroup of a CPU-form row kernel (one invocation each): twice
 * the subgroup size (lavapipe's SIMD width, 4, 8 or 16 floats), within
 * [8, 64]: full SIMD batches, and workgroups small enough that a few
 * hundred rows still make one for every thread. */
uint32_t svk_op_cpu_group(const svk_ctx *ctx);

#endif
