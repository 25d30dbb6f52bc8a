/*
 * Vulkan fault injection for tests: wrappers installed into every context's
 * function tables (svk_vk_set_load_hook, lib/vk/loader.h) that count the
 * calls of each fallible kind and make the k-th one fail with a chosen
 * VkResult, as a driver would: outputs are left as garbage (the spec makes
 * them undefined after an error), and a simulated VK_ERROR_DEVICE_LOST
 * makes every later call that is not a destroy or free a "touch", which a
 * test counts as a failure (a lost device must not be used).
 *
 * One context at a time: the real entry points are kept here, per process.
 */
#ifndef SVK_TEST_FAULT_VK_H
#define SVK_TEST_FAULT_VK_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

typedef enum fv_kind {
    FV_CREATE_INSTANCE,
    FV_ENUMERATE_DEVICES,
    FV_CREATE_DEVICE,
    FV_CREATE_MESSENGER,
    FV_ALLOCATE_MEMORY,
    FV_CREATE_BUFFER,
    FV_BIND_MEMORY,
    FV_MAP_MEMORY,
    FV_CREATE_SHADER_MODULE,
    FV_CREATE_SET_LAYOUT,
    FV_CREATE_PIPELINE_LAYOUT,
    FV_CREATE_PIPELINE_CACHE,
    FV_CREATE_PIPELINE,
    FV_CREATE_COMMAND_POOL,
    FV_ALLOCATE_COMMAND_BUFFER,
    FV_BEGIN_COMMAND_BUFFER,
    FV_END_COMMAND_BUFFER,
    FV_CREATE_FENCE,
    FV_RESET_FENCES,
    FV_QUEUE_SUBMIT,
    FV_WAIT_FOR_FENCES,
    FV_QUEUE_WAIT_IDLE,
    FV_DEVICE_WAIT_IDLE,
    FV_CREATE_DESCRIPTOR_POOL,
    FV_ALLOCATE_DESCRIPTOR_SET,
    FV_CREATE_QUERY_POOL,
    FV_CREATE_BUFFER_VIEW,
    FV_KIND_COUNT
} fv_kind;

/* Installs the wrappers into the tables of every context created from now. */
void fv_install(void);

/* Resets the counts; from now the k-th call (1-based) of kind fails with
 * result. k = 0: count only. */
void fv_arm(fv_kind kind, uint64_t k, VkResult result);
/* The same, but every call of kind from the k-th on fails (a failure that
 * persists, where fv_arm's is transient). */
void fv_arm_sticky(fv_kind kind, uint64_t k, VkResult result);
/* Calls of kind since the last arm (paused calls are not counted). */
uint64_t fv_count(fv_kind kind);
/* Whether the armed failure happened. */
bool fv_fired(void);
/* While paused, calls pass through uncounted and never fail. */
void fv_pause(bool paused);
/* Whether a VK_ERROR_DEVICE_LOST was injected since the last arm, and how
 * many calls other than destroys and frees were made after it. */
bool fv_lost(void);
uint64_t fv_touches_after_lost(void);
/* The name of the last call made after the injected loss ("" if none). */
const char *fv_last_touch(void);

const char *fv_kind_name(fv_kind kind);

#endif
