/*
 * Command lists: a recorded sequence of kernel dispatches that can be
 * submitted again and again unchanged (a training step is recorded once and
 * replayed every step).
 *
 * Barriers are derived, not written by hand: every dispatch declares the
 * buffers it reads and writes (the kernel registry says which bindings are
 * written), and the list inserts a barrier before a dispatch only when it
 * touches a buffer that a dispatch since the last barrier wrote
 * (read-after-write, write-after-write: a memory barrier) or read
 * (write-after-read: an execution barrier suffices). The unit is the
 * svk_buffer, the range each descriptor exposes (see bound_bytes in cmd.c).
 */
#ifndef SVK_VK_CMD_H
#define SVK_VK_CMD_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "svk/buffer.h"
#include "kernels.h"

/* The part of a buffer a dispatch touches (checked against the buffer's
 * size). The whole buffer is bound, and tracked for barriers; the kernel
 * addresses the range through offsets in its push constants. */
typedef struct svk_range {
    svk_buffer *buf;
    uint64_t offset;  /* bytes */
    uint64_t size;    /* bytes; 0 means to the end of the buffer */
} svk_range;

typedef struct svk_dispatch {
    svk_kernel_id kernel;
    const uint32_t *spec;          /* kernel's n_spec values, or NULL for defaults */
    svk_range bindings[SVK_MAX_BINDINGS];
    uint32_t n_bindings;           /* must equal the kernel's n_buffers */
    const void *push;
    uint32_t push_size;            /* must equal the kernel's push_size */
    uint32_t groups[3];            /* workgroup counts, each >= 1 */
    const char *label;             /* for messages and timings; may be NULL */
} svk_dispatch;

typedef struct svk_cmdlist svk_cmdlist;

typedef struct svk_cmdlist_params {
    /* Record a timestamp around each dispatch, up to this many dispatches
     * (0: no timestamps). */
    uint32_t timestamp_capacity;
    /* Tests only: record no barriers between dispatches, so that a test can
     * prove the validation layer catches the hazards they prevent. */
    bool unsafe_no_barriers;
    /* Record into the application's command buffer instead of one the list
     * owns: begin/end then only add libsvk's commands (the application has
     * begun the buffer and ends and submits it), and submit/wait are
     * refused. VK_NULL_HANDLE (default): the list owns its buffer. */
    VkCommandBuffer external;
} svk_cmdlist_params;

svk_status svk_cmdlist_create(svk_ctx *ctx, const svk_cmdlist_params *params, svk_cmdlist **out);
/* Waits for a pending submission, then frees. Accepts NULL and &NULL. */
void svk_cmdlist_destroy(svk_cmdlist **cl);

/* Starts (re)recording; discards what was recorded before. */
svk_status svk_cmdlist_begin(svk_cmdlist *cl);
/* Checks the dispatch against the registry and the device limits and records
 * it, with whatever barrier it needs first. Nothing is recorded on error. */
svk_status svk_cmdlist_dispatch(svk_cmdlist *cl, const svk_dispatch *d);

/* A transfer command, ordered against dispatches and other transfers by
 * the same tracking (and counted, and timed, as one of the list's
 * dispatches): on every driver the fastest way to fill or copy memory
 * (lavapipe: a memset or memcpy, 10 to 15 times what a copy shader moves). */
typedef enum svk_transfer_kind {
    SVK_TRANSFER_FILL = 0,   /* vkCmdFillBuffer: dst's words = fill */
    SVK_TRANSFER_COPY,       /* vkCmdCopyBuffer: dst = src, same size, no overlap */
} svk_transfer_kind;
typedef struct svk_transfer {
    svk_transfer_kind kind;
    svk_range dst;           /* FILL: offset and size whole 32-bit words */
    svk_range src;           /* COPY only */
    uint32_t fill;           /* FILL: the 32-bit pattern (a float's bits) */
    const char *label;       /* for messages and timings */
    /* COPY of rows (rows > 1): row r's row_bytes from src.offset +
     * r src_pitch to dst.offset + r dst_pitch, each range spanning
     * exactly (rows - 1) pitch + row_bytes (one region each: a strided
     * copy, such as a matrix into a wider leading dimension). */
    uint32_t rows;
    uint64_t row_bytes, src_pitch, dst_pitch;
} svk_transfer;
svk_status svk_cmdlist_transfer(svk_cmdlist *cl, const svk_transfer *t);

svk_status svk_cmdlist_end(svk_cmdlist *cl);

/* Submits the recorded list (waiting first for its previous submission). */
svk_status svk_cmdlist_submit(svk_cmdlist *cl);
/* Waits for the last submission to complete. */
svk_status svk_cmdlist_wait(svk_cmdlist *cl);

/* Number of barriers and dispatches recorded (for tests of the barrier logic). */
void svk_cmdlist_stats(const svk_cmdlist *cl, uint32_t *dispatches, uint32_t *barriers);

/* GPU time in nanoseconds of each dispatch of the last completed submission,
 * with its label and its kernel's name (each array may be NULL); *count is
 * the capacity on entry and the number written on return. */
svk_status svk_cmdlist_timings(svk_cmdlist *cl, double *ns, const char **labels, const char **kernels,
                               uint32_t *count);

/* Creates a command pool with flags on ctx's queue family, one primary
 * command buffer from it, and an unsignalled fence, storing each handle in
 * its out_* as soon as it exists: after a failure the caller's destroy finds
 * exactly the handles that exist (VK_NULL_HANDLE in the others, as it left
 * them). what[0..2] are each step's "while ..." context in messages. */
svk_status svk_cmd_objects_create(svk_ctx *ctx, VkCommandPoolCreateFlags flags, const char *const what[3],
                                  VkCommandPool *out_pool, VkCommandBuffer *out_cmd, VkFence *out_fence);

#endif
