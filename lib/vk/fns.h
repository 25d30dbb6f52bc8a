/*
 * The one list of Vulkan entry points libsvk calls, as X-macros, and the
 * tables they expand into. Functions are loaded at run time (loader.c):
 * global ones from vkGetInstanceProcAddr(NULL, ...), instance ones per
 * instance, device ones per device through vkGetDeviceProcAddr, the way volk
 * does it but into tables owned by the context, never into globals. Every
 * Vulkan call in libsvk goes through these tables, so a test can replace any
 * entry (fault injection).
 *
 * X(name) must exist; O(name) is optional (an extension) and may be NULL.
 */
#ifndef SVK_VK_FNS_H
#define SVK_VK_FNS_H

#include <vulkan/vulkan.h>

#include "coopmat_khr.h"

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

#define SVK_VK_DEVICE_FNS(X, O)                         \
    X(vkDestroyDevice)                                  \
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

/* Device-level entry points of one device. */
typedef struct svk_vk_device_fns {
    SVK_VK_DEVICE_FNS(SVK_VK_DECLARE_, SVK_VK_DECLARE_)
} svk_vk_device_fns;

#endif
