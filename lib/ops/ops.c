#include "ops.h"

#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

svk_status svk_op_bind(svk_ctx *ctx, const char *op, const char *what, svk_tref t, uint64_t n, svk_range *out)
{
    if (!t.buf)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: operand %s has no buffer", op, what);
    if (t.buf->ctx != ctx)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: operand %s is a buffer of another context", op, what);
    if (n == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: operand %s is empty", op, what);
    uint64_t elems = t.buf->size / 4;
    if (t.off > elems || n > elems - t.off)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: operand %s needs elements [%llu, %llu) but buffer '%s' holds %llu", op, what,
                         (unsigned long long)t.off, (unsigned long long)(t.off + n), t.buf->name,
                         (unsigned long long)elems);
    if (t.off + n > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: operand %s ends past element 2^32", op, what);
    *out = (svk_range){t.buf, t.off * 4, n * 4};
    return SVK_OK;
}

svk_status svk_op_bind_all(svk_ctx *ctx, const char *op, const svk_op_operand *operands, uint32_t count,
                           svk_range *out)
{
    for (uint32_t i = 0; i < count; i++) {
        svk_status st = svk_op_bind(ctx, op, operands[i].what, operands[i].t, operands[i].n, &out[i]);
        if (st != SVK_OK)
            return st;
    }
    return SVK_OK;
}

svk_status svk_op_grid(svk_ctx *ctx, const char *op, uint64_t groups, uint32_t out[3])
{
    uint64_t max_x = ctx->info.max_workgroup_count[0], max_y = ctx->info.max_workgroup_count[1];
    if (groups == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty problem", op);
    uint64_t y = svk_div_up(groups, max_x);
    if (y > max_y)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: %llu workgroups exceed the device's %llu x %llu", op,
                         (unsigned long long)groups, (unsigned long long)max_x, (unsigned long long)max_y);
    /* x * y may exceed groups: the shader skips the surplus groups. */
    out[0] = (uint32_t)svk_div_up(groups, y);
    out[1] = (uint32_t)y;
    out[2] = 1;
    return SVK_OK;
}

bool svk_op_vec4(uint64_t width, const uint64_t *offs, uint32_t n)
{
    if (width % 4)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (offs[i] % 4)
            return false;
    return true;
}
