/*
 * Parameter-shaped slabs larger than one binding (maxStorageBufferRange:
 * 128 MiB on lavapipe, 256 MiB under MoltenVK): the slab is one buffer made
 * past the range (svk_buffer_create_unbound), bound through windows of it.
 * Window k spans bytes [k S, k S + 2 S) of the slab, S half the range, so
 * any S bytes of the slab lie within one window: every tensor up to S
 * bytes is bound as it is, and ops over more (a vocabulary's table, the
 * optimizer's and the clipping's sweeps over the slab) are recorded in
 * parts that each lie within one (plan_vk.c).
 */
#ifndef SVK_MODEL_VK_WINDOWS_H
#define SVK_MODEL_VK_WINDOWS_H

#include "ops/ops.h"

typedef struct svk_vk_windows {
    svk_buffer *slab;  /* the slab, bound whole where n == 0 */
    svk_buffer **w;    /* [n]: the windows; NULL where the slab is bound whole */
    uint32_t n;
    uint64_t stride;   /* elements from one window's start to the next's (S / 4) */
} svk_vk_windows;

/* Whether a slab of this many bytes is bound through windows on ctx. */
bool svk_vk_windows_needed(svk_ctx *ctx, uint64_t bytes);

/* The window stride (elements) of a slab of this many bytes on ctx: 0
 * where it is bound whole. */
uint64_t svk_vk_windows_stride(svk_ctx *ctx, uint64_t bytes);

/* How many of the elements [elem, end) one operand starting at elem
 * reaches in a slab windowed with this stride (0: all of them). */
static inline uint64_t svk_vk_windows_piece(uint64_t stride, uint64_t elem, uint64_t end)
{
    if (!stride)
        return end - elem;
    const uint64_t limit = (elem / stride + 2) * stride;
    return (end < limit ? end : limit) - elem;
}

/* The windows of slab (none if it fits one binding). */
svk_status svk_vk_windows_make(svk_buffer *slab, svk_vk_windows *out);
/* Destroys the windows (not the slab); *w is zeroed. */
void svk_vk_windows_free(svk_vk_windows *w);

/* Element elem of the slab as an operand, and in *reach (unless NULL) how
 * many elements from it that operand can address. */
svk_tref svk_vk_windows_at(const svk_vk_windows *w, uint64_t elem, uint64_t *reach);

#endif
