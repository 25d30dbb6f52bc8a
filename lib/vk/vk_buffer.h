/* The buffer's internals (svk/buffer.h has the handle). */
#ifndef SVK_VK_BUFFER_H
#define SVK_VK_BUFFER_H

#include "svk/buffer.h"
#include "core/error.h"
#include "memory.h"

struct svk_buffer {
    struct svk_ctx *ctx;
    svk_mem_alloc alloc;   /* a range of a memory block's VkBuffer */
    uint64_t size;         /* bytes the user asked for (alloc.size is rounded up) */
    svk_memory_kind memory;
    char name[64];
    VkBufferView views[2]; /* by svk_texel_format, made on first use (texel.c) */
    /* Larger than one binding may be (svk_buffer_create_unbound): only
     * windows of it are ever bound. */
    bool unbound;
    /* A window (svk_buffer_window_create): alloc is a range of parent's,
     * whose memory it does not own. */
    struct svk_buffer *parent;
};

/* The pool a buffer of this kind of memory comes from. */
static inline svk_pool_kind svk_buffer_pool(svk_memory_kind memory)
{
    return memory == SVK_MEMORY_DEVICE ? SVK_POOL_DEVICE : SVK_POOL_MAPPED;
}

/* Waits until libsvk's queue is idle, so that no work submitted there
 * still uses buffers about to be freed; a device loss is recorded (what
 * says who waited) and then nothing is waited for. */
void svk_buffer_wait_unused(struct svk_ctx *ctx, const char *what);
/* svk_buffer_destroy without its wait, for a caller that has just called
 * svk_buffer_wait_unused: a model frees dozens of buffers at once, and one
 * wait serves them all. */
void svk_buffer_release(svk_buffer **pbuf);

/* The most bytes one buffer may hold on ctx's device: the smallest of
 * maxStorageBufferRange, maxMemoryAllocationSize and maxBufferSize that the
 * device reports (UINT64_MAX if none), whose name goes to *limit_name
 * unless limit_name is NULL. On lavapipe the storage range; on NVIDIA's
 * driver the allocation limit, 2 MiB less. */
uint64_t svk_buffer_max_size(const struct svk_ctx *ctx, const char **limit_name);

/* The most bytes one buffer that is never bound whole may hold: the
 * smallest of maxMemoryAllocationSize and maxBufferSize (UINT64_MAX if
 * neither is reported), whose name goes to *limit_name unless NULL. */
uint64_t svk_buffer_max_unbound_size(const struct svk_ctx *ctx, const char **limit_name);

/* A buffer past the binding range (svk_buffer_max_size) but within the
 * allocation limits (svk_buffer_max_unbound_size), for tensors that are
 * bound through windows of it: a dispatch that binds it whole is refused.
 * Otherwise as svk_buffer_create. */
svk_status svk_buffer_create_unbound(struct svk_ctx *ctx, const svk_buffer_params *params, svk_buffer **out);

/* A window of parent: bytes [offset, offset + size) as a buffer of their
 * own that shares parent's memory, for binding. offset a multiple of
 * SVK_MEM_ALIGN (so any descriptor or texel view may start there); size
 * within svk_buffer_max_size. It must be destroyed before parent;
 * destroying it frees no memory. */
svk_status svk_buffer_window_create(svk_buffer *parent, uint64_t offset, uint64_t size, const char *name,
                                    svk_buffer **out);

/* SVK_ERROR_TOO_LARGE, with a message naming the buffer, its size and the
 * device limit it exceeds (svk_buffer_max_size), when one buffer of size
 * bytes cannot exist; SVK_OK otherwise. what (may be NULL) starts the message; note (may be NULL)
 * follows the quoted name. */
svk_status svk_buffer_check_size(struct svk_ctx *ctx, svk_log *log, const char *what, const char *name,
                                 const char *note, uint64_t size);

/* A buffer not created yet, for svk_buffer_check_fit. */
typedef struct svk_buffer_request {
    const char *name;        /* the buffer's name */
    const char *note;        /* NULL, or said after the name in messages */
    uint64_t size;           /* bytes, >= 1 */
    svk_memory_kind memory;
    bool unbound;            /* to be made with svk_buffer_create_unbound */
    bool staging;            /* not a buffer: the context's staging memory (svk_transfer_staging_pending), whose
                                pool memory does not name */
} svk_buffer_request;

/* Whether the n buffers could be created together, decided before any is:
 * each against the device's limits (svk_buffer_check_size), then their sum
 * on each memory heap against what the heap can still take
 * (svk_mem_heap_available), counting released[pool] bytes the caller is
 * about to free. SVK_ERROR_TOO_LARGE or SVK_ERROR_OUT_OF_DEVICE_MEMORY with
 * a message (to log; NULL: the thread's message alone) that starts with
 * what and gives the bytes needed, the bytes available and the largest
 * requests. Allocates nothing. Passing does not promise the driver will
 * find the memory (other processes share it). */
svk_status svk_buffer_check_fit(struct svk_ctx *ctx, svk_log *log, const char *what, const svk_buffer_request *req,
                                size_t n, const uint64_t released[SVK_POOL_COUNT]);

#endif
