#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* Global only because the tables it edits are made inside svk_ctx_create,
 * where a test has no other way in; see loader.h. */
static svk_vk_load_hook load_hook;

void svk_vk_set_load_hook(const svk_vk_load_hook *hook)
{
    load_hook = hook ? *hook : (svk_vk_load_hook){0};
}

svk_status svk_vk_open_loader(svk_log *log, void **handle, svk_vk_instance_fns *fns)
{
    memset(fns, 0, sizeof(*fns));
    *handle = NULL;

    const char *names[3];
    size_t n = 0;
    const char *env = getenv("SVK_VULKAN_LIBRARY");
    if (env && *env)
        names[n++] = env;
    else {
        names[n++] = "libvulkan.so.1";
        names[n++] = "libvulkan.so";
    }

    const char *why = "";
    for (size_t i = 0; i < n && !*handle; i++) {
        /* RTLD_LOCAL: the loader's symbols must not leak into the global
         * namespace of an application that may load its own. */
        *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!*handle)
            why = dlerror();
    }
    if (!*handle)
        return svk_error(log, SVK_ERROR_NO_VULKAN,
                         "no Vulkan loader: could not open %s%s (%s); install libvulkan1 "
                         "and a Vulkan driver (e.g. mesa-vulkan-drivers)",
                         names[0], n > 1 ? " or libvulkan.so" : "", why ? why : "");

    /* dlsym returns void*; POSIX guarantees it converts to a function pointer. */
    void *sym = dlsym(*handle, "vkGetInstanceProcAddr");
    memcpy(&fns->vkGetInstanceProcAddr, &sym, sizeof(sym));
    if (!fns->vkGetInstanceProcAddr) {
        svk_vk_close_loader(handle);
        return svk_error(log, SVK_ERROR_NO_VULKAN,
                         "Vulkan loader has no vkGetInstanceProcAddr: %s", dlerror());
    }
    svk_status st = svk_vk_load_global(log, fns);
    if (st != SVK_OK)
        svk_vk_close_loader(handle);
    return st;
}

void svk_vk_close_loader(void **handle)
{
    if (handle && *handle) {
        dlclose(*handle);
        *handle = NULL;
    }
}

#define LOAD_REQUIRED_(name)                                                  \
    fns->name = (PFN_##name)get(owner, #name);                                \
    if (!fns->name)                                                           \
        return svk_error(log, SVK_ERROR_NO_VULKAN, "Vulkan loader lacks %s", #name);
#define LOAD_OPTIONAL_(name) fns->name = (PFN_##name)get(owner, #name);

svk_status svk_vk_load_global(svk_log *log, svk_vk_instance_fns *fns)
{
    PFN_vkGetInstanceProcAddr get = fns->vkGetInstanceProcAddr;
    VkInstance owner = VK_NULL_HANDLE;
    SVK_VK_GLOBAL_FNS(LOAD_REQUIRED_, LOAD_OPTIONAL_)
    if (load_hook.instance)
        load_hook.instance(fns);
    return SVK_OK;
}

svk_status svk_vk_load_instance(svk_log *log, svk_vk_instance_fns *fns, VkInstance instance)
{
    PFN_vkGetInstanceProcAddr get = fns->vkGetInstanceProcAddr;
    VkInstance owner = instance;
    SVK_VK_INSTANCE_FNS(LOAD_REQUIRED_, LOAD_OPTIONAL_)
    if (load_hook.instance)
        load_hook.instance(fns);
    return SVK_OK;
}

svk_status svk_vk_load_device(svk_log *log, const svk_vk_instance_fns *ifns,
                              VkDevice device, svk_vk_device_fns *fns)
{
    PFN_vkGetDeviceProcAddr get = ifns->vkGetDeviceProcAddr;
    VkDevice owner = device;
    SVK_VK_DEVICE_FNS(LOAD_REQUIRED_, LOAD_OPTIONAL_)
    if (load_hook.device)
        load_hook.device(fns);
    return SVK_OK;
}
