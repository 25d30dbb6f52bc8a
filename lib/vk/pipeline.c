#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "vk_context.h"

svk_status svk_pipelines_init(svk_ctx *ctx)
{
    /* Called after the on-disk cache was read into ctx->pipelines.cache or
     * not; the struct is otherwise zero. */
    ctx->pipelines.push_descriptor = ctx->info.push_descriptor &&
                                     ctx->vkd.vkCmdPushDescriptorSetKHR != NULL;
    return SVK_OK;
}

void svk_pipelines_destroy(svk_ctx *ctx)
{
    for (int k = 0; k < SVK_KERNEL_COUNT; k++) {
        svk_kernel_state *ks = &ctx->pipelines.kernels[k];
        svk_pipeline *p = ks->variants;
        while (p) {
            svk_pipeline *next = p->next;
            ctx->vkd.vkDestroyPipeline(ctx->vk.device, p->pipeline, NULL);
            free(p);
            p = next;
        }
        if (ks->layout)
            ctx->vkd.vkDestroyPipelineLayout(ctx->vk.device, ks->layout, NULL);
        if (ks->set_layout)
            ctx->vkd.vkDestroyDescriptorSetLayout(ctx->vk.device, ks->set_layout, NULL);
        if (ks->module)
            ctx->vkd.vkDestroyShaderModule(ctx->vk.device, ks->module, NULL);
        memset(ks, 0, sizeof(*ks));
    }
}

/* Shader module and layouts of a kernel, made once. */
static svk_status kernel_state_init(svk_ctx *ctx, const svk_kernel_info *k, svk_kernel_state *ks)
{
    svk_status st = SVK_OK;
    if (ks->layout)
        return SVK_OK;
    /* The ops record a kernel with more bindings than Vulkan's guaranteed 4
     * only where the device allows them; this is the backstop. */
    uint32_t storage = 0;
    for (uint32_t i = 0; i < k->n_buffers; i++)
        storage += k->binding_kind[i] == SVK_BIND_STORAGE;
    if (storage > ctx->info.max_storage_buffers)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "kernel '%s' binds %u storage buffers; device '%s' allows %u per shader stage", k->name,
                         storage, ctx->info.name, ctx->info.max_storage_buffers);

    const bool khr = k->spv_khr && ctx->info.coopmat_khr;
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = khr ? k->spv_khr_size : k->spv_size,
        .pCode = khr ? k->spv_khr : k->spv,
    };
    /* Into locals: a failed create leaves its output undefined. */
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    SVK_VK(ctx, ctx->vkd.vkCreateShaderModule(ctx->vk.device, &smci, NULL, &module),
           "creating the shader module of kernel '%s'", k->name);
    ks->module = module;

    VkDescriptorSetLayoutBinding bindings[SVK_MAX_BINDINGS];
    for (uint32_t i = 0; i < k->n_buffers; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = svk_binding_descriptor_type(k->binding_kind[i]),
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dslci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = ctx->pipelines.push_descriptor
                     ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
        .bindingCount = k->n_buffers,
        .pBindings = bindings,
    };
    SVK_VK(ctx, ctx->vkd.vkCreateDescriptorSetLayout(ctx->vk.device, &dslci, NULL, &set_layout),
           "creating the descriptor set layout of kernel '%s'", k->name);
    ks->set_layout = set_layout;

    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .offset = 0,
        .size = k->push_size,
    };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &ks->set_layout,
        .pushConstantRangeCount = k->push_size ? 1 : 0,
        .pPushConstantRanges = &pcr,
    };
    SVK_VK(ctx, ctx->vkd.vkCreatePipelineLayout(ctx->vk.device, &plci, NULL, &layout),
           "creating the pipeline layout of kernel '%s'", k->name);
    ks->layout = layout;
    return SVK_OK;

fail:
    if (ks->set_layout)
        ctx->vkd.vkDestroyDescriptorSetLayout(ctx->vk.device, ks->set_layout, NULL);
    if (ks->module)
        ctx->vkd.vkDestroyShaderModule(ctx->vk.device, ks->module, NULL);
    ks->set_layout = VK_NULL_HANDLE;
    ks->module = VK_NULL_HANDLE;
    return st;
}

static svk_status check_local_size(svk_ctx *ctx, const svk_kernel_info *k, const uint32_t *spec)
{
    const svk_device_info *di = &ctx->info;
    uint64_t total = 1;
    for (int i = 0; i < 3; i++) {
        if (spec[i] == 0 || spec[i] > di->max_workgroup_size[i])
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "kernel '%s': workgroup size %u in dimension %d is outside "
                             "1..%u, the device's limit", k->name, spec[i], i,
                             di->max_workgroup_size[i]);
        total *= spec[i];
    }
    if (total > di->max_workgroup_invocations)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "kernel '%s': workgroup of %llu invocations exceeds the device's "
                         "limit of %u", k->name, (unsigned long long)total,
                         di->max_workgroup_invocations);
    return SVK_OK;
}

svk_status svk_pipeline_get(svk_ctx *ctx, svk_kernel_id id, const uint32_t *spec,
                            const svk_pipeline **out)
{
    svk_status st = SVK_OK;
    *out = NULL;
    const svk_kernel_info *k = svk_kernel_info_get(id);
    if (!k)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "unknown kernel id %d", (int)id);
    if (!spec)
        spec = k->spec_defaults;

    svk_kernel_state *ks = &ctx->pipelines.kernels[id];
    for (svk_pipeline *p = ks->variants; p; p = p->next)
        if (!memcmp(p->spec, spec, k->n_spec * sizeof(uint32_t))) {
            *out = p;
            return SVK_OK;
        }

    st = check_local_size(ctx, k, spec);
    if (st != SVK_OK)
        return st;
    st = kernel_state_init(ctx, k, ks);
    if (st != SVK_OK)
        return st;

    svk_pipeline *p = svk_calloc(1, sizeof(*p));
    if (!p)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory creating kernel '%s'", k->name);
    p->kernel = k;
    p->id = id;
    memcpy(p->spec, spec, k->n_spec * sizeof(uint32_t));
    memcpy(p->local_size, spec, sizeof(p->local_size));

    VkSpecializationMapEntry entries[SVK_MAX_SPEC];
    for (uint32_t i = 0; i < k->n_spec; i++)
        entries[i] = (VkSpecializationMapEntry){
            .constantID = i,
            .offset = i * (uint32_t)sizeof(uint32_t),
            .size = sizeof(uint32_t),
        };
    VkSpecializationInfo si = {
        .mapEntryCount = k->n_spec,
        .pMapEntries = entries,
        .dataSize = k->n_spec * sizeof(uint32_t),
        .pData = p->spec,
    };
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = ks->module,
            .pName = "main",
            .pSpecializationInfo = &si,
        },
        .layout = ks->layout,
    };
    SVK_VK(ctx, ctx->vkd.vkCreateComputePipelines(ctx->vk.device, ctx->pipelines.cache, 1, &cpci,
                                                  NULL, &p->pipeline),
           "creating the pipeline of kernel '%s'", k->name);
    p->next = ks->variants;
    ks->variants = p;
    *out = p;
    return SVK_OK;

fail:
    free(p);
    return st;
}
