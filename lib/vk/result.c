#include <stdio.h>
#include <string.h>

#include "vk_context.h"
#include "result.h"

const char *svk_vk_result_string(VkResult r)
{
    switch (r) {
#define C(x) case x: return #x;
    C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_EVENT_SET) C(VK_EVENT_RESET)
    C(VK_INCOMPLETE) C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST) C(VK_ERROR_MEMORY_MAP_FAILED)
    C(VK_ERROR_LAYER_NOT_PRESENT) C(VK_ERROR_EXTENSION_NOT_PRESENT)
    C(VK_ERROR_FEATURE_NOT_PRESENT) C(VK_ERROR_INCOMPATIBLE_DRIVER)
    C(VK_ERROR_TOO_MANY_OBJECTS) C(VK_ERROR_FORMAT_NOT_SUPPORTED)
    C(VK_ERROR_FRAGMENTED_POOL) C(VK_ERROR_UNKNOWN) C(VK_ERROR_OUT_OF_POOL_MEMORY)
    C(VK_ERROR_INVALID_EXTERNAL_HANDLE) C(VK_ERROR_FRAGMENTATION)
    C(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS) C(VK_PIPELINE_COMPILE_REQUIRED)
#undef C
    default: return "VK_RESULT_UNKNOWN";
    }
}

svk_status svk_vk_status(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return SVK_OK;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return SVK_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTATION:
    case VK_ERROR_TOO_MANY_OBJECTS: return SVK_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return SVK_ERROR_DEVICE_LOST;
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER: return SVK_ERROR_UNSUPPORTED;
    default: return SVK_ERROR_VULKAN;
    }
}

/* "ctx->vkd.vkAllocateMemory(ctx->vk.device, ...)" -> "vkAllocateMemory". */
static void function_name(const char *expr, char *out, size_t size)
{
    const char *paren = strchr(expr, '(');
    const char *end = paren ? paren : expr + strlen(expr);
    const char *start = end;
    while (start > expr && (start[-1] == '_' || (start[-1] >= '0' && start[-1] <= '9') ||
                            (start[-1] >= 'a' && start[-1] <= 'z') ||
                            (start[-1] >= 'A' && start[-1] <= 'Z')))
        start--;
    size_t n = (size_t)(end - start);
    if (n >= size)
        n = size - 1;
    memcpy(out, start, n);
    out[n] = '\0';
}

svk_status svk_vk_fail(struct svk_ctx *ctx, svk_log *log, VkResult r, const char *expr,
                       const char *file, int line, const char *what_fmt, ...)
{
    char fn[96], what[512] = "";
    function_name(expr, fn, sizeof(fn));
    if (what_fmt && *what_fmt) {
        va_list ap;
        va_start(ap, what_fmt);
        vsnprintf(what, sizeof(what), what_fmt, ap);
        va_end(ap);
    }
    if (ctx)
        log = &ctx->log;
    const char *base = strrchr(file, '/');
    char call[768];
    snprintf(call, sizeof(call), "%s: %s%s%s (%s:%d)", fn, svk_vk_result_string(r), what[0] ? " while " : "", what,
             base ? base + 1 : file, line);
    if (!ctx || r != VK_ERROR_DEVICE_LOST || ctx->loss.lost)
        return svk_error(log, svk_vk_status(r), "%s", call);
    /* The first loss: the message says what to do about it, once. */
    ctx->loss.lost = true;
    snprintf(ctx->loss.reason, sizeof(ctx->loss.reason), "%.*s", (int)sizeof(ctx->loss.reason) - 1, call);
    char hint[512];
    svk_vk_loss_hint(&ctx->loss, hint, sizeof(hint));
    return svk_error(log, SVK_ERROR_DEVICE_LOST, "%s; %s", call, hint);
}

void svk_vk_loss_hint(const svk_ctx_loss *loss, char *out, size_t size)
{
    char budget[160] = "";
    if (loss->submitted && loss->budget_ms <= 0)
        snprintf(budget, sizeof(budget), ", and each step ran as one submission (max_submit_ms 0)");
    else if (loss->submitted && loss->longest_ms >= 0)
        snprintf(budget, sizeof(budget), "; the submissions were measured at up to %.0f ms (max_submit_ms %g)",
                 loss->longest_ms, loss->budget_ms);
    else if (loss->submitted)
        snprintf(budget, sizeof(budget), "; the submissions were not measured yet (max_submit_ms %g)",
                 loss->budget_ms);
    snprintf(out, size,
             "the device was lost: the likeliest cause is the driver resetting the GPU because a submission ran "
             "too long (a watchdog: Windows' TDR after 2 s, amdgpu's job timeout)%s; else a driver crash or a GPU "
             "fault. Lower max_submit_ms (svk-train --max-submit-ms), then create a new context and load the "
             "last checkpoint (svk-train --recover does both)",
             budget);
}
