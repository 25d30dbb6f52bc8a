/* Finding the Vulkan loader and filling a context's tables (fns.h). */
#ifndef SVK_VK_LOADER_H
#define SVK_VK_LOADER_H

#include "core/error.h"
#include "fns.h"

/* Opens the Vulkan loader: path if not NULL or "" ($SVK_VULKAN_LIBRARY, a path, for loaders
 * outside the library path; *handle then holds it, for
 * svk_vk_close_loader), else the system's, which volk's volkInitialize
 * finds (libvulkan.so.1 or libvulkan.so on Linux, vulkan-1.dll on Windows,
 * libvulkan.dylib, libvulkan.1.dylib or MoltenVK on macOS; *handle stays
 * NULL: volk keeps that one open for the process). On success fns has
 * vkGetInstanceProcAddr and the global functions. SVK_ERROR_NO_VULKAN,
 * naming what was tried, when none opens. */
svk_status svk_vk_open_loader(svk_log *log, const char *path, void **handle, svk_vk_instance_fns *fns);

/* Fills the global functions of fns from fns->vkGetInstanceProcAddr (already
 * set), for an application-provided entry point. */
svk_status svk_vk_load_global(svk_log *log, svk_vk_instance_fns *fns);

/* Fills the instance functions for instance. */
svk_status svk_vk_load_instance(svk_log *log, svk_vk_instance_fns *fns, VkInstance instance);

/* Fills the device table for device (volkLoadDeviceTable, through
 * ifns->vkGetDeviceProcAddr), and refuses one that lacks a function libsvk
 * calls. */
svk_status svk_vk_load_device(svk_log *log, const svk_vk_instance_fns *ifns,
                              VkDevice device, svk_vk_device_fns *dfns);

/* Closes what svk_vk_open_loader opened itself; NULL does nothing. */
void svk_vk_close_loader(void **handle);

/* Tests only (fault injection, tests/fault_vk.c): called after each of the
 * load functions above has filled a table, so that a test can replace
 * entries with wrappers that fail on demand. Process-wide, set before any
 * context is created; NULL members (the default) do nothing. */
typedef struct svk_vk_load_hook {
    void (*instance)(svk_vk_instance_fns *fns); /* after load_global and load_instance */
    void (*device)(svk_vk_device_fns *fns);
} svk_vk_load_hook;
void svk_vk_set_load_hook(const svk_vk_load_hook *hook);

#endif
