/*
 * LD_PRELOAD shim that hides the Vulkan loader: dlopen of any libvulkan
 * fails as it would on a machine without one, everything else passes
 * through. Lets the tests exercise libsvk's no-Vulkan path on a machine that
 * has Vulkan installed.
 *
 * libsvk finds the system loader through volk (lib/vk/loader.c), whose
 * volkInitialize dlopens libvulkan.so.1, then libvulkan.so. The shim counts
 * and keeps the names it refused (svk_hide_vulkan_refused), so that
 * test_no_vulkan can show the refusal came from that path and did not pass
 * for lack of trying.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef void *(*dlopen_fn)(const char *, int);

/* Read by tests/test_no_vulkan.c through dlsym(RTLD_DEFAULT). */
unsigned svk_hide_vulkan_refused;
char svk_hide_vulkan_names[256];

void *dlopen(const char *file, int mode)
{
    if (file && strstr(file, "libvulkan")) {
        size_t used = strlen(svk_hide_vulkan_names);
        snprintf(svk_hide_vulkan_names + used, sizeof(svk_hide_vulkan_names) - used, "%s%s", used ? " " : "", file);
        svk_hide_vulkan_refused++;
        return NULL;
    }
    static dlopen_fn real;
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&real, &sym, sizeof(sym));
    }
    return real ? real(file, mode) : NULL;
}
