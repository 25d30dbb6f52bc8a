/*
 * A command buffer of svk-bench's own, with timestamps, for what a libsvk
 * command list cannot time: the whole recorded training step as one span
 * (svk_model_record_train_step records into an application's buffer), and
 * vkCmdCopyBuffer, the driver's own copy, as a bandwidth limit beside the
 * copy shader. Built from the context's device and function table
 * (lib/vk/vk_context.h): the benchmark is a libsvk tool, not an application
 * importing a device.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

static bool vk_ok(bench_vkcmd *t, VkResult r, const char *what)
{
    if (r == VK_SUCCESS)
        return true;
    snprintf(t->why, sizeof(t->why), "%s failed: VkResult %d", what, (int)r);
    return false;
}

bool bench_vkcmd_begin(bench_vkcmd *t, svk_ctx *ctx, uint32_t stamps)
{
    memset(t, 0, sizeof(*t));
    t->ctx = ctx;
    t->stamps = stamps;
    const svk_vk_device_fns *vk = &ctx->vkd;
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = ctx->vk.queue_family};
    VkCommandPool pool;
    if (!vk_ok(t, vk->vkCreateCommandPool(ctx->vk.device, &cpci, NULL, &pool), "vkCreateCommandPool"))
        return false;
    t->pool = pool;
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = t->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkCommandBuffer cmd;
    if (!vk_ok(t, vk->vkAllocateCommandBuffers(ctx->vk.device, &cbai, &cmd), "vkAllocateCommandBuffers"))
        return false;
    t->cmd = cmd;
    VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = stamps};
    VkQueryPool queries;
    if (!vk_ok(t, vk->vkCreateQueryPool(ctx->vk.device, &qpci, NULL, &queries), "vkCreateQueryPool"))
        return false;
    t->queries = queries;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    if (!vk_ok(t, vk->vkCreateFence(ctx->vk.device, &fci, NULL, &fence), "vkCreateFence"))
        return false;
    t->fence = fence;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (!vk_ok(t, vk->vkBeginCommandBuffer(t->cmd, &bi), "vkBeginCommandBuffer"))
        return false;
    vk->vkCmdResetQueryPool(t->cmd, t->queries, 0, stamps);
    return true;
}

void bench_vkcmd_stamp(bench_vkcmd *t, uint32_t i, bool end)
{
    t->ctx->vkd.vkCmdWriteTimestamp(t->cmd, end ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                    t->queries, i);
}

void bench_vkcmd_copy(bench_vkcmd *t, svk_buffer *dst, svk_buffer *src, uint64_t bytes)
{
    const svk_vk_device_fns *vk = &t->ctx->vkd;
    /* Each copy after the previous one's writes (the timed spans must not
     * overlap), and after whatever wrote the buffers before this list. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(t->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    VkBufferCopy region = {.srcOffset = src->alloc.offset, .dstOffset = dst->alloc.offset, .size = bytes};
    vk->vkCmdCopyBuffer(t->cmd, src->alloc.block->buffer, dst->alloc.block->buffer, 1, &region);
}

bool bench_vkcmd_end(bench_vkcmd *t)
{
    return vk_ok(t, t->ctx->vkd.vkEndCommandBuffer(t->cmd), "vkEndCommandBuffer");
}

bool bench_vkcmd_run(bench_vkcmd *t, double *ns)
{
    svk_ctx *ctx = t->ctx;
    const svk_vk_device_fns *vk = &ctx->vkd;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &t->cmd};
    if (!vk_ok(t, vk->vkResetFences(ctx->vk.device, 1, &t->fence), "vkResetFences") ||
        !vk_ok(t, vk->vkQueueSubmit(ctx->vk.queue, 1, &si, t->fence), "vkQueueSubmit") ||
        !vk_ok(t, vk->vkWaitForFences(ctx->vk.device, 1, &t->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences"))
        return false;
    uint64_t ticks[64];
    uint32_t n = t->stamps < 64 ? t->stamps : 64;
    VkResult r = vk->vkGetQueryPoolResults(ctx->vk.device, t->queries, 0, n, n * sizeof(ticks[0]), ticks,
                                           sizeof(ticks[0]), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (!vk_ok(t, r, "vkGetQueryPoolResults"))
        return false;
    uint64_t mask = ctx->vk.timestamp_valid_bits >= 64 ? ~0ull : ((1ull << ctx->vk.timestamp_valid_bits) - 1);
    for (uint32_t i = 0; i + 1 < n; i += 2)
        ns[i / 2] = (double)(((ticks[i + 1] & mask) - (ticks[i] & mask)) & mask) * ctx->info.timestamp_period_ns;
    return true;
}

void bench_vkcmd_destroy(bench_vkcmd *t)
{
    if (!t->ctx)
        return;
    const svk_vk_device_fns *vk = &t->ctx->vkd;
    VkDevice dev = t->ctx->vk.device;
    if (t->fence)
        vk->vkDestroyFence(dev, t->fence, NULL);
    if (t->queries)
        vk->vkDestroyQueryPool(dev, t->queries, NULL);
    if (t->pool)
        vk->vkDestroyCommandPool(dev, t->pool, NULL);
    memset(t, 0, sizeof(*t));
}
