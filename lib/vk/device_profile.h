/*
 * What the kernel choices depend on, read from the device once at context
 * creation (svk_device_profile_read). The policy code of lib/ops
 * (lib/ops/policy.c, lib/ops/gemm_policy.c) decides every variant, tile
 * and split from this and the context's tuning (tuning.h); nothing that
 * records reads the device's properties or the environment for itself.
 */
#ifndef SVK_VK_DEVICE_PROFILE_H
#define SVK_VK_DEVICE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/context.h"

/* Uniform texel buffers (lib/vk/texel.h, svk_buffer_view): on CPU drivers
 * a texel fetch compiles to a vector gather where a storage-buffer load
 * becomes a per-lane scalar loop with bounds checks (Mesa llvmpipe), so
 * kernels that are bound by loads read their inputs through them. */
typedef struct svk_texel_caps {
    /* VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT of R32_SFLOAT and of
     * R32G32B32A32_SFLOAT (vkGetPhysicalDeviceFormatProperties); memory
     * blocks get VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT when either is. */
    bool r32f, rgba32f;
    uint32_t max_elements;    /* maxTexelBufferElements */
    uint64_t offset_align;    /* minTexelBufferOffsetAlignment */
    /* The driver fetches texel buffers slower than it loads storage
     * buffers (svk_quirk_texel_fetch_slow, lib/vk/quirks.c): kernels read
     * storage buffers unless the tuning forces texel buffers
     * (svk_op_texel_allowed). */
    bool slow_fetch;
} svk_texel_caps;

typedef struct svk_device_profile {
    /* A CPU device (lavapipe): a workgroup runs on one thread and every
     * barrier splits a shader into coroutines, so row kernels take their
     * CPU forms (one invocation per row) and attention its scores form. */
    bool cpu;
    uint32_t subgroup_size;   /* the default subgroup size of compute shaders */
    bool one_subgroup_size;   /* min == max: a shader may count on the default size */
    /* subgroupShuffle and subgroupAdd in compute shaders: the CPU forms of
     * GEMM shuffle op(A) over a subgroup; the split row forms reduce
     * with subgroupAdd (shaders/common/row_split.glsl). */
    bool subgroup_shuffle, subgroup_arith;
    bool int64;               /* shaderInt64 enabled: the CPU GEMMs' 64-bit views */
    bool float16;             /* shaderFloat16 */
    /* The float16 cooperative-matrix fragment (M x N x K), all 0 where
     * libsvk cannot use cooperative matrices (svk_device_info.coopmat_*). */
    uint32_t coopmat_m, coopmat_n, coopmat_k;
    uint32_t max_storage_buffers; /* per shader: the fused kernels need up to 13 */
    svk_texel_caps texel;
} svk_device_profile;

/* Fills ctx->profile from ctx->info and ctx->vk.physical_device (before the
 * first memory block is made: blocks take the texel usage from it). */
void svk_device_profile_read(svk_ctx *ctx);

#endif
