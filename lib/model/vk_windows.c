#include "vk_windows.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

/* S: half the binding range, a multiple of the allocation alignment, so
 * that every window may start a descriptor or a texel view. */
static uint64_t half_range(svk_ctx *ctx)
{
    const uint64_t range = svk_buffer_max_size(ctx, NULL);
    return range / 2 / SVK_MEM_ALIGN * SVK_MEM_ALIGN;
}

bool svk_vk_windows_needed(svk_ctx *ctx, uint64_t bytes)
{
    return bytes > svk_buffer_max_size(ctx, NULL);
}

uint64_t svk_vk_windows_stride(svk_ctx *ctx, uint64_t bytes)
{
    return svk_vk_windows_needed(ctx, bytes) ? half_range(ctx) / 4 : 0;
}

svk_status svk_vk_windows_make(svk_buffer *slab, svk_vk_windows *out)
{
    *out = (svk_vk_windows){.slab = slab};
    svk_ctx *ctx = slab->ctx;
    if (!svk_vk_windows_needed(ctx, slab->size))
        return SVK_OK;
    const uint64_t S = half_range(ctx);
    if (S == 0)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED, "the device's binding range is too small to window '%s'",
                         slab->name);
    const uint64_t n = (slab->size + S - 1) / S;
    out->w = svk_calloc(n, sizeof(*out->w));
    if (!out->w)
        return svk_error(&ctx->log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory windowing '%s'", slab->name);
    out->n = (uint32_t)n;
    out->stride = S / 4;
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t begin = k * S, size = slab->size - begin < 2 * S ? slab->size - begin : 2 * S;
        char name[64];
        snprintf(name, sizeof(name), "%.40s@%llu", slab->name, (unsigned long long)k);
        svk_status st = svk_buffer_window_create(slab, begin, size, name, &out->w[k]);
        if (st != SVK_OK) {
            svk_vk_windows_free(out);
            return st;
        }
    }
    return SVK_OK;
}

void svk_vk_windows_free(svk_vk_windows *w)
{
    for (uint32_t k = 0; k < w->n; k++)
        svk_buffer_release(&w->w[k]);
    free(w->w);
    *w = (svk_vk_windows){0};
}

svk_tref svk_vk_windows_at(const svk_vk_windows *w, uint64_t elem, uint64_t *reach)
{
    const uint64_t slab_elems = w->slab ? w->slab->size / 4 : 0;
    if (!w->n) {
        if (reach)
            *reach = elem < slab_elems ? slab_elems - elem : 0;
        return (svk_tref){w->slab, elem};
    }
    uint64_t k = elem / w->stride;
    if (k >= w->n)
        k = w->n - 1;
    const uint64_t begin = k * w->stride;
    if (reach) {
        const uint64_t end = begin + w->w[k]->size / 4;
        *reach = elem < end ? end - elem : 0;
    }
    return (svk_tref){w->w[k], elem - begin};
}
