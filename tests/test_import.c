/*
 * Embedding: the application creates its own instance and device (with the
 * validation layer when SVK_VALIDATION=1), libsvk borrows them, runs GEMM,
 * and after svk_ctx_destroy the application's device still works and
 * nothing of libsvk's is left on it (the layer reports leaked objects at
 * vkDestroyDevice). The import is done twice: once with
 * VK_KHR_push_descriptor listed as enabled, once without, which exercises
 * libsvk's descriptor-set fallback.
 *
 * The application enables what libsvk's kernel paths can use where the
 * device has it (shaderInt64; a cooperative-matrix extension with its
 * feature, shaderFloat16 and vulkanMemoryModel): imported with that
 * feature chain, the context takes the paths a context libsvk creates on
 * the same device takes, and without it none that needs a feature. The two
 * contexts then run side by side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/gemm.h"
#include "ref.h"
#include "svk/vulkan.h"
#include "test_util.h"
#include "vk/coopmat_khr.h"

static int app_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)sev; (void)type; (void)user;
    app_messages++;
    fprintf(stderr, "app validation: %s\n", data->pMessage);
    return VK_FALSE;
}

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    bool push_descriptor;
    /* What the application enabled on its device, as it hands them to
     * svk_ctx_import (enabled_extensions, enabled_features). */
    const char *exts[3];
    uint32_t n_exts;
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features f11; /* a structure libsvk does not read: skipped */
    VkPhysicalDeviceVulkan12Features f12;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV nvf;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR khrf;
} app;

static bool app_create(app *a, bool validation)
{
    memset(a, 0, sizeof(*a));
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT en[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
    };
    VkValidationFeaturesEXT vf = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
                                  .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = en};
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &vf : NULL,
        .pApplicationInfo = &ai,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = validation ? 2 : 0,
        .ppEnabledExtensionNames = exts,
    };
    if (vkCreateInstance(&ici, NULL, &a->instance) != VK_SUCCESS)
        return false;
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT cm =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!cm || cm(a->instance, &mci, NULL, &a->messenger) != VK_SUCCESS)
            return false;
    }
    uint32_t n = 1;
    VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, &a->phys);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return false;
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(a->phys, &nq, NULL);
    VkQueueFamilyProperties qf[16];
    nq = nq > 16 ? 16 : nq;
    vkGetPhysicalDeviceQueueFamilyProperties(a->phys, &nq, qf);
    a->family = UINT32_MAX;
    for (uint32_t i = 0; i < nq && a->family == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            a->family = i;
    uint32_t ne = 0;
    vkEnumerateDeviceExtensionProperties(a->phys, NULL, &ne, NULL);
    VkExtensionProperties *ep = calloc(ne ? ne : 1, sizeof(*ep));
    vkEnumerateDeviceExtensionProperties(a->phys, NULL, &ne, ep);
    bool nv = false, khr = false;
    for (uint32_t i = 0; i < ne; i++) {
        a->push_descriptor |= !strcmp(ep[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
        nv |= !strcmp(ep[i].extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
        khr |= !strcmp(ep[i].extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    }
    free(ep);
    /* Everything libsvk's paths can use, where the device has it: the
     * features as the device reports them, cut down to those. */
    a->khrf = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    a->nvf = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV, .pNext = khr ? &a->khrf : NULL};
    a->f12 = (VkPhysicalDeviceVulkan12Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                                .pNext = nv ? (void *)&a->nvf : khr ? (void *)&a->khrf : NULL};
    a->f11 = (VkPhysicalDeviceVulkan11Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                                .pNext = &a->f12};
    a->f2 = (VkPhysicalDeviceFeatures2){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &a->f11};
    vkGetPhysicalDeviceFeatures2(a->phys, &a->f2);
    const VkBool32 int64 = a->f2.features.shaderInt64, f16 = a->f12.shaderFloat16, vmm = a->f12.vulkanMemoryModel;
    const bool cm_base = f16 && vmm;
    const VkBool32 nv_on = nv && cm_base && a->nvf.cooperativeMatrix, khr_on = khr && cm_base && a->khrf.cooperativeMatrix;
    a->f2.features = (VkPhysicalDeviceFeatures){.shaderInt64 = int64};
    a->f11 = (VkPhysicalDeviceVulkan11Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                                .pNext = &a->f12};
    a->f12 = (VkPhysicalDeviceVulkan12Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                                .pNext = a->f12.pNext, .shaderFloat16 = f16 && (nv_on || khr_on),
                                                .vulkanMemoryModel = vmm && (nv_on || khr_on)};
    a->nvf.cooperativeMatrix = nv_on;
    a->nvf.cooperativeMatrixRobustBufferAccess = VK_FALSE;
    a->khrf.cooperativeMatrix = khr_on;
    a->khrf.cooperativeMatrixRobustBufferAccess = VK_FALSE;
    if (a->push_descriptor)
        a->exts[a->n_exts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    if (nv_on)
        a->exts[a->n_exts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (khr_on)
        a->exts[a->n_exts++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (!nv_on && !khr_on)
        a->f12.pNext = NULL;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = a->family,
                                   .queueCount = 1, .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &a->f2, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci, .enabledExtensionCount = a->n_exts,
                              .ppEnabledExtensionNames = a->exts};
    if (a->family == UINT32_MAX || vkCreateDevice(a->phys, &dci, NULL, &a->device) != VK_SUCCESS)
        return false;
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    return true;
}

/* The application uses its device after libsvk is gone: fill a buffer on
 * the GPU and read it back. */
static bool app_still_works(app *a)
{
    bool ok = false;
    VkBuffer buf = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 256,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    if (vkCreateBuffer(a->device, &bci, NULL, &buf) != VK_SUCCESS)
        goto out;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(a->phys, &mp);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    if (type == UINT32_MAX || vkAllocateMemory(a->device, &mai, NULL, &mem) != VK_SUCCESS ||
        vkBindBufferMemory(a->device, buf, mem, 0) != VK_SUCCESS)
        goto out;
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a->family};
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (vkCreateCommandPool(a->device, &cpci, NULL, &pool) != VK_SUCCESS)
        goto out;
    cbai.commandPool = pool;
    if (vkAllocateCommandBuffers(a->device, &cbai, &cmd) != VK_SUCCESS ||
        vkCreateFence(a->device, &fci, NULL, &fence) != VK_SUCCESS)
        goto out;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &bi);
    vkCmdFillBuffer(cmd, buf, 0, 256, 0xabcdef01u);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vkEndCommandBuffer(cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    void *p;
    if (vkQueueSubmit(a->queue, 1, &si, fence) != VK_SUCCESS ||
        vkWaitForFences(a->device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS ||
        vkMapMemory(a->device, mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        goto out;
    ok = ((uint32_t *)p)[63] == 0xabcdef01u;
    vkUnmapMemory(a->device, mem);
out:
    if (fence) vkDestroyFence(a->device, fence, NULL);
    if (pool) vkDestroyCommandPool(a->device, pool, NULL);
    if (buf) vkDestroyBuffer(a->device, buf, NULL);
    if (mem) vkFreeMemory(a->device, mem, NULL);
    return ok;
}

static void app_destroy(app *a)
{
    if (a->device) vkDestroyDevice(a->device, NULL);
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (dm) dm(a->instance, a->messenger, NULL);
    }
    if (a->instance) vkDestroyInstance(a->instance, NULL);
}

/* A small GEMM through the imported context, checked against the reference. */
static double imported_gemm(svk_ctx *ctx, cf_rng *rng)
{
    enum { M = 19, N = 23, K = 29 };
    float ha[M * K], hb[K * N], hc[M * N];
    double da[M * K], db[K * N], dc[M * N];
    cf_fill_uniform(rng, ha, M * K, -1, 1);
    cf_fill_uniform(rng, hb, K * N, -1, 1);
    for (int i = 0; i < M * K; i++) da[i] = ha[i];
    for (int i = 0; i < K * N; i++) db[i] = hb[i];
    svk_ref_gemm_f64(0, 0, M, N, K, 1.0, da, K, 0, db, N, 0, 0.0, dc, N, 0, NULL, 1);
    svk_buffer_params p = svk_buffer_params_default();
    svk_buffer *a = NULL, *b = NULL, *c = NULL;
    svk_cmdlist *cl = NULL;
    double err = 1e30;
    p.size = sizeof(ha);
    if (svk_buffer_create(ctx, &p, &a) != SVK_OK || svk_buffer_upload(a, 0, ha, sizeof(ha)) != SVK_OK)
        goto out;
    p.size = sizeof(hb);
    if (svk_buffer_create(ctx, &p, &b) != SVK_OK || svk_buffer_upload(b, 0, hb, sizeof(hb)) != SVK_OK)
        goto out;
    p.size = sizeof(hc);
    if (svk_buffer_create(ctx, &p, &c) != SVK_OK)
        goto out;
    svk_gemm_args g = {.shape = {.M = M, .N = N, .K = K}, .alpha = 1.0f, .a.buf = a, .b.buf = b, .c.buf = c};
    if (svk_cmdlist_create(ctx, NULL, &cl) != SVK_OK || svk_cmdlist_begin(cl) != SVK_OK ||
        svk_gemm_record(cl, &g) != SVK_OK || svk_cmdlist_end(cl) != SVK_OK || svk_cmdlist_submit(cl) != SVK_OK ||
        svk_buffer_download(c, 0, hc, sizeof(hc)) != SVK_OK)
        goto out;
    err = cf_rel_error(hc, dc, M * N);
out:
    if (err > 1)
        printf("     imported gemm failed: %s\n", svk_ctx_last_error(ctx));
    svk_cmdlist_destroy(&cl);
    svk_buffer_destroy(&a);
    svk_buffer_destroy(&b);
    svk_buffer_destroy(&c);
    return err;
}

/* The kernel paths of an imported device follow what the application
 * enabled: with its feature chain, those of a context libsvk creates on the
 * same device (which enables all it uses); without, none that needs a
 * feature. The created context and the imports coexist, each computing
 * through its own tables. */
static void import_paths(app *a, cf_rng *rng, tu_tally *t)
{
    svk_ctx_params cp = svk_ctx_params_default();
    cp.device_index = 0; /* the application's device: the first it enumerated */
    cp.flags = SVK_CTX_NO_PIPELINE_CACHE;
    svk_ctx *own = NULL;
    svk_status st = svk_ctx_create(&cp, &own);
    tu_check(t, st == SVK_OK, "a context libsvk creates on the same device: %s", st ? svk_last_error() : "ok");
    if (st != SVK_OK)
        return;
    const svk_device_info *o = svk_ctx_device_info(own);
    printf("     created: int64 %d, cooperative matrices %ux%ux%u (%s)\n", o->int64, o->coopmat_m, o->coopmat_k,
           o->coopmat_n, o->coopmat_m ? (o->coopmat_khr ? "KHR" : "NV") : "none");
    for (int with = 1; with >= 0; with--) {
        svk_import_params ip = svk_import_params_default();
        ip.instance = a->instance, ip.physical_device = a->phys, ip.device = a->device;
        ip.queue_family = a->family, ip.queue = a->queue, ip.flags = SVK_CTX_NO_PIPELINE_CACHE;
        ip.enabled_extensions = a->exts, ip.num_enabled_extensions = a->n_exts;
        ip.enabled_features = with ? &a->f2 : NULL;
        svk_ctx *ctx = NULL;
        st = svk_ctx_import(&ip, &ctx);
        tu_check(t, st == SVK_OK, "import %s the feature chain: %s", with ? "with" : "without",
                 st ? svk_last_error() : "ok");
        if (st != SVK_OK)
            continue;
        const svk_device_info *d = svk_ctx_device_info(ctx);
        if (with)
            tu_check(t, d->int64 == o->int64 && d->coopmat_m == o->coopmat_m && d->coopmat_n == o->coopmat_n &&
                            d->coopmat_k == o->coopmat_k && d->coopmat_khr == o->coopmat_khr,
                     "with the chain, the created context's paths: int64 %d (created %d), cooperative matrices "
                     "%ux%ux%u %s (created %ux%ux%u %s)",
                     d->int64, o->int64, d->coopmat_m, d->coopmat_k, d->coopmat_n, d->coopmat_khr ? "KHR" : "NV",
                     o->coopmat_m, o->coopmat_k, o->coopmat_n, o->coopmat_khr ? "KHR" : "NV");
        else
            tu_check(t, !d->int64 && !d->coopmat_m, "without it, no path that needs a feature (int64 %d, coopmat %u)",
                     d->int64, d->coopmat_m);
        /* Both contexts work, one after the other and alive together. */
        double e1 = imported_gemm(ctx, rng), e2 = imported_gemm(own, rng);
        tu_check(t, e1 < 1e-5 && e2 < 1e-5, "GEMM on the import (%s the chain) and on the created context beside it: "
                 "rel err %.3e, %.3e", with ? "with" : "without", e1, e2);
        svk_ctx_destroy(&ctx);
    }
    svk_ctx_destroy(&own);
    tu_check(t, app_still_works(a), "the application's device works after both are gone");

    /* A chain that is not a VkPhysicalDeviceFeatures2 is refused. */
    VkPhysicalDeviceFeatures2 wrong = a->f2;
    wrong.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    svk_import_params ip = svk_import_params_default();
    ip.instance = a->instance, ip.physical_device = a->phys, ip.device = a->device;
    ip.queue_family = a->family, ip.queue = a->queue, ip.enabled_features = &wrong;
    svk_ctx *ctx = NULL;
    st = svk_ctx_import(&ip, &ctx);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !ctx, "enabled_features of another sType refused: %s", svk_last_error());
}

/* The application records a model's training step into its own command
 * buffer and submits it; the losses equal those of svk_model_train_step. */
static void external_step(app *a, tu_tally *t)
{
    svk_import_params ip = svk_import_params_default();
    ip.instance = a->instance, ip.physical_device = a->phys, ip.device = a->device;
    ip.queue_family = a->family, ip.queue = a->queue, ip.flags = SVK_CTX_NO_PIPELINE_CACHE;
    const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    if (a->push_descriptor) {
        ip.enabled_extensions = exts;
        ip.num_enabled_extensions = 1;
    }
    svk_ctx *ctx = NULL;
    svk_model *mine = NULL, *theirs = NULL;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    bool ok = svk_ctx_import(&ip, &ctx) == SVK_OK;
    svk_model_params mp = svk_model_params_default();
    mp.ctx = ctx;
    mp.config.vocab = 40, mp.config.ctx = 16, mp.config.width = 16, mp.config.layers = 2, mp.config.heads = 2;
    ok = ok && svk_model_create(&mp, &mine) == SVK_OK && svk_model_create(&mp, &theirs) == SVK_OK;
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = a->family};
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ok = ok && vkCreateCommandPool(a->device, &cpci, NULL, &pool) == VK_SUCCESS;
    cbai.commandPool = pool;
    ok = ok && vkAllocateCommandBuffers(a->device, &cbai, &cmd) == VK_SUCCESS &&
         vkCreateFence(a->device, &fci, NULL, &fence) == VK_SUCCESS;
    enum { B = 2, T = 8 };
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ok = ok && vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS && svk_model_record_train_step(theirs, cmd, B, T) == SVK_OK &&
         vkEndCommandBuffer(cmd) == VK_SUCCESS;
    if (!ok)
        printf("     %s\n", svk_last_error());
    int32_t tok[B * T], tgt[B * T];
    bool same = ok;
    for (int step = 0; same && step < 5; step++) {
        for (int i = 0; i < B * T; i++) {
            tok[i] = (step * 7 + i * 3) % 40;
            tgt[i] = (tok[i] + 1) % 40;
        }
        float want, got;
        svk_step_info info;
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        same = svk_model_train_step(mine, tok, tgt, B, T, 1e-3f, &want) == SVK_OK &&
               svk_model_prepare_train_step(theirs, tok, tgt, 1e-3f) == SVK_OK &&
               vkResetFences(a->device, 1, &fence) == VK_SUCCESS &&
               vkQueueSubmit(a->queue, 1, &si, fence) == VK_SUCCESS &&
               vkWaitForFences(a->device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS &&
               svk_model_last_step(theirs, &info) == SVK_OK;
        got = info.loss;
        same = same && got == want;
        if (!same)
            printf("     step %d: %g vs %g (%s)\n", step, (double)got, (double)want, svk_last_error());
    }
    tu_check(t, same, "a step recorded into the application's command buffer trains as svk_model_train_step does");
    if (fence)
        vkDestroyFence(a->device, fence, NULL);
    if (pool)
        vkDestroyCommandPool(a->device, pool, NULL);
    svk_model_destroy(&mine);
    svk_model_destroy(&theirs);
    svk_ctx_destroy(&ctx);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_import", &args);
    tu_tally t = {0, 0};
    const char *env = getenv("SVK_VALIDATION");
    bool validation = env && *env && strcmp(env, "0");
    app a;
    if (!app_create(&a, validation)) {
        tu_check(&t, false, "the application's own instance and device");
        app_destroy(&a);
        return tu_finish(&t);
    }
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);
    for (int with_push = a.push_descriptor ? 1 : 0; with_push >= 0; with_push--) {
        const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
        svk_import_params ip = {
            .instance = a.instance,
            .physical_device = a.phys,
            .device = a.device,
            .queue_family = a.family,
            .queue = a.queue,
            .enabled_extensions = exts,
            .num_enabled_extensions = with_push ? 1 : 0,
            .flags = SVK_CTX_NO_PIPELINE_CACHE,
            .get_instance_proc_addr = with_push ? vkGetInstanceProcAddr : NULL,
        };
        svk_ctx *ctx = NULL;
        svk_status st = svk_ctx_import(&ip, &ctx);
        const char *path = with_push ? "push descriptors, app's vkGetInstanceProcAddr" : "descriptor sets, libsvk's loader";
        tu_check(&t, st == SVK_OK, "import (%s): %s %s", path, svk_status_string(st), st ? svk_last_error() : "");
        if (st != SVK_OK)
            continue;
        double err = imported_gemm(ctx, &rng);
        tu_check(&t, err < 1e-5, "GEMM on the imported device (%s): rel err %.3e", path, err);
        svk_ctx_destroy(&ctx);
        tu_check(&t, ctx == NULL, "svk_ctx_destroy sets the handle to NULL");
        tu_check(&t, app_still_works(&a), "the application's device works after libsvk is gone (%s)", path);
    }
    /* The defaults: nothing borrowed, and the log level svk_ctx_params has. */
    const svk_import_params dp = svk_import_params_default();
    bool zero = !dp.get_instance_proc_addr && !dp.instance && !dp.physical_device && !dp.device && !dp.queue &&
                dp.queue_family == 0 && !dp.enabled_extensions && !dp.num_enabled_extensions && !dp.flags &&
                !dp.log_fn && !dp.log_user && !dp.cache_dir;
    for (size_t i = 0; i < sizeof(dp.reserved) / sizeof(dp.reserved[0]); i++)
        zero = zero && !dp.reserved[i];
    tu_check(&t, zero && dp.log_level == svk_ctx_params_default().log_level,
             "svk_import_params_default: no handles, no flags, log level %d as svk_ctx_params_default", dp.log_level);
    /* Bad imports are refused, not crashed on. */
    svk_import_params bad = svk_import_params_default();
    bad.instance = a.instance;
    svk_ctx *ctx = NULL;
    svk_status st = svk_ctx_import(&bad, &ctx);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && !ctx, "import without a device refused: %s", svk_last_error());
    svk_import_params badq = svk_import_params_default();
    badq.instance = a.instance, badq.physical_device = a.phys, badq.device = a.device;
    badq.queue_family = 999, badq.queue = a.queue;
    st = svk_ctx_import(&badq, &ctx);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && !ctx, "import with a bad queue family refused: %s", svk_last_error());

    import_paths(&a, &rng, &t);
    external_step(&a, &t);
    app_destroy(&a);
    if (validation)
        tu_check(&t, app_messages == 0, "validation layer reported %d message(s), device destruction included",
                 app_messages);
    return tu_finish(&t);
}
