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

/* lavapipe's texel-buffer fetches are 5-8 times slower than storage-buffer
 * loads on Mesa 25.0 to 26.0, and wrong on 25.0.7 away from subgroup size
 * 8 (figures: docs/PERFORMANCE.md, "lavapipe across Mesa versions"), so
 * those versions get the storage-buffer forms. So does 24.1 to 24.3,
 * unmeasured: if it is slow too, the texel forms would cost 5-8 times in
 * the GEMMs; if not, the storage forms cost 2.5 times. Forcing texel
 * buffers there is honoured at subgroup size 8 only (svk_op_texel_allowed). */
bool svk_quirk_texel_fetch_slow(VkDriverId driver, const char *driver_info)
{
    uint32_t major, minor;
    if (driver != VK_DRIVER_ID_MESA_LLVMPIPE || !svk_quirk_mesa_version(driver_info, &major, &minor))
        return false;
    return (major == 24 && minor >= 1) || major == 25 || (major == 26 && minor == 0);
}
