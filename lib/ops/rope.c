#include "rope.h"

#include <math.h>

#include "common/push_rope.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

static svk_status record(svk_cmdlist *cl, const svk_rope_args *a, svk_kernel_id kernel, const char *dflt)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : dflt;
    if (a->B == 0 || a->T == 0 || a->C == 0 || a->H == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape B=%u T=%u C=%u H=%u", op, a->B, a->T,
                         a->C, a->H);
    if (a->C % a->H || (a->C / a->H) % 2)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: head width C/H must be an even integer (C=%u, H=%u)", op, a->C, a->H);
    if (!(a->theta > 0.0f) || !isfinite(a->theta))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: theta=%g must be positive and finite", op,
                         (double)a->theta);
    const uint64_t B = a->B, T = a->T, C = a->C, half = C / a->H / 2;
    /* r = theta^(-2/D) in double, handed over as r_hi + r_lo. */
    const double r = pow((double)a->theta, -1.0 / (double)half);
    const float r_hi = (float)r, r_lo = (float)(r - (double)r_hi);
    /* The shader's range reduction (common/twofloat.glsl) is exact while
     * angles stay below 2^22 rad; the largest is (T-1) * max(1, r^(half-1)),
     * far inside for any theta >= 1 and T <= 2^22. */
    const double max_angle = (double)(T - 1) * fmax(1.0, pow(r, (double)(half - 1)));
    if (T > (1u << 22) || max_angle >= 4194304.0)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "%s: angles up to %.3g rad (T=%u, theta=%g) exceed the 2^22 the kernel reduces exactly", op,
                         max_angle, a->T, (double)a->theta);
    svk_range rq;
    svk_status st = svk_op_bind(ctx, op, "qkv", a->qkv, B * T * 3 * C, &rq);
    if (st != SVK_OK)
        return st;
    /* One invocation per (token, pair index); the shader's 32-bit linear
     * index must not wrap, even in the surplus groups of the grid. */
    const uint64_t items = B * T * half;
    const uint32_t wg = svk_kernel_info_get(kernel)->spec_defaults[0];
    if (items > (1ull << 31))
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: B*T*D/2 = %llu pairs", op, (unsigned long long)items);
    svk_push_rope push = {
        .rows = (uint32_t)(B * T), .T = a->T, .C = a->C, .H = a->H, .pairs = (uint32_t)half,
        .off = (uint32_t)a->qkv.off, .r_hi = r_hi, .r_lo = r_lo,
    };
    svk_dispatch d = {
        .kernel = kernel,
        .bindings = {rq},
        .n_bindings = 1,
        .push = &push,
        .push_size = sizeof(push),
        .label = op,
    };
    if ((st = svk_op_grid(ctx, op, svk_div_up(items, wg), d.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &d);
}

svk_status svk_rope_fwd_record(svk_cmdlist *cl, const svk_rope_args *a)
{
    return record(cl, a, SVK_KERNEL_ROPE_FWD, "rope_fwd");
}

svk_status svk_rope_bwd_record(svk_cmdlist *cl, const svk_rope_args *a)
{
    return record(cl, a, SVK_KERNEL_ROPE_BWD, "rope_bwd");
}
