/* The buffer's internals (svk/buffer.h has the handle). */
#ifndef SVK_VK_BUFFER_H
#define SVK_VK_BUFFER_H

#include "svk/buffer.h"
#include "memory.h"

struct svk_buffer {
    struct svk_ctx *ctx;
    svk_mem_alloc alloc;   /* a range of a memory block's VkBuffer */
    uint64_t size;         /* bytes the user asked for (alloc.size is rounded up) */
    svk_memory_kind memory;
    char name[64];
};

#endif
