/*
 * The environment read once (lib/vk/env.c) and the tools' --tune parser
 * (lib/vk/tuning.c): every variable's values, the refusals with their
 * names and values, and the tuning items. No device needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vk/env.h"

static const char *const vars[] = {"SVK_DEVICE", "SVK_VALIDATION", "SVK_PIPELINE_CACHE", "SVK_VULKAN_LIBRARY",
                                   "SVK_COOPMAT_EXT", "SVK_PROFILE", "SVK_KERNEL_VARIANT", "SVK_ATTENTION",
                                   "SVK_GEMM_COOPMAT", "XDG_CACHE_HOME", "HOME", "LOCALAPPDATA"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
}

static void defaults(tu_tally *t)
{
    clear_env();
    svk_ctx_settings s;
    svk_env_read(&s);
    tu_check(t, !s.device[0] && !s.validation && !s.no_pipeline_cache && !s.vulkan_library[0] && !s.cache_dir[0] &&
                    s.coopmat_ext == SVK_COOPMAT_EXT_NV && s.profile == SVK_PROFILE_OFF && !s.bad[0],
             "unset: every setting its default, nothing refused ('%s')", s.bad);
    const svk_ctx_tuning zero = {0};
    tu_check(t, !memcmp(&s.tuning, &zero, sizeof(zero)), "unset: the tuning follows the device profile");
    tu_check(t, svk_env_check(NULL, &s) == SVK_OK, "unset: svk_env_check accepts");
}

static void values(tu_tally *t)
{
    clear_env();
    setenv("SVK_DEVICE", "llvm", 1);
    setenv("SVK_VALIDATION", "1", 1);
    setenv("SVK_PIPELINE_CACHE", "0", 1);
    setenv("SVK_VULKAN_LIBRARY", "/opt/vk/libvulkan.so.1", 1);
    setenv("SVK_COOPMAT_EXT", "khr", 1);
    setenv("SVK_PROFILE", "kernel", 1);
    setenv("SVK_KERNEL_VARIANT", "portable", 1);
    setenv("SVK_ATTENTION", "flash", 1);
    setenv("SVK_GEMM_COOPMAT", "1", 1);
    setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
    setenv("HOME", "/home/u", 1);
    svk_ctx_settings s;
    svk_env_read(&s);
    tu_check(t, !strcmp(s.device, "llvm") && s.validation && s.no_pipeline_cache &&
                    !strcmp(s.vulkan_library, "/opt/vk/libvulkan.so.1") && s.coopmat_ext == SVK_COOPMAT_EXT_KHR &&
                    s.profile == SVK_PROFILE_KERNEL && !s.bad[0],
             "set: device '%s', validation %d, no cache %d, loader '%s', khr %d, profile %d ('%s')", s.device,
             s.validation, s.no_pipeline_cache, s.vulkan_library, s.coopmat_ext, s.profile, s.bad);
    tu_check(t, s.tuning.variant == SVK_TUNE_VARIANT_PORTABLE && s.tuning.attention == SVK_TUNE_ATTENTION_FLASH &&
                    s.tuning.gemm_coopmat && !s.tuning.off,
             "set: the tuning takes the user switches");
#ifdef _WIN32
    const char *want_cache = "";
#else
    const char *want_cache = "/var/cache/u/siamese-vk";
#endif
    tu_check(t, !want_cache[0] || !strcmp(s.cache_dir, want_cache), "cache directory '%s'", s.cache_dir);
    unsetenv("XDG_CACHE_HOME");
    svk_env_read(&s);
#ifndef _WIN32
    tu_check(t, !strcmp(s.cache_dir, "/home/u/.cache/siamese-vk"), "without XDG_CACHE_HOME: '%s'", s.cache_dir);
#endif
    static const struct {
        const char *value;
        svk_profile_mode mode;
    } profiles[] = {{"0", SVK_PROFILE_OFF}, {"1", SVK_PROFILE_OPS}, {"op", SVK_PROFILE_EVERY_OP},
                    {"dispatch", SVK_PROFILE_DISPATCH}, {"yes", SVK_PROFILE_OPS}};
    for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        setenv("SVK_PROFILE", profiles[i].value, 1);
        svk_env_read(&s);
        tu_check(t, s.profile == profiles[i].mode, "SVK_PROFILE=%s: mode %d", profiles[i].value, s.profile);
    }
    clear_env();
}

static void refusals(tu_tally *t)
{
    static const char *const bad[][2] = {{"SVK_KERNEL_VARIANT", "gpu"},
                                         {"SVK_ATTENTION", "bogus"},
                                         {"SVK_GEMM_COOPMAT", "yes"},
                                         {"SVK_COOPMAT_EXT", "amd"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        clear_env();
        setenv(bad[i][0], bad[i][1], 1);
        svk_ctx_settings s;
        svk_env_read(&s);
        const svk_status st = svk_env_check(NULL, &s);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(s.bad, bad[i][0]) && strstr(s.bad, bad[i][1]) &&
                        strstr(svk_last_error(), bad[i][0]),
                 "%s=%s refused: %s", bad[i][0], bad[i][1], s.bad);
    }
    /* A device name past the setting's room is refused, not cut. */
    char longname[400];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    clear_env();
    setenv("SVK_DEVICE", longname, 1);
    svk_ctx_settings s;
    svk_env_read(&s);
    tu_check(t, strstr(s.bad, "SVK_DEVICE") && !s.device[0], "an SVK_DEVICE of %zu bytes refused: %.60s",
             strlen(longname), s.bad);
    clear_env();
}

static void tune(tu_tally *t)
{
    svk_ctx_tuning tu = {0};
    char why[1024];
    bool ok = svk_ctx_tuning_parse("vec4=0,gemm_split=0,texel_buffers=1,coopmat_frags=3,kernel_variant=cpu", &tu,
                                   why, sizeof(why));
    tu_check(t, ok && tu.off == (SVK_TUNE_OFF_VEC4 | SVK_TUNE_OFF_GEMM_SPLIT) && tu.texel == SVK_TUNE_TEXEL_ON &&
                    tu.coopmat_frags == 3 && tu.variant == SVK_TUNE_VARIANT_CPU,
             "--tune items applied: off 0x%x texel %d frags %u variant %d", tu.off, tu.texel, tu.coopmat_frags,
             tu.variant);
    ok = svk_ctx_tuning_parse("vec4=1,texel_buffers=0,attention=scores,gemm_coopmat=1", &tu, why, sizeof(why));
    tu_check(t, ok && tu.off == SVK_TUNE_OFF_GEMM_SPLIT && tu.texel == SVK_TUNE_TEXEL_OFF &&
                    tu.attention == SVK_TUNE_ATTENTION_SCORES && tu.gemm_coopmat,
             "=1 gives a default back, the others apply: off 0x%x", tu.off);
    static const char *const names[] = {"transfer_copies", "gemm_pack", "gemm_wide", "gemm_k8", "gemm_rows",
                                        "gemm_store64", "norm_split", "fused_siamese_bwd"};
    uint32_t all = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        svk_ctx_tuning one = {0};
        char item[64];
        snprintf(item, sizeof(item), "%s=0", names[i]);
        ok = svk_ctx_tuning_parse(item, &one, why, sizeof(why));
        tu_check(t, ok && one.off && !(one.off & (one.off - 1)) && !(one.off & all), "%s: one bit of its own (0x%x)",
                 item, one.off);
        all |= one.off;
    }
    static const char *const refused[] = {"vec4=2", "foo=0", "coopmat_frags=5", "kernel_variant=gpu", "", "vec4=0,",
                                          "vec4"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        svk_ctx_tuning before = tu;
        ok = svk_ctx_tuning_parse(refused[i], &tu, why, sizeof(why));
        tu_check(t, !ok && !memcmp(&before, &tu, sizeof(tu)) && strstr(why, "is not one of"),
                 "'%s' refused, the tuning untouched", refused[i]);
    }
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_env", &args);
    tu_tally t = {0, 0};
    defaults(&t);
    values(&t);
    refusals(&t);
    tune(&t);
    return tu_finish(&t);
}
