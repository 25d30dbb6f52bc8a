#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colsum.h"
#include "common/push_gemm.h"
#include "gemm_pack.h"
#include "gemm_policy.h"
#include "gemm_split.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"
#include "vk/texel.h"

/* Elements the strided operand spans (batch matrices stride apart, outer
 * groups of them stride2 apart), or 0 on overflow. */
static uint64_t extent(uint64_t rows, uint64_t cols, uint64_t ld, uint64_t stride, uint64_t batch, uint64_t stride2,
                       uint64_t outer)
{
    if (cols > ld)
        return 0;
    uint64_t one = (rows - 1) * ld + cols;
    if (batch > 1 && stride > (UINT64_MAX - one) / (batch - 1))
        return 0;
    uint64_t group = (batch - 1) * stride + one;
    if (outer > 1 && stride2 > (UINT64_MAX - group) / (outer - 1))
        return 0;
    return (outer - 1) * stride2 + group;
}

static svk_status check_operand(svk_ctx *ctx, const char *label, const char *what, const svk_buffer *buf,
                                uint64_t off, uint64_t rows, uint64_t cols, uint64_t ld, uint64_t stride,
                                uint64_t batch, uint64_t stride2, uint64_t outer)
{
    uint64_t n = extent(rows, cols, ld, stride, batch, stride2, outer);
    if (n == 0)
        return svk_error(&ctx->log, cols > ld ? SVK_ERROR_INVALID_ARG : SVK_ERROR_TOO_LARGE,
                         "gemm '%s': %s has leading dimension %llu and %llu columns, or spans more than 2^64 elements",
                         label, what, (unsigned long long)ld, (unsigned long long)cols);
    uint64_t elems = buf->size / sizeof(float);
    if (off > elems || n > elems - off)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': %s needs elements [%llu, %llu) but buffer '%s' holds %llu", label, what,
                         (unsigned long long)off, (unsigned long long)(off + n), buf->name,
                         (unsigned long long)elems);
    /* Push constants address in 32-bit elements. */
    if (off + n > UINT32_MAX || stride > UINT32_MAX || stride2 > UINT32_MAX)
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "gemm '%s': %s spans more than 2^32 elements", label, what);
    return SVK_OK;
}

uint64_t svk_gemm_pack_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g)
{
    svk_gemm_pack pack = {0};
    if (ctx && g && svk_gemm_policy_texel_form_runs(ctx, g->label ? g->label : "gemm", g->variant))
        svk_gemm_policy_pack(ctx, g, &pack);
    return pack.elems;
}

uint32_t svk_gemm_activation_ld(svk_ctx *ctx, uint32_t K)
{
    if (!ctx || !svk_op_gemm_pack_allowed(ctx) || !svk_gemm_policy_texel_form_runs(ctx, "gemm", SVK_GEMM_VARIANT_AUTO))
        return K;
    /* The rows of A an iteration reads where a GEMM has 256 rows or more
     * (texel_tile), the training step's. */
    return svk_gemm_pack_ld(K, 32u);
}

uint64_t svk_gemm_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g)
{
    /* A query logs nothing: an unusable explicit COOPMAT is the record's
     * error to report (once, not once per plan op). */
    if (!ctx || !g || (g->variant == SVK_GEMM_VARIANT_COOPMAT && !ctx->profile.coopmat_m))
        return 0;
    /* sum_a's column sum runs before the product: the two use the room in
     * turn. Without A and B to look at (texel views), it counts. */
    const uint64_t split = svk_gemm_policy_split_scratch(ctx, g);
    svk_kernel_id id = SVK_KERNEL_GEMM;
    const bool fused = g->sum_a.buf && g->a.buf && g->b.buf &&
                       svk_gemm_policy_kernel(ctx, g->label ? g->label : "gemm", g, false, &id) == SVK_OK &&
                       svk_gemm_policy_sum_a_fused(ctx, g, id);
    const uint64_t sums = g->sum_a.buf && !fused ? svk_colsum_scratch_elems(g->shape.K, g->shape.M) : 0;
    const uint64_t most = split > sums ? split : sums, pack = sums ? 0 : svk_gemm_pack_scratch_elems(ctx, g);
    return most > pack ? most : pack;
}

svk_status svk_gemm_auto_variant(svk_ctx *ctx, svk_gemm_variant *out)
{
    SVK_CHECK_ARG(NULL, ctx && out);
    return svk_gemm_policy_variant(ctx, "gemm", SVK_GEMM_VARIANT_AUTO, false, out);
}

svk_status svk_gemm_kernel(const svk_gemm_args *g, svk_kernel_id *out)
{
    SVK_CHECK_ARG(NULL, g && g->a.buf && g->b.buf && out);
    return svk_gemm_policy_kernel(g->a.buf->ctx, g->label ? g->label : "gemm", g, false, out);
}

/* Whether the first `need` floats of g's scratch stay clear of the n
 * ranges ops (named by `what` in the error); if not, the error. */
static svk_status check_scratch(svk_ctx *ctx, const svk_gemm_args *g, const char *label, uint64_t need,
                                const svk_range *ops, int n, const char *what)
{
    const svk_range rs = {g->scratch.buf, g->scratch.off * 4, need * 4};
    for (int i = 0; i < n; i++)
        if (svk_range_overlap(rs, ops[i]))
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': scratch (element %llu of '%s') overlaps %s",
                             label, (unsigned long long)g->scratch.off, g->scratch.buf->name, what);
    return SVK_OK;
}

/* sum_a where the kernel does not add it: the column sums of A [K, M]
 * (lda), accumulated, before the product; room from g's scratch, which must
 * not overlap A, B or C (ops). */
static svk_status record_sum_a(svk_cmdlist *cl, const svk_gemm_args *g, uint64_t lda, const char *label,
                               const svk_range ops[3])
{
    svk_ctx *ctx = g->a.buf->ctx;
    const uint64_t need = svk_colsum_scratch_elems(g->shape.K, g->shape.M);
    if (need && (!g->scratch.buf || g->scratch.elems < need))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': sum_a's column sum needs %llu floats of scratch, %llu given", label,
                         (unsigned long long)need, (unsigned long long)(g->scratch.buf ? g->scratch.elems : 0));
    svk_status st;
    if (need && (st = check_scratch(ctx, g, label, need, ops, 3, "A, B or C")) != SVK_OK)
        return st;
    svk_colsum_args cs = {
        .rows = g->shape.K,
        .N = g->shape.M,
        .ld = lda,
        .src = {g->a.buf, g->a.off},
        .dst = {g->sum_a.buf, g->sum_a.off},
        .scratch = {g->scratch.buf, g->scratch.off},
        .label = label,
    };
    return svk_colsum_record_named(cl, &cs, "gemm", "A", "sum_a");
}

/* d, gemm_texel.comp's dispatch of all of g's K, as `chunks` dispatches
 * over consecutive chunks of it (svk_gemm_policy_k_chunks). */
static svk_status record_k_chunks(svk_cmdlist *cl, const svk_dispatch *whole, const svk_gemm_args *g,
                                  uint32_t chunks, uint64_t ldb)
{
    uint32_t spec[SVK_MAX_SPEC];
    memcpy(spec, whole->spec, sizeof(spec));
    svk_push_gemm push = *(const svk_push_gemm *)whole->push;
    /* A chunk's K need not keep K8's multiple of 8. (No chunked product
     * takes K8 today: chunks need K > 2048, K8 the 16 x 8 tile, K <= 1024;
     * this keeps the two rules independent.) */
    const uint32_t epi = spec[12] & ~SVK_GEMM_SPEC_K8;
    svk_dispatch d = *whole;
    d.spec = spec;
    d.push = &push;
    for (uint32_t j = 0; j < chunks; j++) {
        const uint32_t k0 = j * SVK_GEMM_TEXEL_KCHUNK;
        push.K = j + 1 < chunks ? SVK_GEMM_TEXEL_KCHUNK : g->shape.K - k0;
        push.off_a = (uint32_t)(g->a.off + k0);
        push.off_b = (uint32_t)(g->b.off + (g->shape.trans_b ? k0 : (uint64_t)k0 * ldb));
        spec[9] = push.K % 4;
        spec[12] = epi | (j > 0 ? SVK_GEMM_SPEC_ACC_IN : 0u) | (j + 1 < chunks ? SVK_GEMM_SPEC_ACC_OUT : 0u);
        const svk_status st = svk_cmdlist_dispatch(cl, &d);
        if (st != SVK_OK)
            return st;
    }
    return SVK_OK;
}

/* gemm_texel.comp's g with p's operands copied into g's scratch first
 * (gemm_pack.h), then the product on the copies, without scratch. */
static svk_status record_packed(svk_cmdlist *cl, const svk_gemm_args *g, uint64_t lda, uint64_t ldb,
                                const svk_gemm_pack *p)
{
    svk_status st = svk_gemm_pack_record(cl, g, lda, ldb, p);
    if (st != SVK_OK)
        return st;
    svk_gemm_args h = *g;
    h.scratch.buf = NULL;
    h.scratch.off = h.scratch.elems = 0;
    if (p->a) {
        h.a.buf = g->scratch.buf;
        h.a.off = g->scratch.off + p->off_a;
        h.a.ld = p->lda;
    }
    if (p->b) {
        h.b.buf = g->scratch.buf;
        h.b.off = g->scratch.off + p->off_b;
        h.b.ld = p->ldb;
    }
    return svk_gemm_record(cl, &h);
}

/* An operand as stored, its defaults filled in (elements). */
typedef struct gemm_stored {
    uint64_t rows, cols, ld, stride;
} gemm_stored;

/* g's layout: its batch levels and A, B and C as stored. */
typedef struct gemm_layout {
    uint64_t batch, outer;
    gemm_stored a, b, c;
    uint64_t n_sum; /* sum_a's floats: M, or M per matrix of the batch */
} gemm_layout;

static void resolve_layout(const svk_gemm_args *g, gemm_layout *l)
{
    const svk_gemm_shape *s = &g->shape;
    l->batch = s->batch ? s->batch : 1;
    l->outer = s->outer ? s->outer : 1;
    /* Stored shapes: A is [M, K] or, transposed, [K, M]; likewise B. */
    l->a.rows = s->trans_a ? s->K : s->M, l->a.cols = s->trans_a ? s->M : s->K;
    l->b.rows = s->trans_b ? s->N : s->K, l->b.cols = s->trans_b ? s->K : s->N;
    l->c.rows = s->M, l->c.cols = s->N;
    const svk_gemm_matrix *m[3] = {&g->a, &g->b, &g->c};
    gemm_stored *st[3] = {&l->a, &l->b, &l->c};
    for (int i = 0; i < 3; i++) {
        st[i]->ld = m[i]->ld ? m[i]->ld : st[i]->cols;
        st[i]->stride = m[i]->stride ? m[i]->stride : st[i]->rows * st[i]->ld;
    }
    l->n_sum = g->sum_a.per_matrix ? l->batch * s->M : s->M;
}

/* check_operand for a matrix laid out as C (C itself, aux, aux2). */
static svk_status check_like_c(svk_ctx *ctx, const char *label, const char *what, const svk_gemm_args *g,
                               const gemm_layout *l, svk_tref t)
{
    return check_operand(ctx, label, what, t.buf, t.off, l->c.rows, l->c.cols, l->c.ld, l->c.stride, l->batch,
                         g->c.stride2, l->outer);
}

/* The batch count against the device's grid, then A, B, C and the bias
 * against their buffers. */
static svk_status check_operands(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_layout *l)
{
    if (l->batch * l->outer > UINT32_MAX || l->batch * l->outer > ctx->info.max_workgroup_count[2])
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "gemm '%s': %llu x %llu batches, the device allows %u",
                         label, (unsigned long long)l->outer, (unsigned long long)l->batch,
                         ctx->info.max_workgroup_count[2]);
    svk_status st;
    if ((st = check_operand(ctx, label, "A", g->a.buf, g->a.off, l->a.rows, l->a.cols, l->a.ld, l->a.stride, l->batch,
                            g->a.stride2, l->outer)) != SVK_OK ||
        (st = check_operand(ctx, label, "B", g->b.buf, g->b.off, l->b.rows, l->b.cols, l->b.ld, l->b.stride, l->batch,
                            g->b.stride2, l->outer)) != SVK_OK ||
        (st = check_like_c(ctx, label, "C", g, l, (svk_tref){g->c.buf, g->c.off})) != SVK_OK)
        return st;
    if (g->bias.buf && (st = check_operand(ctx, label, "bias", g->bias.buf, g->bias.off, 1, g->shape.N, g->shape.N, 0,
                                           1, 0, 1)) != SVK_OK)
        return st;
    return SVK_OK;
}

/* The epilogue, the structure and the epilogue's operands. */
static svk_status check_epilogue(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_layout *l)
{
    const bool epi = g->epi.kind != SVK_GEMM_EPILOGUE_NONE;
    const bool dual = g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    const bool residual = dual || g->epi.kind == SVK_GEMM_EPILOGUE_RESIDUAL;
    if (g->epi.kind > SVK_GEMM_EPILOGUE_DUAL_RESIDUAL)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': unknown epilogue %d", label, (int)g->epi.kind);
    if ((unsigned)g->structure > SVK_GEMM_A_UPPER)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': unknown structure %d", label,
                         (int)g->structure);
    if (epi && !g->epi.aux.buf)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': the epilogue's operand aux has no buffer", label);
    if (dual && !g->epi.aux2.buf)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': the dual residual's aux2 has no buffer", label);
    if (residual && g->beta != 0.0f)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': a residual epilogue needs beta 0 (is %g)", label,
                         (double)g->beta);
    if (dual && (!isfinite(g->epi.res_c) || g->epi.res_c == 0.0f))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': res_c=%g must be finite and nonzero", label,
                         (double)g->epi.res_c);
    svk_status st;
    if (epi && (st = check_like_c(ctx, label, "aux", g, l, g->epi.aux)) != SVK_OK)
        return st;
    if (dual && (st = check_like_c(ctx, label, "aux2", g, l, g->epi.aux2)) != SVK_OK)
        return st;
    return SVK_OK;
}

static svk_status check_sum_a(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_layout *l)
{
    if (!g->sum_a.buf)
        return SVK_OK;
    if (!g->shape.trans_a || (l->batch != 1 && !g->sum_a.per_matrix) || l->outer != 1 ||
        g->structure != SVK_GEMM_DENSE)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': sum_a needs trans_a, one matrix (batch %llu, outer %llu) and the DENSE structure",
                         label, (unsigned long long)l->batch, (unsigned long long)l->outer);
    return check_operand(ctx, label, "sum_a", g->sum_a.buf, g->sum_a.off, 1, l->n_sum, l->n_sum, 0, 1, 0, 1);
}

/* The kernel g records and how it is specialised. */
typedef struct gemm_kernel {
    svk_kernel_id id;
    uint32_t spec[SVK_MAX_SPEC];
    uint32_t bm, bn;         /* rows and columns of C per workgroup */
    uint32_t out_flags;      /* the output loop's bias and epilogue (SVK_GEMM_FLAG_*) */
    bool sum_fused;          /* the kernel adds sum_a itself */
    bool vec_a, vec_b, vec_c; /* each operand may be accessed as vec4s */
    bool texel_aux, texel_c; /* the texel form reads aux, C through RGBA32F views */
} gemm_kernel;

/* Whether the matrix from off, ld and stride apart (stride2 between outer
 * groups), starts every row on a vec4. */
static bool vec4_rows(uint64_t off, uint64_t ld, uint64_t stride, uint64_t stride2)
{
    return off % 4 == 0 && ld % 4 == 0 && stride % 4 == 0 && stride2 % 4 == 0;
}

/* The CPU forms' VEC_C: C, the bias and the epilogue's operands may be
 * accessed as vec4s (four columns from a multiple of 4 all inside C or all
 * outside it). */
static bool vec4_c(const svk_gemm_args *g, const gemm_layout *l)
{
    const bool epi = g->epi.kind != SVK_GEMM_EPILOGUE_NONE;
    const bool dual = g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    return vec4_rows(g->c.off, l->c.ld, l->c.stride, g->c.stride2) && g->shape.N % 4 == 0 &&
           (!g->bias.buf || g->bias.off % 4 == 0) && (!epi || g->epi.aux.off % 4 == 0) &&
           (!dual || g->epi.aux2.off % 4 == 0);
}

/* What the output loop does: the bias and the epilogue. The CPU forms
 * compile these in, with whether C is read (EPI_FLAGS and READ_C):
 * lavapipe would otherwise run every epilogue's branch, loads and stores
 * included, for every element. */
static uint32_t output_flags(const svk_gemm_args *g)
{
    return (g->bias.buf ? SVK_GEMM_FLAG_BIAS : 0u) |
           (g->epi.kind == SVK_GEMM_EPILOGUE_GELU ? SVK_GEMM_FLAG_GELU : 0u) |
           (g->epi.kind == SVK_GEMM_EPILOGUE_GELU_BWD ? SVK_GEMM_FLAG_GELU_BWD : 0u) |
           (g->epi.kind == SVK_GEMM_EPILOGUE_RESIDUAL ? SVK_GEMM_FLAG_RESIDUAL : 0u) |
           (g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL ? SVK_GEMM_FLAG_DUAL_RESIDUAL : 0u);
}

/* gemm_texel.comp: each invocation a spec[3] x spec[4] block of C; the
 * transposes, the operands' vec4 alignment and K % 4 are compiled in (spec
 * 5..9, 11), so that the k loop's address arithmetic, fetch widths and
 * trip counts are fixed and it has no branch. The output loop reads aux
 * and C as vec4s through texel views where it reads them at all and their
 * buffers can be viewed. */
static void texel_spec(svk_ctx *ctx, const svk_gemm_args *g, gemm_kernel *k)
{
    const svk_gemm_shape *s = &g->shape;
    uint32_t *spec = k->spec;
    const bool dual = g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    spec[5] = s->trans_a;
    spec[6] = s->trans_b;
    spec[7] = k->vec_a && (!s->trans_a || s->M % 4 == 0);
    spec[8] = k->vec_b && (s->trans_b || s->N % 4 == 0);
    spec[9] = s->K % 4;
    spec[11] = k->vec_c;
    spec[12] |= k->out_flags;
    spec[13] = g->beta != 0.0f;
    if (k->sum_fused)
        spec[12] |= SVK_GEMM_FLAG_SUM_A;
    const bool reads_aux =
        g->epi.kind == SVK_GEMM_EPILOGUE_GELU_BWD || g->epi.kind == SVK_GEMM_EPILOGUE_RESIDUAL || dual;
    const bool reads_c = g->beta != 0.0f || dual || svk_gemm_policy_k_chunks(g) > 1;
    const bool texel_epi = spec[11] && (reads_aux || reads_c) && svk_op_texel_allowed(ctx) &&
                           (!reads_aux || svk_texel_usable(g->epi.aux.buf, SVK_TEXEL_RGBA32F, NULL, 0)) &&
                           (!reads_c || svk_texel_usable(g->c.buf, SVK_TEXEL_RGBA32F, NULL, 0));
    if (texel_epi)
        spec[12] |= SVK_GEMM_SPEC_TEXEL_EPI;
    k->texel_aux = texel_epi && reads_aux;
    k->texel_c = texel_epi && reads_c;
}

/* gemm_cpu.comp: a row of spec[0] invocations, each spec[3] x spec[4] of
 * C; the transposes are compiled in (spec 5, 6) so that the k loop's
 * address arithmetic is fixed. */
static void cpu_ssbo_spec(const svk_gemm_args *g, gemm_kernel *k)
{
    k->spec[5] = g->shape.trans_a;
    k->spec[6] = g->shape.trans_b;
    k->spec[8] = k->out_flags;
    k->spec[9] = g->beta != 0.0f;
    k->spec[10] = k->vec_c;
}

/* Whether the shared-memory tiles of gemm_coopmat.comp or gemm.comp fit
 * the device. */
static svk_status check_shared_memory(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_kernel *k)
{
    const uint32_t *spec = k->spec;
    if (k->id == SVK_KERNEL_GEMM_COOPMAT) {
        /* float16 tiles of op(A) and op(B), rows padded by 8 (along k, or
         * along m or n when transposed), and a float fragment per
         * subgroup, rows padded by 4 */
        uint32_t tm, tn;
        svk_gemm_block_shape(SVK_KERNEL_GEMM_COOPMAT, spec, &tm, &tn);
        const uint64_t bk = (uint64_t)spec[10] * spec[5];
        const uint64_t tile_a = g->shape.trans_a ? bk * (tm + 8) : tm * (bk + 8);
        const uint64_t tile_b = g->shape.trans_b ? tn * (bk + 8) : bk * (tn + 8);
        const uint64_t shared = (tile_a + tile_b) * 2 + (uint64_t)spec[6] * spec[7] * spec[3] * (spec[4] + 4) * 4;
        if (shared > ctx->info.max_shared_memory)
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "gemm '%s': cooperative-matrix tiles need %llu bytes of shared memory, the device has %u",
                             label, (unsigned long long)shared, ctx->info.max_shared_memory);
        return SVK_OK;
    }
    uint64_t shared = (uint64_t)(spec[1] * spec[3] + 1 + spec[0] * spec[4] + 1) * spec[5] * sizeof(float);
    if (shared > ctx->info.max_shared_memory)
        return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                         "gemm tiles need %llu bytes of shared memory, the device has %u", (unsigned long long)shared,
                         ctx->info.max_shared_memory);
    return SVK_OK;
}

/* The kernel (gemm_policy.h), its specialisation for g and C's block per
 * workgroup. */
static svk_status choose_kernel(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_layout *l,
                                gemm_kernel *k)
{
    *k = (gemm_kernel){0};
    svk_status st = svk_gemm_policy_kernel(ctx, label, g, true, &k->id);
    if (st != SVK_OK)
        return st;
    if (g->sum_a.per_matrix && k->id != SVK_KERNEL_GEMM)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "gemm '%s': per-matrix sums need the portable kernel", label);
    memcpy(k->spec, svk_kernel_info_get(k->id)->spec_defaults, sizeof(k->spec));
    k->sum_fused = g->sum_a.buf && svk_gemm_policy_sum_a_fused(ctx, g, k->id);
    k->vec_a = vec4_rows(g->a.off, l->a.ld, l->a.stride, g->a.stride2);
    k->vec_b = vec4_rows(g->b.off, l->b.ld, l->b.stride, g->b.stride2);
    k->vec_c = vec4_c(g, l);
    k->out_flags = output_flags(g);
    /* The policy's tile, workgroup and per-product switches. */
    svk_gemm_policy_spec(ctx, g, k->id, k->spec);
    if (svk_gemm_kernel_is_texel(k->id))
        texel_spec(ctx, g, k);
    else if (svk_gemm_kernel_is_cpu_ssbo(k->id))
        cpu_ssbo_spec(g, k);
    else if ((st = check_shared_memory(ctx, label, g, k)) != SVK_OK)
        return st;
    svk_gemm_block_shape(k->id, k->spec, &k->bm, &k->bn);
    return SVK_OK;
}

/* The byte ranges the dispatch binds. Without a bias the shaders never
 * read its binding; A stands in. Without an epilogue C stands in for aux
 * (and aux2): the shaders declare aux writable, so the validation layer
 * (and the barrier tracking, which follows the kernel's write_mask) count
 * it as written, as C is anyway. GELU_BWD only reads aux but is tracked
 * the same way: a barrier more at worst. Without sum_a C stands in. */
typedef struct gemm_ranges {
    svk_range a, b, c, bias, aux, aux2, sum;
} gemm_ranges;

static void operand_ranges(const svk_gemm_args *g, const gemm_layout *l, gemm_ranges *r)
{
    const uint64_t n_a = extent(l->a.rows, l->a.cols, l->a.ld, l->a.stride, l->batch, g->a.stride2, l->outer);
    const uint64_t n_b = extent(l->b.rows, l->b.cols, l->b.ld, l->b.stride, l->batch, g->b.stride2, l->outer);
    const uint64_t n_c = extent(l->c.rows, l->c.cols, l->c.ld, l->c.stride, l->batch, g->c.stride2, l->outer);
    r->a = (svk_range){g->a.buf, g->a.off * 4, n_a * 4};
    r->b = (svk_range){g->b.buf, g->b.off * 4, n_b * 4};
    r->c = (svk_range){g->c.buf, g->c.off * 4, n_c * 4};
    r->sum = g->sum_a.buf ? (svk_range){g->sum_a.buf, g->sum_a.off * 4, l->n_sum * 4} : r->c;
    r->bias = g->bias.buf ? (svk_range){g->bias.buf, g->bias.off * 4, (uint64_t)g->shape.N * 4} : r->a;
    r->aux = g->epi.kind != SVK_GEMM_EPILOGUE_NONE ? (svk_range){g->epi.aux.buf, g->epi.aux.off * 4, n_c * 4} : r->c;
    r->aux2 = g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL
                  ? (svk_range){g->epi.aux2.buf, g->epi.aux2.off * 4, n_c * 4}
                  : r->c;
}

/* Whether range x overlaps any of A, B and C. */
static bool overlaps_abc(svk_range x, const gemm_ranges *r)
{
    return svk_range_overlap(x, r->a) || svk_range_overlap(x, r->b) || svk_range_overlap(x, r->c);
}

static svk_status check_sum_a_overlap(svk_ctx *ctx, const char *label, const svk_gemm_args *g, const gemm_ranges *r)
{
    if (g->sum_a.buf && overlaps_abc(r->sum, r))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': sum_a (element %llu of '%s') overlaps A, B or C",
                         label, (unsigned long long)g->sum_a.off, g->sum_a.buf->name);
    return SVK_OK;
}

static svk_status check_epilogue_overlap(svk_ctx *ctx, const char *label, const svk_gemm_args *g,
                                         const gemm_ranges *r)
{
    if (g->epi.kind != SVK_GEMM_EPILOGUE_NONE && overlaps_abc(r->aux, r))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': the epilogue's aux (element %llu of '%s') overlaps A, B or C", label,
                         (unsigned long long)g->epi.aux.off, g->epi.aux.buf->name);
    if (g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL &&
        (overlaps_abc(r->aux2, r) || svk_range_overlap(r->aux2, r->aux)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': the epilogue's aux2 (element %llu of '%s') overlaps A, B, C or aux", label,
                         (unsigned long long)g->epi.aux2.off, g->epi.aux2.buf->name);
    return SVK_OK;
}

/* The parts the portable and coopmat kernels cut g's K into (gemm_split.h)
 * where g's scratch holds their partials (and, sum_fused, the portable
 * kernel's partial sums beside them); 1: not split. */
static uint32_t split_parts(svk_ctx *ctx, const svk_gemm_args *g, const gemm_layout *l, const gemm_kernel *k)
{
    if ((k->id != SVK_KERNEL_GEMM && k->id != SVK_KERNEL_GEMM_COOPMAT) || !g->scratch.buf)
        return 1;
    const uint32_t splits = svk_gemm_policy_split(ctx, g, l->c.ld, k->bm, k->bn);
    return splits > 1 && g->scratch.elems >= svk_gemm_split_scratch_elems(g, splits, k->sum_fused) ? splits : 1;
}

/* Whether gemm_texel.comp copies operands of g into its scratch first
 * (gemm_pack.h; p: which): where no column sum uses the scratch, the
 * policy packs something, and the scratch holds it and can be viewed. */
static bool packs(svk_ctx *ctx, const svk_gemm_args *g, const gemm_kernel *k, svk_gemm_pack *p)
{
    if (!svk_gemm_kernel_is_texel(k->id) || !g->scratch.buf || (g->sum_a.buf && !k->sum_fused))
        return false;
    svk_gemm_policy_pack(ctx, g, p);
    return p->elems && g->scratch.elems >= p->elems && svk_texel_usable(g->scratch.buf, SVK_TEXEL_R32F, NULL, 0) &&
           svk_texel_usable(g->scratch.buf, SVK_TEXEL_RGBA32F, NULL, 0);
}

static svk_push_gemm push_constants(const svk_gemm_args *g, const gemm_layout *l, const gemm_kernel *k)
{
    const svk_gemm_shape *s = &g->shape;
    const uint32_t structure = (g->structure == SVK_GEMM_CAUSAL_OUT ? SVK_GEMM_FLAG_CAUSAL_OUT : 0u) |
                               (g->structure == SVK_GEMM_A_LOWER ? SVK_GEMM_FLAG_A_LOWER : 0u) |
                               (g->structure == SVK_GEMM_A_UPPER ? SVK_GEMM_FLAG_A_UPPER : 0u);
    return (svk_push_gemm){
        .M = s->M, .N = s->N, .K = s->K,
        .lda = (uint32_t)l->a.ld, .ldb = (uint32_t)l->b.ld, .ldc = (uint32_t)l->c.ld,
        .off_a = (uint32_t)g->a.off, .off_b = (uint32_t)g->b.off, .off_c = (uint32_t)g->c.off,
        .off_bias = (uint32_t)g->bias.off,
        .off_aux = (uint32_t)g->epi.aux.off,
        .off_aux2 = (uint32_t)g->epi.aux2.off,
        .res_c = g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL ? g->epi.res_c : 1.0f,
        .stride_a = (uint32_t)l->a.stride, .stride_b = (uint32_t)l->b.stride, .stride_c = (uint32_t)l->c.stride,
        .batch = (uint32_t)l->batch,
        .stride2_a = (uint32_t)g->a.stride2, .stride2_b = (uint32_t)g->b.stride2, .stride2_c = (uint32_t)g->c.stride2,
        .flags = (s->trans_a ? SVK_GEMM_FLAG_TRANS_A : 0u) | (s->trans_b ? SVK_GEMM_FLAG_TRANS_B : 0u) |
                 k->out_flags | (k->vec_a ? SVK_GEMM_FLAG_VEC4_A : 0u) | (k->vec_b ? SVK_GEMM_FLAG_VEC4_B : 0u) |
                 structure | (k->sum_fused ? SVK_GEMM_FLAG_SUM_A : 0u) |
                 (g->sum_a.per_matrix ? SVK_GEMM_FLAG_SUM_A_STORE : 0u),
        .alpha = g->alpha,
        .beta = g->beta,
        .off_sum_a = k->sum_fused ? (uint32_t)g->sum_a.off : 0u,
    };
}

/* The product itself: one dispatch, or the texel form's chunks of K. */
static svk_status record_product(svk_cmdlist *cl, const svk_gemm_args *g, const gemm_layout *l, const gemm_kernel *k,
                                 const gemm_ranges *r, const char *label)
{
    const svk_push_gemm push = push_constants(g, l, k);
    svk_dispatch d = {
        .kernel = k->id,
        .spec = k->spec,
        .push = &push,
        .push_size = sizeof(push),
        .groups = {(uint32_t)((g->shape.N + k->bn - 1) / k->bn), (uint32_t)((g->shape.M + k->bm - 1) / k->bm),
                   (uint32_t)(l->batch * l->outer)},
        .label = label,
    };
    if (svk_gemm_kernel_is_texel(k->id)) {
        /* A and B each as an RGBA32F and an R32F view, then aux and C as
         * RGBA32F views where the output loop reads them so (A stands in
         * where it does not: kernels.c), then sum_a (C stands in). */
        const svk_range b[11] = {r->a,    r->a,    r->b, r->b, r->c, r->bias, r->aux, r->aux2,
                                 k->texel_aux ? r->aux : r->a, k->texel_c ? r->c : r->a, k->sum_fused ? r->sum : r->c};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 11;
        const uint32_t chunks = svk_gemm_policy_k_chunks(g);
        if (chunks > 1)
            return record_k_chunks(cl, &d, g, chunks, l->b.ld);
    } else if (k->id == SVK_KERNEL_GEMM) {
        /* sum_a last (C stands in). */
        const svk_range b[7] = {r->a, r->b, r->c, r->bias, r->aux, r->aux2, k->sum_fused ? r->sum : r->c};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 7;
    } else {
        const svk_range b[6] = {r->a, r->b, r->c, r->bias, r->aux, r->aux2};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 6;
    }
    return svk_cmdlist_dispatch(cl, &d);
}

svk_status svk_gemm_record(svk_cmdlist *cl, const svk_gemm_args *g)
{
    SVK_CHECK_ARG(NULL, cl && g && g->a.buf && g->b.buf && g->c.buf);
    svk_ctx *ctx = g->a.buf->ctx;
    const char *label = g->label ? g->label : "gemm";
    if (g->shape.M == 0 || g->shape.N == 0 || g->shape.K == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': empty shape M=%u N=%u K=%u", label,
                         g->shape.M, g->shape.N, g->shape.K);
    gemm_layout l;
    resolve_layout(g, &l);
    svk_status st;
    if ((st = check_operands(ctx, label, g, &l)) != SVK_OK || (st = check_epilogue(ctx, label, g, &l)) != SVK_OK ||
        (st = check_sum_a(ctx, label, g, &l)) != SVK_OK)
        return st;
    gemm_kernel k;
    if ((st = choose_kernel(ctx, label, g, &l, &k)) != SVK_OK)
        return st;
    gemm_ranges r;
    operand_ranges(g, &l, &r);
    if ((st = check_sum_a_overlap(ctx, label, g, &r)) != SVK_OK)
        return st;
    /* The column sum of A where the kernel does not add sum_a, before the
     * product (and any split of it). */
    const svk_range operands[3] = {r.a, r.b, r.c};
    if (g->sum_a.buf && !k.sum_fused && (st = record_sum_a(cl, g, l.a.ld, label, operands)) != SVK_OK)
        return st;
    const uint32_t splits = split_parts(ctx, g, &l, &k);
    if (splits > 1) {
        const uint64_t need = svk_gemm_split_scratch_elems(g, splits, k.sum_fused);
        if ((st = check_scratch(ctx, g, label, need, operands, 3, "A, B or C")) != SVK_OK)
            return st;
        return svk_gemm_split_record(cl, g, splits, l.a.ld, l.b.ld, k.sum_fused);
    }
    if ((st = check_epilogue_overlap(ctx, label, g, &r)) != SVK_OK)
        return st;
    /* The packed copies go clear of everything the product reads or writes. */
    svk_gemm_pack p;
    if (packs(ctx, g, &k, &p)) {
        const svk_range touched[7] = {r.a, r.b, r.c, r.bias, r.aux, r.aux2, r.sum};
        if ((st = check_scratch(ctx, g, label, p.elems, touched, 7, "A, B, C, the bias, aux, aux2 or sum_a")) != SVK_OK)
            return st;
        return record_packed(cl, g, l.a.ld, l.b.ld, &p);
    }
    return record_product(cl, g, &l, &k, &r, label);
}
