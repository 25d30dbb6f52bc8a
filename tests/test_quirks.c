/*
 * The driver quirks (lib/vk/quirks.c) as pure functions of what drivers
 * report: the driverInfo strings of the lavapipe builds they were measured
 * on, and the cases around them.
 */
#include <stdio.h>

#include "test_util.h"
#include "vk/quirks.h"

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_quirks", &args);
    tu_tally t = {0, 0};
    const VkDriverId lvp = VK_DRIVER_ID_MESA_LLVMPIPE;

    /* Texel fetches slower than storage loads: lavapipe of Mesa 24.1 to 26.0. */
    static const struct {
        const char *info;
        bool slow;
    } texel[] = {
        {"Mesa 22.3.6 (LLVM 15.0.6)", false},
        {"Mesa 23.2.1-1ubuntu3.1~22.04.4 (LLVM 15.0.7)", false},
        {"Mesa 24.0.5-1ubuntu1 (LLVM 17.0.6)", false},
        {"Mesa 24.1.0 (LLVM 18.1.0)", true},
        {"Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)", true},
        {"Mesa 25.0.7-2+deb13u1 (LLVM 19.1.7)", true},
        {"Mesa 25.2.8-0ubuntu0.24.04.5 (LLVM 20.1.2)", true},
        {"Mesa 26.0.3-1ubuntu1 (LLVM 21.1.8)", true},
        {"Mesa 26.1.6-1~bpo13+1 (LLVM 19.1.7)", false},
        {"Mesa 26.2.6-1 (LLVM 22.1.8)", false},
        {"Mesa 25", false},          /* no minor: not a version this rule knows */
        {"mesa 25.0.7", false},      /* not the prefix lavapipe writes */
        {"", false},
        {NULL, false},
    };
    for (size_t i = 0; i < sizeof(texel) / sizeof(texel[0]); i++) {
        const bool got = svk_quirk_texel_fetch_slow(lvp, texel[i].info);
        tu_check(&t, got == texel[i].slow, "llvmpipe '%s': texel fetches %s", texel[i].info ? texel[i].info : "(null)",
                 got ? "slow" : "not slow");
    }
    tu_check(&t, !svk_quirk_texel_fetch_slow(VK_DRIVER_ID_NVIDIA_PROPRIETARY, "Mesa 25.0.7"),
             "the texel rule is lavapipe's only");

    uint32_t major = 0, minor = 0;
    tu_check(&t, svk_quirk_mesa_version("Mesa 25.2.8-0ubuntu0.24.04.5 (LLVM 20.1.2)", &major, &minor) &&
                     major == 25 && minor == 2,
             "Mesa version parsed: %u.%u", major, minor);

    /* Cooperative matrices crash llvmpipe's pipeline creation above subgroup 8. */
    tu_check(&t, !svk_quirk_coopmat_crashes(lvp, 8) && svk_quirk_coopmat_crashes(lvp, 16),
             "llvmpipe: coopmat at subgroup 8 kept, at 16 refused");
    tu_check(&t, !svk_quirk_coopmat_crashes(VK_DRIVER_ID_NVIDIA_PROPRIETARY, 32), "NVIDIA at subgroup 32 kept");
    return tu_finish(&t);
}
