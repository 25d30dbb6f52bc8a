/*
 * Every environment variable libsvk reads, in one table's order
 * (docs/ENVIRONMENT.md). Values are copied: a later setenv changes nothing
 * for a context that exists.
 */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_file.h"

/* The value of name, or NULL where unset or empty. */
static const char *value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Records the first refused value. */
static void refuse(svk_ctx_settings *s, const char *name, const char *v, const char *expected)
{
    if (!s->bad[0])
        snprintf(s->bad, sizeof(s->bad), "%s='%.64s%s', expected %s", name, v, strlen(v) > 64 ? "..." : "", expected);
}

/* Copies name's value into out (size bytes); refuses one that does not fit. */
static void copy_value(svk_ctx_settings *s, const char *name, char *out, size_t size)
{
    const char *v = value(name);
    out[0] = '\0';
    if (v && strlen(v) >= size)
        refuse(s, name, v, "a shorter value");
    else if (v)
        memcpy(out, v, strlen(v) + 1);
}

/* "0" or "1" (or unset: dflt); anything else refused. */
static bool flag01(svk_ctx_settings *s, const char *name, bool dflt)
{
    const char *v = value(name);
    if (!v)
        return dflt;
    if (strcmp(v, "0") && strcmp(v, "1")) {
        refuse(s, name, v, "'0' or '1'");
        return dflt;
    }
    return v[0] == '1';
}

static void read_tuning(svk_ctx_settings *s)
{
    svk_ctx_tuning *t = &s->tuning;
    *t = (svk_ctx_tuning){0};
    const char *v = value("SVK_KERNEL_VARIANT");
    if (v && !strcmp(v, "portable"))
        t->variant = SVK_TUNE_VARIANT_PORTABLE;
    else if (v && !strcmp(v, "cpu"))
        t->variant = SVK_TUNE_VARIANT_CPU;
    else if (v)
        refuse(s, "SVK_KERNEL_VARIANT", v, "'portable' or 'cpu'");
    v = value("SVK_ATTENTION");
    if (v && !strcmp(v, "flash"))
        t->attention = SVK_TUNE_ATTENTION_FLASH;
    else if (v && !strcmp(v, "scores"))
        t->attention = SVK_TUNE_ATTENTION_SCORES;
    else if (v)
        refuse(s, "SVK_ATTENTION", v, "'flash' or 'scores'");
    t->gemm_coopmat = flag01(s, "SVK_GEMM_COOPMAT", false);
}

static svk_profile_mode read_profile(void)
{
    const char *v = value("SVK_PROFILE");
    if (!v || !strcmp(v, "0"))
        return SVK_PROFILE_OFF;
    return !strcmp(v, "op") ? SVK_PROFILE_EVERY_OP
           : !strcmp(v, "kernel") ? SVK_PROFILE_KERNEL
           : !strcmp(v, "dispatch") ? SVK_PROFILE_DISPATCH
                                    : SVK_PROFILE_OPS;
}

void svk_env_read(svk_ctx_settings *s)
{
    *s = (svk_ctx_settings){0};
    copy_value(s, "SVK_DEVICE", s->device, sizeof(s->device));
    const char *v = value("SVK_VALIDATION");
    s->validation = v && strcmp(v, "0") != 0;
    v = value("SVK_PIPELINE_CACHE");
    s->no_pipeline_cache = v && !strcmp(v, "0");
    copy_value(s, "SVK_VULKAN_LIBRARY", s->vulkan_library, sizeof(s->vulkan_library));
    const svk_file_cache_vars cache = {
        .xdg_cache_home = value("XDG_CACHE_HOME"),
        .home = value("HOME"),
        .local_app_data = value("LOCALAPPDATA"),
    };
    if (!svk_file_cache_dir(&cache, s->cache_dir, sizeof(s->cache_dir)))
        s->cache_dir[0] = '\0';
    v = value("SVK_COOPMAT_EXT");
    s->coopmat_ext = v && !strcmp(v, "khr") ? SVK_COOPMAT_EXT_KHR : SVK_COOPMAT_EXT_NV;
    if (v && strcmp(v, "nv") && strcmp(v, "khr"))
        refuse(s, "SVK_COOPMAT_EXT", v, "'nv' or 'khr'");
    s->profile = read_profile();
    read_tuning(s);
    v = value("SVK_MAX_STORAGE_RANGE");
    if (v) {
        char *end;
        const unsigned long long n = strtoull(v, &end, 10);
        if (*end || v[0] == '-' || n < 4096 || n % 4096 || n > (1ull << 40))
            refuse(s, "SVK_MAX_STORAGE_RANGE", v, "bytes, a multiple of 4096 from 4096 to 2^40");
        else
            s->max_storage_range = n;
    }
}

svk_status svk_env_check(svk_log *log, const svk_ctx_settings *s)
{
    if (!s->bad[0])
        return SVK_OK;
    return svk_error(log, SVK_ERROR_INVALID_ARG, "%s", s->bad);
}
