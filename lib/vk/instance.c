/* Instance creation, with the validation layer when asked for. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "vk_context.h"
#include "layer_settings.h"
#include "loader.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Whether the loader lists a layer; only a host allocation can fail. */
static svk_status layer_present(svk_log *log, svk_vk_instance_fns *vki, const char *name, bool *found)
{
    *found = false;
    uint32_t n = 0;
    if (vki->vkEnumerateInstanceLayerProperties(&n, NULL) < 0 || n == 0)
        return SVK_OK;
    VkLayerProperties *lp = svk_calloc(n, sizeof(*lp));
    if (!lp)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing Vulkan layers");
    if (vki->vkEnumerateInstanceLayerProperties(&n, lp) >= 0)
        for (uint32_t i = 0; i < n && !*found; i++)
            *found = !strcmp(lp[i].layerName, name);
    free(lp);
    return SVK_OK;
}

/* Whether an instance extension is available (from layer, or the loader
 * and drivers when layer is NULL). */
static svk_status extension_present(svk_log *log, svk_vk_instance_fns *vki, const char *layer, const char *name,
                                    bool *found)
{
    *found = false;
    uint32_t n = 0;
    if (vki->vkEnumerateInstanceExtensionProperties(layer, &n, NULL) < 0 || n == 0)
        return SVK_OK;
    VkExtensionProperties *ep = svk_calloc(n, sizeof(*ep));
    if (!ep)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing Vulkan extensions");
    if (vki->vkEnumerateInstanceExtensionProperties(layer, &n, ep) >= 0)
        for (uint32_t i = 0; i < n && !*found; i++)
            *found = !strcmp(ep[i].extensionName, name);
    free(ep);
    return SVK_OK;
}

/* What the instance is created with: layers, extensions and the pNext
 * chain, whose structures point into this one (so it must not move). */
typedef struct instance_request {
    const char *layers[1];
    const char *exts[3];
    uint32_t n_layers, n_exts;
    bool portability;
    VkValidationFeatureEnableEXT enables[1];
    VkValidationFeaturesEXT features;
    VkBool32 on;
    VkLayerSettingEXT settings[2];
    VkLayerSettingsCreateInfoEXT layer_settings;
    VkDebugUtilsMessengerCreateInfoEXT dbg_copy;
    const void *chain;
} instance_request;

/* The loader's Vulkan version into *version; libsvk needs 1.2. */
static svk_status check_loader_version(svk_log *log, svk_vk_instance_fns *vki, uint32_t *version)
{
    *version = VK_API_VERSION_1_0;
    if (vki->vkEnumerateInstanceVersion)
        vki->vkEnumerateInstanceVersion(version);
    if (*version < VK_API_VERSION_1_2)
        return svk_error(log, SVK_ERROR_UNSUPPORTED,
                         "the Vulkan loader supports Vulkan %u.%u; libsvk needs 1.2 or newer",
                         VK_API_VERSION_MAJOR(*version), VK_API_VERSION_MINOR(*version));
    return SVK_OK;
}

/* Devices that are not fully conformant (MoltenVK on macOS: Vulkan over
 * Metal) are listed only to an instance that asks for them; libsvk does,
 * and enables VK_KHR_portability_subset on such a device (context.c).
 * Wherever the loader offers the extension, not only on macOS: the rules
 * are the same everywhere. */
static svk_status request_portability(svk_log *log, svk_vk_instance_fns *vki, instance_request *req)
{
    svk_status st = extension_present(log, vki, NULL, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME,
                                      &req->portability);
    if (st == SVK_OK && req->portability)
        req->exts[req->n_exts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    return st;
}

/* Whether the validation layer is installed with what libsvk needs of it;
 * *has_settings: it takes VK_EXT_layer_settings (else
 * VK_EXT_validation_features). */
static svk_status validation_support(svk_log *log, svk_vk_instance_fns *vki, bool *has_settings)
{
    bool layer = false, has_features = false, utils = false, layer_utils = false;
    *has_settings = false;
    svk_status st = layer_present(log, vki, VALIDATION_LAYER, &layer);
    if (st != SVK_OK)
        return st;
    if (!layer)
        return svk_error(log, SVK_ERROR_UNSUPPORTED,
                         "validation requested (SVK_VALIDATION=1 or SVK_CTX_VALIDATION) but the "
                         "layer %s is not installed (Debian: vulkan-validationlayers)", VALIDATION_LAYER);
    if ((st = extension_present(log, vki, VALIDATION_LAYER, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME,
                                &has_features)) != SVK_OK ||
        (st = extension_present(log, vki, VALIDATION_LAYER, VK_EXT_LAYER_SETTINGS_EXTENSION_NAME,
                                has_settings)) != SVK_OK ||
        (st = extension_present(log, vki, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME, &utils)) != SVK_OK ||
        (st = extension_present(log, vki, VALIDATION_LAYER, VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                                &layer_utils)) != SVK_OK)
        return st;
    if (!(has_features || *has_settings) || !(utils || layer_utils))
        return svk_error(log, SVK_ERROR_UNSUPPORTED,
                         "validation requested but %s lacks %s (or %s) or %s", VALIDATION_LAYER,
                         VK_EXT_LAYER_SETTINGS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME,
                         VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    return SVK_OK;
}

/* Enables the validation layer with synchronisation validation, and dbg's
 * messenger (a copy, so the chain can be extended without touching the
 * caller's). Where the layer takes settings, synchronisation validation
 * is asked for through them, with its checks of what shaders access
 * through descriptors: layers since about 1.3.290 leave those out unless
 * this heuristic is on, and then miss a missing barrier between two
 * dispatches, the hazard that matters to libsvk (tests/test_cmdlist.c
 * provokes one). The two ways are not mixed: a layer that sees both warns,
 * and takes the old one. */
static void request_validation(instance_request *req, bool has_settings, const VkDebugUtilsMessengerCreateInfoEXT *dbg)
{
    req->layers[req->n_layers++] = VALIDATION_LAYER;
    req->exts[req->n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    req->exts[req->n_exts++] = has_settings ? VK_EXT_LAYER_SETTINGS_EXTENSION_NAME
                                            : VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    const void *tail = NULL;
    if (dbg) {
        req->dbg_copy = *dbg;
        req->dbg_copy.pNext = NULL;
        tail = &req->dbg_copy;
    }
    if (has_settings) {
        req->on = VK_TRUE;
        req->settings[0] = (VkLayerSettingEXT){VALIDATION_LAYER, "validate_sync", VK_LAYER_SETTING_TYPE_BOOL32_EXT,
                                               1, &req->on};
        req->settings[1] = (VkLayerSettingEXT){VALIDATION_LAYER, "syncval_shader_accesses_heuristic",
                                               VK_LAYER_SETTING_TYPE_BOOL32_EXT, 1, &req->on};
        req->layer_settings = (VkLayerSettingsCreateInfoEXT){
            .sType = VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT,
            .pNext = tail,
            .settingCount = sizeof(req->settings) / sizeof(req->settings[0]),
            .pSettings = req->settings,
        };
        req->chain = &req->layer_settings;
    } else {
        req->enables[0] = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
        req->features = (VkValidationFeaturesEXT){
            .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
            .pNext = tail,
            .enabledValidationFeatureCount = 1,
            .pEnabledValidationFeatures = req->enables,
        };
        req->chain = &req->features;
    }
}

/* Creates the instance req describes and loads its functions. */
static svk_status create_and_load(svk_log *log, svk_vk_instance_fns *vki, const instance_request *req,
                                  uint32_t loader_version, VkInstance *out)
{
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "libsvk",
        .pEngineName = "libsvk",
        .engineVersion = VK_MAKE_API_VERSION(0, SVK_VERSION_MAJOR, SVK_VERSION_MINOR, SVK_VERSION_PATCH),
        .apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = req->chain,
        .flags = req->portability ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0,
        .pApplicationInfo = &app,
        .enabledLayerCount = req->n_layers,
        .ppEnabledLayerNames = req->layers,
        .enabledExtensionCount = req->n_exts,
        .ppEnabledExtensionNames = req->exts,
    };
    VkResult r = vki->vkCreateInstance(&ici, NULL, out);
    if (r < 0) {
        *out = VK_NULL_HANDLE;
        return svk_vk_fail(NULL, log, r, "vkCreateInstance", __FILE__, __LINE__,
                           r == VK_ERROR_INCOMPATIBLE_DRIVER ? "creating the instance: no compatible driver is installed"
                                                              : "creating the instance");
    }
    svk_status st = svk_vk_load_instance(log, vki, *out);
    if (st != SVK_OK) {
        if (vki->vkDestroyInstance)
            vki->vkDestroyInstance(*out, NULL);
        *out = VK_NULL_HANDLE;
    }
    return st;
}

svk_status svk_vk_create_instance(svk_log *log, svk_vk_instance_fns *vki, bool validation,
                                  const VkDebugUtilsMessengerCreateInfoEXT *dbg, VkInstance *out)
{
    *out = VK_NULL_HANDLE;
    uint32_t loader_version;
    svk_status st = check_loader_version(log, vki, &loader_version);
    if (st != SVK_OK)
        return st;
    instance_request req = {0};
    if ((st = request_portability(log, vki, &req)) != SVK_OK)
        return st;
    if (validation) {
        bool has_settings;
        if ((st = validation_support(log, vki, &has_settings)) != SVK_OK)
            return st;
        request_validation(&req, has_settings, dbg);
    }
    return create_and_load(log, vki, &req, loader_version, out);
}
