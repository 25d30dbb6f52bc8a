/* Driver quirks: what libsvk does differently on a driver, and why. */
#include "quirks.h"

#include <stdio.h>
#include <string.h>

bool svk_quirk_mesa_version(const char *driver_info, uint32_t *major, uint32_t *minor)
{
    unsigned a, b;
    if (!driver_info || strncmp(driver_info, "Mesa ", 5) != 0 || sscanf(driver_info + 5, "%u.%u", &a, &b) != 2)
        return false;
    *major = a;
    *minor = b;
    return true;
}

/* llvmpipe (Mesa 26.2.6, the first lavapipe seen offering
 * VK_KHR_cooperative_matrix) crashes inside vkCreateComputePipelines at
 * subgroup size 16 (LP_NATIVE_VECTOR_WIDTH=512) on gemm_coopmat's KHR
 * module, on glslang 16's own compile of the same shader alike and at any
 * fragment count; at 8 the module passes conformance, at 4 lavapipe offers
 * no cooperative matrices. No version is known to be fixed, so the rule
 * has none. */
bool svk_quirk_coopmat_crashes(VkDriverId driver, uint32_t subgroup_size)
{
    return driver == VK_DRIVER_ID_MESA_LLVMPIPE && subgroup_size > 8;
}

/* lavapipe's texel-buffer fetches, measured with the texel GEMM's qkv
 * forward (N = 1024, C = 128; svk-bench, --tune texel_buffers=1 then 0, two
 * alternated pairs each, one host, 2026-12-05): texel form against
 * storage-buffer form, GFLOP/s:
 *   Mesa 22.3.6 (Debian 12)                    53 against 19
 *   Mesa 23.2.1 (Ubuntu 22.04)                 55 against 21
 *   Mesa 24.0.5 (Ubuntu 24.04)                 53 against 20
 *   Mesa 25.0.7 (Debian 13, Debian 12 backports) 5-8 against 17-34
 *   Mesa 25.2.8 (Ubuntu 24.04 updates)         6 against 18-34
 *   Mesa 26.0.3 (Ubuntu 26.04)                 4-6 against 35
 *   Mesa 26.1.6 (Debian 13 backports)          38 against 17
 *   Mesa 26.2.6 (Debian unstable)              55 against 24
 * On 25.x the whole default training step took 800-920 ms with the texel
 * forms and 213 with the storage-buffer forms (147 on 22.3 with texel). So
 * Mesa 25.0 to 26.0 get the storage-buffer forms, and so does 24.1 to
 * 24.3, which nothing here measured: there the texel forms would cost 5-8
 * times in the GEMMs if the slowdown came before 25.0, the storage forms
 * 2.5 times if it did not. On Mesa 25.0.7 the texel forms are also wrong
 * away from subgroup size 8 (forced with --tune texel_buffers=1, GEMM
 * conformance): at 4 the driver crashes on the texel GEMM, at 16 69 of
 * 222 quick rows fail (sums far off); at 8 they pass. Debian 12's 22.3 and
 * 26.2.6 pass at all three sizes. So before this rule, libsvk on Mesa 25
 * was wrong at LP_NATIVE_VECTOR_WIDTH=128 and 512; now the override is
 * honoured at 8 only (svk_op_texel_allowed). */
bool svk_quirk_texel_fetch_slow(VkDriverId driver, const char *driver_info)
{
    uint32_t major, minor;
    if (driver != VK_DRIVER_ID_MESA_LLVMPIPE || !svk_quirk_mesa_version(driver_info, &major, &minor))
        return false;
    return (major == 24 && minor >= 1) || major == 25 || (major == 26 && minor == 0);
}
