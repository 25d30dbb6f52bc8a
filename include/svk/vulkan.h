/*
 * Embedding libsvk in an application that already uses Vulkan: the
 * application creates its instance and device, and libsvk borrows them.
 *
 * This is the only public header that includes <vulkan/vulkan.h>.
 */
#ifndef SVK_VULKAN_H
#define SVK_VULKAN_H

#include <vulkan/vulkan.h>
#include "context.h"
#include "model.h"

SVK_BEGIN_DECLS

/* What an application hands to svk_ctx_import. libsvk never destroys these
 * objects; they must outlive the context. The device must support Vulkan 1.2
 * and the queue family must support compute. Start from
 * svk_import_params_default() and fill in the handles. */
typedef struct svk_import_params {
    /* The application's loader entry point. NULL: libsvk opens the system
     * loader (libvulkan.so.1) and uses its vkGetInstanceProcAddr. */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;       /* a family with VK_QUEUE_COMPUTE_BIT */
    VkQueue queue;               /* from that family */
    /* Device extensions the application enabled; libsvk uses the ones it
     * knows (VK_KHR_push_descriptor, VK_NV_cooperative_matrix,
     * VK_KHR_cooperative_matrix) only if listed here. Default none. */
    const char *const *enabled_extensions;
    uint32_t num_enabled_extensions;
    /* SVK_CTX_NO_PIPELINE_CACHE is honoured; SVK_CTX_VALIDATION is not (the
     * application owns the instance, and so its layers). Default 0. */
    uint32_t flags;
    /* As in svk_ctx_params: log callback and its user pointer (default
     * NULL), the most verbose level passed to it (default SVK_LOG_WARN),
     * and the pipeline cache's directory (default NULL: the user's cache
     * directory). */
    svk_log_fn log_fn;
    void *log_user;
    svk_log_level log_level;
    const char *cache_dir;
    /* The features the application enabled on device: the
     * VkPhysicalDeviceFeatures2 it gave vkCreateDevice (in pNext, or the
     * same features as pEnabledFeatures), with its pNext chain, as
     * libplacebo's import takes them. Read during svk_ctx_import only. With
     * it, the imported device gets the kernel paths a device libsvk creates
     * gets, where the application enabled what they need:
     *  - int64 GEMM stores: features.shaderInt64;
     *  - cooperative-matrix GEMM: cooperativeMatrix in
     *    VkPhysicalDeviceCooperativeMatrixFeaturesNV or ...KHR, that
     *    extension in enabled_extensions, and shaderFloat16 and
     *    vulkanMemoryModel (VkPhysicalDeviceVulkan12Features, or
     *    VkPhysicalDeviceShaderFloat16Int8Features and
     *    VkPhysicalDeviceVulkanMemoryModelFeatures).
     * svk_ctx_device_info() reports which are active (int64, coopmat_m).
     * Structures libsvk does not know are skipped. Default NULL: none of
     * these paths (the kernels need nothing beyond Vulkan 1.2's core). */
    const VkPhysicalDeviceFeatures2 *enabled_features;
    uint64_t reserved[7];        /* must be zero */
} svk_import_params;

/* Every field zero or NULL (the handles included, which the application
 * must set), except log_level, which is SVK_LOG_WARN as in
 * svk_ctx_params_default(): a zeroed struct would pass errors only.
 * Thread-safety: any thread. */
SVK_API svk_import_params svk_import_params_default(void);

/* Creates a context on the application's device. Thread-safety: libsvk
 * submits to the queue from whatever thread uses the context; the
 * application must not use the same queue concurrently (Vulkan requires
 * external synchronisation of queues). */
SVK_API svk_status svk_ctx_import(const svk_import_params *params, svk_ctx **out);

/* Recording a model's whole training step (forward, loss, backward,
 * clipping, AdamW) into the application's own command buffer, for
 * applications that manage submission themselves. The synchronisation
 * contract:
 *  - cmd belongs to the model's context's device, is in the recording state
 *    (the application began it), and is submitted by the application to a
 *    queue of the context's queue family, once per training step; it may be
 *    submitted again unchanged for every step.
 *  - The recorded commands start with a barrier that orders them after all
 *    earlier work in submission order, and end with one that makes their
 *    results visible to the host. They touch only the model's buffers.
 *  - Before each submission, once the previous submission of these commands
 *    (and any libsvk call on the model) has completed, call
 *    svk_model_prepare_train_step: it writes the batch and the step's
 *    learning rate into host-mapped memory that the commands read.
 *  - After the submission has completed, svk_model_last_step reads the loss.
 *  - The step is recorded whole, whatever the model's max_submit_ms: the
 *    application chooses its submissions (on a desktop GPU a step that
 *    runs past the driver's watchdog loses the device).
 *  - Any libsvk call that gives the model another batch shape (train, eval,
 *    forward or generate with another B, T) invalidates the recording; so do
 *    svk_model_destroy and another svk_model_record_train_step.
 * Vulkan backend only. */
SVK_API svk_status svk_model_record_train_step(svk_model *model, VkCommandBuffer cmd, uint32_t B, uint32_t T);
SVK_API svk_status svk_model_prepare_train_step(svk_model *model, const int32_t *tokens, const int32_t *targets,
                                                float lr);

SVK_END_DECLS

#endif
