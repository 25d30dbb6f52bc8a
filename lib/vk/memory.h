/*
 * Device memory sub-allocation. Drivers cap the number of VkDeviceMemory
 * objects (maxMemoryAllocationCount can be as low as 4096) and make each
 * allocation slow, so memory comes from a few large blocks per pool, each
 * with one VkBuffer spanning it; an allocation is a range of a block.
 */
#ifndef SVK_VK_MEMORY_H
#define SVK_VK_MEMORY_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "svk/common.h"

struct svk_ctx;

typedef enum svk_pool_kind {
    SVK_POOL_DEVICE = 0, /* device-local: tensors */
    SVK_POOL_MAPPED,     /* host-visible + coherent, persistently mapped: per-step inputs */
    SVK_POOL_STAGING,    /* host-visible + coherent, cached if possible: transfers */
    SVK_POOL_COUNT
} svk_pool_kind;

typedef struct svk_free_range {
    uint64_t offset, size;
} svk_free_range;

typedef struct svk_mem_block {
    VkDeviceMemory memory;
    VkBuffer buffer;       /* spans the whole block */
    uint64_t size;
    void *mapped;          /* host pointer for host-visible pools, else NULL */
    svk_free_range *free;  /* sorted by offset, coalesced */
    uint32_t n_free, cap_free;
    uint32_t live;         /* allocations in this block */
    struct svk_mem_block *next;
} svk_mem_block;

typedef struct svk_mem_pool {
    svk_mem_block *blocks;
    uint32_t type_index;   /* UINT32_MAX until chosen */
    uint64_t block_size;
    uint64_t bytes_in_use; /* handed out from this pool's blocks */
} svk_mem_pool;

typedef struct svk_memory {
    svk_mem_pool pools[SVK_POOL_COUNT];
    uint64_t bytes_allocated; /* VkDeviceMemory held, all pools */
    uint64_t bytes_in_use;    /* handed out to allocations */
    uint64_t allocations;     /* VkDeviceMemory objects held (against maxMemoryAllocationCount) */
    /* maxBufferSize (Vulkan 1.3 / maintenance4): every block is one VkBuffer,
     * so no allocation may exceed it; 0 where the device does not say. */
    uint64_t max_buffer_size;
} svk_memory;

/* An allocation: a range of one block's buffer. */
typedef struct svk_mem_alloc {
    svk_mem_block *block;
    uint64_t offset, size;
    svk_pool_kind pool;
} svk_mem_alloc;

/* Every allocation's offset is a multiple of this: the largest value Vulkan
 * allows for minStorageBufferOffsetAlignment, so any range can be bound. */
#define SVK_MEM_ALIGN 256u

void svk_memory_init(struct svk_ctx *ctx);
void svk_memory_destroy(struct svk_ctx *ctx);

/* Allocates size bytes from pool; name is for messages. */
svk_status svk_mem_alloc_range(struct svk_ctx *ctx, svk_pool_kind pool, uint64_t size,
                               const char *name, svk_mem_alloc *out);
void svk_mem_free_range(struct svk_ctx *ctx, svk_mem_alloc *a);

/* The heap a pool's memory comes from: that of the memory type it has
 * chosen, or, before its first block, of the type it would choose among all
 * the device's types (the one a storage buffer gets in practice; the real
 * choice, made against the buffer's memoryTypeBits, may differ on exotic
 * drivers, so this serves estimates, never correctness). */
uint32_t svk_mem_pool_heap(const struct svk_ctx *ctx, svk_pool_kind pool);
/* Bytes handed out by all pools whose memory is on heap. */
uint64_t svk_mem_heap_in_use(const struct svk_ctx *ctx, uint32_t heap);
/* What heap can still take: its size less the bytes in use there, of which
 * `released` are about to be freed; and on a device whose heaps are the
 * system's memory (an integrated GPU, a CPU device such as lavapipe) at
 * most what the system has free (svk_sysmem_available) plus `released`,
 * *system_free (unless NULL) then receiving that figure, else 0. */
uint64_t svk_mem_heap_available(const struct svk_ctx *ctx, uint32_t heap, uint64_t released, uint64_t *system_free);

/* Host pointer of a host-visible allocation. */
static inline void *svk_mem_ptr(const svk_mem_alloc *a)
{
    return a->block && a->block->mapped ? (char *)a->block->mapped + a->offset : NULL;
}

#endif
