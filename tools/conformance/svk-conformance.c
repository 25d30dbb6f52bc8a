/*
 * svk-conformance: runs every kernel and direction on a Vulkan device
 * against libsvk's CPU reference and prints one row per case, a summary line
 * "N passed, N failed", and exits non-zero when anything failed. Run it on
 * your GPU to know whether libsvk computes correctly there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_parse.h"
#include "conform.h"

typedef struct cf_family {
    const char *name;
    void (*run)(cf_state *cf);
} cf_family;

/* One row per kernel family: tools/conformance/conform_<name>.c. */
static const cf_family cf_families[] = {
    {"gemm", cf_run_gemm},
    {"copy", cf_run_copy},
    {"fma_peak", cf_run_fma_peak},
    {"norm", cf_run_norm},
    /* @norm-families@ */
    {"attention", cf_run_attention},
    {"rope", cf_run_rope},
    {"decode", cf_run_decode},
    /* @attention-families@ */
    {"gelu", cf_run_gelu},
    {"swiglu", cf_run_swiglu},
    {"bias", cf_run_bias},
    {"embedding", cf_run_embedding},
    {"cross_entropy", cf_run_cross_entropy},
    {"clip", cf_run_clip},
    {"adamw", cf_run_adamw},
    {"finite_check", cf_run_finite_check},
    {"transpose", cf_run_transpose},
    {"pack16", cf_run_pack16},
    /* @elementwise-families@ */
};

static int validation_messages;

static void on_log(void *user, svk_log_level level, const char *msg)
{
    (void)user;
    /* Validation messages fail the run; errors the cases provoke on purpose
     * are reported in their rows, so only the layer's words are printed. */
    if (!strncmp(msg, "validation ", 11)) {
        validation_messages++;
        fprintf(stderr, "%s\n", msg);
    } else if (level == SVK_LOG_WARN) {
        fprintf(stderr, "libsvk: %s\n", msg);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: svk-conformance [--device N|NAME] [--kernel NAME] [--shape TEXT] [--seed S] [--tune LIST] [--quick] [-v]\n"
            "                       [--list]\n"
            "Compares every libsvk kernel on a Vulkan device with the CPU reference.\n"
            "  --device N|NAME  device index or case-insensitive name substring (default: SVK_DEVICE, else the best device)\n"
            "  --kernel NAME    run one kernel family (see --list)\n"
            "  --shape TEXT     run only cases whose shape contains TEXT\n"
            "  --seed S         repeat a run's random inputs, 0..2^64-1 (the seed is printed at the start)\n"
            "  --tune LIST      steer the kernel choices of the families that do not force their own forms, e.g.\n"
            "                   --tune vec4=0,gemm_split=0 (lib/vk/tuning.h; docs/ENVIRONMENT.md), from:\n"
            "%s"
            "  --quick          fewer, smaller shapes\n"
            "  -v               name the output with the largest error in each row\n"
            "  --validation     enable the Khronos validation layer (also SVK_VALIDATION=1); any message fails the run\n"
            "  --list           the kernel families, one a line\n"
            SVK_EXIT_HELP " (1: a case failed, or the validation layer spoke)\n",
            svk_ctx_tuning_help);
}

int main(int argc, char **argv)
{
    cf_state cf = {0};
    cf.seed = cf_seed_from_clock();
    const char *kernel = NULL;
    svk_ctx_params p = svk_ctx_params_default();
    bool validation = false;
    const char *tune = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--device") || !strcmp(a, "--kernel") || !strcmp(a, "--seed") || !strcmp(a, "--shape") ||
             !strcmp(a, "--tune")) &&
            i + 1 < argc) {
            const char *v = argv[++i];
            svk_cli_error err;
            bool ok = true;
            if (!strcmp(a, "--device"))
                ok = svk_cli_vulkan_device(a, v, &p.device_index, &p.device_name, &err);
            else if (!strcmp(a, "--kernel"))
                kernel = v;
            else if (!strcmp(a, "--shape"))
                cf.shape = v;
            else if (!strcmp(a, "--tune"))
                tune = v;
            else
                ok = svk_cli_u64(a, v, 0, UINT64_MAX, &cf.seed, &err);
            if (!ok) {
                fprintf(stderr, "svk-conformance: %s (try --help)\n", err.text);
                return SVK_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--quick")) {
            cf.quick = true;
        } else if (!strcmp(a, "-v")) {
            cf.verbose = true;
        } else if (!strcmp(a, "--validation")) {
            validation = true;
        } else if (!strcmp(a, "--list")) {
            for (size_t k = 0; k < sizeof(cf_families) / sizeof(cf_families[0]); k++)
                printf("%s\n", cf_families[k].name);
            return 0;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return SVK_EXIT_OK;
        } else {
            fprintf(stderr, "svk-conformance: unknown or incomplete argument '%s'\n", a);
            usage(stderr);
            return SVK_EXIT_USAGE;
        }
    }
    bool known = !kernel;
    for (size_t k = 0; k < sizeof(cf_families) / sizeof(cf_families[0]) && !known; k++)
        known = !strcmp(cf_families[k].name, kernel);
    if (!known) {
        fprintf(stderr, "svk-conformance: no kernel family '%s' (try --list)\n", kernel);
        return SVK_EXIT_USAGE;
    }

    p.flags = validation ? SVK_CTX_VALIDATION : 0;
    p.log_fn = on_log;
    svk_status st = svk_ctx_create(&p, &cf.ctx);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-conformance: %s: %s\n", svk_status_string(st), svk_last_error());
        return SVK_EXIT_FAILURE;
    }
    if (tune) {
        svk_ctx_tuning t = *svk_ctx_tuning_get(cf.ctx);
        char why[1024];
        if (!svk_ctx_tuning_parse(tune, &t, why, sizeof(why))) {
            fprintf(stderr, "svk-conformance: --tune %s\n", why);
            svk_ctx_destroy(&cf.ctx);
            return SVK_EXIT_USAGE;
        }
        svk_ctx_tuning_set(cf.ctx, &t);
    }
    const svk_device_info *di = svk_ctx_device_info(cf.ctx);
    printf("svk-conformance %s on %s (%s), subgroup size %u, validation %s\n", svk_version(), di->name,
           di->driver_info, di->subgroup_size, svk_ctx_validation_enabled(cf.ctx) ? "on" : "off");
    printf("seed: %llu (repeat with --seed %llu)\n", (unsigned long long)cf.seed, (unsigned long long)cf.seed);
    printf("%-18s %-10s %-34s %10s %8s %4s %11s\n", "kernel", "direction", "shape", "rel err", "tol", "", "gpu time");
    cf_rng_seed(&cf.rng, cf.seed);
    for (size_t k = 0; k < sizeof(cf_families) / sizeof(cf_families[0]); k++)
        if (!kernel || !strcmp(kernel, cf_families[k].name))
            cf_families[k].run(&cf);
    svk_ctx_destroy(&cf.ctx);
    if (validation_messages) {
        printf("validation layer: %d message(s) FAIL\n", validation_messages);
        cf.failed++;
    }
    printf("%d passed, %d failed\n", cf.passed, cf.failed);
    return cf.failed || !cf.passed ? SVK_EXIT_FAILURE : SVK_EXIT_OK;
}
