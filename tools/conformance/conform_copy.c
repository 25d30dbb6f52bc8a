/*
 * Fill, copy and add: exact operations, so the device must match the
 * plain-C result bit for bit (tolerance 0), at sizes around the 256-wide
 * workgroup and past one workgroup row of the grid. Rows "kernel" run
 * shaders/copy.comp; rows "transfer" the transfer commands that
 * svk_fill_record and svk_copy_record record (vkCmdFillBuffer,
 * vkCmdCopyBuffer), whose barriers against dispatches the validation
 * layer checks here too (the output is written by one and read back).
 */
#include <stdbool.h>
#include <stdio.h>

#include "conform.h"
#include "ops/copy.h"

static const double TOL_EXACT = 0.0;

static const uint32_t sizes[] = {1, 7, 255, 256, 257, 4099, 1000003};
/* Sizes run again with dst on a vec4 (cf_output_at): the kernel's vec4
 * path where n is a multiple of 4. */
static const uint32_t sizes_vec4[] = {4, 256, 4100, 1000004};

static void run(cf_state *cf, int mode, bool kernel, uint32_t n, bool vec4)
{
    static const char *const names[] = {"fill", "copy", "add"};
    char shape[64];
    snprintf(shape, sizeof(shape), "n=%u%s", n, vec4 ? " vec4" : "");
    cf_case *c = cf_begin(cf, names[mode], kernel ? "kernel" : "transfer", shape);
    if (!c)
        return;
    float *src = cf_random(c, n, -100, 100), *init = cf_random(c, n, -100, 100);
    if (!src || !init)
        goto end;
    svk_tref s = cf_input(c, "src", src, n);
    cf_out *o = cf_output_at(c, "dst", n, mode == 2 ? init : NULL, vec4);
    if (!o)
        goto end;
    svk_status st = mode == 2 ? svk_add_record(cf_list(c), cf_tref(o), s, n, NULL)
                  : kernel    ? (mode == 0 ? svk_fill_kernel_record(cf_list(c), cf_tref(o), n, 0.25f, NULL)
                                           : svk_copy_kernel_record(cf_list(c), cf_tref(o), s, n, NULL))
                              : (mode == 0 ? svk_fill_record(cf_list(c), cf_tref(o), n, 0.25f, NULL)
                                           : svk_copy_record(cf_list(c), cf_tref(o), s, n, NULL));
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *ref = cf_alloc(c, n * sizeof(double));
    if (!ref)
        goto end;
    for (uint32_t i = 0; i < n; i++)
        ref[i] = mode == 0 ? 0.25 : mode == 1 ? (double)src[i] : (double)(init[i] + src[i]); /* float add, as the device */
    cf_compare(c, o, ref, TOL_EXACT);
end:
    cf_end(c);
}

void cf_run_copy(cf_state *cf)
{
    for (int mode = 0; mode < 3; mode++)
        for (int kernel = mode == 2; kernel < 2; kernel++)
            for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                if (!cf->quick || sizes[i] < 100000)
                    run(cf, mode, kernel, sizes[i], false);
                if (i < sizeof(sizes_vec4) / sizeof(sizes_vec4[0]) && (!cf->quick || sizes_vec4[i] < 100000))
                    run(cf, mode, kernel, sizes_vec4[i], true);
            }
}
