#include "transpose.h"

#include "common/push_transpose.h"
#include "elem_util.h"
#include "vk/texel.h"

svk_status svk_transpose_record(svk_cmdlist *cl, const svk_transpose_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->src.buf && a->dst.buf);
    svk_ctx *ctx = a->src.buf->ctx;
    char name[128];
    const char *op = svk_elem_opname(name, "transpose", a->label);
    if (a->rows == 0 || a->cols == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape rows=%u cols=%u", op, a->rows, a->cols);
    const uint64_t ld = a->ld ? a->ld : a->cols, n = (uint64_t)a->rows * a->cols;
    const uint64_t span = (uint64_t)(a->rows - 1) * ld + a->cols; /* of src */
    if (ld < a->cols)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: ld=%llu is less than cols=%u", op,
                         (unsigned long long)ld, a->cols);
    if (n > UINT32_MAX || span > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: %u x %u (ld %llu) spans 2^32 elements", op, a->rows,
                         a->cols, (unsigned long long)ld);
    svk_range r[2];
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "src", a->src, span, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dst", a->dst, n, &r[1])) != SVK_OK)
        return st;
    if (svk_range_overlap(r[0], r[1]))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: dst (element %llu) overlaps src (element %llu)", op,
                         (unsigned long long)a->dst.off, (unsigned long long)a->src.off);
    svk_push_transpose push = {
        .rows = a->rows,
        .cols = a->cols,
        .ld = (uint32_t)ld,
        .off_src = svk_elem_off(a->src),
        .off_dst = svk_elem_off(a->dst),
    };
    /* On CPU devices 4 x 4 blocks with src fetched through a texel view
     * (transpose_texel.comp), where every row of src and dst starts on a
     * vec4 and both shapes are whole blocks. */
    svk_kernel_variant var;
    if ((st = svk_op_variant(ctx, op, &var)) != SVK_OK)
        return st;
    const uint64_t blocks[4] = {a->cols, ld, push.off_src, push.off_dst};
    if (var == SVK_KERNEL_VARIANT_CPU && svk_op_vec4_allowed(ctx) && svk_op_vec4(a->rows, blocks, 4) &&
        svk_op_texel_allowed(ctx) && svk_texel_usable(a->src.buf, SVK_TEXEL_RGBA32F, NULL, 0)) {
        const svk_kernel_id k = SVK_KERNEL_TRANSPOSE_TEXEL;
        return svk_elem_dispatch(cl, ctx, op, k, svk_div_up(n / 16, svk_elem_wg(k)), 1, r, 2, &push, sizeof(push),
                                 a->label);
    }
    /* Four rows of src per invocation, one vec4 of dst, where rows and
     * dst's offset are multiples of 4 (elem_util.h's rule, with the tuning's vec4). */
    const svk_kernel_id k = SVK_KERNEL_TRANSPOSE;
    const uint64_t offs[1] = {push.off_dst};
    uint32_t spec[SVK_MAX_SPEC];
    const bool vec4 = svk_elem_vec4_spec(ctx, k, a->rows, offs, 1, spec);
    const uint64_t items = vec4 ? n / 4 : n;
    return svk_elem_dispatch_spec(cl, ctx, op, k, spec, svk_div_up(items, spec[0]), 1, r, 2, &push, sizeof(push),
                                  a->label);
}
