/*
 * Buffers and memory: sub-allocation from few blocks, staged round trips
 * larger than the staging buffer at odd offsets, mapped buffers, and the
 * errors for sizes a device cannot hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

static uint32_t device_blocks(const svk_ctx *ctx)
{
    uint32_t n = 0;
    for (const svk_mem_block *b = ctx->memory.pools[SVK_POOL_DEVICE].blocks; b; b = b->next)
        n++;
    return n;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_buffer", &args);
    tu_tally t = {0, 0};
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);
    svk_buffer_params p = svk_buffer_params_default();
    svk_status st;

    /* 1. Many small buffers share one block. */
    enum { COUNT = 1000 };
    svk_buffer **many = calloc(COUNT, sizeof(*many));
    int made = 0;
    p.size = 1000;
    p.name = "small";
    for (int i = 0; i < COUNT; i++)
        made += svk_buffer_create(ctx, &p, &many[i]) == SVK_OK;
    tu_check(&t, made == COUNT && device_blocks(ctx) == 1, "%d buffers of 1000 bytes from %u memory block(s)", made,
             device_blocks(ctx));
    /* Free every other one, then reuse the holes. */
    for (int i = 0; i < COUNT; i += 2)
        svk_buffer_destroy(&many[i]);
    uint64_t in_use = ctx->memory.bytes_in_use;
    for (int i = 0; i < COUNT; i += 2)
        svk_buffer_create(ctx, &p, &many[i]);
    tu_check(&t, device_blocks(ctx) == 1 && ctx->memory.bytes_in_use == in_use + (COUNT / 2) * 1024,
             "freed ranges are reused (%u block(s))", device_blocks(ctx));
    for (int i = 0; i < COUNT; i++)
        svk_buffer_destroy(&many[i]);
    free(many);
    tu_check(&t, ctx->memory.bytes_in_use == 0, "all ranges returned (%llu bytes in use)",
             (unsigned long long)ctx->memory.bytes_in_use);

    /* 2. A staged round trip larger than the staging buffer, at an odd offset. */
    size_t n = (20u << 20) / sizeof(float) + 13;
    float *src = malloc(n * sizeof(float)), *dst = malloc(n * sizeof(float));
    cf_fill_uniform(&rng, src, n, -10, 10);
    svk_buffer *big = NULL;
    p.size = (n + 7) * sizeof(float);
    p.name = "big";
    st = svk_buffer_create(ctx, &p, &big);
    if (st == SVK_OK)
        st = svk_buffer_upload(big, 7 * sizeof(float), src, n * sizeof(float));
    cf_fill_nan(dst, n);
    if (st == SVK_OK)
        st = svk_buffer_download(big, 7 * sizeof(float), dst, n * sizeof(float));
    tu_check(&t, st == SVK_OK && !memcmp(src, dst, n * sizeof(float)), "20 MiB round trip at offset 28: %s",
             st == SVK_OK ? "identical" : svk_last_error());
    st = svk_buffer_upload(big, p.size - 4, src, 8);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "upload past the end refused: %s", svk_last_error());
    svk_buffer_destroy(&big);
    tu_check(&t, big == NULL, "destroy sets the handle to NULL");
    svk_buffer_destroy(&big); /* &NULL is fine */
    svk_buffer_destroy(NULL);

    /* 3. A mapped buffer: host writes are seen by a download. */
    svk_buffer *mapped = NULL;
    p.size = 4096;
    p.memory = SVK_MEMORY_HOST_MAPPED;
    p.name = "inputs";
    void *ptr = NULL;
    st = svk_buffer_create(ctx, &p, &mapped);
    if (st == SVK_OK)
        st = svk_buffer_map(mapped, &ptr);
    if (st == SVK_OK) {
        memcpy(ptr, src, 4096);
        st = svk_buffer_download(mapped, 0, dst, 4096);
    }
    tu_check(&t, st == SVK_OK && !memcmp(src, dst, 4096), "mapped buffer: host writes reach the device");
    svk_buffer_destroy(&mapped);
    p.memory = SVK_MEMORY_DEVICE;

    /* 4. Sizes a device cannot hold are errors that say so. */
    svk_buffer *b = NULL;
    const char *limit_name;
    p.size = svk_buffer_max_size(ctx, &limit_name) + 1;
    p.name = "too-big";
    st = svk_buffer_create(ctx, &p, &b);
    tu_check(&t, st == SVK_ERROR_TOO_LARGE && !b && strstr(svk_last_error(), limit_name),
             "buffer over %s: %s", limit_name, svk_last_error());
    p.size = 0;
    st = svk_buffer_create(ctx, &p, &b);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && !b, "zero-size buffer: %s", svk_last_error());
    st = svk_buffer_create(NULL, &p, &b);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "NULL context: %s", svk_last_error());
    p.size = 16;
    p.reserved[0] = 1;
    st = svk_buffer_create(ctx, &p, &b);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "non-zero reserved field: %s", svk_last_error());

    free(src);
    free(dst);
    tu_ctx_finish(&ctx, &t);
    return tu_finish(&t);
}
