/*
 * The environment, read in one place (env.c) when a context is created
 * (and when svk_list_devices looks at the devices), into a context's
 * settings. Everything below env.c takes these values as arguments: no
 * other file of lib/ reads the environment, so what libsvk reads is one table
 * (docs/ENVIRONMENT.md) and recording never depends on the environment of
 * the moment.
 */
#ifndef SVK_VK_ENV_H
#define SVK_VK_ENV_H

#include <stdbool.h>

#include "core/error.h"
#include "tuning.h"

/* $SVK_PROFILE: what the Vulkan backend prints after each step (lib/model/backend_vk.c). */
typedef enum svk_profile_mode {
    SVK_PROFILE_OFF = 0,
    SVK_PROFILE_OPS,      /* any value but "0" and the words below: plan ops over 1% of the time */
    SVK_PROFILE_EVERY_OP, /* "op" */
    SVK_PROFILE_KERNEL,   /* "kernel": by shader and transfer command */
    SVK_PROFILE_DISPATCH, /* "dispatch": every dispatch in order */
} svk_profile_mode;

/* $SVK_COOPMAT_EXT: which cooperative-matrix extension libsvk prefers where
 * a device offers both ("nv", the default, or "khr"). */
typedef enum svk_coopmat_ext {
    SVK_COOPMAT_EXT_NV = 0,
    SVK_COOPMAT_EXT_KHR,
} svk_coopmat_ext;

typedef struct svk_ctx_settings {
    char device[256];            /* $SVK_DEVICE: an index or a name substring; "" unset */
    bool validation;             /* $SVK_VALIDATION set and not "0" */
    bool no_pipeline_cache;      /* $SVK_PIPELINE_CACHE=0 */
    char vulkan_library[4096];   /* $SVK_VULKAN_LIBRARY; "" the system's loader */
    /* The default pipeline-cache directory (svk_file_cache_dir, from
     * $XDG_CACHE_HOME or $HOME, or %LOCALAPPDATA% on Windows); "" none. */
    char cache_dir[768];
    svk_coopmat_ext coopmat_ext; /* $SVK_COOPMAT_EXT */
    svk_profile_mode profile;    /* $SVK_PROFILE */
    svk_ctx_tuning tuning;       /* $SVK_KERNEL_VARIANT, $SVK_ATTENTION, $SVK_GEMM_COOPMAT */
    /* $SVK_MAX_STORAGE_RANGE: bytes (a multiple of 4096) the device's
     * maxStorageBufferRange is taken to be at most, so that a small model
     * goes the way a large one does on a device with a small range; 0 unset. */
    uint64_t max_storage_range;
    /* The first variable whose value libsvk refuses, as a message naming it
     * and its value; "" when all were understood (svk_env_check). */
    char bad[256];
} svk_ctx_settings;

/* Reads the environment into *out. Never fails: a value it refuses leaves
 * that setting at its default and is described in out->bad. */
void svk_env_read(svk_ctx_settings *out);

/* SVK_OK, or SVK_ERROR_INVALID_ARG with out->bad's message (context
 * creation refuses a value it does not understand, before touching
 * Vulkan). */
svk_status svk_env_check(svk_log *log, const svk_ctx_settings *s);

#endif
