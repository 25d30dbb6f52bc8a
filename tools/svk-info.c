/* svk-info: lists the Vulkan devices libsvk sees and what it knows of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "svk/svk.h"

static const char *type_name(svk_device_type t)
{
    switch (t) {
    case SVK_DEVICE_DISCRETE_GPU: return "discrete GPU";
    case SVK_DEVICE_INTEGRATED_GPU: return "integrated GPU";
    case SVK_DEVICE_VIRTUAL_GPU: return "virtual GPU";
    case SVK_DEVICE_CPU: return "CPU";
    default: return "other";
    }
}

static void mib(char *buf, size_t n, uint64_t bytes)
{
    snprintf(buf, n, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

static void print_device(const svk_device_info *d, int chosen)
{
    char b1[32], b2[32], b3[32];
    printf("device %u%s: %s\n", d->index, chosen ? " (default)" : "", d->name);
    printf("  type                 %s\n", type_name(d->type));
    printf("  vendor / device id   0x%04x / 0x%04x\n", d->vendor_id, d->device_id);
    printf("  driver               %s %s (version 0x%08x)\n", d->driver_name[0] ? d->driver_name : "?",
           d->driver_info, d->driver_version);
    printf("  Vulkan API           %u.%u.%u\n", d->api_version >> 22, (d->api_version >> 12) & 0x3ff,
           d->api_version & 0xfff);
    printf("  supported            %s%s%s\n", d->supported ? "yes" : "no", d->supported ? "" : ": ",
           d->supported ? "" : d->unsupported_reason);
    if (!d->supported)
        return;
    printf("  subgroup size        %u (range %u..%u, %s)\n", d->subgroup_size, d->min_subgroup_size,
           d->max_subgroup_size, d->subgroup_size_control ? "controllable" : "fixed");
    printf("  shared memory        %u bytes\n", d->max_shared_memory);
    printf("  max workgroup size   %u x %u x %u, %u invocations\n", d->max_workgroup_size[0],
           d->max_workgroup_size[1], d->max_workgroup_size[2], d->max_workgroup_invocations);
    printf("  max workgroup count  %u x %u x %u\n", d->max_workgroup_count[0], d->max_workgroup_count[1],
           d->max_workgroup_count[2]);
    mib(b1, sizeof(b1), d->max_storage_buffer_range);
    mib(b2, sizeof(b2), d->max_allocation_size);
    mib(b3, sizeof(b3), d->device_local_bytes);
    printf("  max storage range    %s\n", b1);
    printf("  storage buffers      %u per shader stage\n", d->max_storage_buffers);
    printf("  max allocation       %s\n", b2);
    printf("  device-local memory  %s\n", b3);
    printf("  push constants       %u bytes\n", d->max_push_constants);
    printf("  float16/int8/int64   %s / %s / %s\n", d->float16 ? "yes" : "no", d->int8 ? "yes" : "no",
           d->int64 ? "yes" : "no");
    if (d->timestamps)
        printf("  timestamps           yes, %.3f ns per tick\n", (double)d->timestamp_period_ns);
    else
        printf("  timestamps           no\n");
    printf("  push descriptors     %s\n", d->push_descriptor ? "yes" : "no");
    if (d->coopmat_m)
        printf("  cooperative matrix   %u x %u x %u, float16 in, float32 accumulate, %s (SVK_GEMM_COOPMAT=1)\n",
               d->coopmat_m, d->coopmat_k, d->coopmat_n,
               d->coopmat_khr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix");
    else
        printf("  cooperative matrix   no\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: svk-info\n"
                   "Lists the Vulkan devices libsvk can use, with their limits.\n"
                   "The default device is the one svk_ctx_create picks (SVK_DEVICE overrides).\n"
                   SVK_EXIT_HELP " (1: no Vulkan, no device, or no usable default device)\n");
            return SVK_EXIT_OK;
        }
        fprintf(stderr, "svk-info: unknown argument '%s' (try --help)\n", argv[i]);
        return SVK_EXIT_USAGE;
    }
    printf("libsvk %s\n", svk_version());
    uint32_t n = 0;
    svk_status st = svk_list_devices(NULL, &n);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-info: %s: %s\n", svk_status_string(st), svk_last_error());
        return SVK_EXIT_FAILURE;
    }
    if (n == 0) {
        fprintf(stderr, "svk-info: the Vulkan loader reports no devices; install a driver "
                        "(e.g. mesa-vulkan-drivers for lavapipe)\n");
        return SVK_EXIT_FAILURE;
    }
    svk_device_info *infos = calloc(n, sizeof(*infos));
    if (!infos) {
        fprintf(stderr, "svk-info: out of memory\n");
        return SVK_EXIT_FAILURE;
    }
    st = svk_list_devices(infos, &n);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-info: %s: %s\n", svk_status_string(st), svk_last_error());
        free(infos);
        return SVK_EXIT_FAILURE;
    }
    /* Which device svk_ctx_create would take: ask it. */
    int chosen = -1;
    svk_ctx *ctx = NULL;
    svk_ctx_params p = svk_ctx_params_default();
    p.flags = SVK_CTX_NO_PIPELINE_CACHE;
    if (svk_ctx_create(&p, &ctx) == SVK_OK) {
        const svk_device_info *ci = svk_ctx_device_info(ctx);
        chosen = (int)ci->index;
        svk_ctx_destroy(&ctx);
    } else {
        printf("no usable default device: %s\n", svk_last_error());
    }
    for (uint32_t i = 0; i < n; i++) {
        print_device(&infos[i], (int)i == chosen);
        if (i + 1 < n)
            printf("\n");
    }
    free(infos);
    return chosen >= 0 ? SVK_EXIT_OK : SVK_EXIT_FAILURE;
}
