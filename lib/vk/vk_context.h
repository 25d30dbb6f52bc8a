/*
 * The context's internals, shared by the files of lib/vk. Nothing here is
 * public; svk/context.h holds the opaque handle.
 */
#ifndef SVK_VK_CONTEXT_H
#define SVK_VK_CONTEXT_H

#include <stdbool.h>

#include "svk/context.h"
#include "core/error.h"
#include "device_profile.h"
#include "env.h"
#include "fns.h"
#include "memory.h"
#include "pipeline.h"
#include "result.h"

/* A one-shot command buffer and fence for uploads, downloads and fills,
 * which the host waits for before returning. */
typedef struct svk_oneshot {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool pending;  /* submitted and not yet known complete (a wait failed) */
} svk_oneshot;

/* The Vulkan objects the context works on, and what it read of them once. */
typedef struct svk_ctx_vk {
    void *libvulkan;              /* dlopen handle; NULL if the app gave gipa */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    bool own_instance, own_device; /* false for imported objects: never destroyed */
    VkPhysicalDeviceMemoryProperties mem_props;
    uint32_t timestamp_valid_bits;
} svk_ctx_vk;

/* The validation layer's messenger and what it counted (debug.c). */
typedef struct svk_ctx_debug {
    bool validation;              /* the layer is enabled */
    VkDebugUtilsMessengerEXT messenger;
    svk_validation_counts counts;
} svk_ctx_debug;

/* Set by the first VK_ERROR_DEVICE_LOST (svk_vk_fail, whichever call
 * returned it); every later call refuses to touch the device, and says
 * which call it was. */
typedef struct svk_ctx_loss {
    bool lost;
    char reason[512];
    /* The latest submission of a model's ops (lib/model/backend_vk.c), for
     * the message of a loss, whose likeliest cause on a desktop GPU is a
     * watchdog resetting a submission that ran too long: whether there was
     * one, the model's max_submit_ms (0: a whole step in one submission),
     * and the longest submission measured (< 0: not measured). */
    bool submitted;
    double budget_ms, longest_ms;
} svk_ctx_loss;

/* What a loss most likely means and what to do, for its message
 * (svk_vk_fail, result.c). */
void svk_vk_loss_hint(const svk_ctx_loss *loss, char *out, size_t size);

/* Uploads, downloads and fills the host waits for (transfer.c). */
typedef struct svk_ctx_transfer {
    svk_oneshot oneshot;
    svk_mem_alloc staging;        /* host-visible bounce buffer */
} svk_ctx_transfer;

struct svk_ctx {
    svk_log log;

    /* The function tables: one set per context, never global. */
    svk_vk_instance_fns vki;
    svk_vk_device_fns vkd;
    svk_ctx_vk vk;

    svk_device_info info;
    svk_device_profile profile;   /* what kernel choices depend on (device_profile.h) */
    svk_ctx_settings settings;    /* the environment at creation, and the tuning (env.h, tuning.h) */
    /* Fallbacks logged once per context (lib/ops/gemm.c): a GEMM's
     * operand not viewable as a texel buffer; SVK_GEMM_COOPMAT=1 on a
     * device without cooperative matrices. */
    bool texel_fallback_logged;
    bool coopmat_fallback_logged;

    svk_ctx_debug debug;
    svk_ctx_loss loss;

    svk_memory memory;
    svk_pipelines pipelines;
    svk_ctx_transfer transfer;
};

/* Returns SVK_ERROR_DEVICE_LOST (with a message) once the device was lost. */
svk_status svk_ctx_check_alive(svk_ctx *ctx, const char *func);

/* What the application enabled on an imported device, of what libsvk's
 * kernel paths need (svk_import_params.enabled_features and
 * enabled_extensions): a cooperative-matrix extension counts with its
 * feature and its name listed. */
typedef struct svk_vk_enabled {
    bool int64;                 /* shaderInt64 */
    bool float16;               /* shaderFloat16 */
    bool memory_model;          /* vulkanMemoryModel */
    bool coopmat_nv, coopmat_khr;
} svk_vk_enabled;

/* Device queries (device.c). Fills info for phys, index being its position in
 * the enumeration, and sets info->supported / unsupported_reason. enabled:
 * NULL for a device libsvk will create (which enables what the chosen
 * paths need); for an imported device, what the application enabled, which
 * bounds the paths (int64, coopmat_*) as the device's support does.
 * coopmat_ext: the extension preferred where both qualify. */
void svk_vk_device_info(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, uint32_t index,
                        const svk_vk_enabled *enabled, svk_coopmat_ext coopmat_ext, svk_device_info *info,
                        uint32_t *timestamp_bits, uint32_t *queue_family);

/* Whether phys lists the device extension name (false also where the
 * list cannot be read). */
bool svk_vk_device_has_extension(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, const char *name);

/* VK_KHR_portability_subset, which Vulkan's headers keep among the beta
 * extensions (vulkan_beta.h): a device that lists it implements Vulkan
 * only in part (MoltenVK), and must have it enabled. What it leaves out
 * (triangle fans, events, some image and sampler forms) is graphics, none
 * of which libsvk uses. */
#define SVK_VK_PORTABILITY_SUBSET_EXTENSION_NAME "VK_KHR_portability_subset"

/* Picks the device per params (index, then name) and env_device ($SVK_DEVICE:
 * an index or a name substring; NULL or "" unset) among n infos. Returns its
 * index into infos via *chosen. */
svk_status svk_vk_choose_device(svk_log *log, const svk_device_info *infos, uint32_t n,
                                int32_t index, const char *name, const char *env_device, uint32_t *chosen);

/* Creates an instance and loads its functions. With validation, enables the
 * Khronos layer with synchronisation validation, and dbg (non-NULL) also
 * receives the messages of instance creation and destruction. */
svk_status svk_vk_create_instance(svk_log *log, svk_vk_instance_fns *vki, bool validation,
                                  const VkDebugUtilsMessengerCreateInfoEXT *dbg, VkInstance *out);

/* Validation-layer messenger (debug.c). */
void svk_debug_messenger_info(svk_ctx *ctx, VkDebugUtilsMessengerCreateInfoEXT *ci);
svk_status svk_debug_create(svk_ctx *ctx);
void svk_debug_destroy(svk_ctx *ctx);

/* Pipeline cache on disk (pipeline_cache.c): chooses the file (or none, with
 * SVK_CTX_NO_PIPELINE_CACHE / ctx->settings.no_pipeline_cache; dir NULL or
 * "": ctx->settings.cache_dir), creates the
 * VkPipelineCache from it, and writes it back at context destruction. A
 * missing, stale or corrupt file only costs compile time, never an error. */
svk_status svk_pipeline_cache_load(svk_ctx *ctx, const char *dir, uint32_t flags);
void svk_pipeline_cache_save(svk_ctx *ctx);

/* One-shot transfers (transfer.c): init creates the command buffer and
 * fence; begin starts recording into it; submit_wait submits and waits. */
svk_status svk_oneshot_init(svk_ctx *ctx);
svk_status svk_oneshot_begin(svk_ctx *ctx);
svk_status svk_oneshot_submit_wait(svk_ctx *ctx, const char *what);
void svk_oneshot_destroy(svk_ctx *ctx);
/* The bytes the context's staging buffer will take at its first transfer
 * (it is kept from then on); 0 once it holds them. */
uint64_t svk_transfer_staging_pending(const svk_ctx *ctx);

#endif
