/*
 * embed_external_device: libsvk inside an application that owns Vulkan.
 *
 * What it shows: the application creates its own VkInstance, picks a
 * device libsvk supports (Vulkan 1.2, a compute queue), creates the
 * VkDevice and gets the queue; svk_ctx_import borrows them. Every training
 * step is then recorded into the application's own command buffer
 * (svk_model_record_train_step), between commands of the application's
 * own: timestamps around the step, and a copy of them into a buffer the
 * application owns. The application submits with its own fence, then reads
 * both results: the step's loss (svk_model_last_step) and the GPU time
 * of the step from its buffer. The batches are the built-in addition task
 * (svk/data.h).
 *
 * With SVK_VALIDATION=1 the application enables the Khronos validation
 * layer (synchronisation validation included) on its instance, and fails
 * if the layer reports anything: libsvk's commands are checked inside the
 * application's command buffer. libsvk itself links no Vulkan loader; this
 * program links the system's (libvulkan), as such an application would.
 *
 * How to run it (from the build directory):
 *   samples/embed_external_device            300 steps of the default model
 *   samples/embed_external_device --quick    20 steps of a tiny one (the test suite's run)
 *   SVK_VALIDATION=1 samples/embed_external_device --quick
 * Exit status 0 when the loss went down and the layer (if on) said nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <svk/svk.h>
#include <svk/vulkan.h> /* svk_ctx_import, svk_model_record_train_step; includes <vulkan/vulkan.h> */

/* ---- the application's Vulkan objects --------------------------------------- */

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    bool push_descriptor, timestamps;
    /* What vkCreateDevice enabled, kept for svk_import_params. */
    VkPhysicalDeviceFeatures2 features;
    /* Its own work: a command pool and buffer, a fence, two timestamp
     * queries and a host-visible buffer they are copied into. */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    VkBuffer times;
    VkDeviceMemory times_mem;
    uint64_t *times_host; /* [2]: the two timestamps, mapped */
} app;

static int validation_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)severity, (void)type, (void)user;
    validation_messages++;
    fprintf(stderr, "validation: %s\n", data->pMessage);
    return VK_FALSE;
}

static bool fail_vk(const char *what, VkResult r)
{
    fprintf(stderr, "embed_external_device: %s failed (VkResult %d)\n", what, (int)r);
    return false;
}
#define VK(call) do { VkResult r_ = (call); if (r_ != VK_SUCCESS) return fail_vk(#call, r_); } while (0)

static bool create_instance(app *a, bool validation)
{
    uint32_t version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_2) {
        fprintf(stderr, "embed_external_device: the Vulkan loader is older than 1.2\n");
        return false;
    }
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "embed_external_device",
                            .apiVersion = VK_API_VERSION_1_2};
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
    };
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
                                  .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync};
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &vf : NULL, /* the messenger also sees instance creation */
        .pApplicationInfo = &ai,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = validation ? 2 : 0,
        .ppEnabledExtensionNames = exts,
    };
    VK(vkCreateInstance(&ici, NULL, &a->instance));
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create_messenger)
            return fail_vk("vkGetInstanceProcAddr(vkCreateDebugUtilsMessengerEXT)", VK_ERROR_EXTENSION_NOT_PRESENT);
        VK(create_messenger(a->instance, &mci, NULL, &a->messenger));
    }
    return true;
}

/* libsvk needs Vulkan 1.2 and a queue family with compute; among the
 * devices that have them, a discrete GPU, then integrated, virtual, CPU
 * (lavapipe), as svk_ctx_create would choose. */
static bool pick_device(app *a)
{
    static const int rank[] = {
        [VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU] = 5, [VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU] = 4,
        [VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU] = 3, [VK_PHYSICAL_DEVICE_TYPE_CPU] = 2,
        [VK_PHYSICAL_DEVICE_TYPE_OTHER] = 1,
    };
    VkPhysicalDevice devs[16];
    uint32_t n = 16;
    VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, devs);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return fail_vk("vkEnumeratePhysicalDevices", r);
    int best = 0;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        VkQueueFamilyProperties qf[16];
        uint32_t nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, qf);
        uint32_t family = UINT32_MAX;
        for (uint32_t q = 0; q < nq && family == UINT32_MAX; q++)
            if (qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT)
                family = q;
        int score = p.deviceType <= VK_PHYSICAL_DEVICE_TYPE_CPU ? rank[p.deviceType] : 1;
        if (p.apiVersion < VK_API_VERSION_1_2 || family == UINT32_MAX || score <= best)
            continue;
        best = score;
        a->phys = devs[i], a->props = p, a->family = family;
        a->timestamps = qf[family].timestampValidBits > 0 && p.limits.timestampPeriod > 0;
    }
    if (!best)
        fprintf(stderr, "embed_external_device: no Vulkan 1.2 device with a compute queue\n");
    return best > 0;
}

static bool create_device(app *a)
{
    uint32_t ne = 0;
    VK(vkEnumerateDeviceExtensionProperties(a->phys, NULL, &ne, NULL));
    VkExtensionProperties *ep = calloc(ne ? ne : 1, sizeof(*ep));
    if (!ep)
        return false;
    VkResult r = vkEnumerateDeviceExtensionProperties(a->phys, NULL, &ne, ep);
    for (uint32_t i = 0; r == VK_SUCCESS && i < ne; i++)
        a->push_descriptor |= !strcmp(ep[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    free(ep);
    VK(r);
    /* libsvk requires no feature beyond Vulkan 1.2's core, and uses what
     * the application enabled and tells it about (svk_import_params:
     * enabled_features). Here shaderInt64, where the device has it: libsvk's
     * GEMM for CPU devices then stores with 64-bit offsets. (Cooperative
     * matrices would take their extension, their feature, shaderFloat16 and
     * vulkanMemoryModel: svk/vulkan.h lists what each path needs.) */
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    vkGetPhysicalDeviceFeatures2(a->phys, &have);
    a->features = (VkPhysicalDeviceFeatures2){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    a->features.features.shaderInt64 = have.features.shaderInt64;
    /* VK_KHR_push_descriptor where the device has it: libsvk binds its
     * buffers with it, and with descriptor sets otherwise. */
    const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = a->family,
                                   .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &a->features,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = a->push_descriptor ? 1 : 0, .ppEnabledExtensionNames = exts};
    VK(vkCreateDevice(a->phys, &dci, NULL, &a->device));
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    return true;
}

/* The application's own objects for its work beside the training step. */
static bool create_own_objects(app *a)
{
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a->family};
    VK(vkCreateCommandPool(a->device, &cpci, NULL, &a->pool));
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = a->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VK(vkAllocateCommandBuffers(a->device, &cbai, &a->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(a->device, &fci, NULL, &a->fence));
    if (!a->timestamps)
        return true;
    VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    VK(vkCreateQueryPool(a->device, &qpci, NULL, &a->queries));
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 2 * sizeof(uint64_t),
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VK(vkCreateBuffer(a->device, &bci, NULL, &a->times));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, a->times, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(a->phys, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = UINT32_MAX};
    for (uint32_t i = 0; i < mp.memoryTypeCount && mai.memoryTypeIndex == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            mai.memoryTypeIndex = i;
    if (mai.memoryTypeIndex == UINT32_MAX)
        return fail_vk("finding host-visible memory", VK_ERROR_FEATURE_NOT_PRESENT);
    VK(vkAllocateMemory(a->device, &mai, NULL, &a->times_mem));
    VK(vkBindBufferMemory(a->device, a->times, a->times_mem, 0));
    VK(vkMapMemory(a->device, a->times_mem, 0, VK_WHOLE_SIZE, 0, (void **)&a->times_host));
    return true;
}

static void app_destroy(app *a)
{
    if (a->device) {
        if (a->times_mem) vkFreeMemory(a->device, a->times_mem, NULL); /* unmaps it */
        if (a->times) vkDestroyBuffer(a->device, a->times, NULL);
        if (a->queries) vkDestroyQueryPool(a->device, a->queries, NULL);
        if (a->fence) vkDestroyFence(a->device, a->fence, NULL);
        if (a->pool) vkDestroyCommandPool(a->device, a->pool, NULL);
        vkDestroyDevice(a->device, NULL);
    }
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger)
            destroy_messenger(a->instance, a->messenger, NULL);
    }
    if (a->instance)
        vkDestroyInstance(a->instance, NULL);
}

/* ---- one command buffer: the application's work and libsvk's step ---------- */

/* Recorded once and submitted every step, unchanged (svk/vulkan.h allows
 * it while the batch shape stays the same):
 *   barrier: the previous submission's copy is done before anything here writes
 *   reset the two timestamp queries
 *   timestamp 0
 *   libsvk's training step (it begins and ends with barriers of its own)
 *   timestamp 1
 *   copy both timestamps into the application's buffer, then make it host-visible */
static bool record(app *a, svk_model *model, uint32_t B, uint32_t T)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(a->cmd, &bi));
    if (a->timestamps) {
        VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
        vkCmdPipelineBarrier(a->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                             NULL, 0, NULL);
        vkCmdResetQueryPool(a->cmd, a->queries, 0, 2);
        vkCmdWriteTimestamp(a->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, a->queries, 0);
    }
    svk_status st = svk_model_record_train_step(model, a->cmd, B, T);
    if (st != SVK_OK) {
        fprintf(stderr, "embed_external_device: svk_model_record_train_step: %s\n", svk_last_error());
        return false;
    }
    if (a->timestamps) {
        vkCmdWriteTimestamp(a->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, a->queries, 1);
        vkCmdCopyQueryPoolResults(a->cmd, a->queries, 0, 2, a->times, 0, sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(a->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, NULL,
                             0, NULL);
    }
    VK(vkEndCommandBuffer(a->cmd));
    return true;
}

static bool submit_and_wait(app *a)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &a->cmd};
    VK(vkResetFences(a->device, 1, &a->fence));
    VK(vkQueueSubmit(a->queue, 1, &si, a->fence));
    VK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
    return true;
}

/* ---- training ------------------------------------------------------------- */

#define SVK(call)                                                                                        \
    do {                                                                                                 \
        if ((call) != SVK_OK) {                                                                          \
            fprintf(stderr, "embed_external_device: %s: %s\n", #call, svk_last_error());                \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

static bool train(app *a, bool quick)
{
    const uint32_t steps = quick ? 20 : 300, warmup = quick ? 5 : 50, B = quick ? 8 : 32, T = 32;
    const float peak_lr = quick ? 1e-2f : 3e-3f;
    bool ok = false;
    svk_ctx *ctx = NULL;
    svk_model *model = NULL;
    svk_addition *task = NULL;
    int32_t *tokens = malloc(sizeof(int32_t) * B * T), *targets = malloc(sizeof(int32_t) * B * T);
    if (!tokens || !targets)
        goto done;

    svk_import_params ip = svk_import_params_default();
    ip.get_instance_proc_addr = vkGetInstanceProcAddr; /* this program's loader */
    ip.instance = a->instance, ip.physical_device = a->phys, ip.device = a->device;
    ip.queue_family = a->family, ip.queue = a->queue;
    const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    if (a->push_descriptor)
        ip.enabled_extensions = exts, ip.num_enabled_extensions = 1;
    ip.enabled_features = &a->features; /* what vkCreateDevice was given */
    SVK(svk_ctx_import(&ip, &ctx));

    svk_model_params mp = svk_model_params_default(); /* SiameseNorm, 4 layers x 128 */
    mp.ctx = ctx;
    mp.config.ctx = T;
    if (quick)
        mp.config.layers = 2, mp.config.width = 32, mp.config.heads = 2;
    SVK(svk_model_create(&mp, &model));
    SVK(svk_addition_create(NULL, &task)); /* two-digit additions "a+b=c\n" */
    const svk_device_info *dev = svk_ctx_device_info(ctx);
    printf("device: %s (imported; push descriptors %s, shaderInt64 %s, timestamps %s)\n", dev->name,
           dev->push_descriptor ? "yes" : "no", dev->int64 ? "yes" : "no", a->timestamps ? "yes" : "no");
    printf("model: %s, %u layers x %u, %llu parameters; %u steps of %u x %u tokens\n",
           quick ? "siamese (tiny)" : "siamese", mp.config.layers, mp.config.width,
           (unsigned long long)svk_model_param_count(model), steps, B, T);

    if (!record(a, model, B, T))
        goto done;
    float first = NAN, last = NAN;
    double gpu_ms = 0;
    for (uint32_t s = 0; s < steps; s++) {
        float lr;
        SVK(svk_lr_schedule(s, steps, warmup, peak_lr, &lr));
        SVK(svk_addition_batch(task, B, T, tokens, targets));
        /* The previous submission has completed (its fence was waited on):
         * the batch and learning rate go into libsvk's mapped memory. */
        SVK(svk_model_prepare_train_step(model, tokens, targets, lr));
        if (!submit_and_wait(a))
            goto done;
        svk_step_info info;
        SVK(svk_model_last_step(model, &info));
        if (a->timestamps) /* the application's own result, from its own buffer */
            gpu_ms = (double)(a->times_host[1] - a->times_host[0]) * a->props.limits.timestampPeriod * 1e-6;
        if (s == 0)
            first = info.loss;
        last = info.loss;
        if (s == 0 || (s + 1) % (quick ? 5 : 50) == 0)
            printf("step %4u  loss %.4f  grad norm %6.3f  lr %.2e  GPU %.1f ms%s\n", s + 1, (double)info.loss,
                   (double)info.grad_norm, (double)lr, gpu_ms, info.skipped ? "  (skipped: not finite)" : "");
    }
    ok = isfinite(last) && last < first;
    printf("loss %.4f -> %.4f over %u steps recorded in the application's command buffer%s\n", (double)first,
           (double)last, steps, ok ? "" : ": it did not go down");
done:
    free(tokens);
    free(targets);
    svk_addition_destroy(&task);
    svk_model_destroy(&model); /* before the context, which waits for libsvk's use of the queue */
    svk_ctx_destroy(&ctx);
    return ok;
}

int main(int argc, char **argv)
{
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = true;
        } else {
            fprintf(stderr, "usage: embed_external_device [--quick]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    const char *env = getenv("SVK_VALIDATION");
    const bool validation = env && *env && strcmp(env, "0");
    app a = {0};
    bool ok = create_instance(&a, validation) && pick_device(&a) && create_device(&a) && create_own_objects(&a) &&
              train(&a, quick);
    app_destroy(&a); /* the validation layer reports leaked objects here */
    if (validation)
        printf("validation layer: %d message(s)\n", validation_messages);
    return ok && validation_messages == 0 ? 0 : 1;
}
