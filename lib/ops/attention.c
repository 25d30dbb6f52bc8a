#include "attention.h"

#include <math.h>

#include "common/push_attention_flash.h"
#include "common/push_attention_softmax.h"
#include "gemm.h"
#include "vk/buffer.h"
#include "vk/context.h"

uint64_t svk_attention_scratch_elems(uint32_t B, uint32_t T, uint32_t H)
{
    return (uint64_t)B * H * T * T;
}

/* Shapes shared by every entry point; D is C / H. */
static svk_status check_shape(svk_ctx *ctx, const char *op, uint32_t B, uint32_t T, uint32_t C, uint32_t H)
{
    if (B == 0 || T == 0 || C == 0 || H == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: empty shape B=%u T=%u C=%u H=%u", op, B, T, C, H);
    if (C % H)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: width C=%u is not a multiple of the head count H=%u",
                         op, C, H);
    return SVK_OK;
}

/* Two ranges of one svk_buffer that share a byte. (Distinct svk_buffers
 * never share memory.) */
static bool overlap(svk_range a, svk_range b)
{
    return a.buf == b.buf && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

static svk_status check_disjoint(svk_ctx *ctx, const char *op, const char *wname, svk_range w, const char *rname,
                                 svk_range r)
{
    if (overlap(w, r))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: operand %s overlaps %s in buffer '%s' (elements %llu and %llu)", op, wname, rname,
                         w.buf->name, (unsigned long long)(w.offset / 4), (unsigned long long)(r.offset / 4));
    return SVK_OK;
}

/* The softmax row kernels' workgroup: the row length rounded up to 16,
 * within [16, 256] and the device's limits (Vulkan guarantees 128). Short
 * rows do not leave most of a large workgroup idle; sizes that are not
 * powers of two exercise the reduction's fold step
 * (shaders/common/attention_rows.glsl). */
static uint32_t softmax_wg(const svk_ctx *ctx, uint32_t T)
{
    uint32_t wg = T > 256u ? 256u : (T + 15u) / 16u * 16u;
    uint32_t lim = ctx->info.max_workgroup_invocations;
    if (ctx->info.max_workgroup_size[0] < lim)
        lim = ctx->info.max_workgroup_size[0];
    return wg > lim ? lim / 16u * 16u : wg;
}

/* The softmax row kernels in the variant svk_op_variant() picks: the
 * portable form (`kernel`, a workgroup per row) or its CPU form (one
 * invocation per row, shaders/attention_softmax_*_cpu.comp), rows per
 * workgroup as the norms' CPU forms take, stepping 4 keys at a time when
 * the row length and the offsets allow (common/row_cpu.glsl). */
static svk_status record_softmax(svk_cmdlist *cl, svk_ctx *ctx, svk_kernel_id kernel, const char *label,
                                 uint32_t rows, uint32_t T, svk_range p, svk_range d, uint32_t n_bindings)
{
    svk_push_attention_softmax push = {
        .rows = rows, .T = T, .off_p = (uint32_t)(p.offset / 4), .off_d = (uint32_t)(d.offset / 4),
    };
    svk_kernel_variant var;
    svk_status st = svk_op_variant(ctx, label, &var);
    if (st != SVK_OK)
        return st;
    uint32_t spec[4] = {softmax_wg(ctx, T), 1, 1, 0};
    uint64_t groups = rows;
    /* The CPU forms loop over a row 3 times (forward) or twice. */
    const uint64_t offs[] = {push.off_p, push.off_d};
    const bool vec4 = svk_op_vec4(T, offs, 2);
    const uint64_t loops = 3 * svk_div_up(T, vec4 ? 4 : 1) + 1;
    if (var == SVK_KERNEL_VARIANT_CPU && loops <= SVK_OP_CPU_LOOP_BUDGET) {
        kernel = kernel == SVK_KERNEL_ATTENTION_SOFTMAX_FWD ? SVK_KERNEL_ATTENTION_SOFTMAX_FWD_CPU
                                                             : SVK_KERNEL_ATTENTION_SOFTMAX_BWD_CPU;
        spec[0] = svk_op_cpu_group(ctx);
        spec[3] = vec4 ? 1u : 0u;
        groups = svk_div_up(rows, spec[0]);
    }
    svk_dispatch disp = {
        .kernel = kernel,
        .spec = spec,
        .bindings = {p, d},
        .n_bindings = n_bindings,
        .push = &push,
        .push_size = sizeof(push),
        .label = label,
    };
    if ((st = svk_op_grid(ctx, label, groups, disp.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &disp);
}

svk_status svk_attention_fwd_record(svk_cmdlist *cl, const svk_attention_fwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : "attention";
    svk_status st;
    if ((st = check_shape(ctx, op, a->B, a->T, a->C, a->H)) != SVK_OK)
        return st;
    const uint64_t B = a->B, T = a->T, C = a->C, H = a->H, D = C / H;
    svk_range r_qkv, r_out, r_att;
    if ((st = svk_op_bind(ctx, op, "qkv", a->qkv, B * T * 3 * C, &r_qkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, B * T * C, &r_out)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "att", a->att, B * H * T * T, &r_att)) != SVK_OK ||
        (st = check_disjoint(ctx, op, "out", r_out, "qkv", r_qkv)) != SVK_OK ||
        (st = check_disjoint(ctx, op, "att", r_att, "qkv", r_qkv)) != SVK_OK ||
        (st = check_disjoint(ctx, op, "att", r_att, "out", r_out)) != SVK_OK)
        return st;
    const float scale = (float)(1.0 / sqrt((double)D));

    /* S[b, h] = scale * Q_h K_h^T for every key, a [T, T] block of att per
     * head: the heads of batch b are a strided batch of D columns apart in
     * qkv (lda = 3C), T*T apart in att. The upper triangle is computed and
     * then overwritten by the softmax; see the report on a causal GEMM. */
    {
        svk_gemm_args g = {
            .trans_b = true, .M = a->T, .N = a->T, .K = (uint32_t)D, .batch = a->H, .outer = a->B,
            .alpha = scale, .beta = 0.0f,
            .a = a->qkv.buf, .off_a = a->qkv.off, .lda = (uint32_t)(3 * C), .stride_a = D, .stride2_a = T * 3 * C,
            .b = a->qkv.buf, .off_b = a->qkv.off + C, .ldb = (uint32_t)(3 * C), .stride_b = D, .stride2_b = T * 3 * C,
            .c = a->att.buf, .off_c = a->att.off, .ldc = a->T, .stride_c = T * T, .stride2_c = H * T * T,
            .label = a->label ? a->label : "attention: s = q k^T",
        };
        if ((st = svk_gemm_record(cl, &g)) != SVK_OK)
            return st;
    }
    if ((st = record_softmax(cl, ctx, SVK_KERNEL_ATTENTION_SOFTMAX_FWD, a->label ? a->label : "attention: softmax",
                             (uint32_t)(B * H * T), a->T, r_att, r_att, 1)) != SVK_OK)
        return st;
    /* out[b, :, h] = P[b, h] V_h; P is 0 above the diagonal, so the sum over
     * all T keys is the causal one. */
    {
        svk_gemm_args g = {
            .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B,
            .alpha = 1.0f, .beta = 0.0f,
            .a = a->att.buf, .off_a = a->att.off, .lda = a->T, .stride_a = T * T, .stride2_a = H * T * T,
            .b = a->qkv.buf, .off_b = a->qkv.off + 2 * C, .ldb = (uint32_t)(3 * C), .stride_b = D, .stride2_b = T * 3 * C,
            .c = a->out.buf, .off_c = a->out.off, .ldc = a->C, .stride_c = D, .stride2_c = T * C,
            .label = a->label ? a->label : "attention: out = P v",
        };
        if ((st = svk_gemm_record(cl, &g)) != SVK_OK)
            return st;
    }
    return SVK_OK;
}

svk_status svk_attention_bwd_record(svk_cmdlist *cl, const svk_attention_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : "attention";
    svk_status st;
    if ((st = check_shape(ctx, op, a->B, a->T, a->C, a->H)) != SVK_OK)
        return st;
    const uint64_t B = a->B, T = a->T, C = a->C, H = a->H, D = C / H;
    svk_range r_dout, r_qkv, r_att, r_dqkv, r_s;
    if ((st = svk_op_bind(ctx, op, "dout", a->dout, B * T * C, &r_dout)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "qkv", a->qkv, B * T * 3 * C, &r_qkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "att", a->att, B * H * T * T, &r_att)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dqkv", a->dqkv, B * T * 3 * C, &r_dqkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "scratch", a->scratch, B * H * T * T, &r_s)) != SVK_OK)
        return st;
    /* Written operands must not alias anything else: the GEMMs and the
     * softmax read their inputs while writing them. */
    const char *names[4] = {"dout", "qkv", "att", "dqkv"};
    const svk_range reads[4] = {r_dout, r_qkv, r_att, r_dqkv};
    for (int i = 0; i < 4; i++)
        if ((st = check_disjoint(ctx, op, "scratch", r_s, names[i], reads[i])) != SVK_OK)
            return st;
    for (int i = 0; i < 3; i++)
        if ((st = check_disjoint(ctx, op, "dqkv", r_dqkv, names[i], reads[i])) != SVK_OK)
            return st;
    const float scale = (float)(1.0 / sqrt((double)D));
    const uint32_t ld3 = (uint32_t)(3 * C);

    /* One dispatch per product over every (sequence, head): heads D
     * columns apart, sequences T rows apart. */
    const uint64_t s_qkv = T * 3 * C, s_c = T * C, s_tt = H * T * T;
    {
        /* dv = P^T dout: op(A) = P^T is [keys, queries]. */
        svk_gemm_args dv = {
            .trans_a = true, .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B,
            .alpha = 1.0f, .beta = 0.0f,
            .a = a->att.buf, .off_a = a->att.off, .lda = a->T, .stride_a = T * T, .stride2_a = s_tt,
            .b = a->dout.buf, .off_b = a->dout.off, .ldb = a->C, .stride_b = D, .stride2_b = s_c,
            .c = a->dqkv.buf, .off_c = a->dqkv.off + 2 * C, .ldc = ld3, .stride_c = D, .stride2_c = s_qkv,
            .label = a->label ? a->label : "attention: dv = P^T dout",
        };
        /* dP = dout v^T for every key (the softmax backward zeroes the
         * upper triangle). */
        svk_gemm_args dp = {
            .trans_b = true, .M = a->T, .N = a->T, .K = (uint32_t)D, .batch = a->H, .outer = a->B,
            .alpha = 1.0f, .beta = 0.0f,
            .a = a->dout.buf, .off_a = a->dout.off, .lda = a->C, .stride_a = D, .stride2_a = s_c,
            .b = a->qkv.buf, .off_b = a->qkv.off + 2 * C, .ldb = ld3, .stride_b = D, .stride2_b = s_qkv,
            .c = a->scratch.buf, .off_c = a->scratch.off, .ldc = a->T, .stride_c = T * T, .stride2_c = s_tt,
            .label = a->label ? a->label : "attention: dP = dout v^T",
        };
        if ((st = svk_gemm_record(cl, &dv)) != SVK_OK || (st = svk_gemm_record(cl, &dp)) != SVK_OK)
            return st;
    }
    if ((st = record_softmax(cl, ctx, SVK_KERNEL_ATTENTION_SOFTMAX_BWD,
                             a->label ? a->label : "attention: softmax backward", (uint32_t)(B * H * T), a->T, r_att,
                             r_s, 2)) != SVK_OK)
        return st;
    {
        /* dq = scale * dS k; dk = scale * dS^T q (scale: s = scale q k^T). */
        svk_gemm_args dq = {
            .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B,
            .alpha = scale, .beta = 0.0f,
            .a = a->scratch.buf, .off_a = a->scratch.off, .lda = a->T, .stride_a = T * T, .stride2_a = s_tt,
            .b = a->qkv.buf, .off_b = a->qkv.off + C, .ldb = ld3, .stride_b = D, .stride2_b = s_qkv,
            .c = a->dqkv.buf, .off_c = a->dqkv.off, .ldc = ld3, .stride_c = D, .stride2_c = s_qkv,
            .label = a->label ? a->label : "attention: dq = dS k",
        };
        svk_gemm_args dk = {
            .trans_a = true, .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B,
            .alpha = scale, .beta = 0.0f,
            .a = a->scratch.buf, .off_a = a->scratch.off, .lda = a->T, .stride_a = T * T, .stride2_a = s_tt,
            .b = a->qkv.buf, .off_b = a->qkv.off, .ldb = ld3, .stride_b = D, .stride2_b = s_qkv,
            .c = a->dqkv.buf, .off_c = a->dqkv.off + C, .ldc = ld3, .stride_c = D, .stride2_c = s_qkv,
            .label = a->label ? a->label : "attention: dk = dS^T q",
        };
        if ((st = svk_gemm_record(cl, &dq)) != SVK_OK || (st = svk_gemm_record(cl, &dk)) != SVK_OK)
            return st;
    }
    return SVK_OK;
}

/* Tiles of the flash kernel for head widths up to dmax: BQ query rows and
 * BK keys per tile, TPR = 4 invocations per row. */
typedef struct flash_tiles {
    uint32_t dmax, bq, bk;
} flash_tiles;

static uint64_t flash_shared_bytes(uint32_t dmax, uint32_t bq, uint32_t bk, uint32_t tpr)
{
    /* qs, ks (rows padded by one), vs, ps, red_m, red_l: see the shader. */
    return 4ull * ((uint64_t)bq * (dmax + 1) + (uint64_t)bk * (dmax + 1) + (uint64_t)bk * dmax + (uint64_t)bq * bk +
                   2ull * bq * tpr);
}

svk_status svk_attention_flash_fwd_record(svk_cmdlist *cl, const svk_attention_flash_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : "attention_flash";
    svk_status st;
    if ((st = check_shape(ctx, op, a->B, a->T, a->C, a->H)) != SVK_OK)
        return st;
    const uint64_t B = a->B, T = a->T, C = a->C, H = a->H, D = C / H;
    svk_range r_qkv, r_out;
    if ((st = svk_op_bind(ctx, op, "qkv", a->qkv, B * T * 3 * C, &r_qkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", a->out, B * T * C, &r_out)) != SVK_OK ||
        (st = check_disjoint(ctx, op, "out", r_out, "qkv", r_qkv)) != SVK_OK)
        return st;
    /* Starting points sized for 32 KiB of shared memory (lavapipe, most
     * desktop GPUs); halved, keys first, until they fit the device. */
    static const flash_tiles table[] = {{32, 32, 32}, {64, 16, 32}, {128, 16, 16}, {256, 8, 8}};
    const uint32_t tpr = 4;
    flash_tiles t = {0};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && !t.dmax; i++)
        if (D <= table[i].dmax)
            t = table[i];
    if (!t.dmax)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "%s: head width D=%llu exceeds the fused kernel's 256 (use svk_attention_fwd_record)", op,
                         (unsigned long long)D);
    while (flash_shared_bytes(t.dmax, t.bq, t.bk, tpr) > ctx->info.max_shared_memory) {
        if (t.bk > tpr)
            t.bk /= 2;
        else if (t.bq > 1)
            t.bq /= 2;
        else
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "%s: D=%llu needs %llu bytes of shared memory, the device has %u", op,
                             (unsigned long long)D, (unsigned long long)flash_shared_bytes(t.dmax, 1, tpr, tpr),
                             ctx->info.max_shared_memory);
    }
    const uint64_t q_blocks = svk_div_up(T, t.bq);
    if (B * H * q_blocks > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: B*H*ceil(T/%u) = %llu workgroups", op, t.bq,
                         (unsigned long long)(B * H * q_blocks));
    svk_push_attention_flash push = {
        .B = a->B, .T = a->T, .C = a->C, .H = a->H, .D = (uint32_t)D, .q_blocks = (uint32_t)q_blocks,
        .off_qkv = (uint32_t)a->qkv.off, .off_out = (uint32_t)a->out.off,
        .scale = (float)(1.0 / sqrt((double)D)),
    };
    uint32_t spec[5] = {tpr, t.bq, 1, t.bk, t.dmax};
    svk_dispatch disp = {
        .kernel = SVK_KERNEL_ATTENTION_FLASH_FWD,
        .spec = spec,
        .bindings = {r_qkv, r_out},
        .n_bindings = 2,
        .push = &push,
        .push_size = sizeof(push),
        .label = op,
    };
    if ((st = svk_op_grid(ctx, op, B * H * q_blocks, disp.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &disp);
}
