/* VkResult handling: names, mapping to svk_status, and the SVK_VK macro. */
#ifndef SVK_VK_RESULT_H
#define SVK_VK_RESULT_H

#include <vulkan/vulkan.h>
#include "core/error.h"

const char *svk_vk_result_string(VkResult r);

/* The svk_status a failed VkResult becomes. */
svk_status svk_vk_status(VkResult r);

struct svk_ctx;

/* Records a failed Vulkan call: "<vkFunction>: <VK_ERROR_...> while <what>
 * (file:line)". expr is the call's source text, from which the function name
 * is taken. Marks the context lost on VK_ERROR_DEVICE_LOST. Returns the
 * mapped status. ctx may be NULL (log then used as is). */
svk_status svk_vk_fail(struct svk_ctx *ctx, svk_log *log, VkResult r, const char *expr,
                       const char *file, int line, const char *what_fmt, ...)
    SVK_PRINTF(7, 8);

/* Runs a Vulkan call; on failure records it (with a printf-style "while ..."
 * context) into the status variable `st` and jumps to the function's `fail:`
 * label, which releases what was built so far. */
#define SVK_VK(ctx, call, ...)                                                \
    do {                                                                      \
        VkResult svk_r_ = (call);                                             \
        if (svk_r_ < 0) {                                                     \
            st = svk_vk_fail((ctx), NULL, svk_r_, #call, __FILE__, __LINE__,  \
                             __VA_ARGS__);                                    \
            goto fail;                                                        \
        }                                                                     \
    } while (0)

#endif
