/*
 * Models too large for the device are refused before anything is allocated,
 * with the numbers: a parameter slab over the allocation limit (one past
 * the binding range is bound in windows, and trains) at svk_model_create,
 * and at the first step of a batch shape an activation over the binding
 * range that no op takes in parts and a shape whose activations exceed the memory heap
 * (lavapipe's heap is host memory that it never checks, so without the
 * up-front check it would allocate gigabytes). Each refusal returns
 * SVK_ERROR_TOO_LARGE or SVK_ERROR_OUT_OF_DEVICE_MEMORY, says how many
 * bytes were needed and the limit or the bytes available, names the
 * buffer, and allocates nothing; the refused model still trains at a
 * shape that fits, and a model created afterwards on the same context
 * trains a step. Nothing is left allocated at the end.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "svk/model.h"
#include "test_util.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

static tu_tally tally;

/* The device memory the context holds, to show a refusal took none. */
typedef struct mem_snapshot {
    uint64_t in_use, allocated, allocations;
} mem_snapshot;

static mem_snapshot snap(const svk_ctx *ctx)
{
    return (mem_snapshot){ctx->memory.bytes_in_use, ctx->memory.bytes_allocated, ctx->memory.allocations};
}

static bool same_mem(mem_snapshot a, mem_snapshot b)
{
    return a.in_use == b.in_use && a.allocated == b.allocated && a.allocations == b.allocations;
}

/* The message holds this number, written in decimal. */
static bool says(const char *msg, uint64_t v)
{
    char num[32];
    snprintf(num, sizeof(num), "%" PRIu64, v);
    return strstr(msg, num) != NULL;
}

/* The number after the first occurrence of key in msg, or 0. */
static uint64_t number_after(const char *msg, const char *key)
{
    const char *p = strstr(msg, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static svk_model_params params_for(svk_ctx *ctx, uint32_t vocab, uint32_t width, uint32_t layers, uint32_t heads,
                                   uint32_t seq)
{
    svk_model_params p = svk_model_params_default();
    p.ctx = ctx;
    p.config.vocab = vocab;
    p.config.width = width;
    p.config.layers = layers;
    p.config.heads = heads;
    p.config.ctx = seq;
    return p;
}

/* One small training step: a model that was refused something goes on. */
static bool trains(svk_model *m, uint32_t B, uint32_t T, const char *what)
{
    const uint32_t V = svk_model_get_config(m)->vocab;
    int32_t *tok = malloc((size_t)B * T * sizeof(int32_t)), *tgt = malloc((size_t)B * T * sizeof(int32_t));
    for (uint32_t i = 0; i < B * T; i++) {
        tok[i] = (int32_t)((i * 7 + 3) % V);
        tgt[i] = (int32_t)((i * 7 + 4) % V);
    }
    const uint64_t step = svk_model_step(m);
    float loss = NAN;
    svk_status st = svk_model_train_step(m, tok, tgt, B, T, 1e-3f, &loss);
    bool ok = st == SVK_OK && isfinite(loss) && svk_model_step(m) == step + 1;
    tu_check(&tally, ok, "%s: a step of B=%u T=%u trains (%s, loss %g): %s", what, B, T, svk_status_string(st),
             (double)loss, st == SVK_OK ? "" : svk_last_error());
    free(tok);
    free(tgt);
    return ok;
}

/* A refused step of shape B x T: status, message and no memory taken. */
static void refused_step(svk_ctx *ctx, svk_model *m, uint32_t B, uint32_t T, svk_status want, const char *what,
                         char *msg, size_t msg_size)
{
    size_t n = (size_t)B * T;
    int32_t *tok = calloc(n, sizeof(int32_t)), *tgt = calloc(n, sizeof(int32_t));
    mem_snapshot before = snap(ctx);
    float loss = 0;
    svk_status st = tok && tgt ? svk_model_train_step(m, tok, tgt, B, T, 1e-3f, &loss) : SVK_ERROR_OUT_OF_HOST_MEMORY;
    snprintf(msg, msg_size, "%s", svk_last_error());
    tu_check(&tally, st == want, "%s: B=%u T=%u returns %s (want %s): %s", what, B, T, svk_status_string(st),
             svk_status_string(want), msg);
    mem_snapshot after = snap(ctx);
    tu_check(&tally, same_mem(before, after),
             "%s: the refusal allocated nothing (in use %" PRIu64 " -> %" PRIu64 ", %" PRIu64 " -> %" PRIu64
             " allocations)",
             what, before.in_use, after.in_use, before.allocations, after.allocations);
    free(tok);
    free(tgt);
}

/* A parameter slab past one binding (maxStorageBufferRange) is bound in
 * windows: the model is created, trains, and gives its memory back
 * (tests/test_big_tensors.c checks its numbers). One past the allocation
 * limit (the smaller of maxMemoryAllocationSize and maxBufferSize) is
 * refused by svk_model_create before anything is allocated, naming the
 * slab, its largest tensor, the bytes and the limit. */
static void slab_over_binding(svk_ctx *ctx)
{
    const char *limit_name;
    const uint32_t width = 64;
    const uint64_t range = svk_buffer_max_size(ctx, &limit_name);
    /* wte alone is just over the binding. */
    uint64_t vocab = range / (4ull * width) + 1024;
    mem_snapshot before = snap(ctx);
    const bool staging = ctx->transfer.staging.block != NULL;
    if (vocab > UINT32_MAX / 2) {
        printf("  (slab over %s: the limit, %" PRIu64 " bytes, needs too large a vocabulary)\n", limit_name, range);
    } else {
        svk_model_params p = params_for(ctx, (uint32_t)vocab, width, 1, 2, 16);
        svk_model *m = NULL;
        svk_status st = svk_model_create(&p, &m);
        tu_check(&tally, st == SVK_OK, "vocab %" PRIu64 " x width %u (wte %" PRIu64 " bytes, past %s): created: %s",
                 vocab, width, vocab * width * 4, limit_name, st == SVK_OK ? "ok" : svk_last_error());
        if (st == SVK_OK)
            trains(m, 1, 4, "the model past one binding");
        svk_model_destroy(&m);
        /* The allocator may keep an empty block for later buffers, and the
         * weights' upload made the context's staging buffer. */
        const uint64_t made = !staging && ctx->transfer.staging.block ? ctx->transfer.staging.size : 0;
        tu_check(&tally, snap(ctx).in_use == before.in_use + made, "destroying it gave its buffers back (%" PRIu64 " bytes in use, %" PRIu64 " before)", snap(ctx).in_use, before.in_use);
    }
    const uint64_t limit = svk_buffer_max_unbound_size(ctx, &limit_name);
    vocab = limit / (4ull * width) + 1024;
    if (!limit_name || vocab > UINT32_MAX / 2) {
        printf("  (slab over the allocation limit: %" PRIu64 " bytes needs too large a vocabulary)\n", limit);
        return;
    }
    svk_model_params p = params_for(ctx, (uint32_t)vocab, width, 1, 2, 16);
    before = snap(ctx);
    svk_model *m = (svk_model *)1;
    svk_status st = svk_model_create(&p, &m);
    const char *msg = svk_last_error();
    tu_check(&tally, st == SVK_ERROR_TOO_LARGE && m == NULL, "vocab %" PRIu64 " x width %u: svk_model_create returns %s: %s",
             vocab, width, svk_status_string(st), msg);
    const uint64_t wte = vocab * width * 4;
    tu_check(&tally, strstr(msg, "'params'") && strstr(msg, "wte.weight") && says(msg, wte) && says(msg, limit) &&
                         strstr(msg, limit_name) && number_after(msg, "needs ") > limit,
             "the message names the slab, its largest tensor (%" PRIu64 " bytes), the bytes needed and the limit (%" PRIu64
             ", %s)",
             wte, limit, limit_name);
    tu_check(&tally, same_mem(before, snap(ctx)), "the refused model left no device memory allocated");
    svk_model_destroy(&m);
}

/* An activation over the binding limit that an op cannot take in parts
 * (the GELU MLP's pre-activation, which its GEMM's fused epilogue reads
 * whole), though the model is small: refused at the step, naming it. The
 * logits, which every op on them can take in parts, are windowed instead
 * (tests/test_big_tensors.c). */
static void activation_over_binding(svk_ctx *ctx)
{
    const char *limit_name;
    const uint64_t range = svk_buffer_max_size(ctx, &limit_name);
    const uint32_t V = 64, C = 64, T = 64;
    const uint64_t B = range / ((uint64_t)T * 4 * C * 4) + 1;
    if (B > 4096) {
        printf("  (an activation over %s: the limit, %" PRIu64 " bytes, needs too large a batch)\n", limit_name, range);
        return;
    }
    svk_model_params p = params_for(ctx, V, C, 1, 2, T);
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "a model of width %u: %s", C, svk_last_error());
    if (st != SVK_OK)
        return;
    trains(m, 2, 8, "before the refusal");
    char msg[SVK_ERROR_MAX];
    refused_step(ctx, m, (uint32_t)B, T, SVK_ERROR_TOO_LARGE, "an activation over the binding limit", msg, sizeof(msg));
    /* Its leading dimension may be padded (svk_plan_options.mlp_ld): at
     * least B*T*4C floats. */
    const uint64_t bytes = B * T * 4 * C * 4;
    tu_check(&tally, strstr(msg, "'a.") && number_after(msg, "needs ") >= bytes && says(msg, range) &&
                         strstr(msg, limit_name),
             "the message names the MLP's pre-activation, its bytes (at least %" PRIu64 ") and the limit of %" PRIu64
             " bytes",
             bytes, range);
    /* The shape it had still works, and so does a new one that fits. */
    trains(m, 2, 8, "the refused model, at its earlier shape");
    trains(m, 3, 16, "the refused model, at a new shape");
    svk_model_destroy(&m);
}

/* Activations of a batch shape that sum past the heap, each buffer within
 * every limit: refused with the bytes needed and available. */
static void batch_over_heap(svk_ctx *ctx)
{
    const uint32_t heap = svk_mem_pool_heap(ctx, SVK_POOL_DEVICE);
    const uint64_t heap_size = ctx->vk.mem_props.memoryHeaps[heap].size, range = svk_buffer_max_size(ctx, NULL);
    const uint32_t C = 256, H = 4, T = 256;
    /* Per layer at least the attention matrix [B, H, T, T] (materialised
     * attention; flash attention keeps less, so the model is larger than
     * it needs to be there) and the MLP's two [B*T, 4C] tensors; B keeps
     * each of them within the binding. */
    uint64_t B = range / ((uint64_t)H * T * T * 4);
    const uint64_t per_layer_b = (uint64_t)H * T * T * 4 + 2ull * T * 4 * C * 4;
    if (B > 64)
        B = 64;
    uint64_t L = B ? (heap_size + heap_size / 4) / (B * per_layer_b) + 1 : 0;
    if (B < 1 || L > 48) {
        printf("  (batch over the heap: a heap of %" PRIu64 " bytes needs too large a model for this test)\n", heap_size);
        return;
    }
    svk_model_params p = params_for(ctx, 256, C, (uint32_t)L, H, T);
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "a model of %" PRIu64 " layers x width %u: %s", L, C, svk_last_error());
    if (st != SVK_OK)
        return;
    char msg[SVK_ERROR_MAX];
    refused_step(ctx, m, (uint32_t)B, T, SVK_ERROR_OUT_OF_DEVICE_MEMORY, "activations over the heap", msg, sizeof(msg));
    const uint64_t need = number_after(msg, "needs "), available = number_after(msg, "more than the ");
    tu_check(&tally, need > available && available > 0 && available <= heap_size && says(msg, heap_size) &&
                         strstr(msg, "available") && strstr(msg, "the largest buffers: '"),
             "the message gives the bytes needed (%" PRIu64 "), available (%" PRIu64 ") and the heap's size (%" PRIu64
             "), and names the largest buffers",
             need, available, heap_size);
    trains(m, 2, 8, "the model refused a batch over the heap");
    svk_model_destroy(&m);
}

/* A change of batch shape that fails part way, after the model's buffers
 * for its current shape were freed (here a host allocation fails, each in
 * turn; a driver refusing memory the check let through takes the same
 * path): the failure is reported, and the model still trains at the shape
 * it had, its buffers made again. */
static void shape_change_fails(svk_ctx *ctx)
{
    svk_model_params p = params_for(ctx, 32, 16, 1, 2, 16);
    svk_model *m = NULL;
    if (svk_model_create(&p, &m) != SVK_OK || !trains(m, 2, 8, "a model for the failed shape changes")) {
        tu_check(&tally, false, "a model for the failed shape changes: %s", svk_last_error());
        svk_model_destroy(&m);
        return;
    }
    int32_t tok[3 * 16] = {0}, tgt[3 * 16] = {0};
    float loss;
    svk_alloc_fault_arm(UINT64_MAX);
    svk_status st = svk_model_train_step(m, tok, tgt, 3, 16, 1e-3f, &loss);
    const uint64_t n = svk_alloc_fault_count();
    svk_alloc_fault_arm(0);
    svk_model_train_step(m, tok, tgt, 2, 8, 1e-3f, &loss); /* back to the first shape */
    int bad = 0;
    for (uint64_t k = 1; k <= n && st == SVK_OK; k++) {
        svk_alloc_fault_arm(k);
        svk_status fst = svk_model_train_step(m, tok, tgt, 3, 16, 1e-3f, &loss);
        char msg[SVK_ERROR_MAX];
        snprintf(msg, sizeof(msg), "%s", svk_last_error());
        bool fired = svk_alloc_fault_fired();
        svk_alloc_fault_arm(0);
        bool ok = fired ? fst == SVK_ERROR_OUT_OF_HOST_MEMORY && strstr(msg, "out of host memory") : fst == SVK_OK;
        /* The shape the model had: it must train as before. */
        svk_status back = svk_model_train_step(m, tok, tgt, 2, 8, 1e-3f, &loss);
        ok = ok && back == SVK_OK && isfinite(loss);
        if (!ok && bad++ < 3)
            printf("     allocation %llu of %llu failed: the step returned %s (%s); back at B=2 T=8: %s (%s)\n",
                   (unsigned long long)k, (unsigned long long)n, svk_status_string(fst), msg,
                   svk_status_string(back), svk_last_error());
    }
    tu_check(&tally, st == SVK_OK && n > 0 && bad == 0,
             "each of the %llu host allocations of a change of shape failed in turn: reported, and the model trains "
             "at its earlier shape (%d mishandled)",
             (unsigned long long)n, bad);
    svk_model_destroy(&m);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_oom", &args);
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    if (!args.filter || strstr("slab", args.filter))
        slab_over_binding(ctx);
    if (!args.filter || strstr("activation", args.filter))
        activation_over_binding(ctx);
    if (!args.filter || strstr("heap", args.filter))
        batch_over_heap(ctx);
    if (!args.filter || strstr("shape", args.filter))
        shape_change_fails(ctx);

    /* After the refusals, a model made on the same context trains. */
    svk_model_params p = params_for(ctx, 32, 16, 1, 2, 16);
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "a model created after the refusals: %s", svk_last_error());
    if (st == SVK_OK)
        trains(m, 2, 16, "the model created after the refusals");
    svk_model_destroy(&m);
    /* What stays is the context's own transfer buffer, made on first use. */
    tu_check(&tally, ctx->memory.bytes_in_use == ctx->transfer.staging.size,
             "every model's memory was returned (%" PRIu64 " bytes in use, the staging buffer's %" PRIu64 ")",
             ctx->memory.bytes_in_use, ctx->transfer.staging.size);
    tu_ctx_finish(&ctx, &tally);
    return tu_finish(&tally);
}
