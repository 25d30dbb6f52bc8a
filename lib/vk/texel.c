#include "texel.h"

#include <stdio.h>

#include "vk_buffer.h"
#include "vk_context.h"

_Static_assert(sizeof(((svk_buffer *)0)->views) / sizeof(VkBufferView) == SVK_TEXEL_FORMAT_COUNT,
               "svk_buffer.views holds one view per svk_texel_format");

static const VkFormat formats[SVK_TEXEL_FORMAT_COUNT] = {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT};
static const char *const format_names[SVK_TEXEL_FORMAT_COUNT] = {"R32_SFLOAT", "R32G32B32A32_SFLOAT"};
static const uint64_t texel_bytes[SVK_TEXEL_FORMAT_COUNT] = {4, 16};

/* The view's range: the buffer rounded up to whole RGBA32F texels (16
 * bytes), so that both formats see every float and an RGBA32F view's last
 * texel exists. The rounding stays inside the buffer's allocation, which is
 * a multiple of SVK_MEM_ALIGN (256) bytes. */
static uint64_t view_range(const svk_buffer *buf)
{
    return (buf->size + 15) / 16 * 16;
}

bool svk_texel_usable(const svk_buffer *buf, svk_texel_format f, char *why, size_t n)
{
    const svk_texel_caps *tc = &buf->ctx->profile.texel;
    char dummy[1];
    if (!why || !n) {
        why = dummy;
        n = sizeof(dummy);
    }
    why[0] = '\0';
    if (f < 0 || f >= SVK_TEXEL_FORMAT_COUNT) {
        snprintf(why, n, "texel format %d is not a svk_texel_format", (int)f);
        return false;
    }
    if (!(f == SVK_TEXEL_R32F ? tc->r32f : tc->rgba32f)) {
        snprintf(why, n, "the device has no uniform texel buffers of %s", format_names[f]);
        return false;
    }
    uint64_t texels = view_range(buf) / texel_bytes[f];
    if (texels > tc->max_elements) {
        snprintf(why, n, "buffer '%s' of %llu bytes is %llu %s texels, more than maxTexelBufferElements (%u)",
                 buf->name, (unsigned long long)buf->size, (unsigned long long)texels, format_names[f],
                 tc->max_elements);
        return false;
    }
    if (buf->alloc.offset % tc->offset_align) {
        snprintf(why, n, "buffer '%s' starts at byte %llu of its block, not a multiple of minTexelBufferOffsetAlignment (%llu)",
                 buf->name, (unsigned long long)buf->alloc.offset, (unsigned long long)tc->offset_align);
        return false;
    }
    return true;
}

svk_status svk_buffer_view(svk_buffer *buf, svk_texel_format f, VkBufferView *out)
{
    svk_status st = SVK_OK;
    svk_ctx *ctx = buf->ctx;
    *out = VK_NULL_HANDLE;
    char why[256];
    if (!svk_texel_usable(buf, f, why, sizeof(why)))
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED, "texel view of buffer '%s': %s", buf->name, why);
    if (buf->views[f]) {
        *out = buf->views[f];
        return SVK_OK;
    }
    VkBufferViewCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
        .buffer = buf->alloc.block->buffer,
        .format = formats[f],
        .offset = buf->alloc.offset,
        .range = view_range(buf),
    };
    /* Into a local: a failed create leaves its output undefined. */
    VkBufferView view;
    SVK_VK(ctx, ctx->vkd.vkCreateBufferView(ctx->vk.device, &ci, NULL, &view), "creating a %s view of buffer '%s'",
           format_names[f], buf->name);
    buf->views[f] = view;
    *out = view;
    return SVK_OK;
fail:
    return st;
}

void svk_buffer_views_destroy(svk_buffer *buf)
{
    for (int f = 0; f < SVK_TEXEL_FORMAT_COUNT; f++) {
        if (buf->views[f])
            buf->ctx->vkd.vkDestroyBufferView(buf->ctx->vk.device, buf->views[f], NULL);
        buf->views[f] = VK_NULL_HANDLE;
    }
}
