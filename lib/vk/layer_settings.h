/*
 * VK_EXT_layer_settings' API, for Vulkan headers that predate it.
 *
 * Validation layers from 1.3.268 on take their settings through it, and
 * since 1.3.290 or so synchronisation validation checks the accesses shaders
 * make through descriptors only when one of those settings asks
 * (instance.c). Debian 12's headers (1.3.239) end before the extension;
 * what follows is its ABI as the Vulkan registry defines it.
 */
#ifndef SVK_VK_LAYER_SETTINGS_H
#define SVK_VK_LAYER_SETTINGS_H

#include <vulkan/vulkan.h>

#ifndef VK_EXT_layer_settings
#define VK_EXT_layer_settings 1
#define VK_EXT_LAYER_SETTINGS_EXTENSION_NAME "VK_EXT_layer_settings"
#define VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT ((VkStructureType)1000496000)

typedef enum VkLayerSettingTypeEXT {
    VK_LAYER_SETTING_TYPE_BOOL32_EXT = 0,
    VK_LAYER_SETTING_TYPE_MAX_ENUM_EXT = 0x7FFFFFFF
} VkLayerSettingTypeEXT;

typedef struct VkLayerSettingEXT {
    const char *pLayerName;
    const char *pSettingName;
    VkLayerSettingTypeEXT type;
    uint32_t valueCount;
    const void *pValues;
} VkLayerSettingEXT;

typedef struct VkLayerSettingsCreateInfoEXT {
    VkStructureType sType;
    const void *pNext;
    uint32_t settingCount;
    const VkLayerSettingEXT *pSettings;
} VkLayerSettingsCreateInfoEXT;
#endif

#endif
