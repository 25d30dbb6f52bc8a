/*
 * svk_model_plan_memory: the plan of a model that does not exist yet, its
 * memory by kind from the plan's slabs and its device buffers from the
 * backend (backend_vk.c, backend_cpu.c: estimate), and the largest batch
 * that fits, found by building plans of other batch sizes.
 */
#include <stdio.h>
#include <string.h>

#include "model_internal.h"
#include "vk/vk_context.h"

/* The largest batch of max_batch's search, in rows (as svk-train's). */
#define MAX_ROWS (1u << 20)

/* The plan of [B, T] in accum micro-batches for params, measured into
 * *out; a shape too large to lay out (TOO_LARGE) is the status. */
static svk_status measure(const svk_model_params *params, const svk_backend_impl *impl, uint32_t B, uint32_t T,
                          uint32_t accum, svk_memory_plan *out)
{
    svk_plan_options opt = {0};
    svk_status st = impl->plan_options ? impl->plan_options(params->ctx, &params->config, &opt) : SVK_OK;
    if (st != SVK_OK)
        return st;
    opt.micro_batches = accum;
    opt.recompute = params->recompute;
    opt.precision = (uint32_t)params->precision;
    svk_plan p;
    if ((st = svk_plan_build(NULL, &params->config, B, T, &opt, &p)) != SVK_OK)
        return st;
    memset(out, 0, sizeof(*out));
    out->model = svk_plan_memory_report(&p);
    impl->estimate(params->ctx, &p, out);
    out->workspace = out->device_bytes > out->model.total ? out->device_bytes - out->model.total : 0;
    svk_plan_free(&p);
    return SVK_OK;
}

/* Whether [k * accum, T] fits. */
static bool fits(const svk_model_params *params, const svk_backend_impl *impl, uint32_t k, uint32_t T,
                 uint32_t accum)
{
    svk_memory_plan m;
    return measure(params, impl, k * accum, T, accum, &m) == SVK_OK && m.fits;
}

/* The largest k <= kmax with [k * accum, T] fitting, or 0: doubling, then
 * halving the interval (more rows never take less memory). */
static uint32_t largest_fit(const svk_model_params *params, const svk_backend_impl *impl, uint32_t T, uint32_t accum,
                            uint32_t kmax)
{
    if (!kmax || !fits(params, impl, 1, T, accum))
        return 0;
    uint32_t lo = 1, hi = 2; /* lo fits; hi does not, or is past kmax */
    while (hi <= kmax && fits(params, impl, hi, T, accum)) {
        lo = hi;
        hi = hi > kmax / 2 ? kmax + 1 : 2 * hi;
    }
    if (hi > kmax)
        hi = kmax + 1;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (fits(params, impl, mid, T, accum))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static svk_status check_args(const svk_model_params *params, uint32_t B, uint32_t T, uint32_t accum,
                             const char *func)
{
    svk_log *log = params->ctx && params->backend == SVK_BACKEND_VULKAN ? &params->ctx->log : NULL;
    SVK_CHECK_RESERVED(log, params->reserved);
    if (params->backend != SVK_BACKEND_CPU && params->backend != SVK_BACKEND_VULKAN)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: params->backend=%d is neither SVK_BACKEND_VULKAN nor _CPU",
                         func, (int)params->backend);
    if (params->backend == SVK_BACKEND_VULKAN && !params->ctx)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: params->ctx is NULL, and the Vulkan backend needs a context",
                         func);
    svk_status st = svk_model_config_validate(&params->config);
    if (st != SVK_OK)
        return st;
    if (!svk_precision_name(params->precision))
        return svk_error(log, SVK_ERROR_INVALID_ARG,
                         "%s: params->precision=%d is not SVK_PRECISION_FP32, _FP16 or _BF16", func,
                         (int)params->precision);
    if (B == 0 || T == 0 || T > params->config.ctx)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: batch B=%u T=%u: need B >= 1 and 1 <= T <= ctx=%u", func, B,
                         T, params->config.ctx);
    if (accum == 0 || B % accum != 0)
        return svk_error(log, SVK_ERROR_INVALID_ARG,
                         "%s: accum=%u must be >= 1 and divide the batch's B=%u rows into equal micro-batches", func,
                         accum, B);
    if ((uint64_t)B * T > (1ull << 31))
        return svk_error(log, SVK_ERROR_TOO_LARGE, "%s: batch B=%u x T=%u exceeds 2^31 tokens", func, B, T);
    return SVK_OK;
}

svk_status svk_model_plan_memory(const svk_model_params *params, uint32_t B, uint32_t T, uint32_t accum,
                                 svk_memory_plan *plan)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_PTR(NULL, plan);
    svk_status st = check_args(params, B, T, accum, __func__);
    if (st != SVK_OK)
        return st;
    const svk_backend_impl *impl = params->backend == SVK_BACKEND_VULKAN ? &svk_backend_vulkan : &svk_backend_cpu;
    svk_memory_plan out;
    if ((st = measure(params, impl, B, T, accum, &out)) != SVK_OK)
        return st;
    uint64_t kmax = ((1ull << 31) / T) / accum;
    if (kmax > MAX_ROWS / accum)
        kmax = MAX_ROWS / accum;
    out.max_batch = largest_fit(params, impl, T, accum, (uint32_t)kmax) * accum;
    *plan = out;
    /* The probes' refusals are answers, not this call's error. */
    svk_error_clear_thread();
    return SVK_OK;
}
