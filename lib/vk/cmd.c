#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "vk_buffer.h"
#include "cmd.h"
#include "vk_context.h"
#include "texel.h"

/* An access since the last barrier, in VkBuffer terms (several svk_buffers
 * share one VkBuffer, so overlap is decided on the block's buffer). */
typedef struct access {
    VkBuffer buffer;
    uint64_t begin, end;   /* bytes within the VkBuffer */
    bool write;
} access;

/* Descriptor sets for devices without push descriptors; they must outlive
 * every replay of the list, so the list owns them. */
typedef struct set_pool {
    VkDescriptorPool pool;
    uint32_t used, capacity;
    struct set_pool *next;
} set_pool;

#define SETS_PER_POOL 256u

/* The accesses recorded since the last barrier (track). */
typedef struct access_set {
    access *items;
    uint32_t n, cap;
} access_set;

/* Two timestamps around each command, where the list was created for them
 * (queries VK_NULL_HANDLE otherwise). */
typedef struct timestamps {
    VkQueryPool queries;
    uint32_t capacity;     /* commands */
    const char **labels;   /* per timed dispatch */
    const char **kernels;  /* per timed dispatch: the kernel's name, or the transfer's kind */
} timestamps;

struct svk_cmdlist {
    svk_ctx *ctx;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool recording, recorded, pending;

    access_set tracked;
    set_pool *sets;
    timestamps ts;

    uint32_t n_dispatch, n_barrier;
    bool no_barriers;
    bool external;         /* cmd is the application's */
};

static svk_status grow_accesses(svk_cmdlist *cl, uint32_t need)
{
    if (need <= cl->tracked.cap)
        return SVK_OK;
    uint32_t cap = cl->tracked.cap ? cl->tracked.cap : 32;
    while (cap < need)
        cap *= 2;
    access *na = svk_realloc(cl->tracked.items, cap * sizeof(*na));
    if (!na)
        return svk_error(&cl->ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory recording a command list");
    cl->tracked.items = na;
    cl->tracked.cap = cap;
    return SVK_OK;
}

static void free_sets(svk_cmdlist *cl)
{
    set_pool *p = cl->sets;
    while (p) {
        set_pool *next = p->next;
        cl->ctx->vkd.vkDestroyDescriptorPool(cl->ctx->vk.device, p->pool, NULL);
        free(p);
        p = next;
    }
    cl->sets = NULL;
}

svk_status svk_cmd_objects_create(svk_ctx *ctx, VkCommandPoolCreateFlags flags, const char *const what[3],
                                  VkCommandPool *out_pool, VkCommandBuffer *out_cmd, VkFence *out_fence)
{
    svk_status st = SVK_OK;
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = flags,
        .queueFamilyIndex = ctx->vk.queue_family,
    };
    /* Into locals: a failed create leaves its output undefined, and the
     * caller's destroy must only see handles that exist. */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    SVK_VK(ctx, ctx->vkd.vkCreateCommandPool(ctx->vk.device, &cpci, NULL, &pool), "%s", what[0]);
    *out_pool = pool;
    VkCommandBufferAllocateInfo cbai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    SVK_VK(ctx, ctx->vkd.vkAllocateCommandBuffers(ctx->vk.device, &cbai, &cmd), "%s", what[1]);
    *out_cmd = cmd;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    SVK_VK(ctx, ctx->vkd.vkCreateFence(ctx->vk.device, &fci, NULL, &fence), "%s", what[2]);
    *out_fence = fence;
    return SVK_OK;
fail:
    return st;
}

svk_status svk_cmdlist_create(svk_ctx *ctx, const svk_cmdlist_params *params, svk_cmdlist **out)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(ctx ? &ctx->log : NULL, ctx && out);
    *out = NULL;
    if ((st = svk_ctx_check_alive(ctx, __func__)) != SVK_OK)
        return st;
    svk_cmdlist *cl = svk_calloc(1, sizeof(*cl));
    if (!cl)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a command list");
    cl->ctx = ctx;
    cl->no_barriers = params && params->unsafe_no_barriers;
    if (params && params->external) {
        cl->external = true;
        cl->cmd = params->external;
        *out = cl;
        return SVK_OK;
    }

    const char *what[3] = {"creating a command list", "creating a command list", "creating a command list"};
    if ((st = svk_cmd_objects_create(ctx, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, what, &cl->pool, &cl->cmd,
                                     &cl->fence)) != SVK_OK)
        goto fail;

    if (params && params->timestamp_capacity) {
        if (!ctx->info.timestamps) {
            st = svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                           "timestamps requested but the device's compute queue has none");
            goto fail;
        }
        cl->ts.capacity = params->timestamp_capacity;
        VkQueryPoolCreateInfo qpci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2 * cl->ts.capacity,
        };
        VkQueryPool queries;
        SVK_VK(ctx, ctx->vkd.vkCreateQueryPool(ctx->vk.device, &qpci, NULL, &queries),
               "creating a timestamp pool of %u queries", qpci.queryCount);
        cl->ts.queries = queries;
        cl->ts.labels = svk_calloc(cl->ts.capacity, sizeof(*cl->ts.labels));
        cl->ts.kernels = svk_calloc(cl->ts.capacity, sizeof(*cl->ts.kernels));
        if (!cl->ts.labels || !cl->ts.kernels) {
            st = svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
            goto fail;
        }
    }
    *out = cl;
    return SVK_OK;

fail:
    svk_cmdlist_destroy(&cl);
    return st;
}

void svk_cmdlist_destroy(svk_cmdlist **pcl)
{
    if (!pcl || !*pcl)
        return;
    svk_cmdlist *cl = *pcl;
    svk_ctx *ctx = cl->ctx;
    /* Nothing the GPU may still read is freed before its fence signalled.
     * Should the wait fail but for a loss, the queue going idle says the
     * same; should that fail too, the list is left allocated: a leak, not
     * memory the GPU may still be reading. */
    if (cl->pending && !ctx->loss.lost) {
        VkResult r = ctx->vkd.vkWaitForFences(ctx->vk.device, 1, &cl->fence, VK_TRUE, UINT64_MAX);
        if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST)
            r = ctx->vkd.vkQueueWaitIdle(ctx->vk.queue);
        if (r == VK_ERROR_DEVICE_LOST) {
            svk_vk_fail(ctx, NULL, r, "vkWaitForFences", __FILE__, __LINE__, "destroying a command list");
        } else if (r != VK_SUCCESS) {
            *pcl = NULL;
            return;
        }
    }
    free_sets(cl);
    if (cl->ts.queries)
        ctx->vkd.vkDestroyQueryPool(ctx->vk.device, cl->ts.queries, NULL);
    if (cl->fence)
        ctx->vkd.vkDestroyFence(ctx->vk.device, cl->fence, NULL);
    if (cl->pool)
        ctx->vkd.vkDestroyCommandPool(ctx->vk.device, cl->pool, NULL);
    free(cl->ts.labels);
    free(cl->ts.kernels);
    free(cl->tracked.items);
    free(cl);
    *pcl = NULL;
}

/* Stages and accesses every tracked barrier orders: compute dispatches and
 * transfer commands (fills, copies) are tracked alike, so a barrier covers
 * both on each side. */
#define TRACKED_STAGES (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)
#define TRACKED_WRITES (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
#define TRACKED_ACCESSES \
    (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)

svk_status svk_cmdlist_begin(svk_cmdlist *cl)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(NULL, cl);
    svk_ctx *ctx = cl->ctx;
    if ((st = svk_ctx_check_alive(ctx, __func__)) != SVK_OK)
        return st;
    if (cl->recording)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list is already recording", __func__);
    if (cl->pending && (st = svk_cmdlist_wait(cl)) != SVK_OK)
        return st;
    free_sets(cl);
    cl->tracked.n = cl->n_dispatch = cl->n_barrier = 0;
    cl->recorded = false;

    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (!cl->external)
        SVK_VK(ctx, ctx->vkd.vkBeginCommandBuffer(cl->cmd, &bi), "beginning a command list");
    cl->recording = true;
    if (cl->ts.queries)
        ctx->vkd.vkCmdResetQueryPool(cl->cmd, cl->ts.queries, 0, 2 * cl->ts.capacity);

    /* Order this list after everything submitted before it on the queue
     * (earlier replays, uploads): a pipeline barrier's first scope reaches
     * back across submissions, a fence wait on the host alone does not make
     * device writes visible to later device reads. */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = TRACKED_WRITES,
        .dstAccessMask = TRACKED_ACCESSES,
    };
    ctx->vkd.vkCmdPipelineBarrier(cl->cmd, TRACKED_STAGES, TRACKED_STAGES, 0, 1, &mb, 0, NULL, 0, NULL);
    return SVK_OK;

fail:
    return st;
}

static bool overlaps(const access *a, VkBuffer buf, uint64_t begin, uint64_t end)
{
    return a->buffer == buf && a->begin < end && begin < a->end;
}

/* The bytes range r covers (size 0: to the end of the buffer) into *size;
 * false if that is empty or reaches outside the buffer. */
static bool range_bytes(const svk_range *r, uint64_t *size)
{
    *size = r->size ? r->size : r->buf->size - (r->offset < r->buf->size ? r->offset : r->buf->size);
    return r->offset <= r->buf->size && *size <= r->buf->size - r->offset && *size != 0;
}

static svk_status validate(svk_cmdlist *cl, const svk_dispatch *d, const svk_kernel_info *k)
{
    svk_ctx *ctx = cl->ctx;
    const char *label = d->label ? d->label : k->name;
    if (d->n_bindings != k->n_buffers)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "dispatch '%s': %u buffers bound, kernel '%s' takes %u",
                         label, d->n_bindings, k->name, k->n_buffers);
    if (d->push_size != k->push_size || (k->push_size && !d->push))
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "dispatch '%s': %u bytes of push constants, kernel '%s' takes %u",
                         label, d->push_size, k->name, k->push_size);
    for (int i = 0; i < 3; i++)
        if (d->groups[i] == 0 || d->groups[i] > ctx->info.max_workgroup_count[i])
            return svk_error(&ctx->log, d->groups[i] ? SVK_ERROR_TOO_LARGE : SVK_ERROR_INVALID_ARG,
                             "dispatch '%s': %u workgroups in dimension %d, the device allows 1..%u",
                             label, d->groups[i], i, ctx->info.max_workgroup_count[i]);
    for (uint32_t i = 0; i < d->n_bindings; i++) {
        const svk_range *r = &d->bindings[i];
        if (!r->buf || r->buf->ctx != ctx)
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                             "dispatch '%s': binding %u has %s", label, i,
                             r->buf ? "a buffer of another context" : "no buffer");
        if (r->buf->unbound)
            return svk_error(&ctx->log, SVK_ERROR_INTERNAL,
                             "dispatch '%s': binding %u is buffer '%s' of %llu bytes, past one binding's range: "
                             "only windows of it may be bound",
                             label, i, r->buf->name, (unsigned long long)r->buf->size);
        uint64_t size;
        if (!range_bytes(r, &size))
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                             "dispatch '%s': binding %u range [%llu, +%llu) is outside buffer '%s' of %llu bytes",
                             label, i, (unsigned long long)r->offset, (unsigned long long)size,
                             r->buf->name, (unsigned long long)r->buf->size);
        if (k->binding_kind[i] != SVK_BIND_STORAGE) {
            /* Operations check this before choosing a texel kernel (and fall
             * back to a storage-buffer one); reaching here is a bug. */
            char why[256];
            if ((k->write_mask >> i) & 1u)
                return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "kernel '%s': binding %u is a texel buffer and written",
                                 k->name, i);
            if (!svk_texel_usable(r->buf, k->binding_kind[i] == SVK_BIND_TEXEL_R32F ? SVK_TEXEL_R32F : SVK_TEXEL_RGBA32F,
                                  why, sizeof(why)))
                return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED, "dispatch '%s': binding %u: %s", label, i, why);
        }
    }
    if (k->push_size > ctx->info.max_push_constants)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED, "kernel '%s' needs %u bytes of push constants, the device has %u",
                         k->name, k->push_size, ctx->info.max_push_constants);
    return SVK_OK;
}

/* The bytes a binding exposes to the shader: the whole svk_buffer, since
 * that is the descriptor's range. Tracking the narrower declared range would
 * skip barriers between dispatches on disjoint parts of one buffer; those
 * are not data races, but the synchronisation validation layer judges by
 * descriptor ranges and would report them, and a clean validation run is a
 * promise of the test suite. Callers keep tensors that are worked on
 * independently in buffers of their own. */
static void bound_bytes(const svk_range *r, uint64_t *begin, uint64_t *end)
{
    *begin = r->buf->alloc.offset;
    *end = *begin + r->buf->size;
}

/* The barrier a command touching ranges r[0..n) (bit i of write_mask: r[i]
 * is written) needs after what was recorded since the last one; then its
 * accesses are added to the tracked set. */
static svk_status track(svk_cmdlist *cl, const svk_range *ranges, uint32_t n, uint32_t write_mask)
{
    bool need_memory = false, need_exec = false;
    for (uint32_t i = 0; i < n; i++) {
        const svk_range *r = &ranges[i];
        VkBuffer vb = r->buf->alloc.block->buffer;
        uint64_t begin, end;
        bound_bytes(r, &begin, &end);
        bool write = (write_mask >> i) & 1u;
        for (uint32_t j = 0; j < cl->tracked.n; j++) {
            const access *a = &cl->tracked.items[j];
            if (!overlaps(a, vb, begin, end))
                continue;
            if (a->write)
                need_memory = true;  /* RAW or WAW */
            else if (write)
                need_exec = true;    /* WAR */
        }
    }
    svk_ctx *ctx = cl->ctx;
    if (cl->no_barriers)
        need_memory = need_exec = false;
    if (need_memory) {
        VkMemoryBarrier mb = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            .srcAccessMask = TRACKED_WRITES,
            .dstAccessMask = TRACKED_ACCESSES,
        };
        ctx->vkd.vkCmdPipelineBarrier(cl->cmd, TRACKED_STAGES, TRACKED_STAGES, 0, 1, &mb, 0, NULL, 0, NULL);
        cl->tracked.n = 0; /* everything before is now ordered and visible */
        cl->n_barrier++;
    } else if (need_exec) {
        /* Reads before it are ordered; writes before it are still not
         * visible to later reads, so they stay tracked. */
        ctx->vkd.vkCmdPipelineBarrier(cl->cmd, TRACKED_STAGES, TRACKED_STAGES, 0, 0, NULL, 0, NULL, 0, NULL);
        uint32_t w = 0;
        for (uint32_t j = 0; j < cl->tracked.n; j++)
            if (cl->tracked.items[j].write)
                cl->tracked.items[w++] = cl->tracked.items[j];
        cl->tracked.n = w;
        cl->n_barrier++;
    }
    svk_status st = grow_accesses(cl, cl->tracked.n + n);
    if (st != SVK_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        const svk_range *r = &ranges[i];
        uint64_t begin, end;
        bound_bytes(r, &begin, &end);
        cl->tracked.items[cl->tracked.n++] = (access){
            .buffer = r->buf->alloc.block->buffer,
            .begin = begin,
            .end = end,
            .write = (write_mask >> i) & 1u,
        };
    }
    return SVK_OK;
}

static svk_status alloc_set(svk_cmdlist *cl, VkDescriptorSetLayout layout, VkDescriptorSet *set)
{
    svk_status st = SVK_OK;
    svk_ctx *ctx = cl->ctx;
    if (!cl->sets || cl->sets->used == cl->sets->capacity) {
        set_pool *p = svk_calloc(1, sizeof(*p));
        if (!p)
            return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
        /* Any set may hold SVK_MAX_BINDINGS of either type. */
        VkDescriptorPoolSize sizes[2] = {
            {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = SETS_PER_POOL * SVK_MAX_BINDINGS},
            {.type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .descriptorCount = SETS_PER_POOL * SVK_MAX_BINDINGS},
        };
        VkDescriptorPoolCreateInfo dpci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = SETS_PER_POOL,
            .poolSizeCount = 2,
            .pPoolSizes = sizes,
        };
        VkResult r = ctx->vkd.vkCreateDescriptorPool(ctx->vk.device, &dpci, NULL, &p->pool);
        if (r < 0) {
            free(p);
            return svk_vk_fail(ctx, NULL, r, "vkCreateDescriptorPool", __FILE__, __LINE__,
                               "recording a command list");
        }
        p->capacity = SETS_PER_POOL;
        p->next = cl->sets;
        cl->sets = p;
    }
    VkDescriptorSetAllocateInfo dsai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = cl->sets->pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &layout,
    };
    SVK_VK(ctx, ctx->vkd.vkAllocateDescriptorSets(ctx->vk.device, &dsai, set), "recording a command list");
    cl->sets->used++;
    return SVK_OK;
fail:
    return st;
}

/* Timestamps around one command (a dispatch or a transfer), where the list
 * records them: its label and kernel name (or transfer kind) beside them. */
static void timestamp_begin(svk_cmdlist *cl, const char *label, const char *kernel)
{
    if (!cl->ts.queries)
        return;
    cl->ts.labels[cl->n_dispatch] = label;
    cl->ts.kernels[cl->n_dispatch] = kernel;
    cl->ctx->vkd.vkCmdWriteTimestamp(cl->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, cl->ts.queries, 2 * cl->n_dispatch);
}

static void timestamp_end(svk_cmdlist *cl)
{
    if (cl->ts.queries)
        cl->ctx->vkd.vkCmdWriteTimestamp(cl->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, cl->ts.queries,
                                         2 * cl->n_dispatch + 1);
}

/* A dispatch's descriptor writes, with the buffer infos and texel views
 * they point to (so it must not move once filled). */
typedef struct descriptor_writes {
    VkDescriptorBufferInfo infos[SVK_MAX_BINDINGS];
    VkBufferView views[SVK_MAX_BINDINGS];
    VkWriteDescriptorSet writes[SVK_MAX_BINDINGS];
} descriptor_writes;

/* Fills w for d's bindings as kernel k declares them (storage buffers or
 * texel views, made on first use). */
static svk_status fill_descriptor_writes(const svk_dispatch *d, const svk_kernel_info *k, descriptor_writes *w)
{
    svk_status st = SVK_OK;
    for (uint32_t i = 0; i < d->n_bindings; i++) {
        svk_buffer *b = d->bindings[i].buf;
        const uint8_t kind = k->binding_kind[i];
        w->writes[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = svk_binding_descriptor_type(kind),
        };
        if (kind == SVK_BIND_STORAGE) {
            w->infos[i] = (VkDescriptorBufferInfo){
                .buffer = b->alloc.block->buffer,
                .offset = b->alloc.offset,
                .range = b->size,
            };
            w->writes[i].pBufferInfo = &w->infos[i];
        } else {
            if ((st = svk_buffer_view(b, kind == SVK_BIND_TEXEL_R32F ? SVK_TEXEL_R32F : SVK_TEXEL_RGBA32F,
                                      &w->views[i])) != SVK_OK)
                return st;
            w->writes[i].pTexelBufferView = &w->views[i];
        }
    }
    return SVK_OK;
}

/* Without push descriptors: a set the list owns, written with w. */
static svk_status write_descriptor_set(svk_cmdlist *cl, const svk_kernel_state *ks, uint32_t n,
                                       descriptor_writes *w, VkDescriptorSet *set)
{
    svk_status st = alloc_set(cl, ks->set_layout, set);
    if (st != SVK_OK)
        return st;
    for (uint32_t i = 0; i < n; i++)
        w->writes[i].dstSet = *set;
    cl->ctx->vkd.vkUpdateDescriptorSets(cl->ctx->vk.device, n, w->writes, 0, NULL);
    return SVK_OK;
}

/* Records the dispatch itself: pipeline, descriptors, push constants and
 * the workgroups, between its timestamps. */
static void record_dispatch(svk_cmdlist *cl, const svk_dispatch *d, const svk_kernel_info *k,
                            const svk_pipeline *pipe, const descriptor_writes *w, VkDescriptorSet set)
{
    svk_ctx *ctx = cl->ctx;
    const svk_kernel_state *ks = svk_pipeline_state(&ctx->pipelines, pipe);
    VkCommandBuffer cmd = cl->cmd;
    ctx->vkd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe->pipeline);
    if (ctx->pipelines.push_descriptor)
        ctx->vkd.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ks->layout, 0,
                                           d->n_bindings, w->writes);
    else
        ctx->vkd.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ks->layout, 0, 1,
                                         &set, 0, NULL);
    if (k->push_size)
        ctx->vkd.vkCmdPushConstants(cmd, ks->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_size, d->push);
    timestamp_begin(cl, d->label ? d->label : k->name, k->name);
    ctx->vkd.vkCmdDispatch(cmd, d->groups[0], d->groups[1], d->groups[2]);
    timestamp_end(cl);
    cl->n_dispatch++;
}

svk_status svk_cmdlist_dispatch(svk_cmdlist *cl, const svk_dispatch *d)
{
    SVK_CHECK_ARG(NULL, cl && d);
    svk_ctx *ctx = cl->ctx;
    svk_status st = svk_ctx_check_alive(ctx, __func__);
    if (st != SVK_OK)
        return st;
    if (!cl->recording)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list is not recording", __func__);
    const svk_kernel_info *k = svk_kernel_info_get(d->kernel);
    if (!k)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "dispatch of unknown kernel %d", (int)d->kernel);
    if ((st = validate(cl, d, k)) != SVK_OK)
        return st;
    if (cl->ts.queries && cl->n_dispatch >= cl->ts.capacity)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "dispatch '%s': more dispatches than the %u timestamps the list was created for",
                         d->label ? d->label : k->name, cl->ts.capacity);
    const svk_pipeline *pipe;
    if ((st = svk_pipeline_get(ctx, d->kernel, d->spec, &pipe)) != SVK_OK)
        return st;
    const svk_kernel_state *ks = svk_pipeline_state(&ctx->pipelines, pipe);
    descriptor_writes w;
    if ((st = fill_descriptor_writes(d, k, &w)) != SVK_OK)
        return st;
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!ctx->pipelines.push_descriptor && (st = write_descriptor_set(cl, ks, d->n_bindings, &w, &set)) != SVK_OK)
        return st;
    if ((st = track(cl, d->bindings, d->n_bindings, k->write_mask)) != SVK_OK)
        return st;
    record_dispatch(cl, d, k, pipe, &w, set);
    return SVK_OK;
}

/* Refuses a transfer the list cannot record (with why), and gives the
 * bytes of its destination (size[0]) and source (size[1], copies only). */
static svk_status check_transfer(svk_cmdlist *cl, const svk_transfer *t, const char *label, uint64_t size[2])
{
    svk_ctx *ctx = cl->ctx;
    const bool copy = t->kind == SVK_TRANSFER_COPY;
    if (t->kind != SVK_TRANSFER_FILL && !copy)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "transfer '%s': unknown kind %d", label, (int)t->kind);
    if (copy && !t->src.buf)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "transfer '%s': a copy without a source", label);
    const svk_range *rs[2] = {&t->dst, &t->src};
    for (int i = 0; i < (copy ? 2 : 1); i++) {
        const svk_range *r = rs[i];
        if (r->buf->ctx != ctx)
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "transfer '%s': buffer '%s' belongs to another context",
                             label, r->buf->name);
        if (!range_bytes(r, &size[i]))
            return svk_error(&ctx->log, SVK_ERROR_INTERNAL,
                             "transfer '%s': range [%llu, +%llu) is empty or outside buffer '%s' of %llu bytes", label,
                             (unsigned long long)r->offset, (unsigned long long)size[i], r->buf->name,
                             (unsigned long long)r->buf->size);
    }
    /* vkCmdFillBuffer writes whole 32-bit words at word offsets (its
     * buffer offsets include the sub-allocation's, a multiple of 256). */
    if (!copy && (t->dst.offset % 4 || size[0] % 4))
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "transfer '%s': a fill of [%llu, +%llu) is not whole words",
                         label, (unsigned long long)t->dst.offset, (unsigned long long)size[0]);
    const bool rows = copy && t->rows > 1;
    if (rows && (t->row_bytes == 0 || t->row_bytes > t->src_pitch || t->row_bytes > t->dst_pitch ||
                 size[1] != (t->rows - 1) * t->src_pitch + t->row_bytes ||
                 size[0] != (t->rows - 1) * t->dst_pitch + t->row_bytes))
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL,
                         "transfer '%s': %u rows of %llu bytes (pitches %llu, %llu) do not span [%llu, %llu) bytes",
                         label, t->rows, (unsigned long long)t->row_bytes, (unsigned long long)t->src_pitch,
                         (unsigned long long)t->dst_pitch, (unsigned long long)size[1], (unsigned long long)size[0]);
    if (copy && !rows && size[1] != size[0])
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "transfer '%s': copies %llu bytes into %llu", label,
                         (unsigned long long)size[1], (unsigned long long)size[0]);
    if (copy && t->src.buf->alloc.block == t->dst.buf->alloc.block) {
        const uint64_t s0 = t->src.buf->alloc.offset + t->src.offset, d0 = t->dst.buf->alloc.offset + t->dst.offset;
        if (s0 < d0 + size[0] && d0 < s0 + size[1])
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "transfer '%s': source and destination overlap", label);
    }
    if (cl->ts.queries && cl->n_dispatch >= cl->ts.capacity)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "transfer '%s': more commands than the %u timestamps the list was created for", label,
                         cl->ts.capacity);
    return SVK_OK;
}

/* Records the checked transfer t (size: check_transfer's) between its
 * timestamps; region: room for a copy of rows, NULL otherwise. */
static void record_transfer(svk_cmdlist *cl, const svk_transfer *t, const char *label, const uint64_t size[2],
                            VkBufferCopy *region)
{
    svk_ctx *ctx = cl->ctx;
    const bool copy = t->kind == SVK_TRANSFER_COPY;
    VkCommandBuffer cmd = cl->cmd;
    timestamp_begin(cl, label, copy ? "vkCmdCopyBuffer" : "vkCmdFillBuffer");
    const VkBuffer dst = t->dst.buf->alloc.block->buffer;
    const uint64_t dst_off = t->dst.buf->alloc.offset + t->dst.offset;
    if (region) {
        for (uint32_t r = 0; r < t->rows; r++)
            region[r] = (VkBufferCopy){
                .srcOffset = t->src.buf->alloc.offset + t->src.offset + r * t->src_pitch,
                .dstOffset = dst_off + r * t->dst_pitch,
                .size = t->row_bytes,
            };
        ctx->vkd.vkCmdCopyBuffer(cmd, t->src.buf->alloc.block->buffer, dst, t->rows, region);
    } else if (copy) {
        const VkBufferCopy whole = {
            .srcOffset = t->src.buf->alloc.offset + t->src.offset, .dstOffset = dst_off, .size = size[0],
        };
        ctx->vkd.vkCmdCopyBuffer(cmd, t->src.buf->alloc.block->buffer, dst, 1, &whole);
    } else {
        ctx->vkd.vkCmdFillBuffer(cmd, dst, dst_off, size[0], t->fill);
    }
    timestamp_end(cl);
    cl->n_dispatch++;
}

svk_status svk_cmdlist_transfer(svk_cmdlist *cl, const svk_transfer *t)
{
    SVK_CHECK_ARG(NULL, cl && t && t->dst.buf);
    svk_ctx *ctx = cl->ctx;
    svk_status st = svk_ctx_check_alive(ctx, __func__);
    if (st != SVK_OK)
        return st;
    const bool copy = t->kind == SVK_TRANSFER_COPY;
    const char *label = t->label ? t->label : copy ? "copy" : "fill";
    if (!cl->recording)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list is not recording", __func__);
    uint64_t size[2];
    if ((st = check_transfer(cl, t, label, size)) != SVK_OK)
        return st;
    /* (allocated first: nothing is recorded on error) */
    const bool rows = copy && t->rows > 1;
    VkBufferCopy *region = rows ? svk_malloc(t->rows * sizeof(*region)) : NULL;
    if (rows && !region)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "transfer '%s': %u copy regions", label, t->rows);
    const svk_range ranges[2] = {t->dst, t->src};
    if ((st = track(cl, ranges, copy ? 2 : 1, 1u)) == SVK_OK)
        record_transfer(cl, t, label, size, region);
    free(region);
    return st;
}

svk_status svk_cmdlist_end(svk_cmdlist *cl)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(NULL, cl);
    svk_ctx *ctx = cl->ctx;
    if (!cl->recording)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list is not recording", __func__);
    cl->recording = false;
    /* Whatever the kernels wrote to host-visible memory (losses, counts) is
     * readable by the host once the list's fence has signalled. */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = TRACKED_WRITES,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    ctx->vkd.vkCmdPipelineBarrier(cl->cmd, TRACKED_STAGES, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    if (!cl->external)
        SVK_VK(ctx, ctx->vkd.vkEndCommandBuffer(cl->cmd), "ending a command list");
    cl->recorded = true;
    return SVK_OK;
fail:
    return st;
}

svk_status svk_cmdlist_submit(svk_cmdlist *cl)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(NULL, cl);
    svk_ctx *ctx = cl->ctx;
    if ((st = svk_ctx_check_alive(ctx, __func__)) != SVK_OK)
        return st;
    if (cl->external)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list records into the application's command buffer, which the application submits", __func__);
    if (!cl->recorded)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: nothing recorded (call svk_cmdlist_end first)", __func__);
    if (cl->pending && (st = svk_cmdlist_wait(cl)) != SVK_OK)
        return st;
    SVK_VK(ctx, ctx->vkd.vkResetFences(ctx->vk.device, 1, &cl->fence), "submitting a command list");
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &cl->cmd,
    };
    SVK_VK(ctx, ctx->vkd.vkQueueSubmit(ctx->vk.queue, 1, &si, cl->fence), "submitting a command list");
    cl->pending = true;
    return SVK_OK;
fail:
    return st;
}

svk_status svk_cmdlist_wait(svk_cmdlist *cl)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(NULL, cl);
    svk_ctx *ctx = cl->ctx;
    if (!cl->pending)
        return SVK_OK;
    if ((st = svk_ctx_check_alive(ctx, __func__)) != SVK_OK)
        return st;
    SVK_VK(ctx, ctx->vkd.vkWaitForFences(ctx->vk.device, 1, &cl->fence, VK_TRUE, UINT64_MAX),
           "waiting for a command list");
    cl->pending = false;
    return SVK_OK;
fail:
    return st;
}

void svk_cmdlist_stats(const svk_cmdlist *cl, uint32_t *dispatches, uint32_t *barriers)
{
    if (dispatches)
        *dispatches = cl ? cl->n_dispatch : 0;
    if (barriers)
        *barriers = cl ? cl->n_barrier : 0;
}

svk_status svk_cmdlist_timings(svk_cmdlist *cl, double *ns, const char **labels, const char **kernels,
                               uint32_t *count)
{
    svk_status st = SVK_OK;
    SVK_CHECK_ARG(NULL, cl && count);
    svk_ctx *ctx = cl->ctx;
    if (!cl->ts.queries)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_STATE, "%s: the list records no timestamps", __func__);
    if ((st = svk_cmdlist_wait(cl)) != SVK_OK)
        return st;
    uint32_t n = cl->n_dispatch < *count ? cl->n_dispatch : *count;
    /* Read in chunks through the stack: a caller that measures a finished
     * step (lib/model/vk_submit.c) must not need memory to do it. */
    enum { CHUNK = 128 };
    uint64_t ticks[2 * CHUNK];
    const uint64_t mask = ctx->vk.timestamp_valid_bits >= 64 ? ~0ull : ((1ull << ctx->vk.timestamp_valid_bits) - 1);
    for (uint32_t first = 0; first < n; first += CHUNK) {
        const uint32_t k = n - first < CHUNK ? n - first : CHUNK;
        VkResult r = ctx->vkd.vkGetQueryPoolResults(ctx->vk.device, cl->ts.queries, 2 * first, 2 * k,
                                                    2 * k * sizeof(*ticks), ticks, sizeof(*ticks),
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r < 0)
            return svk_vk_fail(ctx, NULL, r, "vkGetQueryPoolResults", __FILE__, __LINE__, "reading timestamps");
        for (uint32_t j = 0; j < k; j++) {
            const uint32_t i = first + j;
            uint64_t t = ((ticks[2 * j + 1] & mask) - (ticks[2 * j] & mask)) & mask;
            if (ns)
                ns[i] = (double)t * ctx->info.timestamp_period_ns;
            if (labels)
                labels[i] = cl->ts.labels[i];
            if (kernels)
                kernels[i] = cl->ts.kernels[i];
        }
    }
    *count = n;
    return SVK_OK;
}
