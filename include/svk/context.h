/*
 * Devices and contexts. A context owns (or borrows, see svk/vulkan.h) one
 * Vulkan device and one compute queue, and everything libsvk creates on it.
 */
#ifndef SVK_CONTEXT_H
#define SVK_CONTEXT_H

#include <stdbool.h>
#include "common.h"

SVK_BEGIN_DECLS

/* A libsvk context. Opaque.
 * Thread-safety: a context and everything created from it must be used by one
 * thread at a time (external synchronisation); distinct contexts are
 * independent. */
typedef struct svk_ctx svk_ctx;

typedef enum svk_device_type {
    SVK_DEVICE_OTHER = 0,
    SVK_DEVICE_INTEGRATED_GPU,
    SVK_DEVICE_DISCRETE_GPU,
    SVK_DEVICE_VIRTUAL_GPU,
    SVK_DEVICE_CPU,
} svk_device_type;

/* What libsvk knows about a physical device. Plain data, safe to copy. */
typedef struct svk_device_info {
    uint32_t index;               /* position in the loader's device list */
    char name[256];               /* e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
    svk_device_type type;
    uint32_t vendor_id, device_id;
    char driver_name[256];        /* VkPhysicalDeviceDriverProperties, "" if unknown */
    char driver_info[256];
    uint32_t driver_version;      /* raw, vendor-specific encoding */
    uint32_t api_version;         /* VK_MAKE_API_VERSION encoding */
    uint8_t device_uuid[16];
    uint32_t subgroup_size;       /* default subgroup size of compute shaders */
    uint32_t min_subgroup_size, max_subgroup_size;
    bool subgroup_size_control;   /* a pipeline may require a subgroup size */
    uint32_t max_shared_memory;   /* maxComputeSharedMemorySize, bytes */
    uint32_t max_workgroup_size[3];
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_count[3];
    uint32_t max_push_constants;  /* bytes */
    uint64_t max_storage_buffer_range; /* bytes one storage binding may span */
    uint32_t max_storage_buffers; /* storage buffers one compute shader may bind (per stage and per set) */
    uint64_t max_allocation_size; /* bytes of one VkDeviceMemory */
    uint64_t device_local_bytes;  /* sum of device-local heaps */
    uint32_t min_storage_offset_alignment;
    bool float16;                 /* shaderFloat16 */
    bool int8;                    /* shaderInt8 */
    bool int64;                   /* shaderInt64, which libsvk then uses: enabled on the devices it
                                     creates; on an imported one, only where the application enabled it
                                     (svk_import_params.enabled_features) */
    bool timestamps;              /* compute queue supports timestamps */
    float timestamp_period_ns;    /* nanoseconds per timestamp tick */
    bool push_descriptor;         /* VK_KHR_push_descriptor */
    /* Cooperative matrices as the coopmat GEMM uses them: the fragment
     * shape (M x K times K x N) of float16 x float16 + float32 products on
     * a subgroup; all 0 where libsvk cannot use them (no extension, no such
     * shape, several subgroup sizes, or an imported device on which the
     * application did not enable them: svk_import_params.enabled_features).
     * coopmat_khr: the shape is VK_KHR_cooperative_matrix's, which libsvk
     * then enables; false: VK_NV_cooperative_matrix's. Where a device offers
     * both, NV unless $SVK_COOPMAT_EXT is "khr". */
    uint32_t coopmat_m, coopmat_n, coopmat_k;
    bool coopmat_khr;
    bool supported;               /* meets libsvk's requirements (Vulkan 1.2, compute queue) */
    char unsupported_reason[128]; /* why not, when !supported */
} svk_device_info;

/* Lists the Vulkan devices. On entry *count is the capacity of infos (infos
 * may be NULL with *count 0 to query the number); on return it is the number
 * of devices, and min(capacity, number) entries are filled.
 * Returns SVK_ERROR_NO_VULKAN when no loader can be opened. */
SVK_API svk_status svk_list_devices(svk_device_info *infos, uint32_t *count);

/* Log levels of svk_log_fn. */
typedef enum svk_log_level {
    SVK_LOG_ERROR = 0,
    SVK_LOG_WARN,
    SVK_LOG_INFO,
    SVK_LOG_DEBUG,
} svk_log_level;

/* Receives every error libsvk records, and validation-layer messages.
 * Called on the thread making the libsvk call. */
typedef void (*svk_log_fn)(void *user, svk_log_level level, const char *message);

/* Flags of svk_ctx_params.flags. */
enum {
    /* Enable the Khronos validation layer with synchronisation validation,
     * counting its messages (svk_ctx_validation_counts). Also enabled by the
     * environment variable SVK_VALIDATION=1. Creation fails with
     * SVK_ERROR_UNSUPPORTED if the layer is not installed. */
    SVK_CTX_VALIDATION = 1u << 0,
    /* Do not read or write the on-disk pipeline cache. Also set by
     * SVK_PIPELINE_CACHE=0. */
    SVK_CTX_NO_PIPELINE_CACHE = 1u << 1,
};

/* Parameters of svk_ctx_create. Start from svk_ctx_params_default(). */
typedef struct svk_ctx_params {
    /* Device to use: an index into svk_list_devices(), or -1 (default) to
     * take the environment variable SVK_DEVICE (an index, or a
     * case-insensitive substring of the device name) and otherwise the first
     * supported device of the best type: discrete > integrated > virtual >
     * CPU > other. */
    int32_t device_index;
    /* Case-insensitive substring of the device name; used when device_index
     * is -1 and non-NULL, and takes precedence over SVK_DEVICE. Default NULL. */
    const char *device_name;
    /* SVK_CTX_* flags. Default 0. */
    uint32_t flags;
    /* Optional log callback and its user pointer. Default NULL. */
    svk_log_fn log_fn;
    void *log_user;
    /* Most verbose level passed to log_fn. Default SVK_LOG_WARN. */
    svk_log_level log_level;
    /* Directory of the pipeline cache; NULL (default) uses
     * $XDG_CACHE_HOME/siamese-vk or ~/.cache/siamese-vk. */
    const char *cache_dir;
    /* Reserved for future fields: must be zero. */
    uint64_t reserved[8];
} svk_ctx_params;

SVK_API svk_ctx_params svk_ctx_params_default(void);

/* Creates a context on a device chosen by params (NULL: defaults).
 * On failure *out is NULL and svk_last_error() says why. */
SVK_API svk_status svk_ctx_create(const svk_ctx_params *params, svk_ctx **out);

/* Waits for the device to go idle, frees everything the context created and
 * sets *ctx to NULL. Accepts NULL and &NULL. Objects created from the context
 * (buffers, ...) must be destroyed first. */
SVK_API void svk_ctx_destroy(svk_ctx **ctx);

/* The info of the context's device. */
SVK_API const svk_device_info *svk_ctx_device_info(const svk_ctx *ctx);

/* The last error message recorded on this context, or "". */
SVK_API const char *svk_ctx_last_error(const svk_ctx *ctx);

/* Counts of validation-layer messages by severity since creation (zero when
 * validation is off), and the text of the last one ("" if none). */
typedef struct svk_validation_counts {
    uint64_t errors, warnings, infos;
    char last_message[1024];
} svk_validation_counts;

SVK_API svk_status svk_ctx_validation_counts(const svk_ctx *ctx, svk_validation_counts *out);

/* Whether the context's device was lost (VK_ERROR_DEVICE_LOST): from then
 * on every call on it and on what was created from it returns
 * SVK_ERROR_DEVICE_LOST. Destroy its models and the context, create a new
 * one and load the last checkpoint to go on (svk-train --recover).
 * false for NULL. */
SVK_API bool svk_ctx_device_lost(const svk_ctx *ctx);

/* Whether the validation layer is active on the context. */
SVK_API bool svk_ctx_validation_enabled(const svk_ctx *ctx);

SVK_END_DECLS

#endif
