/*
 * The pipeline builder: creates a kernel's compute pipeline on first use for
 * a given set of specialisation constants and caches it in the context.
 */
#ifndef SVK_VK_PIPELINE_H
#define SVK_VK_PIPELINE_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "svk/common.h"
#include "kernels.h"

struct svk_ctx;

typedef struct svk_pipeline {
    const svk_kernel_info *kernel;
    svk_kernel_id id;
    uint32_t spec[SVK_MAX_SPEC];
    uint32_t local_size[3];        /* spec[0..2] */
    VkPipeline pipeline;
    struct svk_pipeline *next;     /* the kernel's other variants */
} svk_pipeline;

/* Per-kernel objects shared by all its variants. */
typedef struct svk_kernel_state {
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    svk_pipeline *variants;
} svk_kernel_state;

typedef struct svk_pipelines {
    VkPipelineCache cache;
    char cache_path[1024];         /* the cache's file, "" when disabled (pipeline_cache.c) */
    bool push_descriptor;          /* set layouts use VK_KHR_push_descriptor */
    svk_kernel_state kernels[SVK_KERNEL_COUNT];
} svk_pipelines;

svk_status svk_pipelines_init(struct svk_ctx *ctx);
void svk_pipelines_destroy(struct svk_ctx *ctx);

/* The pipeline of kernel id with specialisation constants spec (kernel's
 * n_spec values; NULL: the registry's defaults). Refuses a workgroup size
 * over the device's limits. */
svk_status svk_pipeline_get(struct svk_ctx *ctx, svk_kernel_id id, const uint32_t *spec,
                            const svk_pipeline **out);

static inline const svk_kernel_state *svk_pipeline_state(const struct svk_pipelines *p,
                                                         const svk_pipeline *pipe)
{
    return &p->kernels[pipe->id];
}

#endif
