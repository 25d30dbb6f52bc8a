/*
 * The VkPipelineCache, persisted per device so that a shader is compiled by
 * the driver once per machine, not once per run (a large shader's first
 * compile costs over a second on lavapipe).
 *
 * The file is named after the device UUID and driver version: the driver
 * validates the header too and ignores a cache from another driver, but a
 * distinct name keeps two devices from overwriting each other's. It is read
 * and written through io/io_file.h like every file libsvk touches: a FIFO or
 * device at the cache's name is neither waited on nor replaced, and the
 * write is atomic (temporary and rename), so a crash never leaves a torn
 * cache behind.
 *
 * A cache that cannot be read or written costs compile time only, so its
 * failures are not errors: they go to the log at INFO, through the file
 * functions' quiet mode, and leave the error slots (the context's, the
 * thread's) to the errors an application may be about to read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vk_context.h"
#include "core/alloc.h"
#include "io/io_file.h"

/* A cache larger than this is not ours to read. */
#define MAX_CACHE_BYTES (256u << 20)

static bool choose_path(svk_ctx *ctx, const char *dir, uint32_t flags)
{
    ctx->pipelines.cache_path[0] = '\0';
    if ((flags & SVK_CTX_NO_PIPELINE_CACHE) || ctx->settings.no_pipeline_cache)
        return false;
    char base[768];
    if (dir && *dir)
        snprintf(base, sizeof(base), "%s", dir);
    else if (ctx->settings.cache_dir[0])
        snprintf(base, sizeof(base), "%s", ctx->settings.cache_dir);
    else
        return false;
    char uuid[33];
    for (int i = 0; i < 16; i++)
        snprintf(uuid + 2 * i, 3, "%02x", ctx->info.device_uuid[i]);
    svk_file_make_dirs(base);
    snprintf(ctx->pipelines.cache_path, sizeof(ctx->pipelines.cache_path), "%s/pipelines-%s-%08x.bin", base,
             uuid, ctx->info.driver_version);
    return true;
}

/* The cache's bytes, or NULL: no file yet is the usual first run and says
 * nothing; anything else that keeps it from being read is logged. */
static void *read_cache(svk_ctx *ctx, size_t *size)
{
    char why[SVK_ERROR_MAX];
    void *data = NULL;
    struct stat sb;
    if (stat(ctx->pipelines.cache_path, &sb) != 0 && errno == ENOENT)
        return NULL;
    if (svk_file_read(&ctx->log, why, ctx->pipelines.cache_path, MAX_CACHE_BYTES, &data, size) != SVK_OK) {
        svk_log_msg(&ctx->log, SVK_LOG_INFO, "not using pipeline cache: %s", why);
        return NULL;
    }
    if (!*size) {
        free(data);
        return NULL;
    }
    return data;
}

/* The header every VkPipelineCache blob starts with (Vulkan spec, "Pipeline
 * Cache Header"): refuse a file that is not for this device before handing
 * it to the driver. */
static bool header_matches(const svk_ctx *ctx, const uint8_t *data, size_t size)
{
    if (size < 32)
        return false;
    uint32_t len, version, vendor, device;
    memcpy(&len, data, 4);
    memcpy(&version, data + 4, 4);
    memcpy(&vendor, data + 8, 4);
    memcpy(&device, data + 12, 4);
    return len >= 32 && version == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
           vendor == ctx->info.vendor_id && device == ctx->info.device_id;
}

svk_status svk_pipeline_cache_load(svk_ctx *ctx, const char *dir, uint32_t flags)
{
    size_t size = 0;
    void *data = NULL;
    if (choose_path(ctx, dir, flags)) {
        data = read_cache(ctx, &size);
        if (data && !header_matches(ctx, data, size)) {
            svk_log_msg(&ctx->log, SVK_LOG_INFO, "ignoring pipeline cache %s: not for this device",
                        ctx->pipelines.cache_path);
            free(data);
            data = NULL;
            size = 0;
        }
    }
    VkPipelineCacheCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
        .initialDataSize = size,
        .pInitialData = data,
    };
    /* Into a local: after a failure the output is undefined, and
     * svk_pipeline_cache_save destroys whatever handle it finds. */
    VkPipelineCache cache;
    VkResult r = ctx->vkd.vkCreatePipelineCache(ctx->vk.device, &ci, NULL, &cache);
    if (r < 0 && data) {
        /* A cache the driver rejects is only lost time: start empty. */
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        r = ctx->vkd.vkCreatePipelineCache(ctx->vk.device, &ci, NULL, &cache);
    }
    free(data);
    if (r < 0)
        return svk_vk_fail(ctx, NULL, r, "vkCreatePipelineCache", __FILE__, __LINE__, "creating the pipeline cache");
    ctx->pipelines.cache = cache;
    return SVK_OK;
}

void svk_pipeline_cache_save(svk_ctx *ctx)
{
    if (!ctx->pipelines.cache)
        return;
    if (ctx->pipelines.cache_path[0] && !ctx->loss.lost) {
        size_t size = 0;
        void *data = NULL;
        if (ctx->vkd.vkGetPipelineCacheData(ctx->vk.device, ctx->pipelines.cache, &size, NULL) >= 0 && size &&
            (data = svk_malloc(size)) &&
            ctx->vkd.vkGetPipelineCacheData(ctx->vk.device, ctx->pipelines.cache, &size, data) >= 0) {
            char why[SVK_ERROR_MAX];
            svk_file_replace r;
            svk_status st = svk_file_replace_begin(&ctx->log, why, ctx->pipelines.cache_path, &r);
            if (st == SVK_OK && (st = svk_file_replace_write(&r, data, size)) != SVK_OK)
                svk_file_replace_abort(&r);
            else if (st == SVK_OK)
                st = svk_file_replace_commit(&r);
            if (st != SVK_OK)
                svk_log_msg(&ctx->log, SVK_LOG_INFO, "could not write pipeline cache: %s", why);
        }
        free(data);
    }
    ctx->vkd.vkDestroyPipelineCache(ctx->vk.device, ctx->pipelines.cache, NULL);
    ctx->pipelines.cache = VK_NULL_HANDLE;
}
