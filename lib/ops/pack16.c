#include "pack16.h"

#include "common/push_pack16.h"
#include "elem_util.h"

/* Both directions: one invocation per word. */
static svk_status record(svk_cmdlist *cl, const svk_pack16_args *a, bool pack)
{
    SVK_CHECK_ARG(NULL, cl && a && a->x.buf);
    svk_ctx *ctx = a->x.buf->ctx;
    char op[128];
    svk_elem_opname(op, pack ? "pack16" : "unpack16", a->label);
    if (a->fmt != SVK_FMT_FP16 && a->fmt != SVK_FMT_BF16)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: fmt=%u is neither SVK_FMT_FP16 nor SVK_FMT_BF16", op,
                         a->fmt);
    if (!pack && !a->packed.buf)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: no packed operand to read", op);
    const bool store = a->packed.buf != NULL;
    if (pack && a->codes_only && !store)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: codes_only without a packed operand writes nothing",
                         op);
    const bool scaled = pack && a->scale.buf != NULL;
    /* Rounding alone binds x twice, and no scale binds x a third time: the
     * kernel never touches those. */
    const svk_op_operand operands[] = {
        {"x", a->x, a->n},
        {"packed", store ? a->packed : a->x, store ? svk_pack16_words(a->n) : a->n},
        {"scale", scaled ? a->scale : a->x, 1},
    };
    svk_range r[3];
    svk_status st = svk_op_bind_all(ctx, op, operands, pack ? 3 : 2, r);
    if (st != SVK_OK)
        return st;
    if (store && svk_range_overlap(r[0], r[1]))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: x (element %llu) and packed (element %llu) overlap",
                         op, (unsigned long long)a->x.off, (unsigned long long)a->packed.off);
    const svk_push_pack16 push = {
        .n = (uint32_t)a->n,
        .fmt = a->fmt,
        .store = store,
        .off_x = svk_elem_off(a->x),
        .off_packed = store ? svk_elem_off(a->packed) : 0,
        .scaled = scaled,
        .off_scale = scaled ? svk_elem_off(a->scale) : 0,
        .codes_only = pack && a->codes_only,
    };
    const svk_kernel_id k = pack ? SVK_KERNEL_PACK16 : SVK_KERNEL_UNPACK16;
    return svk_elem_dispatch_1d(cl, ctx, op, k, svk_pack16_words(a->n), r, pack ? 3 : 2, &push, sizeof(push),
                                a->label);
}

svk_status svk_pack16_record(svk_cmdlist *cl, const svk_pack16_args *a)
{
    return record(cl, a, true);
}

svk_status svk_unpack16_record(svk_cmdlist *cl, const svk_pack16_args *a)
{
    return record(cl, a, false);
}
