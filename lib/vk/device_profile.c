/* The device profile (device_profile.h): the device's properties that
 * kernel choices depend on, read once. */
#include "device_profile.h"

#include "vk_context.h"
#include "quirks.h"

void svk_device_profile_read(svk_ctx *ctx)
{
    VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                             .pNext = &drv};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
    ctx->vki.vkGetPhysicalDeviceProperties2(ctx->vk.physical_device, &p2);
    const VkPhysicalDeviceProperties props = p2.properties;
    const bool compute = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    VkFormatProperties r, rgba;
    ctx->vki.vkGetPhysicalDeviceFormatProperties(ctx->vk.physical_device, VK_FORMAT_R32_SFLOAT, &r);
    ctx->vki.vkGetPhysicalDeviceFormatProperties(ctx->vk.physical_device, VK_FORMAT_R32G32B32A32_SFLOAT, &rgba);
    const svk_device_info *info = &ctx->info;
    ctx->profile = (svk_device_profile){
        .cpu = info->type == SVK_DEVICE_CPU,
        .subgroup_size = info->subgroup_size,
        .one_subgroup_size = info->min_subgroup_size == info->max_subgroup_size,
        .subgroup_shuffle = compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT),
        .subgroup_arith = compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT),
        .int64 = info->int64,
        .float16 = info->float16,
        .coopmat_m = info->coopmat_m,
        .coopmat_n = info->coopmat_n,
        .coopmat_k = info->coopmat_k,
        .max_storage_buffers = info->max_storage_buffers,
        .texel = {
            .r32f = (r.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) != 0,
            .rgba32f = (rgba.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) != 0,
            .max_elements = props.limits.maxTexelBufferElements,
            .offset_align = props.limits.minTexelBufferOffsetAlignment ? props.limits.minTexelBufferOffsetAlignment : 1,
            .slow_fetch = svk_quirk_texel_fetch_slow(drv.driverID, drv.driverInfo),
        },
    };
    if (ctx->profile.texel.slow_fetch)
        svk_log_msg(&ctx->log, SVK_LOG_INFO,
                    "'%s' (%s) fetches texel buffers slower than it loads storage buffers: CPU kernels read "
                    "storage buffers (lib/vk/quirks.c; svk-bench --tune texel_buffers=1 compares)",
                    ctx->info.name, drv.driverInfo);
}
