/*
 * Without a Vulkan loader (run under the hide_vulkan shim, or with
 * SVK_VULKAN_LIBRARY pointing nowhere) every entry point that needs Vulkan
 * returns SVK_ERROR_NO_VULKAN with a message, nothing crashes, and the CPU
 * reference still works.
 *
 * --hidden: run under the shim, which must have refused the system loader's
 * names (what volk's volkInitialize dlopens): the refusal is what made the
 * loader missing, not some other failure.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ref.h"
#include "svk/svk.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    tu_tally t = {0, 0};
    const bool hidden = argc > 1 && !strcmp(argv[1], "--hidden");
    uint32_t n = 0;
    svk_status st = svk_list_devices(NULL, &n);
    tu_check(&t, st == SVK_ERROR_NO_VULKAN, "svk_list_devices: %s: %s", svk_status_string(st), svk_last_error());
    tu_check(&t, strstr(svk_last_error(), "Vulkan loader") != NULL, "the message names the missing loader");

    svk_ctx *ctx = (svk_ctx *)&t; /* must be overwritten with NULL */
    st = svk_ctx_create(NULL, &ctx);
    tu_check(&t, st == SVK_ERROR_NO_VULKAN && ctx == NULL, "svk_ctx_create: %s: %s", svk_status_string(st),
             svk_last_error());

    if (hidden) {
        const unsigned *refused = dlsym(RTLD_DEFAULT, "svk_hide_vulkan_refused");
        const char *names = dlsym(RTLD_DEFAULT, "svk_hide_vulkan_names");
        tu_check(&t, refused && names, "the hide_vulkan shim is loaded (LD_PRELOAD)");
        if (refused && names)
            tu_check(&t, *refused >= 2 && strstr(names, "libvulkan.so.1"),
                     "the shim refused the system loader %u times (%s): the path volk takes was taken",
                     *refused, names);
    }

    /* The CPU reference needs no device. */
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    svk_ref_gemm_f32(0, 0, 2, 2, 3, 1.0f, a, 3, 0, b, 2, 0, 0.0f, c, 2, 0, NULL, 1);
    tu_check(&t, c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11, "CPU reference GEMM works without Vulkan");
    return tu_finish(&t);
}
