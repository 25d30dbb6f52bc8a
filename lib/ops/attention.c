#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/push_attention_flash.h"
#include "common/push_attention_softmax.h"
#include "gemm.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"
#include "vk/texel.h"

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

static svk_status check_disjoint(svk_ctx *ctx, const char *op, const char *wname, svk_range w, const char *rname,
                                 svk_range r)
{
    if (svk_range_overlap(w, r))
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
    bool texel = false;
    if (var == SVK_KERNEL_VARIANT_CPU && loops <= SVK_OP_CPU_LOOP_BUDGET) {
        const bool fwd = kernel == SVK_KERNEL_ATTENTION_SOFTMAX_FWD;
        /* The texel forms where the rows are vec4s and can be viewed:
         * lavapipe fetches through a view in one call where it loads from a
         * storage buffer lane by lane. */
        texel = vec4 && svk_op_texel_allowed(ctx) && svk_texel_usable(p.buf, SVK_TEXEL_RGBA32F, NULL, 0) &&
                (fwd || svk_texel_usable(d.buf, SVK_TEXEL_RGBA32F, NULL, 0));
        kernel = fwd ? (texel ? SVK_KERNEL_ATTENTION_SOFTMAX_FWD_TEXEL : SVK_KERNEL_ATTENTION_SOFTMAX_FWD_CPU)
                     : (texel ? SVK_KERNEL_ATTENTION_SOFTMAX_BWD_TEXEL : SVK_KERNEL_ATTENTION_SOFTMAX_BWD_CPU);
        spec[0] = svk_op_cpu_group(ctx);
        spec[3] = vec4 ? 1u : 0u;
        groups = svk_div_up(rows, spec[0]);
    }
    svk_dispatch disp = {
        .kernel = kernel,
        .spec = spec,
        /* forward: p; backward: p, d; the texel forms view them after */
        .bindings = {p, n_bindings == 1 ? p : d, p, d},
        .n_bindings = texel ? 2 * n_bindings : n_bindings,
        .push = &push,
        .push_size = sizeof(push),
        .label = label,
    };
    if ((st = svk_op_grid(ctx, label, groups, disp.groups)) != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &disp);
}

/* The forwards' operands: qkv [rows, 3C], out [rows, C] and a third (the
 * scores, or the flash statistics), each disjoint from the others; r gets
 * qkv's, out's and the third's ranges. */
static svk_status bind_fwd(svk_ctx *ctx, const char *op, uint64_t rows, uint64_t C, svk_tref qkv, svk_tref out,
                           const char *third_name, svk_tref third, uint64_t third_elems, svk_range r[3])
{
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "qkv", qkv, rows * 3 * C, &r[0])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "out", out, rows * C, &r[1])) != SVK_OK ||
        (st = svk_op_bind(ctx, op, third_name, third, third_elems, &r[2])) != SVK_OK ||
        (st = check_disjoint(ctx, op, "out", r[1], "qkv", r[0])) != SVK_OK ||
        (st = check_disjoint(ctx, op, third_name, r[2], "qkv", r[0])) != SVK_OK)
        return st;
    return check_disjoint(ctx, op, third_name, r[2], "out", r[1]);
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
    svk_range r[3];
    if ((st = bind_fwd(ctx, op, B * T, C, a->qkv, a->out, "att", a->att, B * H * T * T, r)) != SVK_OK)
        return st;
    const float scale = (float)(1.0 / sqrt((double)D));

    /* S[b, h] = scale * Q_h K_h^T, a [T, T] block of att per head: the
     * heads of batch b are a strided batch of D columns apart in qkv
     * (lda = 3C), T*T apart in att. Only keys up to the query are wanted
     * (CAUSAL_OUT): the softmax reads no more and overwrites the rest. */
    {
        svk_gemm_args g = {
            .shape = {.trans_b = true, .M = a->T, .N = a->T, .K = (uint32_t)D, .batch = a->H, .outer = a->B},
            .alpha = scale, .beta = 0.0f,
            .a = {.buf = a->qkv.buf, .off = a->qkv.off, .ld = (uint32_t)(3 * C), .stride = D, .stride2 = T * 3 * C},
            .b = {.buf = a->qkv.buf, .off = a->qkv.off + C, .ld = (uint32_t)(3 * C), .stride = D, .stride2 = T * 3 * C},
            .c = {.buf = a->att.buf, .off = a->att.off, .ld = a->T, .stride = T * T, .stride2 = H * T * T},
            .label = a->label ? a->label : "attention: s = q k^T",
            .structure = SVK_GEMM_CAUSAL_OUT,
        };
        if ((st = svk_gemm_record(cl, &g)) != SVK_OK)
            return st;
    }
    if ((st = record_softmax(cl, ctx, SVK_KERNEL_ATTENTION_SOFTMAX_FWD, a->label ? a->label : "attention: softmax",
                             (uint32_t)(B * H * T), a->T, r[2], r[2], 1)) != SVK_OK)
        return st;
    /* out[b, :, h] = P[b, h] V_h; P is 0 above the diagonal (A_LOWER), so
     * the sum over keys up to the query is the causal one. */
    {
        svk_gemm_args g = {
            .shape = {.M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B},
            .alpha = 1.0f, .beta = 0.0f,
            .a = {.buf = a->att.buf, .off = a->att.off, .ld = a->T, .stride = T * T, .stride2 = H * T * T},
            .b = {.buf = a->qkv.buf, .off = a->qkv.off + 2 * C, .ld = (uint32_t)(3 * C), .stride = D,
                  .stride2 = T * 3 * C},
            .c = {.buf = a->out.buf, .off = a->out.off, .ld = a->C, .stride = D, .stride2 = T * C},
            .label = a->label ? a->label : "attention: out = P v",
            .structure = SVK_GEMM_A_LOWER,
        };
        if ((st = svk_gemm_record(cl, &g)) != SVK_OK)
            return st;
    }
    return SVK_OK;
}

/* Binds the backward's operands; the written ones (scratch, dqkv) must
 * not alias anything else: the GEMMs and the softmax read their inputs
 * while writing them. */
static svk_status bind_bwd(svk_ctx *ctx, const char *op, const svk_attention_bwd_args *a, svk_range *r_att,
                           svk_range *r_s)
{
    const uint64_t B = a->B, T = a->T, C = a->C, H = a->H;
    svk_range r_dout, r_qkv, r_dqkv;
    svk_status st;
    if ((st = svk_op_bind(ctx, op, "dout", a->dout, B * T * C, &r_dout)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "qkv", a->qkv, B * T * 3 * C, &r_qkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "att", a->att, B * H * T * T, r_att)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "dqkv", a->dqkv, B * T * 3 * C, &r_dqkv)) != SVK_OK ||
        (st = svk_op_bind(ctx, op, "scratch", a->scratch, B * H * T * T, r_s)) != SVK_OK)
        return st;
    const char *names[4] = {"dout", "qkv", "att", "dqkv"};
    const svk_range reads[4] = {r_dout, r_qkv, *r_att, r_dqkv};
    for (int i = 0; i < 4; i++)
        if ((st = check_disjoint(ctx, op, "scratch", *r_s, names[i], reads[i])) != SVK_OK)
            return st;
    for (int i = 0; i < 3; i++)
        if ((st = check_disjoint(ctx, op, "dqkv", r_dqkv, names[i], reads[i])) != SVK_OK)
            return st;
    return SVK_OK;
}

/* dv = P^T dout and dP = dout v^T, one dispatch each over every (sequence,
 * head): heads D columns apart, sequences T rows apart. */
static svk_status record_dv_dp(svk_cmdlist *cl, const svk_attention_bwd_args *a)
{
    const uint64_t T = a->T, C = a->C, H = a->H, D = C / H;
    const uint32_t ld3 = (uint32_t)(3 * C);
    const uint64_t s_qkv = T * 3 * C, s_c = T * C, s_tt = H * T * T;
    /* op(A) = P^T is [keys, queries], 0 for queries before the key
     * (A_UPPER). */
    svk_gemm_args dv = {
        .shape = {.trans_a = true, .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B},
        .alpha = 1.0f, .beta = 0.0f,
        .a = {.buf = a->att.buf, .off = a->att.off, .ld = a->T, .stride = T * T, .stride2 = s_tt},
        .b = {.buf = a->dout.buf, .off = a->dout.off, .ld = a->C, .stride = D, .stride2 = s_c},
        .c = {.buf = a->dqkv.buf, .off = a->dqkv.off + 2 * C, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .label = a->label ? a->label : "attention: dv = P^T dout",
        .structure = SVK_GEMM_A_UPPER,
    };
    /* dP for keys up to the query (CAUSAL_OUT: the softmax backward reads
     * no more, and zeroes the rest). */
    svk_gemm_args dp = {
        .shape = {.trans_b = true, .M = a->T, .N = a->T, .K = (uint32_t)D, .batch = a->H, .outer = a->B},
        .alpha = 1.0f, .beta = 0.0f,
        .a = {.buf = a->dout.buf, .off = a->dout.off, .ld = a->C, .stride = D, .stride2 = s_c},
        .b = {.buf = a->qkv.buf, .off = a->qkv.off + 2 * C, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .c = {.buf = a->scratch.buf, .off = a->scratch.off, .ld = a->T, .stride = T * T, .stride2 = s_tt},
        .label = a->label ? a->label : "attention: dP = dout v^T",
        .structure = SVK_GEMM_CAUSAL_OUT,
    };
    const svk_status st = svk_gemm_record(cl, &dv);
    return st != SVK_OK ? st : svk_gemm_record(cl, &dp);
}

/* dq = scale * dS k; dk = scale * dS^T q (scale: s = scale q k^T); dS is
 * 0 above the diagonal, as P. Laid out as record_dv_dp's. */
static svk_status record_dq_dk(svk_cmdlist *cl, const svk_attention_bwd_args *a)
{
    const uint64_t T = a->T, C = a->C, H = a->H, D = C / H;
    const uint32_t ld3 = (uint32_t)(3 * C);
    const uint64_t s_qkv = T * 3 * C, s_tt = H * T * T;
    const float scale = (float)(1.0 / sqrt((double)D));
    svk_gemm_args dq = {
        .shape = {.M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B},
        .alpha = scale, .beta = 0.0f,
        .a = {.buf = a->scratch.buf, .off = a->scratch.off, .ld = a->T, .stride = T * T, .stride2 = s_tt},
        .b = {.buf = a->qkv.buf, .off = a->qkv.off + C, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .c = {.buf = a->dqkv.buf, .off = a->dqkv.off, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .label = a->label ? a->label : "attention: dq = dS k",
        .structure = SVK_GEMM_A_LOWER,
    };
    svk_gemm_args dk = {
        .shape = {.trans_a = true, .M = a->T, .N = (uint32_t)D, .K = a->T, .batch = a->H, .outer = a->B},
        .alpha = scale, .beta = 0.0f,
        .a = {.buf = a->scratch.buf, .off = a->scratch.off, .ld = a->T, .stride = T * T, .stride2 = s_tt},
        .b = {.buf = a->qkv.buf, .off = a->qkv.off, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .c = {.buf = a->dqkv.buf, .off = a->dqkv.off + C, .ld = ld3, .stride = D, .stride2 = s_qkv},
        .label = a->label ? a->label : "attention: dk = dS^T q",
        .structure = SVK_GEMM_A_UPPER,
    };
    const svk_status st = svk_gemm_record(cl, &dq);
    return st != SVK_OK ? st : svk_gemm_record(cl, &dk);
}

svk_status svk_attention_bwd_record(svk_cmdlist *cl, const svk_attention_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : "attention";
    svk_range r_att, r_s;
    svk_status st;
    if ((st = check_shape(ctx, op, a->B, a->T, a->C, a->H)) != SVK_OK ||
        (st = bind_bwd(ctx, op, a, &r_att, &r_s)) != SVK_OK || (st = record_dv_dp(cl, a)) != SVK_OK)
        return st;
    /* dS_j = p_j (dP_j - sum_k p_k dP_k), in place of dP. */
    const uint32_t rows = (uint32_t)((uint64_t)a->B * a->H * a->T);
    if ((st = record_softmax(cl, ctx, SVK_KERNEL_ATTENTION_SOFTMAX_BWD,
                             a->label ? a->label : "attention: softmax backward", rows, a->T, r_att, r_s, 2)) != SVK_OK)
        return st;
    return record_dq_dk(cl, a);
}

uint64_t svk_attention_flash_scratch_elems(uint32_t B, uint32_t T, uint32_t H)
{
    return (uint64_t)B * H * T;
}

svk_status svk_attention_flash_preferred(svk_ctx *ctx, bool *out)
{
    *out = svk_op_flash_attention(ctx);
    return SVK_OK;
}

/* The three flash kernels share one shape: a workgroup of TPR x `rows`
 * invocations owns `rows` query (or key) rows of one (batch, head), TPR
 * invocations per row, and walks the other side in tiles of `tile` rows
 * through shared memory. */
typedef enum flash_kernel { FLASH_FWD, FLASH_BWD_DQ, FLASH_BWD_DKV } flash_kernel;

typedef struct flash_tiles {
    uint32_t dmax, rows, tile;
} flash_tiles;

#define FLASH_TPR 4u

/* Shared memory of each kernel's arrays (see the shaders; rows of D padded
 * to dmax + 1 floats). */
static uint64_t flash_shared_bytes(flash_kernel k, flash_tiles t)
{
    const uint64_t rs = t.dmax + 1ull, r = t.rows, n = t.tile, tpr = FLASH_TPR;
    switch (k) {
    case FLASH_FWD: /* qs, ks, vs (unpadded), ps, red_m, red_l */
        return 4 * (r * rs + n * rs + n * t.dmax + r * n + 2 * r * tpr);
    case FLASH_BWD_DQ: /* qs, dos, ks, vs, dss, red */
        return 4 * (2 * r * rs + 2 * n * rs + r * n + r * tpr);
    case FLASH_BWD_DKV: /* ks, vs, qs, dos, ls, dls, ps, dss */
        return 4 * (2 * r * rs + 2 * n * rs + 2 * n + 2 * r * n);
    }
    return UINT64_MAX;
}

/* An upper bound on one invocation's loop iterations, counting every loop
 * of the shader as a loop (lavapipe may unroll the constant ones): the
 * prologue's staging and zeroing, then per tile its staging, the d loop
 * over the NS rows of the tile an invocation scores, the scores' loops and
 * the accumulation over the tile into NACC columns. */
static uint64_t flash_loop_iters(flash_tiles t, uint64_t T, uint64_t D)
{
    const uint64_t nt = FLASH_TPR * t.rows, ns = t.tile / FLASH_TPR, nacc = t.dmax / FLASH_TPR;
    const uint64_t prologue = svk_div_up(t.rows * D, nt) + svk_div_up(t.tile * (t.dmax + 1), nt) + D + 3 * nacc +
                              2 * FLASH_TPR;
    const uint64_t per_tile = svk_div_up(t.tile * D, nt) + 2 + D * (ns + 1) + 4 * ns + 2 * FLASH_TPR +
                              t.tile * (nacc + 1) + nacc;
    return prologue + svk_div_up(T, t.tile) * per_tile;
}

/* Tiles for head width D on ctx's device: a starting point per head width
 * sized for 32 KiB of shared memory (lavapipe, most desktop GPUs), halved,
 * the tile first, until the kernel fits the device. On a CPU device the
 * loops must also stay within lavapipe's budget (SVK_OP_CPU_LOOP_BUDGET),
 * where there is no other form to fall back to. */
static svk_status flash_pick(svk_ctx *ctx, const char *op, flash_kernel k, uint64_t T, uint64_t D, flash_tiles *out)
{
    static const flash_tiles table[] = {{32, 32, 32}, {64, 16, 32}, {128, 16, 16}, {256, 8, 8}};
    flash_tiles t = {0};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && !t.dmax; i++)
        if (D <= table[i].dmax)
            t = table[i];
    if (!t.dmax)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "%s: head width D=%llu exceeds the flash kernels' 256 (use svk_attention_fwd_record)", op,
                         (unsigned long long)D);
    while (flash_shared_bytes(k, t) > ctx->info.max_shared_memory) {
        if (t.tile > FLASH_TPR) {
            t.tile /= 2;
        } else if (t.rows > 1) {
            t.rows /= 2;
        } else {
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "%s: D=%llu needs %llu bytes of shared memory, the device has %u", op,
                             (unsigned long long)D, (unsigned long long)flash_shared_bytes(k, t),
                             ctx->info.max_shared_memory);
        }
    }
    const uint64_t loops = flash_loop_iters(t, T, D);
    if (ctx->profile.cpu && loops > SVK_OP_CPU_LOOP_BUDGET)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "%s: T=%llu, D=%llu takes up to %llu loop iterations per invocation, past the %u a CPU "
                         "device (lavapipe) runs before it silently cuts loops short; use the materialised "
                         "attention (svk_attention_fwd_record, SVK_ATTENTION=scores) there",
                         op, (unsigned long long)T, (unsigned long long)D, (unsigned long long)loops,
                         SVK_OP_CPU_LOOP_BUDGET);
    *out = t;
    return SVK_OK;
}

/* The kernels read the stats as vec2s. */
static svk_status check_stats(svk_ctx *ctx, const char *op, svk_tref stats)
{
    if (stats.off % 2)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: operand stats starts at odd element %llu", op,
                         (unsigned long long)stats.off);
    return SVK_OK;
}

static svk_status flash_dispatch(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id kernel,
                                 flash_tiles t, svk_push_attention_flash *push, const svk_range *bindings,
                                 uint32_t n_bindings)
{
    const uint64_t groups = (uint64_t)push->B * push->H * svk_div_up(push->T, t.rows);
    if (groups > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "%s: B*H*ceil(T/%u) = %llu workgroups", op, t.rows,
                         (unsigned long long)groups);
    push->blocks = (uint32_t)svk_div_up(push->T, t.rows);
    uint32_t spec[5] = {FLASH_TPR, t.rows, 1, t.tile, t.dmax};
    svk_dispatch disp = {
        .kernel = kernel,
        .spec = spec,
        .n_bindings = n_bindings,
        .push = push,
        .push_size = sizeof(*push),
        .label = op,
    };
    for (uint32_t i = 0; i < n_bindings; i++)
        disp.bindings[i] = bindings[i];
    svk_status st = svk_op_grid(ctx, op, groups, disp.groups);
    if (st != SVK_OK)
        return st;
    return svk_cmdlist_dispatch(cl, &disp);
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
    svk_range r[3];
    if ((st = bind_fwd(ctx, op, B * T, C, a->qkv, a->out, "stats", a->stats, 2 * B * H * T, r)) != SVK_OK ||
        (st = check_stats(ctx, op, a->stats)) != SVK_OK)
        return st;
    flash_tiles t;
    if ((st = flash_pick(ctx, op, FLASH_FWD, T, D, &t)) != SVK_OK)
        return st;
    svk_push_attention_flash push = {
        .B = a->B, .T = a->T, .C = a->C, .H = a->H, .D = (uint32_t)D,
        .off_qkv = (uint32_t)a->qkv.off, .off_out = (uint32_t)a->out.off, .off_stats = (uint32_t)a->stats.off,
        .scale = (float)(1.0 / sqrt((double)D)),
    };
    return flash_dispatch(cl, ctx, op, SVK_KERNEL_ATTENTION_FLASH_FWD, t, &push, r, 3);
}

svk_status svk_attention_flash_bwd_record(svk_cmdlist *cl, const svk_attention_flash_bwd_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->qkv.buf);
    svk_ctx *ctx = a->qkv.buf->ctx;
    const char *op = a->label ? a->label : "attention_flash";
    svk_status st;
    if ((st = check_shape(ctx, op, a->B, a->T, a->C, a->H)) != SVK_OK)
        return st;
    const uint64_t B = a->B, T = a->T, C = a->C, H = a->H, D = C / H;
    enum { QKV, OUT, STATS, DOUT, DELTA, DQKV, N_OPS };
    static const char *const names[N_OPS] = {"qkv", "out", "stats", "dout", "scratch", "dqkv"};
    const svk_tref refs[N_OPS] = {a->qkv, a->out, a->stats, a->dout, a->scratch, a->dqkv};
    const uint64_t sizes[N_OPS] = {B * T * 3 * C, B * T * C, 2 * B * H * T, B * T * C, B * H * T, B * T * 3 * C};
    svk_range r[N_OPS];
    for (int i = 0; i < N_OPS; i++)
        if ((st = svk_op_bind(ctx, op, names[i], refs[i], sizes[i], &r[i])) != SVK_OK)
            return st;
    if ((st = check_stats(ctx, op, a->stats)) != SVK_OK)
        return st;
    /* The two written operands alias nothing: the kernels read the others
     * while writing them. */
    for (int w = DELTA; w <= DQKV; w++)
        for (int i = 0; i < N_OPS; i++)
            if (i != w && (st = check_disjoint(ctx, op, names[w], r[w], names[i], r[i])) != SVK_OK)
                return st;
    flash_tiles tq, tk;
    if ((st = flash_pick(ctx, op, FLASH_BWD_DQ, T, D, &tq)) != SVK_OK ||
        (st = flash_pick(ctx, op, FLASH_BWD_DKV, T, D, &tk)) != SVK_OK)
        return st;
    svk_push_attention_flash push = {
        .B = a->B, .T = a->T, .C = a->C, .H = a->H, .D = (uint32_t)D,
        .off_qkv = (uint32_t)a->qkv.off, .off_out = (uint32_t)a->out.off, .off_stats = (uint32_t)a->stats.off,
        .off_dout = (uint32_t)a->dout.off, .off_delta = (uint32_t)a->scratch.off,
        .off_dqkv = (uint32_t)a->dqkv.off, .scale = (float)(1.0 / sqrt((double)D)),
    };
    const svk_range dq_b[6] = {r[QKV], r[OUT], r[STATS], r[DOUT], r[DELTA], r[DQKV]};
    const svk_range dkv_b[5] = {r[QKV], r[STATS], r[DOUT], r[DELTA], r[DQKV]};
    if ((st = flash_dispatch(cl, ctx, op, SVK_KERNEL_ATTENTION_FLASH_BWD_DQ, tq, &push, dq_b, 6)) != SVK_OK)
        return st;
    return flash_dispatch(cl, ctx, op, SVK_KERNEL_ATTENTION_FLASH_BWD_DKV, tk, &push, dkv_b, 5);
}
