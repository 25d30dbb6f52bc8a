/* Context creation (own device or imported), destruction and accessors. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "svk/vulkan.h"
#include "vk_buffer.h"
#include "vk_context.h"
#include "loader.h"

svk_ctx_params svk_ctx_params_default(void)
{
    return (svk_ctx_params){
        .device_index = -1,
        .log_level = SVK_LOG_WARN,
    };
}

svk_import_params svk_import_params_default(void)
{
    return (svk_import_params){.log_level = SVK_LOG_WARN};
}

bool svk_ctx_device_lost(const svk_ctx *ctx)
{
    return ctx && ctx->loss.lost;
}

svk_status svk_ctx_check_alive(svk_ctx *ctx, const char *func)
{
    if (!ctx->loss.lost)
        return SVK_OK;
    return svk_error(&ctx->log, SVK_ERROR_DEVICE_LOST,
                     "%s: the device was lost earlier (%s); destroy the context and create a new one", func,
                     ctx->loss.reason);
}

/* Enumerates the devices of an instance with their infos (malloc'd). */
static svk_status enumerate(svk_log *log, svk_vk_instance_fns *vki, VkInstance instance,
                            svk_coopmat_ext coopmat_ext, VkPhysicalDevice **phys, svk_device_info **infos,
                            uint32_t **families, uint32_t **ts_bits, uint32_t *n)
{
    *phys = NULL;
    *infos = NULL;
    *families = *ts_bits = NULL;
    *n = 0;
    uint32_t count = 0;
    VkResult r = vki->vkEnumeratePhysicalDevices(instance, &count, NULL);
    if (r < 0)
        return svk_vk_fail(NULL, log, r, "vkEnumeratePhysicalDevices", __FILE__, __LINE__, "listing devices");
    if (count == 0)
        return SVK_OK;
    *phys = svk_calloc(count, sizeof(**phys));
    *infos = svk_calloc(count, sizeof(**infos));
    *families = svk_calloc(count, sizeof(**families));
    *ts_bits = svk_calloc(count, sizeof(**ts_bits));
    if (!*phys || !*infos || !*families || !*ts_bits)
        goto oom;
    r = vki->vkEnumeratePhysicalDevices(instance, &count, *phys);
    if (r < 0) {
        free(*phys); free(*infos); free(*families); free(*ts_bits);
        *phys = NULL; *infos = NULL; *families = *ts_bits = NULL;
        return svk_vk_fail(NULL, log, r, "vkEnumeratePhysicalDevices", __FILE__, __LINE__, "listing devices");
    }
    for (uint32_t i = 0; i < count; i++)
        svk_vk_device_info(vki, (*phys)[i], i, NULL, coopmat_ext, &(*infos)[i], &(*ts_bits)[i], &(*families)[i]);
    *n = count;
    return SVK_OK;
oom:
    free(*phys); free(*infos); free(*families); free(*ts_bits);
    *phys = NULL; *infos = NULL; *families = *ts_bits = NULL;
    return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing devices");
}

svk_status svk_list_devices(svk_device_info *infos, uint32_t *count)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, count);
    if (!infos && *count)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: infos is NULL but *count is %u", __func__, *count);
    uint32_t capacity = *count;
    *count = 0;
    void *lib;
    svk_vk_instance_fns vki;
    /* Only the loader and the device infos matter here: a value context
     * creation would refuse does not keep the devices from being listed. */
    svk_ctx_settings env;
    svk_env_read(&env);
    svk_status st = svk_vk_open_loader(NULL, env.vulkan_library, &lib, &vki);
    if (st != SVK_OK)
        return st;
    VkInstance instance;
    st = svk_vk_create_instance(NULL, &vki, false, NULL, &instance);
    if (st == SVK_OK) {
        VkPhysicalDevice *phys;
        svk_device_info *all;
        uint32_t *families, *ts, n;
        st = enumerate(NULL, &vki, instance, env.coopmat_ext, &phys, &all, &families, &ts, &n);
        if (st == SVK_OK) {
            for (uint32_t i = 0; i < n && i < capacity; i++)
                infos[i] = all[i];
            *count = n;
        }
        free(phys);
        free(all);
        free(families);
        free(ts);
        vki.vkDestroyInstance(instance, NULL);
    }
    svk_vk_close_loader(&lib);
    return st;
}

/* Everything after the device exists, common to own and imported devices. */
static svk_status finish_init(svk_ctx *ctx, const char *cache_dir, uint32_t flags)
{
    ctx->vki.vkGetPhysicalDeviceMemoryProperties(ctx->vk.physical_device, &ctx->vk.mem_props);
    /* Lowering a limit is always safe: tests take a small model down the
     * paths of tensors past the binding range. */
    const uint64_t range = ctx->settings.max_storage_range;
    if (range && range < ctx->info.max_storage_buffer_range)
        ctx->info.max_storage_buffer_range = range;
    svk_device_profile_read(ctx);
    svk_memory_init(ctx);
    svk_status st = svk_pipeline_cache_load(ctx, cache_dir, flags);
    if (st != SVK_OK)
        return st;
    if ((st = svk_pipelines_init(ctx)) != SVK_OK)
        return st;
    return svk_oneshot_init(ctx);
}

static svk_status create_device(svk_ctx *ctx)
{
    svk_status st = SVK_OK;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = ctx->vk.queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    const char *exts[3];
    uint32_t n_exts = 0;
    if (ctx->info.push_descriptor)
        exts[n_exts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    /* The Vulkan spec requires it enabled wherever it is listed. */
    if (svk_vk_device_has_extension(&ctx->vki, ctx->vk.physical_device, SVK_VK_PORTABILITY_SUBSET_EXTENSION_NAME))
        exts[n_exts++] = SVK_VK_PORTABILITY_SUBSET_EXTENSION_NAME;
    /* What shaders/gemm_coopmat.comp declares, where the device offers it
     * all (device.c), under the extension device.c chose; and shaderInt64
     * for gemm_texel_s64 where the device has it. Nothing else needs
     * a feature beyond Vulkan 1.2's core. */
    const bool coopmat = ctx->info.coopmat_m != 0;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = VK_TRUE,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR kmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .cooperativeMatrix = VK_TRUE,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = ctx->info.coopmat_khr ? (void *)&kmf : (void *)&cmf,
        .shaderFloat16 = VK_TRUE,
        .vulkanMemoryModel = VK_TRUE,
    };
    if (coopmat)
        exts[n_exts++] = ctx->info.coopmat_khr ? VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME
                                               : VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = coopmat ? &f12 : NULL,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
        .pEnabledFeatures = &(VkPhysicalDeviceFeatures){.shaderInt64 = ctx->info.int64},
    };
    /* Into a local: after a failure the output is undefined. */
    VkDevice device;
    SVK_VK(ctx, ctx->vki.vkCreateDevice(ctx->vk.physical_device, &dci, NULL, &device),
           "creating a device on '%s'", ctx->info.name);
    ctx->vk.device = device;
    ctx->vk.own_device = true;
    if ((st = svk_vk_load_device(&ctx->log, &ctx->vki, ctx->vk.device, &ctx->vkd)) != SVK_OK)
        return st;
    ctx->vkd.vkGetDeviceQueue(ctx->vk.device, ctx->vk.queue_family, 0, &ctx->vk.queue);
    return SVK_OK;
fail:
    return st;
}

static svk_ctx *ctx_alloc(svk_log_fn fn, void *user, svk_log_level level)
{
    svk_ctx *ctx = svk_calloc(1, sizeof(*ctx));
    if (!ctx) {
        svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a context");
        return NULL;
    }
    ctx->log.fn = fn;
    ctx->log.user = user;
    ctx->log.level = level;
    return ctx;
}

svk_status svk_ctx_create(const svk_ctx_params *params, svk_ctx **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    svk_ctx_params p = params ? *params : svk_ctx_params_default();
    SVK_CHECK_RESERVED(NULL, p.reserved);
    if (p.device_index < -1)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: device_index=%d: an index into svk_list_devices(), or -1 to choose", __func__,
                         (int)p.device_index);

    svk_ctx *ctx = ctx_alloc(p.log_fn, p.log_user, p.log_level);
    if (!ctx)
        return SVK_ERROR_OUT_OF_HOST_MEMORY;
    VkPhysicalDevice *phys = NULL;
    svk_device_info *infos = NULL;
    uint32_t *families = NULL, *ts_bits = NULL, n = 0, chosen = 0;

    svk_status st = SVK_OK;
    svk_env_read(&ctx->settings);
    if ((st = svk_env_check(&ctx->log, &ctx->settings)) != SVK_OK)
        goto fail;
    if ((st = svk_vk_open_loader(&ctx->log, ctx->settings.vulkan_library, &ctx->vk.libvulkan, &ctx->vki)) != SVK_OK)
        goto fail;
    ctx->debug.validation = (p.flags & SVK_CTX_VALIDATION) || ctx->settings.validation;
    VkDebugUtilsMessengerCreateInfoEXT dbg;
    svk_debug_messenger_info(ctx, &dbg);
    if ((st = svk_vk_create_instance(&ctx->log, &ctx->vki, ctx->debug.validation, &dbg, &ctx->vk.instance)) != SVK_OK)
        goto fail;
    ctx->vk.own_instance = true;
    if (ctx->debug.validation && (st = svk_debug_create(ctx)) != SVK_OK)
        goto fail;

    if ((st = enumerate(&ctx->log, &ctx->vki, ctx->vk.instance, ctx->settings.coopmat_ext, &phys, &infos, &families,
                        &ts_bits, &n)) != SVK_OK)
        goto fail;
    if ((st = svk_vk_choose_device(&ctx->log, infos, n, p.device_index, p.device_name, ctx->settings.device,
                                   &chosen)) != SVK_OK)
        goto fail;
    ctx->vk.physical_device = phys[chosen];
    ctx->info = infos[chosen];
    ctx->vk.queue_family = families[chosen];
    ctx->vk.timestamp_valid_bits = ts_bits[chosen];

    if ((st = create_device(ctx)) != SVK_OK)
        goto fail;
    if ((st = finish_init(ctx, p.cache_dir, p.flags)) != SVK_OK)
        goto fail;
    free(phys);
    free(infos);
    free(families);
    free(ts_bits);
    *out = ctx;
    return SVK_OK;

fail:
    free(phys);
    free(infos);
    free(families);
    free(ts_bits);
    svk_ctx_destroy(&ctx);
    return st;
}

static bool listed(const char *const *names, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], name))
            return true;
    return false;
}

/* Longest pNext chain read: far beyond any real one, and a bound should a
 * chain loop back on itself. */
#define MAX_CHAIN 256

/* What the application enabled, of what the kernel paths need: the
 * features in its chain (svk_import_params.enabled_features), a
 * cooperative-matrix extension only with its name listed too. */
static svk_status import_enabled(const svk_import_params *p, svk_vk_enabled *en)
{
    *en = (svk_vk_enabled){0};
    const VkPhysicalDeviceFeatures2 *f2 = p->enabled_features;
    if (!f2)
        return SVK_OK;
    if (f2->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "svk_ctx_import: enabled_features has sType %d, not "
                         "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 (a VkPhysicalDeviceFeatures2 is expected)",
                         (int)f2->sType);
    en->int64 = f2->features.shaderInt64;
    bool nv = false, khr = false;
    int n = 0;
    for (const VkBaseInStructure *s = f2->pNext; s; s = s->pNext) {
        if (++n > MAX_CHAIN)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "svk_ctx_import: enabled_features' pNext chain is over %d structures long (a loop?)",
                             MAX_CHAIN);
        switch ((int)s->sType) { /* int: the KHR values may be past the headers' enum */
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
            const VkPhysicalDeviceVulkan12Features *f = (const void *)s;
            en->float16 |= f->shaderFloat16 != 0;
            en->memory_model |= f->vulkanMemoryModel != 0;
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES:
            en->float16 |= ((const VkPhysicalDeviceShaderFloat16Int8Features *)(const void *)s)->shaderFloat16 != 0;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES:
            en->memory_model |=
                ((const VkPhysicalDeviceVulkanMemoryModelFeatures *)(const void *)s)->vulkanMemoryModel != 0;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV:
            nv |= ((const VkPhysicalDeviceCooperativeMatrixFeaturesNV *)(const void *)s)->cooperativeMatrix != 0;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR:
            khr |= ((const VkPhysicalDeviceCooperativeMatrixFeaturesKHR *)(const void *)s)->cooperativeMatrix != 0;
            break;
        default:
            break;
        }
    }
    en->coopmat_nv = nv && listed(p->enabled_extensions, p->num_enabled_extensions,
                                  VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    en->coopmat_khr = khr && listed(p->enabled_extensions, p->num_enabled_extensions,
                                    VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    return SVK_OK;
}

svk_status svk_ctx_import(const svk_import_params *params, svk_ctx **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_PTR(NULL, params->instance);
    SVK_CHECK_PTR(NULL, params->physical_device);
    SVK_CHECK_PTR(NULL, params->device);
    SVK_CHECK_PTR(NULL, params->queue);
    if (params->num_enabled_extensions && !params->enabled_extensions)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: num_enabled_extensions is %u but enabled_extensions is NULL",
                         __func__, params->num_enabled_extensions);
    SVK_CHECK_RESERVED(NULL, params->reserved);
    svk_vk_enabled enabled;
    svk_status st = import_enabled(params, &enabled);
    if (st != SVK_OK)
        return st;

    svk_ctx *ctx = ctx_alloc(params->log_fn, params->log_user, params->log_level);
    if (!ctx)
        return SVK_ERROR_OUT_OF_HOST_MEMORY;
    svk_env_read(&ctx->settings);
    if ((st = svk_env_check(&ctx->log, &ctx->settings)) != SVK_OK)
        goto fail;
    if (params->get_instance_proc_addr) {
        ctx->vki.vkGetInstanceProcAddr = params->get_instance_proc_addr;
        st = svk_vk_load_global(&ctx->log, &ctx->vki);
    } else {
        st = svk_vk_open_loader(&ctx->log, ctx->settings.vulkan_library, &ctx->vk.libvulkan, &ctx->vki);
    }
    if (st != SVK_OK)
        goto fail;
    ctx->vk.instance = params->instance;
    if ((st = svk_vk_load_instance(&ctx->log, &ctx->vki, ctx->vk.instance)) != SVK_OK)
        goto fail;
    ctx->vk.physical_device = params->physical_device;
    uint32_t family;
    svk_vk_device_info(&ctx->vki, ctx->vk.physical_device, 0, &enabled, ctx->settings.coopmat_ext, &ctx->info,
                       &ctx->vk.timestamp_valid_bits, &family);
    if (!ctx->info.supported) {
        st = svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED, "imported device '%s': %s", ctx->info.name,
                       ctx->info.unsupported_reason);
        goto fail;
    }
    /* The application's queue family, not the one libsvk would pick. */
    uint32_t nq = 0;
    ctx->vki.vkGetPhysicalDeviceQueueFamilyProperties(ctx->vk.physical_device, &nq, NULL);
    VkQueueFamilyProperties qf[64];
    nq = nq > 64 ? 64 : nq;
    ctx->vki.vkGetPhysicalDeviceQueueFamilyProperties(ctx->vk.physical_device, &nq, qf);
    if (params->queue_family >= nq || !(qf[params->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        st = svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                       "imported queue family %u is not a compute family of '%s'", params->queue_family,
                       ctx->info.name);
        goto fail;
    }
    ctx->vk.queue_family = params->queue_family;
    ctx->vk.timestamp_valid_bits = qf[params->queue_family].timestampValidBits;
    ctx->info.timestamps = ctx->vk.timestamp_valid_bits > 0 && ctx->info.timestamp_period_ns > 0;
    ctx->info.push_descriptor = ctx->info.push_descriptor &&
        listed(params->enabled_extensions, params->num_enabled_extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    ctx->vk.device = params->device;
    ctx->vk.queue = params->queue;
    if ((st = svk_vk_load_device(&ctx->log, &ctx->vki, ctx->vk.device, &ctx->vkd)) != SVK_OK)
        goto fail;
    if ((st = finish_init(ctx, params->cache_dir, params->flags)) != SVK_OK)
        goto fail;
    *out = ctx;
    return SVK_OK;
fail:
    svk_ctx_destroy(&ctx);
    return st;
}

void svk_ctx_destroy(svk_ctx **pctx)
{
    if (!pctx || !*pctx)
        return;
    svk_ctx *ctx = *pctx;
    if (ctx->vk.device) {
        if (!ctx->loss.lost && ctx->vkd.vkDeviceWaitIdle) {
            /* An imported device may be busy with the application's work:
             * only libsvk's queue needs to be idle. */
            VkResult r = VK_SUCCESS;
            if (ctx->vk.own_device)
                r = ctx->vkd.vkDeviceWaitIdle(ctx->vk.device);
            else if (ctx->vkd.vkQueueWaitIdle)
                r = ctx->vkd.vkQueueWaitIdle(ctx->vk.queue);
            /* Then nothing below may touch the device (the pipeline cache
             * is not read back), only destroy. */
            if (r == VK_ERROR_DEVICE_LOST)
                svk_vk_fail(ctx, NULL, r, ctx->vk.own_device ? "vkDeviceWaitIdle" : "vkQueueWaitIdle", __FILE__,
                            __LINE__, "destroying the context");
        }
        if (ctx->vkd.vkDestroyBuffer) {
            svk_mem_free_range(ctx, &ctx->transfer.staging);
            svk_oneshot_destroy(ctx);
            svk_pipeline_cache_save(ctx);
            svk_pipelines_destroy(ctx);
            svk_memory_destroy(ctx);
        }
        if (ctx->vk.own_device && ctx->vkd.vkDestroyDevice)
            ctx->vkd.vkDestroyDevice(ctx->vk.device, NULL);
    }
    if (ctx->vk.own_instance && ctx->vk.instance) {
        svk_debug_destroy(ctx);
        ctx->vki.vkDestroyInstance(ctx->vk.instance, NULL);
    }
    svk_vk_close_loader(&ctx->vk.libvulkan);
    free(ctx);
    *pctx = NULL;
}

const svk_device_info *svk_ctx_device_info(const svk_ctx *ctx)
{
    return ctx ? &ctx->info : NULL;
}

const char *svk_ctx_last_error(const svk_ctx *ctx)
{
    return ctx ? ctx->log.last : "";
}

svk_status svk_ctx_validation_counts(const svk_ctx *ctx, svk_validation_counts *out)
{
    SVK_CHECK_ARG(NULL, ctx && out);
    *out = ctx->debug.counts;
    return SVK_OK;
}

bool svk_ctx_validation_enabled(const svk_ctx *ctx)
{
    return ctx && ctx->debug.validation;
}
