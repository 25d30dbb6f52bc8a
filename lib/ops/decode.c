#include "decode.h"

#include <math.h>

#include "common/push_decode.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

svk_status svk_decode_embed_record(svk_cmdlist *cl, const svk_decode_embed_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->step.buf);
    svk_ctx *ctx = a->step.buf->ctx;
    const char *op = a->label ? a->label : "decode_embed";
    if (!a->C || !a->V || !a->ctx)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape C=%u V=%u ctx=%u", op, a->C, a->V, a->ctx);
    if (a->rows && (a->row0 >= a->V || a->rows > a->V - a->row0))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: table rows [%u, +%u) outside V=%u", op, a->row0,
                         a->rows, a->V);
    const uint32_t table = a->rows ? a->rows : a->V;
    svk_range r[4];
    const svk_op_operand ops[] = {
        {"step", a->step, 2},
        {"wte", a->wte, (uint64_t)table * a->C},
        {"wpe", a->wpe.buf ? a->wpe : a->wte, a->wpe.buf ? (uint64_t)a->ctx * a->C : 1},
        {"out", a->out, a->C},
    };
    svk_status st = svk_op_bind_all(ctx, op, ops, 4, r);
    if (st != SVK_OK)
        return st;
    const svk_push_decode push = {
        .C = a->C, .V = table, .ctx = a->ctx, .off_step = (uint32_t)a->step.off, .off_a = (uint32_t)a->wte.off,
        .off_b = a->wpe.buf ? (uint32_t)a->wpe.off : 0u, .off_out = (uint32_t)a->out.off,
        .flags = (a->wpe.buf ? SVK_DECODE_FLAG_WPE : 0u) | (a->rows ? SVK_DECODE_FLAG_PART : 0u), .row0 = a->row0,
    };
    svk_dispatch d = {.kernel = SVK_KERNEL_DECODE_EMBED, .n_bindings = 4, .push = &push, .push_size = sizeof(push),
                      .label = op};
    for (int i = 0; i < 4; i++)
        d.bindings[i] = r[i];
    const uint32_t wg = svk_kernel_info_get(SVK_KERNEL_DECODE_EMBED)->spec_defaults[0];
    if ((st = svk_op_grid(ctx, op, svk_div_up(a->C, wg), d.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &d);
}

/* The shape and RoPE checks, before anything is bound. */
static svk_status check_attention(svk_ctx *ctx, const char *op, const svk_decode_attention_args *a)
{
    if (!a->C || !a->H || !a->ctx || a->C % a->H)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: shape C=%u H=%u ctx=%u: need C, H, ctx >= 1, H | C",
                         op, a->C, a->H, a->ctx);
    if (a->rope && ((a->C / a->H) % 2 || !(a->theta > 0.0f) || !isfinite(a->theta)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: RoPE needs an even head width (C/H=%u) and a finite theta > 0 (theta=%g)", op,
                         a->C / a->H, (double)a->theta);
    /* The shader indexes the cache with 32-bit products, and its angles
     * are those of rope_fwd at positions below ctx (lib/ops/rope.c's bound). */
    if ((uint64_t)a->ctx * 3 * a->C > UINT32_MAX || (a->rope && a->ctx > (1u << 22)))
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: a cache of ctx=%u rows of 3C=%llu is too large", op,
                         a->ctx, 3ull * a->C);
    return SVK_OK;
}

svk_status svk_decode_attention_record(svk_cmdlist *cl, const svk_decode_attention_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->step.buf);
    svk_ctx *ctx = a->step.buf->ctx;
    const char *op = a->label ? a->label : "decode_attention";
    svk_status st = check_attention(ctx, op, a);
    if (st != SVK_OK)
        return st;
    svk_range r[4];
    const svk_op_operand ops[] = {
        {"step", a->step, 2},
        {"qkv", a->qkv, 3ull * a->C},
        {"cache", a->cache, (uint64_t)a->ctx * 3 * a->C},
        {"out", a->out, a->C},
    };
    if ((st = svk_op_bind_all(ctx, op, ops, 4, r)) != SVK_OK)
        return st;
    const uint32_t D = a->C / a->H;
    /* r = theta^(-2/D) in double, handed over as r_hi + r_lo (as rope's). */
    const double rr = a->rope ? pow((double)a->theta, -1.0 / (double)(D / 2)) : 1.0;
    const float r_hi = (float)rr, r_lo = (float)(rr - (double)r_hi);
    const svk_push_decode push = {
        .C = a->C, .H = a->H, .ctx = a->ctx, .off_step = (uint32_t)a->step.off, .off_a = (uint32_t)a->qkv.off,
        .off_b = (uint32_t)a->cache.off, .off_out = (uint32_t)a->out.off,
        .flags = a->rope ? SVK_DECODE_FLAG_ROPE : 0u, .scale = (float)(1.0 / sqrt((double)D)), .r_hi = r_hi,
        .r_lo = r_lo,
    };
    svk_dispatch d = {.kernel = SVK_KERNEL_DECODE_ATTENTION, .n_bindings = 4, .push = &push,
                      .push_size = sizeof(push), .label = op};
    for (int i = 0; i < 4; i++)
        d.bindings[i] = r[i];
    if ((st = svk_op_grid(ctx, op, a->H, d.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &d);
}
