/*
 * The context's Vulkan function tables, one set per context, never global,
 * so that two contexts and an imported device coexist and a test can
 * replace any entry (fault injection, loader.h). Every Vulkan call in
 * libsvk goes through them.
 *
 * Device functions: volk's VolkDeviceTable, filled by volkLoadDeviceTable
 * through vkGetDeviceProcAddr (loader.c). Global and instance functions:
 * the short table below, filled through the context's own
 * vkGetInstanceProcAddr, because the volk Debian 12 packages (1.3.239) keeps
 * those in process-wide globals only (its VolkInstanceTable came later),
 * and an imported context may use the application's loader while another
 * context uses the system's. Functions newer than volk's headers
 * (VK_KHR_cooperative_matrix, coopmat_khr.h) are fetched the same way.
 *
 * In the lists, X(name) must exist; O(name) is optional (an extension) and
 * may be NULL.
 */
#ifndef SVK_VK_FNS_H
#define SVK_VK_FNS_H

#include "vk.h"

#define SVK_VK_GLOBAL_FNS(X, O)                         \
    X(vkCreateInstance)                                 \
    X(vkEnumerateInstanceExtensionProperties)           \
    X(vkEnumerateInstanceLayerProperties)               \
    O(vkEnumerateInstanceVersion)

#define SVK_VK_INSTANCE_FNS(X, O)                        \
    X(vkDestroyInstance)                                 \
    X(vkEnumeratePhysicalDevices)                        \
    X(vkGetPhysicalDeviceProperties)                     \
    X(vkGetPhysicalDeviceProperties2)                    \
    X(vkGetPhysicalDeviceFeatures2)                      \
    X(vkGetPhysicalDeviceMemoryProperties)               \
    X(vkGetPhysicalDeviceFormatProperties)               \
    X(vkGetPhysicalDeviceQueueFamilyProperties)          \
    X(vkEnumerateDeviceExtensionProperties)              \
    X(vkCreateDevice)                                    \
    X(vkGetDeviceProcAddr)                               \
    O(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)  \
    O(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR) \
    O(vkCreateDebugUtilsMessengerEXT)                    \
    O(vkDestroyDebugUtilsMessengerEXT)

/* The device functions libsvk calls: loader.c refuses a device whose
 * table lacks one (SVK_ERROR_NO_VULKAN, naming it) rather than call NULL. */
#define SVK_VK_DEVICE_FNS(X, O)                         \
    X(vkDestroyDevice)                                  \
    X(vkGetDeviceQueue)                                 \
    X(vkDeviceWaitIdle)                                 \
    X(vkQueueSubmit)                                    \
    X(vkQueueWaitIdle)                                  \
    X(vkAllocateMemory)                                 \
    X(vkFreeMemory)                                     \
    X(vkMapMemory)                                      \
    X(vkUnmapMemory)                                    \
    X(vkCreateBuffer)                                   \
    X(vkDestroyBuffer)                                  \
    X(vkGetBufferMemoryRequirements)                    \
    X(vkBindBufferMemory)                               \
    X(vkCreateBufferView)                               \
    X(vkDestroyBufferView)                              \
    X(vkCreateShaderModule)                             \
    X(vkDestroyShaderModule)                            \
    X(vkCreatePipelineCache)                            \
    X(vkDestroyPipelineCache)                           \
    X(vkGetPipelineCacheData)                           \
    X(vkCreateComputePipelines)                         \
    X(vkDestroyPipeline)                                \
    X(vkCreatePipelineLayout)                           \
    X(vkDestroyPipelineLayout)                          \
    X(vkCreateDescriptorSetLayout)                      \
    X(vkDestroyDescriptorSetLayout)                     \
    X(vkCreateDescriptorPool)                           \
    X(vkDestroyDescriptorPool)                          \
    X(vkAllocateDescriptorSets)                         \
    X(vkUpdateDescriptorSets)                           \
    X(vkCreateCommandPool)                              \
    X(vkDestroyCommandPool)                             \
    X(vkAllocateCommandBuffers)                         \
    X(vkFreeCommandBuffers)                             \
    X(vkBeginCommandBuffer)                             \
    X(vkEndCommandBuffer)                               \
    X(vkCmdBindPipeline)                                \
    X(vkCmdBindDescriptorSets)                          \
    X(vkCmdPushConstants)                               \
    X(vkCmdDispatch)                                    \
    X(vkCmdPipelineBarrier)                             \
    X(vkCmdCopyBuffer)                                  \
    X(vkCmdFillBuffer)                                  \
    X(vkCmdWriteTimestamp)                              \
    X(vkCmdResetQueryPool)                              \
    X(vkCreateQueryPool)                                \
    X(vkDestroyQueryPool)                               \
    X(vkGetQueryPoolResults)                            \
    X(vkCreateFence)                                    \
    X(vkDestroyFence)                                   \
    X(vkWaitForFences)                                  \
    X(vkResetFences)                                    \
    X(vkGetFenceStatus)                                 \
    O(vkCmdPushDescriptorSetKHR)

#define SVK_VK_DECLARE_(name) PFN_##name name;

/* Global and instance-level entry points of one instance. */
typedef struct svk_vk_instance_fns {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    SVK_VK_GLOBAL_FNS(SVK_VK_DECLARE_, SVK_VK_DECLARE_)
    SVK_VK_INSTANCE_FNS(SVK_VK_DECLARE_, SVK_VK_DECLARE_)
} svk_vk_instance_fns;

/* Device-level entry points of one device: volk's table. */
typedef struct VolkDeviceTable svk_vk_device_fns;

#endif
