#include <stdio.h>
#include <string.h>

#include "error.h"

/* The thread's slot: the only place a message can live before a context
 * exists (svk_ctx_create failing, say). */
static _Thread_local char thread_last[SVK_ERROR_MAX];

const char *svk_status_string(svk_status status)
{
    switch (status) {
    case SVK_OK: return "SVK_OK";
    case SVK_ERROR_INVALID_ARG: return "SVK_ERROR_INVALID_ARG";
    case SVK_ERROR_OUT_OF_HOST_MEMORY: return "SVK_ERROR_OUT_OF_HOST_MEMORY";
    case SVK_ERROR_OUT_OF_DEVICE_MEMORY: return "SVK_ERROR_OUT_OF_DEVICE_MEMORY";
    case SVK_ERROR_TOO_LARGE: return "SVK_ERROR_TOO_LARGE";
    case SVK_ERROR_NO_VULKAN: return "SVK_ERROR_NO_VULKAN";
    case SVK_ERROR_NO_DEVICE: return "SVK_ERROR_NO_DEVICE";
    case SVK_ERROR_UNSUPPORTED: return "SVK_ERROR_UNSUPPORTED";
    case SVK_ERROR_DEVICE_LOST: return "SVK_ERROR_DEVICE_LOST";
    case SVK_ERROR_VULKAN: return "SVK_ERROR_VULKAN";
    case SVK_ERROR_IO: return "SVK_ERROR_IO";
    case SVK_ERROR_BAD_CHECKPOINT: return "SVK_ERROR_BAD_CHECKPOINT";
    case SVK_ERROR_INVALID_STATE: return "SVK_ERROR_INVALID_STATE";
    case SVK_ERROR_INTERNAL: return "SVK_ERROR_INTERNAL";
    case SVK_ERROR_INVALID_CONFIG: return "SVK_ERROR_INVALID_CONFIG";
    case SVK_ERROR_NONFINITE: return "SVK_ERROR_NONFINITE";
    case SVK_STATUS_COUNT_: break;
    }
    return "SVK_STATUS_UNKNOWN";
}

const char *svk_last_error(void)
{
    return thread_last;
}

const char *svk_version(void)
{
    return SVK_VERSION_STRING;
}

void svk_error_clear_thread(void)
{
    thread_last[0] = '\0';
}

svk_status svk_verror(svk_log *log, svk_status status, const char *fmt, va_list ap)
{
    vsnprintf(thread_last, sizeof(thread_last), fmt, ap);
    if (log) {
        memcpy(log->last, thread_last, sizeof(log->last));
        if (log->fn)
            log->fn(log->user, SVK_LOG_ERROR, thread_last);
    }
    return status;
}

svk_status svk_error(svk_log *log, svk_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    svk_verror(log, status, fmt, ap);
    va_end(ap);
    return status;
}

void svk_log_msg(svk_log *log, svk_log_level level, const char *fmt, ...)
{
    if (!log || !log->fn || level > log->level)
        return;
    char buf[SVK_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log->fn(log->user, level, buf);
}

const char *svk_fmt_bytes(char buf[32], uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}
