/*
 * Definitions every public libsvk header shares: the export macro, the C++
 * guards, the status type and the version (svk/version.h).
 */
#ifndef SVK_COMMON_H
#define SVK_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Generated in the build directory (include/svk/meson.build), hence the
 * angle brackets: "version.h" would be looked for beside this file only. */
#include <svk/version.h>

/* SVK_API marks what libsvk exports; everything else is compiled hidden.
 * A Windows DLL exports it when built (SVK_BUILDING, set by lib/meson.build)
 * and imports it when consumed; a program linking the static library
 * defines SVK_STATIC, since there is nothing to import. ELF and Mach-O need
 * no such split: default visibility serves both sides. */
#if defined(_WIN32) || defined(__CYGWIN__)
#  if defined(SVK_STATIC)
#    define SVK_API
#  elif defined(SVK_BUILDING)
#    define SVK_API __declspec(dllexport)
#  else
#    define SVK_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define SVK_API __attribute__((visibility("default")))
#else
#  define SVK_API
#endif

#ifdef __cplusplus
#  define SVK_BEGIN_DECLS extern "C" {
#  define SVK_END_DECLS }
#else
#  define SVK_BEGIN_DECLS
#  define SVK_END_DECLS
#endif

SVK_BEGIN_DECLS

/* Result of every public function. SVK_OK is zero; every other value comes
 * with a message (svk_ctx_last_error(), or svk_last_error() on the calling
 * thread) that says what failed and where. */
typedef enum svk_status {
    SVK_OK = 0,
    SVK_ERROR_INVALID_ARG,        /* a NULL handle, bad size or bad parameter */
    SVK_ERROR_OUT_OF_HOST_MEMORY, /* malloc failed, or the driver ran out of host memory */
    SVK_ERROR_OUT_OF_DEVICE_MEMORY, /* the device has no room for an allocation */
    SVK_ERROR_TOO_LARGE,          /* a tensor exceeds a device limit (storage range, allocation size, group count) */
    SVK_ERROR_NO_VULKAN,          /* no Vulkan loader, or it has no usable device */
    SVK_ERROR_NO_DEVICE,          /* the requested device does not exist */
    SVK_ERROR_UNSUPPORTED,        /* the device or loader lacks something required, or a file format
                                     cannot hold the model (svk/convert.h) */
    SVK_ERROR_DEVICE_LOST,        /* the device was lost; the context is unusable */
    SVK_ERROR_VULKAN,             /* any other failed Vulkan call */
    SVK_ERROR_IO,                 /* a file could not be read or written */
    SVK_ERROR_BAD_CHECKPOINT,     /* a checkpoint file is malformed or does not match */
    SVK_ERROR_INVALID_STATE,      /* the call is not valid in the object's current state */
    SVK_ERROR_INTERNAL,           /* a libsvk bug: please report it with the message */
    SVK_ERROR_INVALID_CONFIG,     /* a model configuration breaks docs/MODEL.md (the message names the key) */
    SVK_ERROR_NONFINITE,          /* the model's state holds NaN or infinity (a save refuses to write it) */
    SVK_STATUS_COUNT_             /* number of values; not a status */
} svk_status;

/* A static English name for a status, e.g. "SVK_ERROR_INVALID_ARG".
 * Unknown values give "SVK_STATUS_UNKNOWN". Thread-safety: any thread. */
SVK_API const char *svk_status_string(svk_status status);

/* The last error message recorded on the calling thread by any libsvk call,
 * or "" if none. Useful when there is no context yet (e.g. svk_ctx_create
 * failed). The pointer stays valid until the thread's next libsvk call.
 * Thread-safety: per thread. */
SVK_API const char *svk_last_error(void);

/* The loaded library's version as "major.minor.patch"; SVK_VERSION_STRING
 * (svk/version.h) is that of the headers the caller was compiled with.
 * Thread-safety: any thread. */
SVK_API const char *svk_version(void);

SVK_END_DECLS

#endif
