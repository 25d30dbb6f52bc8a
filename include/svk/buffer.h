/*
 * Buffers: linear ranges of device memory holding tensors.
 *
 * libsvk sub-allocates buffers from a few large VkDeviceMemory blocks per
 * context (drivers cap the number of allocations), so creating many small
 * buffers is cheap.
 */
#ifndef SVK_BUFFER_H
#define SVK_BUFFER_H

#include "context.h"

SVK_BEGIN_DECLS

/* A buffer. Opaque. Thread-safety: as its context. */
typedef struct svk_buffer svk_buffer;

typedef enum svk_memory_kind {
    /* Device-local memory: fastest for kernels; filled and read back through
     * svk_buffer_upload / svk_buffer_download (staged copies). */
    SVK_MEMORY_DEVICE = 0,
    /* Host-visible, host-coherent memory, persistently mapped
     * (svk_buffer_map): for small inputs the host rewrites every step. */
    SVK_MEMORY_HOST_MAPPED,
} svk_memory_kind;

typedef struct svk_buffer_params {
    uint64_t size;          /* bytes, > 0; at most the device's maxStorageBufferRange */
    svk_memory_kind memory; /* default SVK_MEMORY_DEVICE */
    const char *name;       /* for messages, e.g. "blocks.0.attn.qkv.weight"; copied; may be NULL */
    uint64_t reserved[4];   /* must be zero */
} svk_buffer_params;

SVK_API svk_buffer_params svk_buffer_params_default(void);

/* Creates a buffer. Its contents are undefined until written.
 * Errors: SVK_ERROR_TOO_LARGE when size exceeds maxStorageBufferRange or the
 * allocation limit; SVK_ERROR_OUT_OF_DEVICE_MEMORY when the device is full. */
SVK_API svk_status svk_buffer_create(svk_ctx *ctx, const svk_buffer_params *params,
                                     svk_buffer **out);

/* Frees the buffer (after the device has finished with it) and sets *buf to
 * NULL. Accepts NULL and &NULL. */
SVK_API void svk_buffer_destroy(svk_buffer **buf);

SVK_API uint64_t svk_buffer_size(const svk_buffer *buf);

/* Copies size bytes from host memory into the buffer at offset, and waits
 * until the copy is complete. */
SVK_API svk_status svk_buffer_upload(svk_buffer *buf, uint64_t offset,
                                     const void *data, uint64_t size);

/* Copies size bytes from the buffer at offset into host memory, after all
 * work submitted before it has finished. */
SVK_API svk_status svk_buffer_download(svk_buffer *buf, uint64_t offset,
                                       void *data, uint64_t size);

/* Host pointer of a SVK_MEMORY_HOST_MAPPED buffer (mapped for its whole
 * life). Writes are seen by work submitted afterwards. */
SVK_API svk_status svk_buffer_map(svk_buffer *buf, void **ptr);

SVK_END_DECLS

#endif
