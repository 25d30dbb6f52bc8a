#include "colsum.h"

#include "common/push_colsum.h"
#include "elem_util.h"
#include "vk/texel.h"

/* 32 rows per block keeps each first-stage sum short (its rounding error
 * grows with its length) while giving the device rows / 32 blocks of
 * parallelism beyond the N columns; the 1024 cap bounds the second stage's
 * serial sum per column. */
#define ROWS_PER_BLOCK 32u
#define MAX_BLOCKS 1024u

uint64_t svk_colsum_rows_per_block(uint64_t rows)
{
    uint64_t r = svk_div_up(rows, MAX_BLOCKS);
    return r > ROWS_PER_BLOCK ? r : ROWS_PER_BLOCK;
}

uint64_t svk_colsum_scratch_elems(uint64_t rows, uint64_t N)
{
    uint64_t blocks = svk_div_up(rows, svk_colsum_rows_per_block(rows));
    return blocks > 1 ? blocks * N : 0;
}

/* One dispatch of colsum.comp: blocks of rpb rows of src into dst. */
static svk_status stage(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_range src, svk_range dst,
                        const svk_push_colsum *push, uint64_t blocks, const char *label)
{
    const svk_range r[2] = {src, dst};
    /* Four columns per invocation where every row of src and dst starts
     * on a vec4 (colsum.comp). */
    const uint64_t offs[3] = {push->ld, push->off_src, push->off_dst};
    uint32_t spec[SVK_MAX_SPEC];
    const bool vec4 = svk_elem_vec4_spec(ctx, SVK_KERNEL_COLSUM, push->N, offs, 3, spec);
    /* On CPU devices src through a texel view where it can be viewed
     * (colsum_texel, colsum.comp built with SVK_TEXEL): same sums, same order. */
    svk_kernel_variant var;
    svk_status st = svk_op_variant(ctx, op, &var);
    if (st != SVK_OK)
        return st;
    const svk_kernel_id k = vec4 && var == SVK_KERNEL_VARIANT_CPU && svk_op_texel_allowed(ctx) &&
                                    svk_texel_usable(src.buf, SVK_TEXEL_RGBA32F, NULL, 0)
                                ? SVK_KERNEL_COLSUM_TEXEL
                                : SVK_KERNEL_COLSUM;
    uint64_t groups = svk_div_up(vec4 ? push->N / 4 : push->N, spec[0]);
    return svk_elem_dispatch_spec(cl, ctx, op, k, spec, groups, (uint32_t)blocks, r, 2, push, sizeof(*push), label);
}

svk_status svk_colsum_record(svk_cmdlist *cl, const svk_colsum_args *a)
{
    return svk_colsum_record_named(cl, a, "colsum", "src", "dst");
}

svk_status svk_colsum_record_named(svk_cmdlist *cl, const svk_colsum_args *a, const char *kernel,
                                   const char *src_name, const char *dst_name)
{
    SVK_CHECK_ARG(NULL, cl && a && a->src.buf && kernel && src_name && dst_name);
    svk_ctx *ctx = a->src.buf->ctx;
    char op[128];
    svk_elem_opname(op, kernel, a->label);
    if (a->rows == 0 || a->N == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape rows=%llu N=%llu", op,
                         (unsigned long long)a->rows, (unsigned long long)a->N);
    uint64_t ld = a->ld ? a->ld : a->N;
    if (ld < a->N)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: ld=%llu is less than N=%llu", op,
                         (unsigned long long)ld, (unsigned long long)a->N);
    if (ld > UINT32_MAX / a->rows)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: %s of %llu rows x ld %llu spans 2^32 elements", op,
                         src_name, (unsigned long long)a->rows, (unsigned long long)ld);
    svk_range src, dst, scratch = {0};
    svk_status st;
    if ((st = svk_op_bind(ctx, op, src_name, a->src, (a->rows - 1) * ld + a->N, &src)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, dst_name, a->dst, a->N, &dst)) != SVK_OK)
        return st;
    if (svk_range_overlap(src, dst))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: %s (element %llu) overlaps %s (element %llu)", op,
                         dst_name, (unsigned long long)a->dst.off, src_name, (unsigned long long)a->src.off);
    uint64_t rpb = svk_colsum_rows_per_block(a->rows);
    uint64_t blocks = svk_div_up(a->rows, rpb);
    svk_push_colsum push = {
        .rows = (uint32_t)a->rows,
        .N = (uint32_t)a->N,
        .ld = (uint32_t)ld,
        .rows_per_block = (uint32_t)rpb,
        .off_src = svk_elem_off(a->src),
        .off_dst = svk_elem_off(a->dst),
        /* Without ACCUMULATE one block writes its sums to dst row 0. */
        .flags = a->overwrite ? 0u : SVK_COLSUM_FLAG_ACCUMULATE,
    };
    if (blocks == 1)
        return stage(cl, ctx, op, src, dst, &push, 1, a->label);

    if ((st = svk_op_bind(ctx, op, "scratch", a->scratch, blocks * a->N, &scratch)) != SVK_OK)
        return st;
    if (svk_range_overlap(scratch, src) || svk_range_overlap(scratch, dst))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: scratch (element %llu) overlaps %s", op,
                         (unsigned long long)a->scratch.off, svk_range_overlap(scratch, src) ? src_name : dst_name);
    /* Stage 1: block z's column sums into scratch row z. */
    push.off_dst = svk_elem_off(a->scratch);
    push.flags = 0;
    if ((st = stage(cl, ctx, op, src, scratch, &push, blocks, a->label)) != SVK_OK)
        return st;
    /* Stage 2: scratch [blocks, N] as one block, accumulated into dst. */
    svk_push_colsum fin = {
        .rows = (uint32_t)blocks,
        .N = (uint32_t)a->N,
        .ld = (uint32_t)a->N,
        .rows_per_block = (uint32_t)blocks,
        .off_src = svk_elem_off(a->scratch),
        .off_dst = svk_elem_off(a->dst),
        .flags = a->overwrite ? 0u : SVK_COLSUM_FLAG_ACCUMULATE,
    };
    return stage(cl, ctx, op, scratch, dst, &fin, 1, a->label);
}
