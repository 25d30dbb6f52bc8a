#include <string.h>

#include "fault_vk.h"
#include "vk/loader.h"

static const char *const kind_names[FV_KIND_COUNT] = {
    "vkCreateInstance", "vkEnumeratePhysicalDevices", "vkCreateDevice", "vkCreateDebugUtilsMessengerEXT",
    "vkAllocateMemory", "vkCreateBuffer", "vkBindBufferMemory", "vkMapMemory", "vkCreateShaderModule",
    "vkCreateDescriptorSetLayout", "vkCreatePipelineLayout", "vkCreatePipelineCache",
    "vkCreateComputePipelines", "vkCreateCommandPool", "vkAllocateCommandBuffers", "vkBeginCommandBuffer",
    "vkEndCommandBuffer", "vkCreateFence", "vkResetFences", "vkQueueSubmit", "vkWaitForFences",
    "vkQueueWaitIdle", "vkDeviceWaitIdle", "vkCreateDescriptorPool", "vkAllocateDescriptorSets",
    "vkCreateQueryPool", "vkCreateBufferView",
};

static svk_vk_instance_fns real_i;
static svk_vk_device_fns real_d;

static struct {
    fv_kind kind;
    uint64_t k;
    VkResult result;
    uint64_t count[FV_KIND_COUNT];
    bool fired, paused, lost, sticky;
    uint64_t touches;
    const char *last_touch;
} S;

/* What a failed create leaves in its output: the spec makes it undefined,
 * so the library must never read it. A recognisable non-null value makes a
 * read show up (as a validation message or a crash) instead of passing for
 * VK_NULL_HANDLE. */
#define POISON ((uintptr_t)0xdead00000000beefull)

static void touch(const char *name)
{
    if (S.lost && !S.paused) {
        S.touches++;
        S.last_touch = name;
    }
}

/* Counts a call of kind; true (and the result to return) if it must fail. */
static bool inject(fv_kind kind, VkResult *r)
{
    touch(kind_names[kind]);
    if (S.paused)
        return false;
    uint64_t n = ++S.count[kind];
    if (S.k == 0 || kind != S.kind || (S.sticky ? n < S.k : n != S.k))
        return false;
    S.fired = true;
    *r = S.result;
    if (S.result == VK_ERROR_DEVICE_LOST)
        S.lost = true;
    return true;
}

/* A create-style call: fails with garbage in *out, or calls through. */
#define CREATE_WRAPPER(kind, name, handle_type, out, params, args)           \
    static VKAPI_ATTR VkResult VKAPI_CALL w_##name params                    \
    {                                                                        \
        VkResult r;                                                          \
        if (inject(kind, &r)) {                                              \
            *(out) = (handle_type)POISON;                                    \
            return r;                                                        \
        }                                                                    \
        return real_d.name args;                                             \
    }

/* A call with no output to spoil. */
#define PLAIN_WRAPPER(kind, table, name, params, args)                       \
    static VKAPI_ATTR VkResult VKAPI_CALL w_##name params                    \
    {                                                                        \
        VkResult r;                                                          \
        if (inject(kind, &r))                                                \
            return r;                                                        \
        return table.name args;                                              \
    }

/* A call that cannot fail, only touch the device after a loss. */
#define TOUCH_WRAPPER(name, params, args)                                    \
    static VKAPI_ATTR void VKAPI_CALL w_##name params                        \
    {                                                                        \
        touch(#name);                                                        \
        real_d.name args;                                                    \
    }

static VKAPI_ATTR VkResult VKAPI_CALL w_vkCreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                         VkInstance *out)
{
    VkResult r;
    if (inject(FV_CREATE_INSTANCE, &r)) {
        *out = (VkInstance)POISON;
        return r;
    }
    return real_i.vkCreateInstance(ci, a, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkEnumeratePhysicalDevices(VkInstance inst, uint32_t *n, VkPhysicalDevice *out)
{
    VkResult r;
    if (inject(FV_ENUMERATE_DEVICES, &r)) {
        *n = 0xdead;
        return r;
    }
    return real_i.vkEnumeratePhysicalDevices(inst, n, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkCreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                                                       const VkAllocationCallbacks *a, VkDevice *out)
{
    VkResult r;
    if (inject(FV_CREATE_DEVICE, &r)) {
        *out = (VkDevice)POISON;
        return r;
    }
    return real_i.vkCreateDevice(phys, ci, a, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkCreateDebugUtilsMessengerEXT(VkInstance inst,
                                                                       const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                       const VkAllocationCallbacks *a,
                                                                       VkDebugUtilsMessengerEXT *out)
{
    VkResult r;
    if (inject(FV_CREATE_MESSENGER, &r)) {
        *out = (VkDebugUtilsMessengerEXT)POISON;
        return r;
    }
    return real_i.vkCreateDebugUtilsMessengerEXT(inst, ci, a, out);
}

CREATE_WRAPPER(FV_ALLOCATE_MEMORY, vkAllocateMemory, VkDeviceMemory, out,
               (VkDevice d, const VkMemoryAllocateInfo *i, const VkAllocationCallbacks *a, VkDeviceMemory *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_BUFFER, vkCreateBuffer, VkBuffer, out,
               (VkDevice d, const VkBufferCreateInfo *i, const VkAllocationCallbacks *a, VkBuffer *out),
               (d, i, a, out))
PLAIN_WRAPPER(FV_BIND_MEMORY, real_d, vkBindBufferMemory,
              (VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize o), (d, b, m, o))
CREATE_WRAPPER(FV_MAP_MEMORY, vkMapMemory, void *, out,
               (VkDevice d, VkDeviceMemory m, VkDeviceSize o, VkDeviceSize s, VkMemoryMapFlags f, void **out),
               (d, m, o, s, f, out))
CREATE_WRAPPER(FV_CREATE_SHADER_MODULE, vkCreateShaderModule, VkShaderModule, out,
               (VkDevice d, const VkShaderModuleCreateInfo *i, const VkAllocationCallbacks *a, VkShaderModule *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_SET_LAYOUT, vkCreateDescriptorSetLayout, VkDescriptorSetLayout, out,
               (VkDevice d, const VkDescriptorSetLayoutCreateInfo *i, const VkAllocationCallbacks *a,
                VkDescriptorSetLayout *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_PIPELINE_LAYOUT, vkCreatePipelineLayout, VkPipelineLayout, out,
               (VkDevice d, const VkPipelineLayoutCreateInfo *i, const VkAllocationCallbacks *a, VkPipelineLayout *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_PIPELINE_CACHE, vkCreatePipelineCache, VkPipelineCache, out,
               (VkDevice d, const VkPipelineCacheCreateInfo *i, const VkAllocationCallbacks *a, VkPipelineCache *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_COMMAND_POOL, vkCreateCommandPool, VkCommandPool, out,
               (VkDevice d, const VkCommandPoolCreateInfo *i, const VkAllocationCallbacks *a, VkCommandPool *out),
               (d, i, a, out))
PLAIN_WRAPPER(FV_BEGIN_COMMAND_BUFFER, real_d, vkBeginCommandBuffer,
              (VkCommandBuffer c, const VkCommandBufferBeginInfo *i), (c, i))
/* A driver reports recording errors here, after which the buffer is
 * invalid (not recording): the real call is made, so that the validation
 * layer sees the same state. */
static VKAPI_ATTR VkResult VKAPI_CALL w_vkEndCommandBuffer(VkCommandBuffer c)
{
    VkResult r;
    if (inject(FV_END_COMMAND_BUFFER, &r)) {
        real_d.vkEndCommandBuffer(c);
        return r;
    }
    return real_d.vkEndCommandBuffer(c);
}
CREATE_WRAPPER(FV_CREATE_FENCE, vkCreateFence, VkFence, out,
               (VkDevice d, const VkFenceCreateInfo *i, const VkAllocationCallbacks *a, VkFence *out),
               (d, i, a, out))
PLAIN_WRAPPER(FV_RESET_FENCES, real_d, vkResetFences, (VkDevice d, uint32_t n, const VkFence *f), (d, n, f))
/* A simulated loss waits for the work submitted before, as the waits
 * below do: a step runs as several submissions (max_submit_ms), and the
 * library stops tracking the ones before the lost one. */
static VKAPI_ATTR VkResult VKAPI_CALL w_vkQueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence f)
{
    VkResult r;
    if (inject(FV_QUEUE_SUBMIT, &r)) {
        if (r == VK_ERROR_DEVICE_LOST)
            real_d.vkQueueWaitIdle(q);
        return r;
    }
    return real_d.vkQueueSubmit(q, n, s, f);
}
CREATE_WRAPPER(FV_CREATE_DESCRIPTOR_POOL, vkCreateDescriptorPool, VkDescriptorPool, out,
               (VkDevice d, const VkDescriptorPoolCreateInfo *i, const VkAllocationCallbacks *a,
                VkDescriptorPool *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_QUERY_POOL, vkCreateQueryPool, VkQueryPool, out,
               (VkDevice d, const VkQueryPoolCreateInfo *i, const VkAllocationCallbacks *a, VkQueryPool *out),
               (d, i, a, out))
CREATE_WRAPPER(FV_CREATE_BUFFER_VIEW, vkCreateBufferView, VkBufferView, out,
               (VkDevice d, const VkBufferViewCreateInfo *i, const VkAllocationCallbacks *a, VkBufferView *out),
               (d, i, a, out))

/* The spec says what these write on failure: null handles. */
static VKAPI_ATTR VkResult VKAPI_CALL w_vkCreateComputePipelines(VkDevice d, VkPipelineCache c, uint32_t n,
                                                                 const VkComputePipelineCreateInfo *i,
                                                                 const VkAllocationCallbacks *a, VkPipeline *out)
{
    VkResult r;
    if (inject(FV_CREATE_PIPELINE, &r)) {
        for (uint32_t j = 0; j < n; j++)
            out[j] = VK_NULL_HANDLE;
        return r;
    }
    return real_d.vkCreateComputePipelines(d, c, n, i, a, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkAllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo *i,
                                                                 VkCommandBuffer *out)
{
    VkResult r;
    if (inject(FV_ALLOCATE_COMMAND_BUFFER, &r)) {
        for (uint32_t j = 0; j < i->commandBufferCount; j++)
            out[j] = VK_NULL_HANDLE;
        return r;
    }
    return real_d.vkAllocateCommandBuffers(d, i, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkAllocateDescriptorSets(VkDevice d, const VkDescriptorSetAllocateInfo *i,
                                                                 VkDescriptorSet *out)
{
    VkResult r;
    if (inject(FV_ALLOCATE_DESCRIPTOR_SET, &r)) {
        for (uint32_t j = 0; j < i->descriptorSetCount; j++)
            out[j] = VK_NULL_HANDLE;
        return r;
    }
    return real_d.vkAllocateDescriptorSets(d, i, out);
}

/* Waits: a simulated loss still waits for real, so that the work the
 * library then stops tracking has finished and the validation layer does
 * not see objects destroyed while in use (on a real loss the driver
 * considers everything complete). Other failures return at once, leaving
 * the work in flight, as a driver may. */
static VKAPI_ATTR VkResult VKAPI_CALL w_vkWaitForFences(VkDevice d, uint32_t n, const VkFence *f, VkBool32 all,
                                                        uint64_t timeout)
{
    VkResult r;
    if (inject(FV_WAIT_FOR_FENCES, &r)) {
        /* All of it: work submitted after these fences' is forgotten too. */
        if (r == VK_ERROR_DEVICE_LOST)
            real_d.vkDeviceWaitIdle(d);
        return r;
    }
    return real_d.vkWaitForFences(d, n, f, all, timeout);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkQueueWaitIdle(VkQueue q)
{
    VkResult r;
    if (inject(FV_QUEUE_WAIT_IDLE, &r)) {
        if (r == VK_ERROR_DEVICE_LOST)
            real_d.vkQueueWaitIdle(q);
        return r;
    }
    return real_d.vkQueueWaitIdle(q);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkDeviceWaitIdle(VkDevice d)
{
    VkResult r;
    if (inject(FV_DEVICE_WAIT_IDLE, &r)) {
        if (r == VK_ERROR_DEVICE_LOST)
            real_d.vkDeviceWaitIdle(d);
        return r;
    }
    return real_d.vkDeviceWaitIdle(d);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkGetPipelineCacheData(VkDevice d, VkPipelineCache c, size_t *size, void *data)
{
    touch("vkGetPipelineCacheData");
    return real_d.vkGetPipelineCacheData(d, c, size, data);
}

static VKAPI_ATTR VkResult VKAPI_CALL w_vkGetQueryPoolResults(VkDevice d, VkQueryPool q, uint32_t first, uint32_t n,
                                                              size_t size, void *data, VkDeviceSize stride,
                                                              VkQueryResultFlags flags)
{
    touch("vkGetQueryPoolResults");
    return real_d.vkGetQueryPoolResults(d, q, first, n, size, data, stride, flags);
}

TOUCH_WRAPPER(vkCmdDispatch, (VkCommandBuffer c, uint32_t x, uint32_t y, uint32_t z), (c, x, y, z))
TOUCH_WRAPPER(vkCmdCopyBuffer, (VkCommandBuffer c, VkBuffer s, VkBuffer d, uint32_t n, const VkBufferCopy *r),
              (c, s, d, n, r))
TOUCH_WRAPPER(vkCmdPipelineBarrier,
              (VkCommandBuffer c, VkPipelineStageFlags s, VkPipelineStageFlags d, VkDependencyFlags f, uint32_t nm,
               const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b, uint32_t ni,
               const VkImageMemoryBarrier *im),
              (c, s, d, f, nm, m, nb, b, ni, im))
TOUCH_WRAPPER(vkCmdBindPipeline, (VkCommandBuffer c, VkPipelineBindPoint p, VkPipeline pl), (c, p, pl))
TOUCH_WRAPPER(vkCmdPushConstants,
              (VkCommandBuffer c, VkPipelineLayout l, VkShaderStageFlags s, uint32_t o, uint32_t n, const void *v),
              (c, l, s, o, n, v))
TOUCH_WRAPPER(vkUpdateDescriptorSets,
              (VkDevice d, uint32_t nw, const VkWriteDescriptorSet *w, uint32_t nc, const VkCopyDescriptorSet *c),
              (d, nw, w, nc, c))
TOUCH_WRAPPER(vkCmdFillBuffer, (VkCommandBuffer c, VkBuffer b, VkDeviceSize o, VkDeviceSize s, uint32_t v),
              (c, b, o, s, v))

/* Replaces an entry once per table: the real pointer is kept, the table
 * gets the wrapper. */
#define WRAP(table, real, name)                                              \
    do {                                                                     \
        if ((table)->name && (table)->name != w_##name) {                    \
            (real).name = (table)->name;                                     \
            (table)->name = w_##name;                                        \
        }                                                                    \
    } while (0)

static void hook_instance(svk_vk_instance_fns *f)
{
    WRAP(f, real_i, vkCreateInstance);
    WRAP(f, real_i, vkEnumeratePhysicalDevices);
    WRAP(f, real_i, vkCreateDevice);
    WRAP(f, real_i, vkCreateDebugUtilsMessengerEXT);
}

static void hook_device(svk_vk_device_fns *f)
{
    WRAP(f, real_d, vkAllocateMemory);
    WRAP(f, real_d, vkCreateBuffer);
    WRAP(f, real_d, vkBindBufferMemory);
    WRAP(f, real_d, vkMapMemory);
    WRAP(f, real_d, vkCreateShaderModule);
    WRAP(f, real_d, vkCreateDescriptorSetLayout);
    WRAP(f, real_d, vkCreatePipelineLayout);
    WRAP(f, real_d, vkCreatePipelineCache);
    WRAP(f, real_d, vkCreateComputePipelines);
    WRAP(f, real_d, vkCreateCommandPool);
    WRAP(f, real_d, vkAllocateCommandBuffers);
    WRAP(f, real_d, vkBeginCommandBuffer);
    WRAP(f, real_d, vkEndCommandBuffer);
    WRAP(f, real_d, vkCreateFence);
    WRAP(f, real_d, vkResetFences);
    WRAP(f, real_d, vkQueueSubmit);
    WRAP(f, real_d, vkWaitForFences);
    WRAP(f, real_d, vkQueueWaitIdle);
    WRAP(f, real_d, vkDeviceWaitIdle);
    WRAP(f, real_d, vkCreateDescriptorPool);
    WRAP(f, real_d, vkAllocateDescriptorSets);
    WRAP(f, real_d, vkCreateQueryPool);
    WRAP(f, real_d, vkCreateBufferView);
    WRAP(f, real_d, vkGetPipelineCacheData);
    WRAP(f, real_d, vkGetQueryPoolResults);
    WRAP(f, real_d, vkCmdDispatch);
    WRAP(f, real_d, vkCmdCopyBuffer);
    WRAP(f, real_d, vkCmdPipelineBarrier);
    WRAP(f, real_d, vkCmdBindPipeline);
    WRAP(f, real_d, vkCmdPushConstants);
    WRAP(f, real_d, vkUpdateDescriptorSets);
    WRAP(f, real_d, vkCmdFillBuffer);
}

void fv_install(void)
{
    svk_vk_load_hook h = {hook_instance, hook_device};
    svk_vk_set_load_hook(&h);
}

void fv_arm(fv_kind kind, uint64_t k, VkResult result)
{
    memset(&S, 0, sizeof(S));
    S.kind = kind;
    S.k = k;
    S.result = result;
    S.last_touch = "";
}

void fv_arm_sticky(fv_kind kind, uint64_t k, VkResult result)
{
    fv_arm(kind, k, result);
    S.sticky = true;
}

uint64_t fv_count(fv_kind kind)
{
    return S.count[kind];
}

bool fv_fired(void)
{
    return S.fired;
}

void fv_pause(bool paused)
{
    S.paused = paused;
}

bool fv_lost(void)
{
    return S.lost;
}

uint64_t fv_touches_after_lost(void)
{
    return S.touches;
}

const char *fv_last_touch(void)
{
    return S.last_touch;
}

const char *fv_kind_name(fv_kind kind)
{
    return kind < FV_KIND_COUNT ? kind_names[kind] : "?";
}
