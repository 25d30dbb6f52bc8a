/* Physical-device queries and the choice of device. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "vk_context.h"
#include "quirks.h"

#define SVK_MIN_API VK_API_VERSION_1_2

static svk_device_type map_type(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return SVK_DEVICE_INTEGRATED_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return SVK_DEVICE_DISCRETE_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return SVK_DEVICE_VIRTUAL_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return SVK_DEVICE_CPU;
    default: return SVK_DEVICE_OTHER;
    }
}

static bool has_extension(const VkExtensionProperties *exts, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(exts[i].extensionName, name))
            return true;
    return false;
}

bool svk_vk_device_has_extension(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    if (vki->vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) < 0 || n == 0)
        return false;
    VkExtensionProperties *exts = svk_calloc(n, sizeof(*exts));
    if (!exts)
        return false;
    bool found = vki->vkEnumerateDeviceExtensionProperties(phys, NULL, &n, exts) >= 0 && has_extension(exts, n, name);
    free(exts);
    return found;
}

/* One listed float16 x float16 + float32 -> float32 subgroup shape. */
typedef struct coopmat_shape_entry {
    uint32_t m, n, k;
} coopmat_shape_entry;

/* The device's float16 x float16 + float32 -> float32 subgroup shapes under
 * one extension (khr or NV), at most cap of them; returns how many. */
static uint32_t coopmat_shapes(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, bool khr,
                               coopmat_shape_entry *out, uint32_t cap)
{
    uint32_t n = 0, found = 0;
    VkResult r = khr ? vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(phys, &n, NULL)
                     : vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(phys, &n, NULL);
    if (r != VK_SUCCESS || n == 0)
        return 0;
    if (khr) {
        VkCooperativeMatrixPropertiesKHR *p = svk_calloc(n, sizeof(*p));
        if (!p)
            return 0;
        for (uint32_t i = 0; i < n; i++)
            p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
        r = vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(phys, &n, p);
        for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n && found < cap; i++)
            if (p[i].AType == VK_COMPONENT_TYPE_FLOAT16_KHR && p[i].BType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                p[i].CType == VK_COMPONENT_TYPE_FLOAT32_KHR && p[i].ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
                p[i].scope == VK_SCOPE_SUBGROUP_KHR && !p[i].saturatingAccumulation)
                out[found++] = (coopmat_shape_entry){p[i].MSize, p[i].NSize, p[i].KSize};
        free(p);
    } else {
        VkCooperativeMatrixPropertiesNV *p = svk_calloc(n, sizeof(*p));
        if (!p)
            return 0;
        for (uint32_t i = 0; i < n; i++)
            p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
        r = vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(phys, &n, p);
        for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n && found < cap; i++)
            if (p[i].AType == VK_COMPONENT_TYPE_FLOAT16_NV && p[i].BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                p[i].CType == VK_COMPONENT_TYPE_FLOAT32_NV && p[i].DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                p[i].scope == VK_SCOPE_SUBGROUP_NV)
                out[found++] = (coopmat_shape_entry){p[i].MSize, p[i].NSize, p[i].KSize};
        free(p);
    }
    return found;
}

/* The fragment shape libsvk uses under one extension, preferring 16 x 16 x
 * 16 (which every vendor offering the extensions lists), else the listed
 * shape with the most multiply-adds; false where none is usable. */
static bool coopmat_shape(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, bool khr, svk_device_info *info)
{
    coopmat_shape_entry shapes[64];
    const uint32_t n = coopmat_shapes(vki, phys, khr, shapes, 64);
    uint64_t best = 0;
    for (uint32_t i = 0; i < n; i++) {
        const coopmat_shape_entry *c = &shapes[i];
        if (c->m == 0 || c->n == 0 || c->k == 0 || c->m > 64 || c->n > 64 || c->k > 64)
            continue;
        uint64_t score = (uint64_t)c->m * c->n * c->k;
        if (c->m == 16 && c->n == 16 && c->k == 16)
            score = UINT64_MAX;
        if (score > best) {
            best = score;
            info->coopmat_m = c->m;
            info->coopmat_n = c->n;
            info->coopmat_k = c->k;
            info->coopmat_khr = khr;
        }
    }
    return best > 0;
}

/* The basic properties and limits (VkPhysicalDeviceProperties) into info. */
static void read_properties(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, svk_device_info *info,
                            VkPhysicalDeviceProperties *props)
{
    vki->vkGetPhysicalDeviceProperties(phys, props);
    snprintf(info->name, sizeof(info->name), "%s", props->deviceName);
    info->type = map_type(props->deviceType);
    info->vendor_id = props->vendorID;
    info->device_id = props->deviceID;
    info->driver_version = props->driverVersion;
    info->api_version = props->apiVersion;
    const VkPhysicalDeviceLimits *lim = &props->limits;
    info->max_shared_memory = lim->maxComputeSharedMemorySize;
    for (int i = 0; i < 3; i++) {
        info->max_workgroup_size[i] = lim->maxComputeWorkGroupSize[i];
        info->max_workgroup_count[i] = lim->maxComputeWorkGroupCount[i];
    }
    info->max_workgroup_invocations = lim->maxComputeWorkGroupInvocations;
    info->max_push_constants = lim->maxPushConstantsSize;
    info->max_storage_buffer_range = lim->maxStorageBufferRange;
    info->max_storage_buffers = lim->maxPerStageDescriptorStorageBuffers < lim->maxDescriptorSetStorageBuffers
                                    ? lim->maxPerStageDescriptorStorageBuffers
                                    : lim->maxDescriptorSetStorageBuffers;
    info->min_storage_offset_alignment = (uint32_t)lim->minStorageBufferOffsetAlignment;
    info->timestamp_period_ns = lim->timestampPeriod;

    VkPhysicalDeviceMemoryProperties mp;
    vki->vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
        if (mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info->device_local_bytes += mp.memoryHeaps[i].size;
}

/* The compute queue family, preferring one that has timestamps
 * (UINT32_MAX where there is none), and its timestamps' valid bits. */
static uint32_t choose_queue_family(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, uint32_t *timestamp_bits)
{
    uint32_t nq = 0;
    vki->vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
    VkQueueFamilyProperties qf[64];
    if (nq > 64)
        nq = 64;
    vki->vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf);
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < nq; i++) {
        if (!(qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (family == UINT32_MAX || (qf[i].timestampValidBits && !qf[family].timestampValidBits))
            family = i;
    }
    *timestamp_bits = family != UINT32_MAX ? qf[family].timestampValidBits : 0;
    return family;
}

/* The device extensions whose structures or paths libsvk uses. */
typedef struct device_exts {
    bool push_descriptor;
    bool subgroup_size_control;  /* the extension, or Vulkan 1.3 */
    bool coopmat_nv, coopmat_khr; /* listed, and the loader has the query */
} device_exts;

static device_exts read_extensions(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, uint32_t api_version)
{
    uint32_t next = 0;
    vki->vkEnumerateDeviceExtensionProperties(phys, NULL, &next, NULL);
    VkExtensionProperties *exts = svk_calloc(next ? next : 1, sizeof(*exts));
    if (exts)
        vki->vkEnumerateDeviceExtensionProperties(phys, NULL, &next, exts);
    else
        next = 0;
    device_exts e = {
        .push_descriptor = has_extension(exts, next, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME),
        .subgroup_size_control = api_version >= VK_API_VERSION_1_3 ||
                                 has_extension(exts, next, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME),
        .coopmat_nv = has_extension(exts, next, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
                      vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV != NULL,
        .coopmat_khr = has_extension(exts, next, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
                       vki->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR != NULL,
    };
    free(exts);
    return e;
}

/* What the feature checks need of the extended properties, beyond info. */
typedef struct device_props2 {
    VkDriverId driver_id;
    VkShaderStageFlags required_subgroup_size_stages; /* 0 without subgroup size control */
    VkShaderStageFlags coopmat_nv_stages, coopmat_khr_stages; /* 0 without the extension */
} device_props2;

/* The Vulkan 1.1 and 1.2 properties, subgroup sizes and the cooperative-
 * matrix stages into info and *out. Only chains structures the device's
 * version (or extension) defines. */
static void read_properties2(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, const device_exts *ext,
                             svk_device_info *info, device_props2 *out)
{
    const bool sgc = ext->subgroup_size_control;
    VkPhysicalDeviceSubgroupSizeControlProperties sgp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES,
    };
    void *chain = sgc ? &sgp : NULL;
    VkPhysicalDeviceCooperativeMatrixPropertiesNV cmp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV,
        .pNext = chain,
    };
    if (ext->coopmat_nv)
        chain = &cmp;
    VkPhysicalDeviceCooperativeMatrixPropertiesKHR kmp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR,
        .pNext = chain,
    };
    if (ext->coopmat_khr)
        chain = &kmp;
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
        .pNext = chain,
    };
    VkPhysicalDeviceVulkan12Properties p12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES,
        .pNext = &m3,
    };
    VkPhysicalDeviceVulkan11Properties p11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES,
        .pNext = &p12,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &p11,
    };
    vki->vkGetPhysicalDeviceProperties2(phys, &p2);
    memcpy(info->device_uuid, p11.deviceUUID, sizeof(info->device_uuid));
    info->subgroup_size = p11.subgroupSize;
    info->min_subgroup_size = sgc ? sgp.minSubgroupSize : p11.subgroupSize;
    info->max_subgroup_size = sgc ? sgp.maxSubgroupSize : p11.subgroupSize;
    info->max_allocation_size = m3.maxMemoryAllocationSize;
    snprintf(info->driver_name, sizeof(info->driver_name), "%s", p12.driverName);
    snprintf(info->driver_info, sizeof(info->driver_info), "%s", p12.driverInfo);
    *out = (device_props2){
        .driver_id = p12.driverID,
        .required_subgroup_size_stages = sgp.requiredSubgroupSizeStages,
        .coopmat_nv_stages = cmp.cooperativeMatrixSupportedStages,
        .coopmat_khr_stages = kmp.cooperativeMatrixSupportedStages,
    };
}

/* The features the kernel paths depend on. */
typedef struct device_features {
    bool float16, memory_model;
    bool subgroup_size_control;  /* with computeFullSubgroups */
    bool coopmat_nv, coopmat_khr;
} device_features;

/* Reads the features into info (float16, int8, int64 as enabled allows)
 * and *out, chaining only what the device's extensions define. */
static void read_features(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, const device_exts *ext,
                          const svk_vk_enabled *enabled, svk_device_info *info, device_features *out)
{
    VkPhysicalDeviceSubgroupSizeControlFeatures sgf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
    };
    void *chain = ext->subgroup_size_control ? &sgf : NULL;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .pNext = chain,
    };
    if (ext->coopmat_nv)
        chain = &cmf;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR kmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = chain,
    };
    if (ext->coopmat_khr)
        chain = &kmf;
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = chain,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f12,
    };
    vki->vkGetPhysicalDeviceFeatures2(phys, &f2);
    info->float16 = f12.shaderFloat16;
    info->int8 = f12.shaderInt8;
    info->int64 = f2.features.shaderInt64 && (!enabled || enabled->int64);
    *out = (device_features){
        .float16 = f12.shaderFloat16,
        .memory_model = f12.vulkanMemoryModel,
        .subgroup_size_control = ext->subgroup_size_control && sgf.subgroupSizeControl && sgf.computeFullSubgroups,
        .coopmat_nv = ext->coopmat_nv && cmf.cooperativeMatrix,
        .coopmat_khr = ext->coopmat_khr && kmf.cooperativeMatrix,
    };
}

/* shaders/gemm_coopmat.comp needs the feature, float16 arithmetic and the
 * Vulkan memory model (its scopes), and a workgroup of whole subgroups:
 * one subgroup size on the device, since libsvk does not require a size
 * per pipeline. Where both extensions qualify, NV's (the module glslang
 * wrote, run on an H200) unless coopmat_ext ($SVK_COOPMAT_EXT) says KHR;
 * the KHR module is rewritten from it (shaders/coopmat_khr.py). On an
 * imported device, what the application enabled, too: the same choice
 * among what it allows. */
static void choose_coopmat(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, const device_features *f,
                           const device_props2 *p, const svk_vk_enabled *enabled, svk_coopmat_ext coopmat_ext,
                           svk_device_info *info)
{
    const bool base = f->float16 && f->memory_model && info->min_subgroup_size == info->max_subgroup_size &&
                      info->subgroup_size >= 1 && !svk_quirk_coopmat_crashes(p->driver_id, info->subgroup_size) &&
                      (!enabled || (enabled->float16 && enabled->memory_model));
    const bool nv_ok = base && f->coopmat_nv && (p->coopmat_nv_stages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                       (!enabled || enabled->coopmat_nv);
    const bool khr_ok = base && f->coopmat_khr && (p->coopmat_khr_stages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                        (!enabled || enabled->coopmat_khr);
    const bool ok[2] = {nv_ok, khr_ok}; /* indexed by "is KHR" */
    const bool first = coopmat_ext == SVK_COOPMAT_EXT_KHR;
    if (!(ok[first] && coopmat_shape(vki, phys, first, info)) && ok[!first])
        coopmat_shape(vki, phys, !first, info);
}

void svk_vk_device_info(const svk_vk_instance_fns *vki, VkPhysicalDevice phys, uint32_t index,
                        const svk_vk_enabled *enabled, svk_coopmat_ext coopmat_ext, svk_device_info *info,
                        uint32_t *timestamp_bits, uint32_t *queue_family)
{
    memset(info, 0, sizeof(*info));
    info->index = index;
    VkPhysicalDeviceProperties props;
    read_properties(vki, phys, info, &props);
    const uint32_t family = choose_queue_family(vki, phys, timestamp_bits);
    *queue_family = family;
    info->timestamps = *timestamp_bits > 0 && props.limits.timestampComputeAndGraphics;

    if (props.apiVersion < SVK_MIN_API) {
        snprintf(info->unsupported_reason, sizeof(info->unsupported_reason),
                 "Vulkan %u.%u device; libsvk needs 1.2", VK_API_VERSION_MAJOR(props.apiVersion),
                 VK_API_VERSION_MINOR(props.apiVersion));
        return;
    }
    if (family == UINT32_MAX) {
        snprintf(info->unsupported_reason, sizeof(info->unsupported_reason), "no compute queue");
        return;
    }

    const device_exts ext = read_extensions(vki, phys, props.apiVersion);
    info->push_descriptor = ext.push_descriptor;
    device_props2 p2;
    read_properties2(vki, phys, &ext, info, &p2);
    device_features f;
    read_features(vki, phys, &ext, enabled, info, &f);
    info->subgroup_size_control = f.subgroup_size_control &&
                                  (p2.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT);
    choose_coopmat(vki, phys, &f, &p2, enabled, coopmat_ext, info);
    info->supported = true;
}

static int type_rank(svk_device_type t)
{
    switch (t) {
    case SVK_DEVICE_DISCRETE_GPU: return 0;
    case SVK_DEVICE_INTEGRATED_GPU: return 1;
    case SVK_DEVICE_VIRTUAL_GPU: return 2;
    case SVK_DEVICE_CPU: return 3;
    default: return 4;
    }
}

static bool name_matches(const char *name, const char *pattern)
{
    size_t n = strlen(name), p = strlen(pattern);
    if (p == 0)
        return false;
    for (size_t i = 0; i + p <= n; i++) {
        size_t j = 0;
        while (j < p && tolower((unsigned char)name[i + j]) == tolower((unsigned char)pattern[j]))
            j++;
        if (j == p)
            return true;
    }
    return false;
}

static bool parse_index(const char *s, uint32_t *out)
{
    if (!*s)
        return false;
    uint64_t v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10 + (uint64_t)(*c - '0');
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

static svk_status pick_index(svk_log *log, const svk_device_info *infos, uint32_t n, uint32_t idx,
                             const char *source, uint32_t *chosen)
{
    if (idx >= n)
        return svk_error(log, SVK_ERROR_NO_DEVICE, "%s asks for Vulkan device %u, but there %s %u",
                         source, idx, n == 1 ? "is" : "are", n);
    if (!infos[idx].supported)
        return svk_error(log, SVK_ERROR_UNSUPPORTED, "%s asks for Vulkan device %u (%s): %s", source,
                         idx, infos[idx].name, infos[idx].unsupported_reason);
    *chosen = idx;
    return SVK_OK;
}

svk_status svk_vk_choose_device(svk_log *log, const svk_device_info *infos, uint32_t n,
                                int32_t index, const char *name, const char *env_device, uint32_t *chosen)
{
    if (n == 0)
        return svk_error(log, SVK_ERROR_NO_VULKAN,
                         "the Vulkan loader reports no devices; install a driver (e.g. mesa-vulkan-drivers)");
    if (index >= 0)
        return pick_index(log, infos, n, (uint32_t)index, "device_index", chosen);

    const char *source = "device_name";
    if (!name) {
        const char *env = env_device;
        if (env && *env) {
            uint32_t idx;
            if (parse_index(env, &idx))
                return pick_index(log, infos, n, idx, "SVK_DEVICE", chosen);
            name = env;
            source = "SVK_DEVICE";
        }
    }
    if (name) {
        for (uint32_t i = 0; i < n; i++)
            if (infos[i].supported && name_matches(infos[i].name, name)) {
                *chosen = i;
                return SVK_OK;
            }
        char list[512] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < n && used < sizeof(list); i++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u: %s", i ? "; " : "", i, infos[i].name);
        return svk_error(log, SVK_ERROR_NO_DEVICE, "%s \"%s\" matches no supported Vulkan device (devices: %s)",
                         source, name, list);
    }

    int best = -1;
    for (uint32_t i = 0; i < n; i++)
        if (infos[i].supported && (best < 0 || type_rank(infos[i].type) < type_rank(infos[best].type)))
            best = (int)i;
    if (best < 0)
        return svk_error(log, SVK_ERROR_UNSUPPORTED, "no Vulkan device meets libsvk's needs (device 0, %s: %s)",
                         infos[0].name, infos[0].unsupported_reason);
    *chosen = (uint32_t)best;
    return SVK_OK;
}
