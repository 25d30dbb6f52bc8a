#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "vk_buffer.h"
#include "vk_context.h"
#include "texel.h"

/* The smallest of the device's buffer limits (0 is one the device did not
 * report; UINT64_MAX if none is), with its name unless limit_name is NULL;
 * bound: the storage range among them. */
static uint64_t smallest_limit(const svk_ctx *ctx, bool bound, const char **limit_name)
{
    const struct {
        const char *name;
        uint64_t value;
    } limits[] = {
        {"maxStorageBufferRange", ctx->info.max_storage_buffer_range},
        {"maxMemoryAllocationSize", ctx->info.max_allocation_size},
        {"maxBufferSize", ctx->memory.max_buffer_size},
    };
    int best = -1;
    for (int i = bound ? 0 : 1; i < (int)(sizeof(limits) / sizeof(limits[0])); i++)
        if (limits[i].value && (best < 0 || limits[i].value < limits[best].value))
            best = i;
    if (limit_name)
        *limit_name = best < 0 ? NULL : limits[best].name;
    return best < 0 ? UINT64_MAX : limits[best].value;
}

uint64_t svk_buffer_max_size(const svk_ctx *ctx, const char **limit_name)
{
    /* The whole buffer is bound as one storage range (cmd.c), so that limit,
     * not only the allocation's, caps a buffer; its memory is one range of
     * a block, which is one VkBuffer in one VkDeviceMemory. */
    return smallest_limit(ctx, true, limit_name);
}

uint64_t svk_buffer_max_unbound_size(const svk_ctx *ctx, const char **limit_name)
{
    return smallest_limit(ctx, false, limit_name);
}

static svk_status check_size(svk_ctx *ctx, svk_log *log, const char *what, const char *name, const char *note,
                             uint64_t size, bool unbound)
{
    const char *limit_name;
    const uint64_t limit = smallest_limit(ctx, !unbound, &limit_name);
    if (size <= limit)
        return SVK_OK;
    char b1[32], b2[32];
    return svk_error(log, SVK_ERROR_TOO_LARGE,
                     "%s%sbuffer '%s'%s needs %llu bytes (%s), more than the device's %s of %llu bytes (%s)",
                     what ? what : "", what ? ": " : "", name, note ? note : "", (unsigned long long)size,
                     svk_fmt_bytes(b1, size), limit_name, (unsigned long long)limit, svk_fmt_bytes(b2, limit));
}

svk_status svk_buffer_check_size(svk_ctx *ctx, svk_log *log, const char *what, const char *name, const char *note,
                                 uint64_t size)
{
    return check_size(ctx, log, what, name, note, size, false);
}

svk_status svk_buffer_check_fit(svk_ctx *ctx, svk_log *log, const char *what, const svk_buffer_request *req,
                                size_t n, const uint64_t released[SVK_POOL_COUNT])
{
    svk_status st = svk_ctx_check_alive(ctx, what);
    if (st != SVK_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        if ((st = check_size(ctx, log, what, req[i].name, req[i].note, req[i].size, req[i].unbound)) != SVK_OK)
            return st;
    /* Then the sum on each heap the requests land on, against what the
     * heap holds less what is in use there and stays in use. */
    uint32_t heap_of[SVK_POOL_COUNT];
    for (int p = 0; p < SVK_POOL_COUNT; p++)
        heap_of[p] = svk_mem_pool_heap(ctx, (svk_pool_kind)p);
    for (int p = 0; p < SVK_POOL_COUNT; p++) {
        const uint32_t heap = heap_of[p];
        bool seen = false;
        for (int q = 0; q < p; q++)
            seen = seen || heap_of[q] == heap;
        if (seen)
            continue;
        uint64_t need = 0, in_use = svk_mem_heap_in_use(ctx, heap);
        size_t top[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}; /* the largest requests, for the message */
        for (size_t j = 0; j < n; j++) {
            if (heap_of[req[j].staging ? SVK_POOL_STAGING : svk_buffer_pool(req[j].memory)] != heap)
                continue;
            /* Each size passed the limits above: no sum of them can wrap. */
            need += (req[j].size + SVK_MEM_ALIGN - 1) / SVK_MEM_ALIGN * SVK_MEM_ALIGN;
            for (int k = 0; k < 3; k++)
                if (top[k] == SIZE_MAX || req[j].size > req[top[k]].size) {
                    memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof(top[0]));
                    top[k] = j;
                    break;
                }
        }
        uint64_t freed = 0, system_free = 0;
        for (int q = 0; q < SVK_POOL_COUNT; q++)
            if (heap_of[q] == heap)
                freed += released[q];
        in_use -= freed < in_use ? freed : in_use;
        const uint64_t size = ctx->vk.mem_props.memoryHeaps[heap].size;
        const uint64_t available = svk_mem_heap_available(ctx, heap, freed, &system_free);
        if (need <= available)
            continue;
        char b1[32], b2[32], b3[32], b4[32], b5[32], largest[3][160], sys[96] = "";
        if (system_free)
            snprintf(sys, sizeof(sys), "; the heap is system memory, of which %llu bytes (%s) are free",
                     (unsigned long long)system_free, svk_fmt_bytes(b5, system_free));
        for (int k = 0; k < 3; k++)
            if (top[k] == SIZE_MAX)
                largest[k][0] = '\0';
            else
                snprintf(largest[k], sizeof(largest[k]), "%s'%s' %s", k ? ", " : "", req[top[k]].name,
                         svk_fmt_bytes(b1, req[top[k]].size));
        return svk_error(log, SVK_ERROR_OUT_OF_DEVICE_MEMORY,
                         "%s needs %llu bytes (%s) of device memory, more than the %llu bytes (%s) available on "
                         "heap %u (%llu bytes (%s), of which %llu bytes (%s) stay in use%s); the largest buffers: "
                         "%s%s%s",
                         what, (unsigned long long)need, svk_fmt_bytes(b1, need), (unsigned long long)available,
                         svk_fmt_bytes(b2, available), heap, (unsigned long long)size, svk_fmt_bytes(b3, size),
                         (unsigned long long)in_use, svk_fmt_bytes(b4, in_use), sys, largest[0], largest[1],
                         largest[2]);
    }
    return SVK_OK;
}

svk_buffer_params svk_buffer_params_default(void)
{
    return (svk_buffer_params){.memory = SVK_MEMORY_DEVICE};
}

static svk_status create(svk_ctx *ctx, const svk_buffer_params *params, bool unbound, svk_buffer **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, ctx);
    SVK_CHECK_PTR(&ctx->log, out);
    *out = NULL;
    SVK_CHECK_PTR(&ctx->log, params);
    if (params->memory != SVK_MEMORY_DEVICE && params->memory != SVK_MEMORY_HOST_MAPPED)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: params->memory is %d, not SVK_MEMORY_DEVICE or SVK_MEMORY_HOST_MAPPED", __func__,
                         (int)params->memory);
    SVK_CHECK_RESERVED(&ctx->log, params->reserved);
    svk_status st = svk_ctx_check_alive(ctx, __func__);
    if (st != SVK_OK)
        return st;
    const char *name = params->name ? params->name : "(unnamed)";
    if (params->size == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: buffer '%s' has size 0", __func__, name);
    if ((st = check_size(ctx, &ctx->log, NULL, name, NULL, params->size, unbound)) != SVK_OK)
        return st;

    svk_buffer *buf = svk_calloc(1, sizeof(*buf));
    if (!buf)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating buffer '%s'", name);
    buf->ctx = ctx;
    buf->size = params->size;
    buf->memory = params->memory;
    buf->unbound = unbound && params->size > svk_buffer_max_size(ctx, NULL);
    snprintf(buf->name, sizeof(buf->name), "%s", name);
    st = svk_mem_alloc_range(ctx, svk_buffer_pool(params->memory), params->size, buf->name, &buf->alloc);
    if (st != SVK_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return SVK_OK;
}

svk_status svk_buffer_create(svk_ctx *ctx, const svk_buffer_params *params, svk_buffer **out)
{
    return create(ctx, params, false, out);
}

svk_status svk_buffer_create_unbound(svk_ctx *ctx, const svk_buffer_params *params, svk_buffer **out)
{
    return create(ctx, params, true, out);
}

svk_status svk_buffer_window_create(svk_buffer *parent, uint64_t offset, uint64_t size, const char *name,
                                    svk_buffer **out)
{
    SVK_CHECK_PTR(NULL, parent);
    svk_ctx *ctx = parent->ctx;
    SVK_CHECK_PTR(&ctx->log, out);
    *out = NULL;
    if (offset % SVK_MEM_ALIGN || size == 0 || offset > parent->size || size > parent->size - offset)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL,
                         "window [%llu, +%llu) of buffer '%s' (%llu bytes) is empty, outside it or not aligned to %u",
                         (unsigned long long)offset, (unsigned long long)size, parent->name,
                         (unsigned long long)parent->size, SVK_MEM_ALIGN);
    svk_status st = svk_buffer_check_size(ctx, &ctx->log, NULL, name, NULL, size);
    if (st != SVK_OK)
        return st;
    svk_buffer *w = svk_calloc(1, sizeof(*w));
    if (!w)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating window '%s'", name);
    *w = (svk_buffer){.ctx = ctx, .size = size, .memory = parent->memory, .parent = parent};
    w->alloc = parent->alloc;
    w->alloc.offset += offset;
    w->alloc.size = size;
    snprintf(w->name, sizeof(w->name), "%s", name);
    *out = w;
    return SVK_OK;
}

void svk_buffer_wait_unused(svk_ctx *ctx, const char *what)
{
    /* Command lists wait for their own fences; a queue-idle wait covers
     * everything else submitted on libsvk's queue. */
    VkResult r = ctx->loss.lost ? VK_SUCCESS : ctx->vkd.vkQueueWaitIdle(ctx->vk.queue);
    /* Lost: nothing is left to wait for, and the memory is freed all the
     * same; the loss is recorded for the next call to report. */
    if (r == VK_ERROR_DEVICE_LOST)
        svk_vk_fail(ctx, NULL, r, "vkQueueWaitIdle", __FILE__, __LINE__, "%s", what);
}

void svk_buffer_release(svk_buffer **pbuf)
{
    if (!pbuf || !*pbuf)
        return;
    svk_buffer *buf = *pbuf;
    svk_buffer_views_destroy(buf);
    if (!buf->parent)
        svk_mem_free_range(buf->ctx, &buf->alloc);
    free(buf);
    *pbuf = NULL;
}

void svk_buffer_destroy(svk_buffer **pbuf)
{
    if (!pbuf || !*pbuf)
        return;
    char what[96];
    snprintf(what, sizeof(what), "destroying buffer '%s'", (*pbuf)->name);
    /* Work that may still read the buffer must finish before its memory is
     * reused. */
    svk_buffer_wait_unused((*pbuf)->ctx, what);
    svk_buffer_release(pbuf);
}

uint64_t svk_buffer_size(const svk_buffer *buf)
{
    return buf ? buf->size : 0;
}

svk_status svk_buffer_map(svk_buffer *buf, void **ptr)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, buf);
    SVK_CHECK_PTR(&buf->ctx->log, ptr);
    *ptr = NULL;
    if (buf->memory != SVK_MEMORY_HOST_MAPPED)
        return svk_error(&buf->ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: buffer '%s' is device memory; only SVK_MEMORY_HOST_MAPPED buffers map", __func__,
                         buf->name);
    *ptr = svk_mem_ptr(&buf->alloc);
    return SVK_OK;
}
