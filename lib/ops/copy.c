#include "copy.h"

#include <string.h>

#include "common/push_copy.h"
#include "elem_util.h"

static svk_status record(svk_cmdlist *cl, uint32_t mode, svk_tref dst, svk_tref src, uint64_t n, float value,
                         const char *label)
{
    static const char *const kernel[] = {"fill", "copy", "add"};
    SVK_CHECK_ARG(NULL, cl && dst.buf);
    svk_ctx *ctx = dst.buf->ctx;
    char name[128];
    const char *op = svk_elem_opname(name, kernel[mode], label);
    svk_range r[2];
    svk_status st = svk_op_bind(ctx, op, "dst", dst, n, &r[0]);
    if (st != SVK_OK)
        return st;
    if (mode == SVK_COPY_MODE_FILL) {
        src = dst; /* unread: the destination stands in */
        r[1] = r[0];
    } else if ((st = svk_op_bind(ctx, op, "src", src, n, &r[1])) != SVK_OK) {
        return st;
    } else if (src.buf == dst.buf && src.off < dst.off + n && dst.off < src.off + n) {
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: src and dst overlap", op);
    }
    svk_push_copy push = {
        .n = (uint32_t)n, .mode = mode, .off_dst = svk_elem_off(dst), .off_src = svk_elem_off(src), .value = value,
    };
    if (n > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: %llu elements", op, (unsigned long long)n);
    const uint64_t offs[2] = {push.off_dst, push.off_src};
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, SVK_KERNEL_COPY, n, offs, 2, r, 2, &push, sizeof(push), label);
}

/* The same through a transfer command (svk_cmdlist_transfer). */
static svk_status transfer(svk_cmdlist *cl, svk_transfer_kind kind, svk_tref dst, svk_tref src, uint64_t n,
                           float value, const char *label)
{
    SVK_CHECK_ARG(NULL, cl && dst.buf);
    svk_ctx *ctx = dst.buf->ctx;
    char name[128];
    const char *op = svk_elem_opname(name, kind == SVK_TRANSFER_FILL ? "fill" : "copy", label);
    svk_transfer t = {.kind = kind, .label = label ? label : op};
    svk_status st = svk_op_bind(ctx, op, "dst", dst, n, &t.dst);
    if (st == SVK_OK && kind == SVK_TRANSFER_COPY)
        st = svk_op_bind(ctx, op, "src", src, n, &t.src);
    if (st != SVK_OK)
        return st;
    memcpy(&t.fill, &value, sizeof(t.fill));
    return svk_cmdlist_transfer(cl, &t);
}

svk_status svk_fill_record(svk_cmdlist *cl, svk_tref dst, uint64_t n, float value, const char *label)
{
    if (dst.buf && !svk_op_transfer_allowed(dst.buf->ctx))
        return record(cl, SVK_COPY_MODE_FILL, dst, (svk_tref){0}, n, value, label);
    return transfer(cl, SVK_TRANSFER_FILL, dst, (svk_tref){0}, n, value, label);
}

svk_status svk_copy_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label)
{
    if (dst.buf && !svk_op_transfer_allowed(dst.buf->ctx))
        return record(cl, SVK_COPY_MODE_COPY, dst, src, n, 0.0f, label);
    return transfer(cl, SVK_TRANSFER_COPY, dst, src, n, 0.0f, label);
}

svk_status svk_fill_kernel_record(svk_cmdlist *cl, svk_tref dst, uint64_t n, float value, const char *label)
{
    return record(cl, SVK_COPY_MODE_FILL, dst, (svk_tref){0}, n, value, label);
}

svk_status svk_copy_kernel_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label)
{
    return record(cl, SVK_COPY_MODE_COPY, dst, src, n, 0.0f, label);
}

svk_status svk_add_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label)
{
    return record(cl, SVK_COPY_MODE_ADD, dst, src, n, 0.0f, label);
}
