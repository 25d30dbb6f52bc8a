/*
 * LD_PRELOAD shim that hides the Vulkan loader: dlopen of any libvulkan
 * fails as it would on a machine without one, everything else passes
 * through. Lets the tests exercise libsvk's no-Vulkan path on a machine that
 * has Vulkan installed.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef void *(*dlopen_fn)(const char *, int);

void *dlopen(const char *file, int mode)
{
    if (file && strstr(file, "libvulkan"))
        return NULL;
    static dlopen_fn real;
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&real, &sym, sizeof(sym));
    }
    return real ? real(file, mode) : NULL;
}
