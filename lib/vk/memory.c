#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/sysmem.h"
#include "vk_context.h"

/* Blocks are this large unless the device allows less; bigger requests get a
 * block of their own. 256 MiB keeps the allocation count small on real GPUs
 * while a lavapipe test that needs a few MiB touches only what it uses. */
#define SVK_BLOCK_SIZE (256ull << 20)

static const char *const pool_names[SVK_POOL_COUNT] = {"device", "mapped", "staging"};

/* maxBufferSize, where the device reports it (Vulkan 1.3 core; the same
 * structure as VK_KHR_maintenance4's, which 1.2 devices rarely have and
 * libsvk does not look for): 0 otherwise. */
static uint64_t query_max_buffer_size(const svk_ctx *ctx)
{
    if (ctx->info.api_version < VK_API_VERSION_1_3)
        return 0;
    VkPhysicalDeviceMaintenance4Properties m4 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m4};
    ctx->vki.vkGetPhysicalDeviceProperties2(ctx->vk.physical_device, &p2);
    return m4.maxBufferSize;
}

void svk_memory_init(svk_ctx *ctx)
{
    memset(&ctx->memory, 0, sizeof(ctx->memory));
    ctx->memory.max_buffer_size = query_max_buffer_size(ctx);
    uint64_t block = SVK_BLOCK_SIZE;
    if (ctx->info.max_allocation_size && block > ctx->info.max_allocation_size)
        block = ctx->info.max_allocation_size;
    if (ctx->memory.max_buffer_size && block > ctx->memory.max_buffer_size)
        block = ctx->memory.max_buffer_size;
    for (int p = 0; p < SVK_POOL_COUNT; p++) {
        ctx->memory.pools[p].type_index = UINT32_MAX;
        /* Host-visible pools hold inputs and bounce buffers: small. */
        ctx->memory.pools[p].block_size = p == SVK_POOL_DEVICE ? block : (block < (32ull << 20) ? block : (32ull << 20));
    }
}

static void block_destroy(svk_ctx *ctx, svk_mem_block *b)
{
    if (b->mapped)
        ctx->vkd.vkUnmapMemory(ctx->vk.device, b->memory);
    if (b->buffer)
        ctx->vkd.vkDestroyBuffer(ctx->vk.device, b->buffer, NULL);
    if (b->memory)
        ctx->vkd.vkFreeMemory(ctx->vk.device, b->memory, NULL);
    ctx->memory.bytes_allocated -= b->memory ? b->size : 0;
    ctx->memory.allocations -= b->memory ? 1 : 0;
    free(b->free);
    free(b);
}

void svk_memory_destroy(svk_ctx *ctx)
{
    for (int p = 0; p < SVK_POOL_COUNT; p++) {
        svk_mem_block *b = ctx->memory.pools[p].blocks;
        while (b) {
            svk_mem_block *next = b->next;
            block_destroy(ctx, b);
            b = next;
        }
        ctx->memory.pools[p].blocks = NULL;
    }
}

/* Best memory type for a pool among those the buffer allows: required flags
 * must all be present; preferred ones break ties, lowest index first (the
 * order drivers list types in is their own preference). */
static uint32_t choose_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t allowed,
                            VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred)
{
    uint32_t best = UINT32_MAX;
    int best_score = -1;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
        if (!(allowed & (1u << i)) || (f & required) != required)
            continue;
        int score = __builtin_popcount(f & preferred);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

static void pool_flags(svk_pool_kind pool, VkMemoryPropertyFlags *req, VkMemoryPropertyFlags *pref)
{
    switch (pool) {
    case SVK_POOL_DEVICE:
        *req = 0;
        *pref = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    case SVK_POOL_MAPPED:
        *req = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        *pref = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    default:
        *req = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        *pref = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        break;
    }
}

/* The block's buffer, of size bytes (into b->buffer). */
static svk_status block_buffer(svk_ctx *ctx, svk_pool_kind pool, uint64_t size, const char *name, svk_mem_block *b)
{
    svk_status st = SVK_OK;
    char b1[32];
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        /* Texel usage where the device can read floats that way: kernels
         * may then view any tensor as a uniform texel buffer (svk_buffer_view). */
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 (ctx->profile.texel.r32f || ctx->profile.texel.rgba32f ? VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT : 0),
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    /* Every create writes into a local first: after a failure its output
     * is undefined (Vulkan spec, "Return Codes"), and block_destroy must
     * only see handles that exist. */
    VkBuffer buffer;
    SVK_VK(ctx, ctx->vkd.vkCreateBuffer(ctx->vk.device, &bci, NULL, &buffer),
           "creating a %s buffer of %s for '%s'", pool_names[pool], svk_fmt_bytes(b1, size), name);
    b->buffer = buffer;
    return SVK_OK;
fail:
    return st;
}

/* Memory of the pool's type for b's buffer, bound to it, and mapped for
 * the host-visible pools. */
static svk_status block_memory(svk_ctx *ctx, svk_pool_kind pool, uint64_t size, const char *name, svk_mem_block *b)
{
    svk_status st = SVK_OK;
    char b1[32], b2[32];
    VkMemoryRequirements req;
    ctx->vkd.vkGetBufferMemoryRequirements(ctx->vk.device, b->buffer, &req);
    VkMemoryPropertyFlags required, preferred;
    pool_flags(pool, &required, &preferred);
    uint32_t type = choose_type(&ctx->vk.mem_props, req.memoryTypeBits, required, preferred);
    if (type == UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "no memory type suits the %s pool (need property flags 0x%x)", pool_names[pool],
                         (unsigned)required);
    ctx->memory.pools[pool].type_index = type;

    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    uint32_t heap = ctx->vk.mem_props.memoryTypes[type].heapIndex;
    VkDeviceMemory memory;
    SVK_VK(ctx, ctx->vkd.vkAllocateMemory(ctx->vk.device, &mai, NULL, &memory),
           "allocating %s of %s memory for '%s' (heap %u holds %s)", svk_fmt_bytes(b1, req.size),
           pool_names[pool], name, heap, svk_fmt_bytes(b2, ctx->vk.mem_props.memoryHeaps[heap].size));
    b->memory = memory;
    b->size = size;
    ctx->memory.bytes_allocated += size;
    ctx->memory.allocations++;
    SVK_VK(ctx, ctx->vkd.vkBindBufferMemory(ctx->vk.device, b->buffer, b->memory, 0),
           "binding a %s memory block", pool_names[pool]);
    if (pool != SVK_POOL_DEVICE) {
        void *mapped;
        SVK_VK(ctx, ctx->vkd.vkMapMemory(ctx->vk.device, b->memory, 0, VK_WHOLE_SIZE, 0, &mapped),
               "mapping a %s memory block", pool_names[pool]);
        b->mapped = mapped;
    }
    return SVK_OK;
fail:
    return st;
}

static svk_status block_create(svk_ctx *ctx, svk_pool_kind pool, uint64_t size,
                               const char *name, svk_mem_block **out)
{
    svk_status st = SVK_OK;
    svk_mem_pool *mp = &ctx->memory.pools[pool];
    svk_mem_block *b = svk_calloc(1, sizeof(*b));
    if (!b)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory creating a %s memory block", pool_names[pool]);
    if ((st = block_buffer(ctx, pool, size, name, b)) != SVK_OK ||
        (st = block_memory(ctx, pool, size, name, b)) != SVK_OK)
        goto fail;
    b->cap_free = 8;
    b->free = svk_malloc(b->cap_free * sizeof(*b->free));
    if (!b->free) {
        st = svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
        goto fail;
    }
    b->free[0] = (svk_free_range){0, size};
    b->n_free = 1;
    b->next = mp->blocks;
    mp->blocks = b;
    *out = b;
    return SVK_OK;

fail:
    block_destroy(ctx, b);
    return st;
}

/* First fit within one block; returns false if nothing fits. */
static bool block_take(svk_mem_block *b, uint64_t size, uint64_t *offset)
{
    for (uint32_t i = 0; i < b->n_free; i++) {
        svk_free_range *r = &b->free[i];
        if (r->size < size)
            continue;
        *offset = r->offset;
        r->offset += size;
        r->size -= size;
        if (r->size == 0) {
            memmove(r, r + 1, (b->n_free - i - 1) * sizeof(*r));
            b->n_free--;
        }
        b->live++;
        return true;
    }
    return false;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

svk_status svk_mem_alloc_range(svk_ctx *ctx, svk_pool_kind pool, uint64_t size,
                               const char *name, svk_mem_alloc *out)
{
    memset(out, 0, sizeof(*out));
    char b1[32], b2[32];
    if (size == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "allocation of 0 bytes for '%s'", name);
    if (ctx->info.max_allocation_size && size > ctx->info.max_allocation_size)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE,
                         "'%s' needs %s, more than the device's largest allocation (%s)", name,
                         svk_fmt_bytes(b1, size), svk_fmt_bytes(b2, ctx->info.max_allocation_size));
    if (ctx->memory.max_buffer_size && size > ctx->memory.max_buffer_size)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE,
                         "'%s' needs %s, more than the device's maxBufferSize (%s)", name, svk_fmt_bytes(b1, size),
                         svk_fmt_bytes(b2, ctx->memory.max_buffer_size));
    uint64_t rounded = round_up(size, SVK_MEM_ALIGN);
    svk_mem_pool *mp = &ctx->memory.pools[pool];

    svk_mem_block *b;
    uint64_t offset = 0;
    for (b = mp->blocks; b; b = b->next)
        if (block_take(b, rounded, &offset))
            break;
    if (!b) {
        uint64_t bsize = rounded > mp->block_size ? rounded : mp->block_size;
        svk_status st = block_create(ctx, pool, bsize, name, &b);
        if (st != SVK_OK && bsize > rounded) {
            /* A full block may not fit where the request alone would. */
            st = block_create(ctx, pool, rounded, name, &b);
        }
        if (st != SVK_OK)
            return st;
        block_take(b, rounded, &offset);
    }
    out->block = b;
    out->offset = offset;
    out->size = rounded;
    out->pool = pool;
    ctx->memory.bytes_in_use += rounded;
    mp->bytes_in_use += rounded;
    return SVK_OK;
}

/* Returns a range to its block's free list, merging neighbours. */
static bool block_give(svk_mem_block *b, uint64_t offset, uint64_t size)
{
    uint32_t i = 0;
    while (i < b->n_free && b->free[i].offset < offset)
        i++;
    bool merge_prev = i > 0 && b->free[i - 1].offset + b->free[i - 1].size == offset;
    bool merge_next = i < b->n_free && offset + size == b->free[i].offset;
    if (merge_prev && merge_next) {
        b->free[i - 1].size += size + b->free[i].size;
        memmove(&b->free[i], &b->free[i + 1], (b->n_free - i - 1) * sizeof(b->free[0]));
        b->n_free--;
    } else if (merge_prev) {
        b->free[i - 1].size += size;
    } else if (merge_next) {
        b->free[i].offset = offset;
        b->free[i].size += size;
    } else {
        if (b->n_free == b->cap_free) {
            uint32_t cap = b->cap_free * 2;
            svk_free_range *nf = svk_realloc(b->free, cap * sizeof(*nf));
            if (!nf)
                return false; /* the range leaks into the block until it is freed */
            b->free = nf;
            b->cap_free = cap;
        }
        memmove(&b->free[i + 1], &b->free[i], (b->n_free - i) * sizeof(b->free[0]));
        b->free[i] = (svk_free_range){offset, size};
        b->n_free++;
    }
    return true;
}

void svk_mem_free_range(svk_ctx *ctx, svk_mem_alloc *a)
{
    if (!a || !a->block)
        return;
    svk_mem_block *b = a->block;
    block_give(b, a->offset, a->size);
    b->live--;
    ctx->memory.bytes_in_use -= a->size;
    /* An empty block goes back to the driver unless it is the pool's last. */
    svk_mem_pool *mp = &ctx->memory.pools[a->pool];
    mp->bytes_in_use -= a->size;
    if (b->live == 0 && !(mp->blocks == b && b->next == NULL)) {
        svk_mem_block **pp = &mp->blocks;
        while (*pp != b)
            pp = &(*pp)->next;
        *pp = b->next;
        block_destroy(ctx, b);
    }
    memset(a, 0, sizeof(*a));
}

uint32_t svk_mem_pool_heap(const svk_ctx *ctx, svk_pool_kind pool)
{
    uint32_t type = ctx->memory.pools[pool].type_index;
    if (type == UINT32_MAX) {
        VkMemoryPropertyFlags required, preferred;
        pool_flags(pool, &required, &preferred);
        type = choose_type(&ctx->vk.mem_props, UINT32_MAX, required, preferred);
    }
    return type < ctx->vk.mem_props.memoryTypeCount ? ctx->vk.mem_props.memoryTypes[type].heapIndex : 0;
}

uint64_t svk_mem_heap_in_use(const svk_ctx *ctx, uint32_t heap)
{
    uint64_t n = 0;
    for (int p = 0; p < SVK_POOL_COUNT; p++)
        if (ctx->memory.pools[p].bytes_in_use && svk_mem_pool_heap(ctx, (svk_pool_kind)p) == heap)
            n += ctx->memory.pools[p].bytes_in_use;
    return n;
}

uint64_t svk_mem_heap_available(const svk_ctx *ctx, uint32_t heap, uint64_t released, uint64_t *system_free)
{
    uint64_t in_use = svk_mem_heap_in_use(ctx, heap);
    in_use -= released < in_use ? released : in_use;
    const uint64_t size = ctx->vk.mem_props.memoryHeaps[heap].size;
    uint64_t available = size > in_use ? size - in_use : 0, sys = 0;
    const bool shared = ctx->info.type == SVK_DEVICE_INTEGRATED_GPU || ctx->info.type == SVK_DEVICE_CPU;
    if (shared && svk_sysmem_available(&sys)) {
        sys += released;
        available = sys < available ? sys : available;
    }
    if (system_free)
        *system_free = shared ? sys : 0;
    return available;
}
