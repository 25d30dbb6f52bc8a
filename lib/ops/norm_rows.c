#include "norm_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vk/texel.h"

#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

svk_status svk_norm_begin(const char *label, const char *dflt, const char *name, svk_tref t, const char **op,
                          svk_ctx **ctx)
{
    *op = label ? label : dflt;
    if (!t.buf)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: operand %s has no buffer", *op, name);
    *ctx = t.buf->ctx;
    return SVK_OK;
}

svk_status svk_norm_check_rows(svk_ctx *ctx, const char *op, uint32_t rows, const char *width_name, uint32_t width)
{
    if (rows == 0 || width == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: rows=%u %s=%u, each must be >= 1", op, rows,
                         width_name, width);
    return SVK_OK;
}

svk_status svk_norm_check_eps(svk_ctx *ctx, const char *op, float eps)
{
    if (!(eps > 0) || !isfinite(eps))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: eps=%g must be finite and > 0", op, (double)eps);
    return SVK_OK;
}

void svk_norm_row_spec(const svk_ctx *ctx, uint32_t width, uint32_t spec[3])
{
    spec[2] = 1;
    /* Rows of up to 256 take 32 invocations each, 2 lanes per workgroup:
     * with 8, a GPU's multiprocessors sat idle at training shapes (256
     * lanes: 32 workgroups for an H200's 132 multiprocessors; measured
     * faster there). CPU devices run this form only when a test forces it,
     * which then checks what GPUs run. */
    if (width <= 256) {
        spec[0] = 32;
        spec[1] = 2;
        return;
    }
    /* Wider rows: one lane of 256 invocations, fewer where the device
     * allows fewer (Vulkan guarantees 128). */
    uint32_t total = 256;
    while (total > 128 && (total > ctx->info.max_workgroup_invocations || total > ctx->info.max_workgroup_size[0]))
        total >>= 1;
    spec[0] = total;
    spec[1] = 1;
}

svk_norm_lanes svk_norm_lanes_for(uint32_t rows)
{
    svk_norm_lanes l;
    l.rows_per_part = (uint32_t)svk_div_up(rows, SVK_NORM_MAX_PARTS);
    l.n_part = (uint32_t)svk_div_up(rows, l.rows_per_part);
    return l;
}

svk_status svk_norm_check_disjoint(svk_ctx *ctx, const char *op, const char *name_a, svk_range a,
                                   const char *name_b, svk_range b, bool allow_equal)
{
    if (a.buf != b.buf || a.offset + a.size <= b.offset || b.offset + b.size <= a.offset)
        return SVK_OK;
    if (allow_equal && a.offset == b.offset && a.size == b.size)
        return SVK_OK;
    return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                     "%s: %s (elements [%llu, %llu)) and %s (elements [%llu, %llu)) of buffer '%s' overlap%s", op,
                     name_a, (unsigned long long)(a.offset / 4), (unsigned long long)((a.offset + a.size) / 4), name_b,
                     (unsigned long long)(b.offset / 4), (unsigned long long)((b.offset + b.size) / 4), a.buf->name,
                     allow_equal ? " without being the same operand" : "");
}

svk_status svk_norm_check_operands(svk_ctx *ctx, const char *op, const svk_norm_operand *ops, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            if (!ops[i].r.buf || !ops[j].r.buf || (!ops[i].written && !ops[j].written))
                continue;
            bool eq = ((ops[i].may_equal >> j) & 1u) || ((ops[j].may_equal >> i) & 1u);
            svk_status st = svk_norm_check_disjoint(ctx, op, ops[i].name, ops[i].r, ops[j].name, ops[j].r, eq);
            if (st != SVK_OK)
                return st;
        }
    return SVK_OK;
}

/* The CPU form of a portable row kernel; SVK_KERNEL_COUNT for none. */
static svk_kernel_id cpu_form(svk_kernel_id k)
{
    switch (k) {
    case SVK_KERNEL_LAYERNORM_FWD: return SVK_KERNEL_LAYERNORM_FWD_CPU;
    case SVK_KERNEL_LAYERNORM_BWD: return SVK_KERNEL_LAYERNORM_BWD_CPU;
    case SVK_KERNEL_RMSNORM_FWD: return SVK_KERNEL_RMSNORM_FWD_CPU;
    case SVK_KERNEL_RMSNORM_BWD: return SVK_KERNEL_RMSNORM_BWD_CPU;
    case SVK_KERNEL_SIAMESE_NORM_FWD: return SVK_KERNEL_SIAMESE_NORM_FWD_CPU;
    case SVK_KERNEL_SIAMESE_NORM_BWD: return SVK_KERNEL_SIAMESE_NORM_BWD_CPU;
    default: return SVK_KERNEL_COUNT;
    }
}

bool svk_norm_cpu_fits(uint32_t width, svk_norm_cpu_form form)
{
    uint64_t chunks = svk_div_up(width, form.vec4 ? 4 : 1);
    uint64_t loops = (uint64_t)form.rows_per_unit * ((uint64_t)form.passes * chunks + 1);
    return loops <= SVK_OP_CPU_LOOP_BUDGET;
}

/* Records `kernel` over `units` units, shaped as spec; per_group units per
 * workgroup. */
static svk_status row_dispatch(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id kernel, const uint32_t *spec,
                               uint32_t per_group, uint32_t units, const svk_range *bindings, uint32_t n_bindings,
                               const void *push, uint32_t push_size, const char *label)
{
    svk_status st;
    svk_dispatch d = {
        .kernel = kernel,
        .spec = spec,
        .n_bindings = n_bindings,
        .push = push,
        .push_size = push_size,
        .label = label,
    };
    for (uint32_t i = 0; i < n_bindings && i < SVK_MAX_BINDINGS; i++)
        d.bindings[i] = bindings[i];
    if ((st = svk_op_grid(ctx, label, svk_div_up(units, per_group), d.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &d);
}

/* The CPU forms that have a texel form (the <name>_texel rows of
 * shaders/meson.build): the same kernel, which also binds the storage bindings `of` as RGBA32F views,
 * after its own, and reads those rows through them; and a split form of
 * that (the same bindings; SVK_KERNEL_COUNT for none), for rows of
 * split_min and wider. */
static const struct texel_form {
    svk_kernel_id cpu, texel, split;
    uint32_t split_min;
    uint32_t n;
    uint8_t of[5];
} texel_forms[] = {
    {SVK_KERNEL_SIAMESE_NORM_FWD_CPU, SVK_KERNEL_SIAMESE_NORM_FWD_TEXEL, SVK_KERNEL_SIAMESE_NORM_FWD_SPLIT,
     SVK_NORM_SPLIT_MIN_WIDTH, 2, {0, 1}},
    {SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_CPU, SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_TEXEL,
     SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_SPLIT, SVK_NORM_SPLIT_WIDE_MIN_WIDTH, 5, {0, 1, 2, 3, 4}},
    {SVK_KERNEL_LAYERNORM_FWD_CPU, SVK_KERNEL_LAYERNORM_FWD_TEXEL, SVK_KERNEL_LAYERNORM_FWD_SPLIT,
     SVK_NORM_SPLIT_MIN_WIDTH, 1, {0}},
    {SVK_KERNEL_LAYERNORM_BWD_CPU, SVK_KERNEL_LAYERNORM_BWD_TEXEL, SVK_KERNEL_LAYERNORM_BWD_SPLIT,
     SVK_NORM_SPLIT_MIN_WIDTH, 3, {0, 1, 2}},
    {SVK_KERNEL_RMSNORM_FWD_CPU, SVK_KERNEL_RMSNORM_FWD_TEXEL, SVK_KERNEL_RMSNORM_FWD_SPLIT,
     SVK_NORM_SPLIT_WIDE_MIN_WIDTH, 1, {0}},
    {SVK_KERNEL_RMSNORM_BWD_CPU, SVK_KERNEL_RMSNORM_BWD_TEXEL, SVK_KERNEL_RMSNORM_BWD_SPLIT,
     SVK_NORM_SPLIT_MIN_WIDTH, 3, {0, 1, 2}},
};


svk_status svk_norm_cpu_dispatch(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id cpu_kernel, uint32_t width,
                                 uint32_t units, svk_norm_cpu_form form, const svk_range *bindings,
                                 uint32_t n_bindings, const void *push, uint32_t push_size, const char *label)
{
    /* One invocation per form.group units, svk_op_cpu_group() invocations
     * per workgroup. */
    const uint32_t per_group = svk_op_cpu_group(ctx);
    const uint32_t groups = (uint32_t)svk_div_up(units, form.group);
    uint32_t spec[6] = {per_group, 1, 1, form.vec4 ? 1u : 0u, form.flags, 0};
    /* The texel form where there is one, the rows are read as vec4s and
     * every buffer it views can be viewed: lavapipe fetches through a view
     * in one call where it loads from a storage buffer lane by lane. */
    for (size_t t = 0; t < sizeof(texel_forms) / sizeof(texel_forms[0]); t++) {
        const struct texel_form *f = &texel_forms[t];
        if (f->cpu != cpu_kernel)
            continue;
        if (!form.vec4 || !svk_op_texel_allowed(ctx) || n_bindings + f->n > SVK_MAX_BINDINGS)
            break;
        svk_range all[SVK_MAX_BINDINGS];
        bool usable = true;
        for (uint32_t i = 0; i < n_bindings; i++)
            all[i] = bindings[i];
        for (uint32_t i = 0; i < f->n && usable; i++) {
            all[n_bindings + i] = bindings[f->of[i]];
            usable = svk_texel_usable(bindings[f->of[i]].buf, SVK_TEXEL_RGBA32F, NULL, 0);
        }
        if (!usable)
            break;
        const uint32_t lanes = f->split != SVK_KERNEL_COUNT && width >= f->split_min ? svk_op_norm_split_lanes(ctx) : 0;
        if (lanes && (uint64_t)groups * lanes <= UINT32_MAX) {
            spec[5] = lanes;
            return row_dispatch(cl, ctx, f->split, spec, per_group, groups * lanes, all, n_bindings + f->n, push,
                                push_size, label);
        }
        return row_dispatch(cl, ctx, f->texel, spec, per_group, groups, all, n_bindings + f->n, push, push_size,
                            label);
    }
    return row_dispatch(cl, ctx, cpu_kernel, spec, per_group, groups, bindings, n_bindings, push, push_size, label);
}

svk_status svk_norm_row_dispatch(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id kernel, uint32_t width,
                                 uint32_t units, svk_norm_cpu_form form, const svk_range *bindings,
                                 uint32_t n_bindings, const void *push, uint32_t push_size, const char *label)
{
    svk_kernel_variant var;
    svk_status st = svk_op_variant(ctx, label, &var);
    if (st != SVK_OK)
        return st;
    if (var == SVK_KERNEL_VARIANT_CPU && cpu_form(kernel) != SVK_KERNEL_COUNT && svk_norm_cpu_fits(width, form))
        return svk_norm_cpu_dispatch(cl, ctx, cpu_form(kernel), width, units, form, bindings, n_bindings, push,
                                     push_size, label);
    /* The portable form: rows of invocations, spec[1] units per workgroup. */
    uint32_t spec[3];
    svk_norm_row_spec(ctx, width, spec);
    return row_dispatch(cl, ctx, kernel, spec, spec[1], units, bindings, n_bindings, push, push_size, label);
}
