/* The choices of the small operation families (policy.h). */
#include "policy.h"

#include "vk/vk_context.h"

svk_status svk_op_variant(svk_ctx *ctx, const char *op, svk_kernel_variant *out)
{
    (void)op;
    switch (ctx->settings.tuning.variant) {
    case SVK_TUNE_VARIANT_PORTABLE: *out = SVK_KERNEL_VARIANT_PORTABLE; break;
    case SVK_TUNE_VARIANT_CPU: *out = SVK_KERNEL_VARIANT_CPU; break;
    default: *out = ctx->profile.cpu ? SVK_KERNEL_VARIANT_CPU : SVK_KERNEL_VARIANT_PORTABLE; break;
    }
    return SVK_OK;
}

bool svk_op_tune_on(const svk_ctx *ctx, uint32_t off_bit)
{
    return !svk_tune_off(&ctx->settings.tuning, off_bit);
}

bool svk_op_texel_allowed(const svk_ctx *ctx)
{
    const svk_tune_texel t = ctx->settings.tuning.texel;
    if (t == SVK_TUNE_TEXEL_OFF)
        return false;
    if (!ctx->profile.texel.slow_fetch)
        return true;
    /* Forced on a driver whose fetches are slow: only at subgroup size 8.
     * Mesa 25.0.7's lavapipe crashes on the texel GEMM at 4 and computes
     * wrong sums with it at 16 (the conformance tool, forced; quirks.c). */
    return t == SVK_TUNE_TEXEL_ON && ctx->profile.subgroup_size == 8;
}

bool svk_op_transfer_allowed(const svk_ctx *ctx)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_TRANSFER_COPIES);
}

bool svk_op_vec4_allowed(const svk_ctx *ctx)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_VEC4);
}

bool svk_op_gemm_pack_allowed(const svk_ctx *ctx)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_PACK);
}

bool svk_op_gemm_wide_allowed(const svk_ctx *ctx)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_WIDE);
}

bool svk_op_gemm_rows_allowed(const svk_ctx *ctx)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_ROWS);
}

bool svk_op_gemm_store64_allowed(const svk_ctx *ctx)
{
    return ctx->profile.int64 && svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_STORE64);
}

uint32_t svk_op_cpu_group(const svk_ctx *ctx)
{
    uint32_t g = 2 * ctx->profile.subgroup_size;
    return g < 8 ? 8 : g > 64 ? 64 : g;
}

bool svk_op_fused_siamese_bwd_allowed(const svk_ctx *ctx)
{
    /* siamese_norm_bwd_fused*.comp's bindings (siamese_norm.c, FUSED_BINDINGS) */
    return ctx->profile.max_storage_buffers >= 13 && svk_op_tune_on(ctx, SVK_TUNE_OFF_FUSED_SIAMESE_BWD);
}

/* The lanes a split form shares each group of rows (or lane of partials)
 * over, 0 for none: the device's one subgroup size, where its compute
 * shaders have subgroupAdd, the workgroups of svk_op_cpu_group() are whole
 * subgroups and the tuning leaves norm_split on (for comparisons). */
uint32_t svk_op_norm_split_lanes(const svk_ctx *ctx)
{
    const uint32_t sg = ctx->profile.subgroup_size;
    if (!svk_op_tune_on(ctx, SVK_TUNE_OFF_NORM_SPLIT) || !ctx->profile.subgroup_arith || sg < 2 ||
        !ctx->profile.one_subgroup_size || svk_op_cpu_group(ctx) % sg)
        return 0;
    return sg;
}

bool svk_op_flash_attention(const svk_ctx *ctx)
{
    const svk_tune_attention t = ctx->settings.tuning.attention;
    return t == SVK_TUNE_ATTENTION_AUTO ? !ctx->profile.cpu : t == SVK_TUNE_ATTENTION_FLASH;
}
