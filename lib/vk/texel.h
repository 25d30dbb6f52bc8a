/*
 * Uniform texel buffer views of svk_buffers, for kernels that read through
 * texelFetch instead of storage-buffer loads (the kernel registry says which
 * bindings, svk_kernel_info.binding_kind).
 *
 * Why: Mesa's llvmpipe (lavapipe) compiles a storage-buffer load whose
 * address differs per lane into a loop over the SIMD lanes with a bounds
 * check each, and a texel fetch into one vector gather (a vec4 fetch from an
 * RGBA32F view: one 16-byte load per lane and a transpose). A kernel bound
 * by its loads, such as the CPU form of GEMM, runs several times faster.
 *
 * A view spans the whole svk_buffer, starting at its first byte, so kernels
 * address it with the same element offsets (push constants) as a storage
 * binding of it: element e of an R32F view is float e of the buffer, texel t
 * of an RGBA32F view is floats 4t .. 4t+3. Views are made on first use, one
 * per (buffer, format), and destroyed with the buffer.
 */
#ifndef SVK_VK_TEXEL_H
#define SVK_VK_TEXEL_H

#include <stddef.h>
#include <vulkan/vulkan.h>
#include "svk/buffer.h"

typedef enum svk_texel_format {
    SVK_TEXEL_R32F = 0,    /* VK_FORMAT_R32_SFLOAT: one float per texel */
    SVK_TEXEL_RGBA32F,     /* VK_FORMAT_R32G32B32A32_SFLOAT: four floats per texel */
    SVK_TEXEL_FORMAT_COUNT
} svk_texel_format;

/* Whether buf can be viewed as format f on its device; if not, why (into
 * why[0..n), for a message: the format has no uniform texel buffer support,
 * or the view would exceed maxTexelBufferElements, or the buffer's offset in
 * its block is not a multiple of minTexelBufferOffsetAlignment). */
bool svk_texel_usable(const svk_buffer *buf, svk_texel_format f, char *why, size_t n);

/* The view of buf as format f, created on first use (refused as
 * SVK_ERROR_UNSUPPORTED when !svk_texel_usable). Owned by buf. */
svk_status svk_buffer_view(svk_buffer *buf, svk_texel_format f, VkBufferView *out);

/* Destroys buf's views (svk_buffer_destroy, after the queue is idle). */
void svk_buffer_views_destroy(svk_buffer *buf);

#endif
