/*
 * Host <-> device copies through a staging buffer, and the one-shot command
 * buffer they are recorded into. Each call waits for its copy: these are for
 * loading weights and reading results, not for the per-step path (that uses
 * persistently mapped buffers).
 */
#include <string.h>

#include "cmd.h"
#include "vk_buffer.h"
#include "vk_context.h"

/* Bounce-buffer size: large transfers go through it in pieces, so staging
 * memory stays small whatever the tensor size. */
#define STAGING_SIZE (8ull << 20)

svk_status svk_oneshot_init(svk_ctx *ctx)
{
    svk_oneshot *o = &ctx->transfer.oneshot;
    const char *what[3] = {"creating the transfer command pool", "creating the transfer command buffer",
                           "creating the transfer fence"};
    /* svk_oneshot_destroy releases whatever a failure left. */
    const VkCommandPoolCreateFlags flags =
        VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    return svk_cmd_objects_create(ctx, flags, what, &o->pool, &o->cmd, &o->fence);
}

void svk_oneshot_destroy(svk_ctx *ctx)
{
    svk_oneshot *o = &ctx->transfer.oneshot;
    if (o->fence)
        ctx->vkd.vkDestroyFence(ctx->vk.device, o->fence, NULL);
    if (o->pool)
        ctx->vkd.vkDestroyCommandPool(ctx->vk.device, o->pool, NULL);
    memset(o, 0, sizeof(*o));
}

svk_status svk_oneshot_begin(svk_ctx *ctx)
{
    svk_status st = SVK_OK;
    /* A transfer whose wait failed may still be running: its command
     * buffer and the staging memory are reused only once it is done. */
    if (ctx->transfer.oneshot.pending) {
        SVK_VK(ctx, ctx->vkd.vkWaitForFences(ctx->vk.device, 1, &ctx->transfer.oneshot.fence, VK_TRUE, UINT64_MAX),
               "waiting for an earlier transfer");
        ctx->transfer.oneshot.pending = false;
    }
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    SVK_VK(ctx, ctx->vkd.vkBeginCommandBuffer(ctx->transfer.oneshot.cmd, &bi), "beginning a transfer");
    return SVK_OK;
fail:
    return st;
}

svk_status svk_oneshot_submit_wait(svk_ctx *ctx, const char *what)
{
    svk_status st = SVK_OK;
    svk_oneshot *o = &ctx->transfer.oneshot;
    SVK_VK(ctx, ctx->vkd.vkEndCommandBuffer(o->cmd), "%s", what);
    SVK_VK(ctx, ctx->vkd.vkResetFences(ctx->vk.device, 1, &o->fence), "%s", what);
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &o->cmd,
    };
    SVK_VK(ctx, ctx->vkd.vkQueueSubmit(ctx->vk.queue, 1, &si, o->fence), "%s", what);
    o->pending = true;
    SVK_VK(ctx, ctx->vkd.vkWaitForFences(ctx->vk.device, 1, &o->fence, VK_TRUE, UINT64_MAX), "%s", what);
    o->pending = false;
    return SVK_OK;
fail:
    return st;
}

uint64_t svk_transfer_staging_pending(const svk_ctx *ctx)
{
    return ctx->transfer.staging.block ? 0 : STAGING_SIZE;
}

static svk_status ensure_staging(svk_ctx *ctx)
{
    if (ctx->transfer.staging.block)
        return SVK_OK;
    return svk_mem_alloc_range(ctx, SVK_POOL_STAGING, STAGING_SIZE, "staging", &ctx->transfer.staging);
}

/* Orders a transfer after all earlier work on the queue (kernels reading or
 * writing the range, earlier transfers). */
static void barrier_before_transfer(svk_ctx *ctx)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    ctx->vkd.vkCmdPipelineBarrier(ctx->transfer.oneshot.cmd,
                                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                  VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static svk_status check_range(svk_buffer *buf, uint64_t offset, uint64_t size, const char *func)
{
    if (offset > buf->size || size > buf->size - offset)
        return svk_error(&buf->ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: range [%llu, +%llu) is outside buffer '%s' of %llu bytes", func,
                         (unsigned long long)offset, (unsigned long long)size, buf->name,
                         (unsigned long long)buf->size);
    return SVK_OK;
}

/* The checks an upload or download (func, for the messages) begins with:
 * data for size bytes, a live context, and the range within buf. */
static svk_status check_copy(svk_buffer *buf, uint64_t offset, const void *data, uint64_t size, const char *func)
{
    svk_ctx *ctx = buf->ctx;
    if (!data && size)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: data is NULL for %llu bytes", func,
                         (unsigned long long)size);
    svk_status st = svk_ctx_check_alive(ctx, func);
    if (st != SVK_OK)
        return st;
    return check_range(buf, offset, size, func);
}

svk_status svk_buffer_upload(svk_buffer *buf, uint64_t offset, const void *data, uint64_t size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, buf);
    svk_ctx *ctx = buf->ctx;
    svk_status st = check_copy(buf, offset, data, size, __func__);
    if (st != SVK_OK)
        return st;
    if (buf->memory == SVK_MEMORY_HOST_MAPPED) {
        memcpy((char *)svk_mem_ptr(&buf->alloc) + offset, data, size);
        return SVK_OK;
    }
    if ((st = ensure_staging(ctx)) != SVK_OK)
        return st;
    const char *src = data;
    for (uint64_t done = 0; done < size;) {
        uint64_t chunk = size - done < STAGING_SIZE ? size - done : STAGING_SIZE;
        /* The previous piece's copy has completed (submit_wait): the
         * staging memory is free to overwrite. */
        memcpy(svk_mem_ptr(&ctx->transfer.staging), src + done, chunk);
        if ((st = svk_oneshot_begin(ctx)) != SVK_OK)
            return st;
        barrier_before_transfer(ctx);
        VkBufferCopy region = {
            .srcOffset = ctx->transfer.staging.offset,
            .dstOffset = buf->alloc.offset + offset + done,
            .size = chunk,
        };
        ctx->vkd.vkCmdCopyBuffer(ctx->transfer.oneshot.cmd, ctx->transfer.staging.block->buffer,
                                 buf->alloc.block->buffer, 1, &region);
        if ((st = svk_oneshot_submit_wait(ctx, "uploading")) != SVK_OK)
            return svk_error(&ctx->log, st, "%s (buffer '%s')", ctx->log.last, buf->name);
        done += chunk;
    }
    return SVK_OK;
}

svk_status svk_buffer_download(svk_buffer *buf, uint64_t offset, void *data, uint64_t size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, buf);
    svk_ctx *ctx = buf->ctx;
    svk_status st = check_copy(buf, offset, data, size, __func__);
    if (st != SVK_OK)
        return st;
    if ((st = ensure_staging(ctx)) != SVK_OK)
        return st;
    char *dst = data;
    for (uint64_t done = 0; done < size;) {
        uint64_t chunk = size - done < STAGING_SIZE ? size - done : STAGING_SIZE;
        if ((st = svk_oneshot_begin(ctx)) != SVK_OK)
            return st;
        barrier_before_transfer(ctx);
        VkBufferCopy region = {
            .srcOffset = buf->alloc.offset + offset + done,
            .dstOffset = ctx->transfer.staging.offset,
            .size = chunk,
        };
        ctx->vkd.vkCmdCopyBuffer(ctx->transfer.oneshot.cmd, buf->alloc.block->buffer,
                                 ctx->transfer.staging.block->buffer, 1, &region);
        /* The copy's writes must reach the host before it reads them. */
        VkMemoryBarrier mb = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
            .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
        };
        ctx->vkd.vkCmdPipelineBarrier(ctx->transfer.oneshot.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                      VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        if ((st = svk_oneshot_submit_wait(ctx, "downloading")) != SVK_OK)
            return svk_error(&ctx->log, st, "%s (buffer '%s')", ctx->log.last, buf->name);
        memcpy(dst + done, svk_mem_ptr(&ctx->transfer.staging), chunk);
        done += chunk;
    }
    return SVK_OK;
}
