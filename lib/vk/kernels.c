/* The kernel registry's table. Adding a kernel: its shader in shaders/, its
 * name in shaders/meson.build, its push block in shaders/common/, an id in
 * kernels.h and a row here. */
#include "kernels.h"

#include "common/push_gemm.h"
#include "gemm.spv.h"
/* @norm-includes@ */
/* @attention-includes@ */
/* @elementwise-includes@ */

#define SPV(name) name, sizeof(name)

static const svk_kernel_info kernels[SVK_KERNEL_COUNT] = {
    [SVK_KERNEL_GEMM] = {
        .name = "gemm",
        SPV(svk_spv_gemm),
        .n_buffers = 4,      /* A, B, C, bias */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_gemm),
        /* workgroup 16x16, each invocation a 4x4 block of C, K tiles of 16:
         * 64x64 tiles of C, 8 KiB of shared memory. */
        .n_spec = 6,
        .spec_defaults = {16, 16, 1, 4, 4, 16},
    },
    /* @norm-rows@ */
    /* @attention-rows@ */
    /* @elementwise-rows@ */
};

const svk_kernel_info *svk_kernel_info_get(svk_kernel_id id)
{
    if ((unsigned)id >= SVK_KERNEL_COUNT)
        return NULL;
    return &kernels[id];
}
