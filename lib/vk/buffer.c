#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "buffer.h"
#include "context.h"

svk_buffer_params svk_buffer_params_default(void)
{
    return (svk_buffer_params){.memory = SVK_MEMORY_DEVICE};
}

svk_status svk_buffer_create(svk_ctx *ctx, const svk_buffer_params *params, svk_buffer **out)
{
    svk_error_clear_thread();
    SVK_CHECK_ARG(NULL, ctx);
    SVK_CHECK_ARG(&ctx->log, out);
    *out = NULL;
    SVK_CHECK_ARG(&ctx->log, params);
    SVK_CHECK_ARG(&ctx->log, params->memory == SVK_MEMORY_DEVICE || params->memory == SVK_MEMORY_HOST_MAPPED);
    for (size_t i = 0; i < sizeof(params->reserved) / sizeof(params->reserved[0]); i++)
        SVK_CHECK_ARG(&ctx->log, params->reserved[i] == 0);
    svk_status st = svk_ctx_check_alive(ctx, __func__);
    if (st != SVK_OK)
        return st;
    const char *name = params->name ? params->name : "(unnamed)";
    char b1[32], b2[32];
    if (params->size == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: buffer '%s' has size 0", __func__, name);
    /* The whole buffer is bound as one storage range (cmd.c), so this limit,
     * not only the allocation size, caps a buffer. */
    if (params->size > ctx->info.max_storage_buffer_range)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE,
                         "buffer '%s' of %llu bytes (%s) exceeds the device's maxStorageBufferRange of %llu bytes (%s)",
                         name, (unsigned long long)params->size, svk_fmt_bytes(b1, params->size),
                         (unsigned long long)ctx->info.max_storage_buffer_range,
                         svk_fmt_bytes(b2, ctx->info.max_storage_buffer_range));

    svk_buffer *buf = svk_calloc(1, sizeof(*buf));
    if (!buf)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating buffer '%s'", name);
    buf->ctx = ctx;
    buf->size = params->size;
    buf->memory = params->memory;
    snprintf(buf->name, sizeof(buf->name), "%s", name);
    st = svk_mem_alloc_range(ctx, params->memory == SVK_MEMORY_DEVICE ? SVK_POOL_DEVICE : SVK_POOL_MAPPED,
                             params->size, buf->name, &buf->alloc);
    if (st != SVK_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return SVK_OK;
}

void svk_buffer_destroy(svk_buffer **pbuf)
{
    if (!pbuf || !*pbuf)
        return;
    svk_buffer *buf = *pbuf;
    svk_ctx *ctx = buf->ctx;
    /* Work that may still read the buffer must finish before its memory is
     * reused. Command lists wait for their own fences; a queue-idle wait
     * here covers everything else submitted on libsvk's queue. */
    VkResult r = ctx->lost ? VK_SUCCESS : ctx->vkd.vkQueueWaitIdle(ctx->queue);
    /* Lost: nothing is left to wait for, and the range is freed all the
     * same; the loss is recorded for the next call to report. */
    if (r == VK_ERROR_DEVICE_LOST)
        svk_vk_fail(ctx, NULL, r, "vkQueueWaitIdle", __FILE__, __LINE__, "destroying buffer '%s'", buf->name);
    svk_mem_free_range(ctx, &buf->alloc);
    free(buf);
    *pbuf = NULL;
}

uint64_t svk_buffer_size(const svk_buffer *buf)
{
    return buf ? buf->size : 0;
}

svk_status svk_buffer_map(svk_buffer *buf, void **ptr)
{
    svk_error_clear_thread();
    SVK_CHECK_ARG(NULL, buf);
    SVK_CHECK_ARG(&buf->ctx->log, ptr);
    *ptr = NULL;
    if (buf->memory != SVK_MEMORY_HOST_MAPPED)
        return svk_error(&buf->ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: buffer '%s' is device memory; only SVK_MEMORY_HOST_MAPPED buffers map", __func__,
                         buf->name);
    *ptr = svk_mem_ptr(&buf->alloc);
    return SVK_OK;
}
