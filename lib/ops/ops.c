#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "vk/buffer.h"
#include "vk/context.h"

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

svk_status svk_op_variant(svk_ctx *ctx, const char *op, svk_kernel_variant *out)
{
    const char *env = getenv("SVK_KERNEL_VARIANT");
    if (env && *env) {
        if (!strcmp(env, "portable"))
            *out = SVK_KERNEL_VARIANT_PORTABLE;
        else if (!strcmp(env, "cpu"))
            *out = SVK_KERNEL_VARIANT_CPU;
        else
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                             "%s: SVK_KERNEL_VARIANT='%s', expected 'portable' or 'cpu'", op, env);
        return SVK_OK;
    }
    *out = ctx->info.type == SVK_DEVICE_CPU ? SVK_KERNEL_VARIANT_CPU : SVK_KERNEL_VARIANT_PORTABLE;
    return SVK_OK;
}

bool svk_op_env_allows(const char *name)
{
    const char *env = getenv(name);
    return !env || strcmp(env, "0") != 0;
}

bool svk_op_texel_allowed(const svk_ctx *ctx)
{
    const char *env = getenv("SVK_TEXEL_BUFFERS");
    if (env && !strcmp(env, "0"))
        return false;
    if (!ctx->texel.slow_fetch)
        return true;
    /* Forced on a driver whose fetches are slow: only at subgroup size 8.
     * Mesa 25.0.7's lavapipe crashes on the texel GEMM at 4 and computes
     * wrong sums with it at 16 (the conformance tool, forced; quirks.c). */
    return env && *env && ctx->info.subgroup_size == 8;
}

bool svk_op_transfer_allowed(void)
{
    return svk_op_env_allows("SVK_TRANSFER_COPIES");
}

bool svk_op_vec4_allowed(void)
{
    return svk_op_env_allows("SVK_VEC4");
}

bool svk_op_gemm_pack_allowed(void)
{
    return svk_op_env_allows("SVK_GEMM_PACK");
}

bool svk_op_gemm_wide_allowed(void)
{
    return svk_op_env_allows("SVK_GEMM_WIDE");
}

bool svk_op_gemm_rows_allowed(void)
{
    return svk_op_env_allows("SVK_GEMM_ROWS");
}

bool svk_op_gemm_store64_allowed(const svk_ctx *ctx)
{
    return ctx->info.int64 && svk_op_env_allows("SVK_GEMM_STORE64");
}

uint32_t svk_op_cpu_group(const svk_ctx *ctx)
{
    uint32_t g = 2 * ctx->info.subgroup_size;
    return g < 8 ? 8 : g > 64 ? 64 : g;
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
