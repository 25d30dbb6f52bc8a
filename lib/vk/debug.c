/*
 * The validation layer's messenger: counts messages by severity and keeps
 * the last one, so tests can fail on any message, and forwards each to the
 * log callback (or stderr when there is none: whoever turned validation on
 * wants to see what it says).
 */
#include <stdio.h>
#include <string.h>

#include "vk_context.h"

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    svk_ctx *ctx = user;
    svk_validation_counts *vc = &ctx->debug.counts;
    svk_log_level level;
    const char *tag;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        vc->errors++;
        level = SVK_LOG_ERROR;
        tag = "error";
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        vc->warnings++;
        level = SVK_LOG_WARN;
        tag = "warning";
    } else {
        vc->infos++;
        level = SVK_LOG_INFO;
        tag = "info";
    }
    snprintf(vc->last_message, sizeof(vc->last_message), "validation %s: [%s] %s", tag,
             data->pMessageIdName ? data->pMessageIdName : "", data->pMessage ? data->pMessage : "");
    if (ctx->log.fn) {
        if (level <= ctx->log.level)
            ctx->log.fn(ctx->log.user, level, vc->last_message);
    } else if (level <= SVK_LOG_WARN) {
        fprintf(stderr, "libsvk: %s\n", vc->last_message);
    }
    (void)types;
    return VK_FALSE; /* never abort the call that triggered it */
}

void svk_debug_messenger_info(svk_ctx *ctx, VkDebugUtilsMessengerCreateInfoEXT *ci)
{
    *ci = (VkDebugUtilsMessengerCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = ctx,
    };
}

svk_status svk_debug_create(svk_ctx *ctx)
{
    svk_status st = SVK_OK;
    if (!ctx->vki.vkCreateDebugUtilsMessengerEXT)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "validation: the instance has no vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT ci;
    svk_debug_messenger_info(ctx, &ci);
    /* Into a local: after a failure the output is undefined, and
     * svk_debug_destroy must not see it. */
    VkDebugUtilsMessengerEXT messenger;
    SVK_VK(ctx, ctx->vki.vkCreateDebugUtilsMessengerEXT(ctx->vk.instance, &ci, NULL, &messenger),
           "creating the validation messenger");
    ctx->debug.messenger = messenger;
    return SVK_OK;
fail:
    return st;
}

void svk_debug_destroy(svk_ctx *ctx)
{
    if (ctx->debug.messenger && ctx->vki.vkDestroyDebugUtilsMessengerEXT)
        ctx->vki.vkDestroyDebugUtilsMessengerEXT(ctx->vk.instance, ctx->debug.messenger, NULL);
    ctx->debug.messenger = VK_NULL_HANDLE;
}
