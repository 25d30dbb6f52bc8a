/*
 * Driver behaviour libsvk adapts to, each rule measured (the figures are in
 * docs/PERFORMANCE.md). Pure functions of what a driver
 * reports, so tests can check every rule without the driver.
 */
#ifndef SVK_VK_QUIRKS_H
#define SVK_VK_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* Whether creating gemm_coopmat's pipeline crashes this driver at this
 * subgroup size (then libsvk offers no cooperative matrices on it). */
bool svk_quirk_coopmat_crashes(VkDriverId driver, uint32_t subgroup_size);

/* Whether uniform texel buffer fetches are slower than storage-buffer
 * loads on this driver, so that the CPU kernels' texel forms lose to their
 * storage-buffer forms. driver_info: VkPhysicalDeviceDriverProperties'
 * driverInfo ("Mesa 25.0.7 (LLVM 19.1.7)" on lavapipe). */
bool svk_quirk_texel_fetch_slow(VkDriverId driver, const char *driver_info);

/* The Mesa version in a driverInfo string ("Mesa 25.0.7-2~bpo12+1 ..."):
 * true and *major, *minor where the string starts so, false otherwise. */
bool svk_quirk_mesa_version(const char *driver_info, uint32_t *major, uint32_t *minor);

#endif
