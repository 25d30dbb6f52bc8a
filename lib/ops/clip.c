#include <math.h>

#include "clip.h"

#include "common/push_clip.h"
#include "elem_util.h"

/* Elements one clip_sumsq workgroup reduces: its width times PER
 * (specialisation constant 3). */
static uint64_t chunk_elems(void)
{
    const svk_kernel_info *k = svk_kernel_info_get(SVK_KERNEL_CLIP_SUMSQ);
    return (uint64_t)k->spec_defaults[0] * k->spec_defaults[3];
}

uint64_t svk_clip_slots(uint64_t n)
{
    return svk_div_up(n, chunk_elems());
}

uint64_t svk_clip_scratch_elems(uint32_t count, const uint64_t *sizes)
{
    uint64_t total = 0;
    for (uint32_t i = 0; sizes && i < count; i++)
        total += svk_clip_slots(sizes[i]);
    return total;
}

/* op names the dispatch in messages; a->label (kept by the list for its
 * timings, so it must outlive it) in timings. */
static svk_status sumsq(svk_cmdlist *cl, svk_ctx *ctx, const svk_clip_sumsq_args *a, const char *op)
{
    svk_range r[2];
    svk_status st;
    /* The shader's element index must not wrap 32 bits past the last chunk. */
    if (a->n >= (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: n=%llu elements, at most 2^31 - 1 per tensor", op,
                         (unsigned long long)a->n);
    const svk_op_operand operands[] = {{"x", a->x, a->n}, {"partials", a->partials, svk_clip_slots(a->n)}};
    if ((st = svk_op_bind_all(ctx, op, operands, 2, r)) != SVK_OK)
        return st;
    svk_push_clip push = {
        .n = (uint32_t)a->n,
        .off_x = svk_elem_off(a->x),
        .off_partials = svk_elem_off(a->partials),
    };
    svk_kernel_variant var;
    if ((st = svk_op_variant(ctx, op, &var)) != SVK_OK)
        return st;
    if (var != SVK_KERNEL_VARIANT_CPU)
        return svk_elem_dispatch(cl, ctx, op, SVK_KERNEL_CLIP_SUMSQ, svk_clip_slots(a->n), 1, r, 2, &push,
                                 sizeof(push), a->label);
    /* The CPU form (shaders/clip_sumsq.comp): one invocation per slot. */
    const uint32_t group = svk_op_cpu_group(ctx);
    const uint32_t spec[SVK_MAX_SPEC] = {
        group, 1, 1, svk_kernel_info_get(SVK_KERNEL_CLIP_SUMSQ)->spec_defaults[3], (uint32_t)chunk_elems(),
        svk_op_vec4_allowed(ctx) && a->x.off % 4 == 0,
    };
    return svk_elem_dispatch_spec(cl, ctx, op, SVK_KERNEL_CLIP_SUMSQ, spec, svk_div_up(svk_clip_slots(a->n), group),
                                  1, r, 2, &push, sizeof(push), a->label);
}

svk_status svk_clip_sumsq_record(svk_cmdlist *cl, const svk_clip_sumsq_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    char op[128];
    return sumsq(cl, a->x.buf->ctx, a, svk_elem_opname(op, "clip_sumsq", a->label));
}

svk_status svk_clip_scale_record(svk_cmdlist *cl, const svk_clip_scale_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->partials.buf);
    svk_ctx *ctx = a->partials.buf->ctx;
    char op[128];
    svk_elem_opname(op, "clip_scale", a->label);
    if (!(a->max_norm >= 0) || !isfinite(a->max_norm))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: max_norm=%g must be finite and >= 0", op,
                         (double)a->max_norm);
    if (a->n_partials >= (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: n_partials=%llu, at most 2^31 - 1", op,
                         (unsigned long long)a->n_partials);
    const bool scaled = a->state.buf != NULL;
    if (scaled && (!a->out_scale.buf || a->interval == 0))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: a loss scaler needs out_scale (%s) and interval >= 1 (%u)",
                         op, a->out_scale.buf ? "given" : "NULL", a->interval);
    /* Without a scaler, out stands in for its two bindings: the kernel
     * never touches them. */
    const svk_op_operand operands[] = {
        {"partials", a->partials, a->n_partials},
        {"out", a->out, 2},
        {"state", scaled ? a->state : a->out, scaled ? SVK_LOSS_SCALER_COUNT : 2},
        {"out_scale", scaled ? a->out_scale : a->out, 1},
    };
    svk_range r[4];
    svk_status st = svk_op_bind_all(ctx, op, operands, 4, r);
    if (st != SVK_OK)
        return st;
    svk_push_clip push = {
        .n = (uint32_t)a->n_partials,
        .off_partials = svk_elem_off(a->partials),
        .off_out = svk_elem_off(a->out),
        .max_norm = a->max_norm,
        .flags = scaled ? SVK_CLIP_FLAG_LOSS_SCALE : 0u,
        .off_state = scaled ? svk_elem_off(a->state) : 0u,
        .off_out_scale = scaled ? svk_elem_off(a->out_scale) : 0u,
        .interval = a->interval,
    };
    return svk_elem_dispatch(cl, ctx, op, SVK_KERNEL_CLIP_SCALE, 1, 1, r, 4, &push, sizeof(push), a->label);
}

svk_status svk_clip_record(svk_cmdlist *cl, const svk_clip_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->partials.buf);
    svk_ctx *ctx = a->partials.buf->ctx;
    char op[128];
    svk_elem_opname(op, "clip", a->label);
    if (a->count == 0 || !a->grads || !a->sizes)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: count=%u gradient tensors, grads %s, sizes %s", op,
                         a->count, a->grads ? "given" : "NULL", a->sizes ? "given" : "NULL");
    uint64_t slot = 0;
    for (uint32_t i = 0; i < a->count; i++) {
        /* Messages about a tensor name its index. */
        char top[160];
        snprintf(top, sizeof(top), "%s: grads[%u]", op, i);
        if (!a->grads[i].buf || a->sizes[i] == 0)
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: grads[%u] %s", op, i,
                             a->grads[i].buf ? "has size 0" : "has no buffer");
        svk_clip_sumsq_args s = {
            .n = a->sizes[i],
            .x = a->grads[i],
            .partials = {a->partials.buf, a->partials.off + slot},
            .label = a->label,
        };
        svk_status st = sumsq(cl, ctx, &s, top);
        if (st != SVK_OK)
            return st;
        slot += svk_clip_slots(a->sizes[i]);
    }
    svk_clip_scale_args f = {
        .n_partials = slot,
        .partials = a->partials,
        .max_norm = a->max_norm,
        .out = a->out,
        .state = a->state,
        .out_scale = a->out_scale,
        .interval = a->interval,
        .label = a->label,
    };
    return svk_clip_scale_record(cl, &f);
}
