/*
 * Finding the Vulkan loader and filling a context's tables, with volk
 * (volk_impl.c compiles it in): volkInitialize finds the system loader on
 * each platform, volkLoadDeviceTable fills the context's device table.
 *
 * This is the one file that knows the platforms apart (#ifdef _WIN32,
 * __APPLE__): what $SVK_VULKAN_LIBRARY is opened with, and what the
 * no-loader message names. Everything else is the same everywhere.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "loader.h"

/* What volkInitialize tries, for the message when nothing opens. */
#if defined(_WIN32)
#define SYSTEM_LOADER "vulkan-1.dll"
#define INSTALL_HINT "install a Vulkan driver (it brings vulkan-1.dll)"
#elif defined(__APPLE__)
#define SYSTEM_LOADER "libvulkan.dylib, libvulkan.1.dylib or libMoltenVK.dylib"
#define INSTALL_HINT "install the Vulkan loader and MoltenVK (e.g. the LunarG SDK, or Homebrew's molten-vk)"
#else
#define SYSTEM_LOADER "libvulkan.so.1 or libvulkan.so"
#define INSTALL_HINT "install libvulkan1 and a Vulkan driver (e.g. mesa-vulkan-drivers)"
#endif

/* Global only because the tables it edits are made inside svk_ctx_create,
 * where a test has no other way in; see loader.h. */
static svk_vk_load_hook load_hook;

void svk_vk_set_load_hook(const svk_vk_load_hook *hook)
{
    load_hook = hook ? *hook : (svk_vk_load_hook){0};
}

/* volk's state is process-wide: volkInitialize writes its global
 * vkGetInstanceProcAddr, and volkLoadDeviceTable reads its global
 * vkGetDeviceProcAddr (volk 1.3.239 takes no loader per table). Both are
 * used under this lock, held for a few hundred lookups at most, so that
 * contexts made on several threads at once, possibly through different
 * loaders (an imported device's), each get their own. A spin lock because
 * C11's <threads.h> is missing on Windows (mingw) and macOS. */
static atomic_flag volk_lock = ATOMIC_FLAG_INIT;

static void volk_acquire(void)
{
    while (atomic_flag_test_and_set_explicit(&volk_lock, memory_order_acquire))
        ;
}

static void volk_release(void)
{
    atomic_flag_clear_explicit(&volk_lock, memory_order_release);
}

/* Opens the library at path and takes its vkGetInstanceProcAddr; on failure
 * writes why into why. */
static void *open_path(const char *path, PFN_vkGetInstanceProcAddr *gipa, char *why, size_t why_size)
{
    *gipa = NULL;
#if defined(_WIN32)
    HMODULE h = LoadLibraryA(path);
    if (!h) {
        snprintf(why, why_size, "LoadLibrary error %lu", (unsigned long)GetLastError());
        return NULL;
    }
    /* Through a function pointer of no arguments, as volk does: FARPROC and
     * the PFN differ in type (-Wcast-function-type). */
    *gipa = (PFN_vkGetInstanceProcAddr)(void (*)(void))GetProcAddress(h, "vkGetInstanceProcAddr");
    if (!*gipa) {
        snprintf(why, why_size, "it has no vkGetInstanceProcAddr");
        FreeLibrary(h);
        return NULL;
    }
    return (void *)h;
#else
    /* RTLD_LOCAL: the loader's symbols must not leak into the global
     * namespace of an application that may load its own. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, why_size, "%s", e ? e : "dlopen failed");
        return NULL;
    }
    /* dlsym returns void*; POSIX guarantees it converts to a function pointer. */
    void *sym = dlsym(h, "vkGetInstanceProcAddr");
    memcpy(gipa, &sym, sizeof(sym));
    if (!*gipa) {
        snprintf(why, why_size, "it has no vkGetInstanceProcAddr");
        dlclose(h);
        return NULL;
    }
    return h;
#endif
}

void svk_vk_close_loader(void **handle)
{
    if (!handle || !*handle)
        return;
#if defined(_WIN32)
    FreeLibrary((HMODULE)*handle);
#else
    dlclose(*handle);
#endif
    *handle = NULL;
}

/* The system loader, through volk. volk keeps the library open for the
 * rest of the process: a second call finds it loaded. */
static PFN_vkGetInstanceProcAddr open_system(char *why, size_t why_size)
{
    volk_acquire();
    VkResult r = volkInitialize();
    PFN_vkGetInstanceProcAddr gipa = r == VK_SUCCESS ? vkGetInstanceProcAddr : NULL;
    volk_release();
    why[0] = '\0';
#if !defined(_WIN32)
    /* The failed dlopen's reason, where it left one (a loader hidden by
     * tests/hide_vulkan.c leaves none). */
    if (!gipa) {
        const char *e = dlerror();
        if (e)
            snprintf(why, why_size, "%s", e);
    }
#endif
    return gipa;
}

svk_status svk_vk_open_loader(svk_log *log, const char *path, void **handle, svk_vk_instance_fns *fns)
{
    memset(fns, 0, sizeof(*fns));
    *handle = NULL;
    char why[512] = "";
    const char *env = path;
    if (env && *env) {
        *handle = open_path(env, &fns->vkGetInstanceProcAddr, why, sizeof(why));
        if (!*handle)
            return svk_error(log, SVK_ERROR_NO_VULKAN, "no Vulkan loader: could not open %s (SVK_VULKAN_LIBRARY): %s",
                             env, why);
    } else {
        fns->vkGetInstanceProcAddr = open_system(why, sizeof(why));
        if (!fns->vkGetInstanceProcAddr)
            return svk_error(log, SVK_ERROR_NO_VULKAN, "no Vulkan loader: could not open %s%s%s%s; %s", SYSTEM_LOADER,
                             why[0] ? " (" : "", why, why[0] ? ")" : "", INSTALL_HINT);
    }
    svk_status st = svk_vk_load_global(log, fns);
    if (st != SVK_OK)
        svk_vk_close_loader(handle);
    return st;
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

/* Where each function libsvk calls sits in volk's table. */
#define DEVICE_ENTRY_(name) {#name, offsetof(svk_vk_device_fns, name)},
#define DEVICE_SKIP_(name)
static const struct {
    const char *name;
    size_t offset;
} required_device_fns[] = {SVK_VK_DEVICE_FNS(DEVICE_ENTRY_, DEVICE_SKIP_)};

svk_status svk_vk_load_device(svk_log *log, const svk_vk_instance_fns *ifns,
                              VkDevice device, svk_vk_device_fns *fns)
{
    volk_acquire();
    PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = ifns->vkGetDeviceProcAddr;
    volkLoadDeviceTable(fns, device);
    vkGetDeviceProcAddr = saved;
    volk_release();
    for (size_t i = 0; i < sizeof(required_device_fns) / sizeof(required_device_fns[0]); i++) {
        PFN_vkVoidFunction f;
        memcpy(&f, (const char *)fns + required_device_fns[i].offset, sizeof(f));
        if (!f)
            return svk_error(log, SVK_ERROR_NO_VULKAN, "Vulkan loader lacks %s", required_device_fns[i].name);
    }
    if (load_hook.device)
        load_hook.device(fns);
    return SVK_OK;
}
