/*
 * svk_model_plan_memory on both backends: the memory it plans is what the
 * model then holds (svk_model_memory after a step at that shape, by kind);
 * accumulation and recomputation shrink the activations it plans; a shape
 * over the device's heap does not fit, its message says so, and the
 * largest batch it names fits while one micro-batch more does not; a model
 * whose parameter buffer passes the device's binding limit fits at no
 * batch; bad arguments are refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "svk/model.h"
#include "test_util.h"
#include "vk/vk_context.h"

enum { B = 4, T = 16 };

static tu_tally tally;

static svk_model_params params_for(svk_ctx *ctx, svk_backend backend)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = 64, p.config.ctx = 64, p.config.width = 32, p.config.heads = 2, p.config.layers = 3;
    p.backend = backend;
    p.ctx = ctx;
    return p;
}

/* The plan's report is the model's, kind by kind, after a step at the
 * planned shape; on the device, what the model and the step allocate is
 * the plan's device_bytes, and with the context's staging memory, which
 * the model's first upload takes, what the plan's fit counted. */
static void matches_model(const svk_model_params *p, const char *be)
{
    svk_memory_plan plan;
    const bool device = p->backend == SVK_BACKEND_VULKAN;
    const uint64_t in_use0 = device ? p->ctx->memory.bytes_in_use : 0;
    const uint64_t staging = device ? svk_transfer_staging_pending(p->ctx) : 0;
    svk_status st = svk_model_plan_memory(p, B, T, 2, &plan);
    tu_check(&tally, st == SVK_OK && plan.fits && plan.max_batch >= B && plan.max_batch % 2 == 0 &&
                         plan.device_bytes >= plan.model.total,
             "%s: a small model fits, the largest batch %u (a multiple of accum 2) >= %d (%s)", be, plan.max_batch, B,
             st == SVK_OK ? plan.why_not : svk_last_error());
    svk_model *m = NULL;
    int32_t tokens[B * T] = {0}, targets[B * T] = {0};
    svk_memory_report r = {0};
    if ((st = svk_model_create(p, &m)) == SVK_OK &&
        (st = svk_model_train_step_accum(m, tokens, targets, B, T, 2, 1e-3f, NULL)) == SVK_OK)
        st = svk_model_memory(m, &r);
    tu_check(&tally, st == SVK_OK && !memcmp(&r, &plan.model, sizeof(r)),
             "%s: the planned memory is svk_model_memory's after a step: total %llu planned, %llu held", be,
             (unsigned long long)plan.model.total, (unsigned long long)r.total);
    if (device) {
        const uint64_t took = p->ctx->memory.bytes_in_use - in_use0;
        tu_check(&tally, st == SVK_OK && took == plan.device_bytes + staging,
                 "%s: the model and its step took %llu bytes of device memory: the plan's %llu, and %llu of the "
                 "context's staging memory, which its fit counted", be, (unsigned long long)took,
                 (unsigned long long)plan.device_bytes, (unsigned long long)staging);
    }
    svk_model_destroy(&m);
}

/* Accumulation and recomputation plan fewer activation bytes. */
static void smaller(const svk_model_params *p, const char *be)
{
    svk_model_params rc = *p;
    rc.recompute = true;
    svk_memory_plan whole, accum, recompute;
    const bool ok = svk_model_plan_memory(p, 8, T, 1, &whole) == SVK_OK &&
                    svk_model_plan_memory(p, 8, T, 4, &accum) == SVK_OK &&
                    svk_model_plan_memory(&rc, 8, T, 1, &recompute) == SVK_OK;
    tu_check(&tally, ok && accum.model.activations * 3 < whole.model.activations &&
                         recompute.model.activations < whole.model.activations,
             "%s: activations planned: %llu bytes, %llu with accum 4, %llu with recomputation", be,
             (unsigned long long)whole.model.activations, (unsigned long long)accum.model.activations,
             (unsigned long long)recompute.model.activations);
}

/* A batch past what the device can take: not fitting, with the batch
 * that would. */
static void over(const svk_model_params *p, const char *be)
{
    svk_memory_plan plan, at, past;
    svk_status st = svk_model_plan_memory(p, 1u << 20, T, 4, &plan);
    bool ok = st == SVK_OK && !plan.fits && plan.why_not[0] && plan.max_batch > 0 && plan.max_batch % 4 == 0 &&
              plan.max_batch < (1u << 20);
    tu_check(&tally, ok, "%s: 2^20 rows do not fit: %s; the largest batch: %u", be,
             st == SVK_OK ? plan.why_not : svk_last_error(), st == SVK_OK ? plan.max_batch : 0);
    if (!ok)
        return;
    st = svk_model_plan_memory(p, plan.max_batch, T, 4, &at);
    if (st == SVK_OK)
        st = svk_model_plan_memory(p, plan.max_batch + 4, T, 4, &past);
    tu_check(&tally, st == SVK_OK && at.fits && !past.fits, "%s: %u rows fit, %u do not", be, plan.max_batch,
             plan.max_batch + 4);
}

/* A parameter buffer past the device's binding limit: no batch fits. */
static void params_too_large(svk_ctx *ctx)
{
    svk_model_params p = params_for(ctx, SVK_BACKEND_VULKAN);
    p.config.width = 1024, p.config.heads = 8, p.config.layers = 40;
    svk_memory_plan plan;
    svk_status st = svk_model_plan_memory(&p, 1, T, 1, &plan);
    tu_check(&tally, st == SVK_OK && !plan.fits && plan.max_batch == 0 && strstr(plan.why_not, "'params'"),
             "vulkan: 500 M parameters: no batch fits: %s", st == SVK_OK ? plan.why_not : svk_last_error());
}

static void refusals(const svk_model_params *p, const char *be)
{
    svk_memory_plan plan;
    const struct {
        uint32_t B, T, accum;
        const char *want;
    } bad[] = {{8, T, 3, "accum=3"}, {8, T, 0, "accum=0"}, {0, T, 1, "B=0"}, {4, 65, 1, "T=65"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svk_status st = svk_model_plan_memory(p, bad[i].B, bad[i].T, bad[i].accum, &plan);
        tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), bad[i].want),
                 "%s: B=%u T=%u accum=%u refused: %s", be, bad[i].B, bad[i].T, bad[i].accum, svk_last_error());
    }
    svk_status st = svk_model_plan_memory(p, B, T, 1, NULL);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG, "%s: plan NULL refused: %s", be, svk_last_error());
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    (void)dir;
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    const svk_model_params p = params_for(ctx, backend);
    matches_model(&p, be);
    smaller(&p, be);
    if (backend == SVK_BACKEND_VULKAN) {
        over(&p, be);
        params_too_large(ctx);
    }
    refusals(&p, be);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_memory_plan", &args);
    return tu_each_backend(&tally, "test_memory_plan", run_backend);
}
