#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colsum.h"
#include "common/push_gemm.h"
#include "gemm_pack.h"
#include "gemm_split.h"
#include "vk/buffer.h"
#include "vk/context.h"
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

/* $SVK_GEMM_COOPMAT: 1 where it asks for cooperative matrices ("1"), 0
 * where it does not (unset, empty or "0"), -1 for anything else. */
static int coopmat_env(void)
{
    const char *env = getenv("SVK_GEMM_COOPMAT");
    if (!env || !*env || !strcmp(env, "0"))
        return 0;
    return !strcmp(env, "1") ? 1 : -1;
}

/* Whether $SVK_GEMM_COOPMAT asks for cooperative matrices; a value it does
 * not know is an error naming the GEMM. */
static svk_status coopmat_wanted(svk_ctx *ctx, const char *label, bool *out)
{
    const int want = coopmat_env();
    *out = want == 1;
    if (want < 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': SVK_GEMM_COOPMAT='%s', expected '0' or '1'",
                         label, getenv("SVK_GEMM_COOPMAT"));
    return SVK_OK;
}

/* The variant that runs: an explicit choice, else the operations' common
 * rule (svk_op_variant: $SVK_KERNEL_VARIANT, else by device type), with
 * PORTABLE turned into COOPMAT on request (svk_gemm_variant). */
static svk_status pick_variant(svk_ctx *ctx, const char *label, svk_gemm_variant want, bool log,
                               svk_gemm_variant *out)
{
    if (want == SVK_GEMM_VARIANT_PORTABLE || want == SVK_GEMM_VARIANT_CPU || want == SVK_GEMM_VARIANT_CPU_SSBO) {
        *out = want;
        return SVK_OK;
    }
    if (want == SVK_GEMM_VARIANT_COOPMAT) {
        if (!ctx->info.coopmat_m)
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "gemm '%s': device '%s' has no cooperative matrices libsvk can use "
                             "(VK_KHR_ or VK_NV_cooperative_matrix with float16 x float16 + float32, one subgroup size)",
                             label, ctx->info.name);
        *out = want;
        return SVK_OK;
    }
    if (want != SVK_GEMM_VARIANT_AUTO)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': variant %d is not a svk_gemm_variant", label,
                         (int)want);
    svk_kernel_variant v;
    bool coopmat;
    svk_status st = svk_op_variant(ctx, "gemm", &v);
    if (st != SVK_OK || (st = coopmat_wanted(ctx, label, &coopmat)) != SVK_OK)
        return st;
    *out = v == SVK_KERNEL_VARIANT_CPU ? SVK_GEMM_VARIANT_CPU : SVK_GEMM_VARIANT_PORTABLE;
    if (coopmat && *out == SVK_GEMM_VARIANT_PORTABLE) {
        if (ctx->info.coopmat_m)
            *out = SVK_GEMM_VARIANT_COOPMAT;
        else if (log && !ctx->coopmat_fallback_logged) {
            ctx->coopmat_fallback_logged = true;
            svk_log_msg(&ctx->log, SVK_LOG_WARN,
                        "gemm '%s': SVK_GEMM_COOPMAT=1, but device '%s' has no cooperative matrices libsvk can "
                        "use; GEMMs run in float32 (shaders/gemm.comp); later GEMMs are not logged",
                        label, ctx->info.name);
        }
    }
    return SVK_OK;
}

/* gemm_coopmat.comp's specialisation for g on ctx's device: the workgroup
 * (the subgroup size times SGM x SGN), the fragment shape, the fragments
 * per subgroup and the transposes. */
static void coopmat_spec(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *spec)
{
    memcpy(spec, svk_kernel_info_get(SVK_KERNEL_GEMM_COOPMAT)->spec_defaults, SVK_MAX_SPEC * sizeof(*spec));
    spec[3] = ctx->info.coopmat_m;
    spec[4] = ctx->info.coopmat_n;
    spec[5] = ctx->info.coopmat_k;
    /* 4 x 4 fragments per subgroup (128 x 128 tiles at 16 x 16) where the
     * product has 256 such tiles or more and B is not transposed, 2 x 2
     * otherwise. On an H200 the large tiles ran 1.02 to 2.2 times as fast
     * on such NN and TN products, but 0.5 to 1.4 (median 0.8) on NT ones
     * and up to 2 times slower on small products, which leave
     * multiprocessors idle. $SVK_GEMM_COOPMAT_FRAGS (1 to 4) overrides, for
     * tuning. */
    const uint64_t big = (uint64_t)spec[6] * 4 * spec[3], wide = (uint64_t)spec[7] * 4 * spec[4];
    const uint64_t tiles = svk_div_up(g->M, big) * svk_div_up(g->N, wide) * (g->batch ? g->batch : 1) *
                           (g->outer ? g->outer : 1);
    if (tiles >= 256 && !g->trans_b)
        spec[8] = spec[9] = 4;
    const char *env = getenv("SVK_GEMM_COOPMAT_FRAGS");
    if (env && env[0] >= '1' && env[0] <= '4' && !env[1])
        spec[8] = spec[9] = (uint32_t)(env[0] - '0');
    spec[0] = ctx->info.subgroup_size * spec[6] * spec[7];
    spec[11] = g->trans_a;
    spec[12] = g->trans_b;
}

bool svk_gemm_kernel_is_texel(svk_kernel_id id)
{
    return id == SVK_KERNEL_GEMM_TEXEL || id == SVK_KERNEL_GEMM_TEXEL_S64;
}

/* The texel form ctx runs for g: the one storing C through 64-bit views
 * where allowed (svk_op_gemm_store64_allowed), unless op(A) is A^T: the
 * weight gradients, whose C is small and K long, ran 1-3% slower with it
 * on lavapipe (svk-bench, alternated, 4-5 rounds at N = 1024, C = 128 and
 * 256), where the products storing most gained. */
static svk_kernel_id texel_kernel(const svk_ctx *ctx, const svk_gemm_args *g)
{
    return svk_op_gemm_store64_allowed(ctx) && !g->trans_a ? SVK_KERNEL_GEMM_TEXEL_S64 : SVK_KERNEL_GEMM_TEXEL;
}

/* The storage-buffer form ctx runs: the one loading and storing through
 * 64-bit views where allowed, for every product (on lavapipe of Mesa
 * 25.0.7 every product gained, 1.01-1.19x; the default step 1.08x). */
static svk_kernel_id cpu_kernel(const svk_ctx *ctx)
{
    return svk_op_gemm_store64_allowed(ctx) ? SVK_KERNEL_GEMM_CPU_S64 : SVK_KERNEL_GEMM_CPU;
}

static bool is_cpu_ssbo(svk_kernel_id id)
{
    return id == SVK_KERNEL_GEMM_CPU || id == SVK_KERNEL_GEMM_CPU_S64;
}

/* Whether gemm_texel.comp can read A and B: both viewable as R32F and as
 * RGBA32F texel buffers. If not and log, says why, once per context. */
static bool texel_ok(svk_ctx *ctx, const char *label, const svk_gemm_args *g, bool log)
{
    if (!svk_op_texel_allowed(ctx))
        return false;
    const svk_buffer *ops[2] = {g->a, g->b};
    char why[256];
    for (int i = 0; i < 2; i++)
        for (int f = 0; f < SVK_TEXEL_FORMAT_COUNT; f++)
            if (!svk_texel_usable(ops[i], (svk_texel_format)f, why, sizeof(why))) {
                if (log && !ctx->texel.fallback_logged) {
                    ctx->texel.fallback_logged = true;
                    svk_log_msg(&ctx->log, SVK_LOG_WARN,
                                "gemm '%s': reading %s from storage buffers (shaders/gemm_cpu.comp, slower on CPU "
                                "devices), not texel buffers: %s; later fallbacks are not logged",
                                label, i ? "B" : "A", why);
                }
                return false;
            }
    return true;
}

/* gemm_texel.comp's workgroup for g in spec[0] (spec: its defaults, with
 * g's tile from texel_tile in spec 3 and 4), and the subgroup size it
 * shares op(A) over (its spec[10]; 0: none). A narrow
 * C (attention's heads: N = D = 32 or 64) gets a narrower workgroup:
 * invocations past N compute clamped columns that are never stored, so the
 * default row of 32 x TN = 128 columns would waste 3/4 of the work at
 * N = 32. Where the row would still leave more than an eighth of the
 * grid's columns past N (the 16 x 8 tile at N = 384: 48 invocations in
 * rows of 32), it is halved until it does not: that product ran 1.13
 * times faster than its NT form with rows of 16, and slower with 32. The
 * width stays a multiple of the subgroup size (so op(A) is
 * still shared). op(A) is shared where each subgroup is one row of
 * invocations of the workgroup: one subgroup size on the device, dividing
 * the workgroup's row. */
static uint32_t texel_shape(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *spec)
{
    const uint32_t sg = ctx->info.subgroup_size ? ctx->info.subgroup_size : 1;
    const uint32_t need = svk_div_up(svk_div_up(g->N, spec[4]), sg) * sg;
    if (spec[1] == 1) {
        if (need < spec[0])
            spec[0] = need;
        while (spec[0] > sg && spec[0] % (2 * sg) == 0 && 8 * (svk_div_up(need, spec[0]) * spec[0] - need) > need)
            spec[0] /= 2;
    }
    return ctx->info.subgroup_size && ctx->info.min_subgroup_size == ctx->info.max_subgroup_size && spec[1] == 1 &&
                   spec[0] % ctx->info.subgroup_size == 0
               ? ctx->info.subgroup_size
               : 0;
}

/* Whether gemm_texel.comp takes g as two rows of blocks per subgroup
 * (SVK_GEMM_SPEC_ROWS2), given the workgroup texel_shape chose (spec) and
 * the subgroup size it shares op(A) over (share): where one row of blocks
 * along N fills at most half the subgroup but more than a quarter. Each
 * lane then takes its row's items of op(A) by two shuffles and a select,
 * not one shuffle; half the lanes no longer compute clamped columns. The
 * default training step's attention products at 16 lanes (heads of 32:
 * 8 blocks of 4 columns) are the case. Not with sum_a, whose fused sums
 * assume one row of blocks (gemm_texel_body.glsl, store_sum_a).
 * Measured at 16 lanes against $SVK_GEMM_ROWS=0 (the default step,
 * alternated): the products with N = 32 took 0.62-0.83 of their time. */
static bool texel_rows2(const svk_gemm_args *g, const uint32_t *spec, uint32_t share)
{
    const uint64_t cols = svk_div_up(g->N, spec[4]);
    return svk_op_gemm_rows_allowed() && share >= 4 && (share & (share - 1)) == 0 && spec[0] == share &&
           spec[1] == 1 && 2 * cols <= share && 4 * cols > share && !g->sum_a;
}

/* gemm_texel.comp's block of C per invocation for g: TM x TN (spec 3, 4).
 *
 * TM 32 where C has 256 rows or more, else the default 16 (fewer rows past
 * M computed for nothing in small products, such as attention's per-head
 * ones). Each iteration of the k loop then fetches each B item for twice
 * the multiply-adds. Measured on lavapipe (2 threads, Zen 4 host, after
 * the packing of gemm_pack.h, svk-bench alternated): every GEMM row at
 * N = 1024, C = 1024 65-73 -> 75-84 GFLOP/s; at C = 256 and 512 the weight
 * gradients 70 -> 80-85 and the other rows within noise; at C = 128 within
 * the host's noise. (Before the packing, tiles of 24 and 32 rows had
 * measured within noise of 16 at C = 128 and 256.)
 *
 * The wide tile, 16 x 8 (the same 128 accumulators), where op(B) is B
 * [K, N] and the product is one matrix: NN products with K <= 1024 (the
 * input gradients, and on CPU devices the Linears' forwards, which the
 * plan runs on transposed weights: svk_plan_options.linear_nn) and the
 * weight gradients (TN) with fewer than 256 rows, and
 * only where the wider columns pad N no further (attention's heads of 32
 * would compute twice their columns). Measured on lavapipe (svk-bench, 3
 * rounds alternated with $SVK_GEMM_WIDE=0, N = 1024 and 4096, C = 128 to
 * 512, minimum times): mlp.proj.dx 1.09-1.20x faster up to C = 256,
 * mlp.proj.dW and attn.proj.dW at C = 128 1.19-1.26x and 1.05-1.14x,
 * logits.dx and attn.proj.dx 1.03-1.13x, mlp.fc.dx at C = 128 1.16-1.18x;
 * the default training step about 1% (docs/PERFORMANCE.md). Not where
 * op(B) is B^T (the NT forward: each lane's eight columns are eight rows
 * of B, 0.67-0.90x), nor for the weight gradients with TM 32 (0.86-0.97x),
 * nor for NN with K of 3072 and 4096 (0.92-0.95x). TM 32 with TN 8 (256
 * accumulators) ran 25 times slower. */
static void texel_tile(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *tm, uint32_t *tn)
{
    const uint32_t *def = svk_kernel_info_get(SVK_KERNEL_GEMM_TEXEL)->spec_defaults;
    *tm = g->M >= 256 ? 32u : def[3];
    *tn = def[4];
    const uint64_t sg = ctx->info.subgroup_size ? ctx->info.subgroup_size : 1;
    const uint64_t wide = 8u * sg, narrow = (uint64_t)def[4] * sg;
    const bool one = (g->batch <= 1) && (g->outer <= 1);
    const bool no_pad = svk_div_up(g->N, wide) * wide == svk_div_up(g->N, narrow) * narrow;
    if (svk_op_gemm_wide_allowed() && !g->trans_b && one && no_pad && (g->trans_a ? g->M < 256 : g->K <= 1024)) {
        *tm = 16u;
        *tn = 8u;
    }
}

/* gemm_texel.comp's tile (texel_tile) and workgroup (texel_shape) for g,
 * in spec, which holds the kernel's defaults on entry; returns the subgroup
 * size op(A) is shared over (spec[10]; 0: none). */
static uint32_t texel_layout(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *spec)
{
    texel_tile(ctx, g, &spec[3], &spec[4]);
    return texel_shape(ctx, g, spec);
}

/* Whether kernel id adds g's sum_a itself (gemm.comp always;
 * gemm_texel.comp where it shares op(A) over subgroups of a multiple of
 * TM / 4 invocations), rather than after a column sum of A. */
static bool sum_a_fused(const svk_ctx *ctx, const svk_gemm_args *g, svk_kernel_id id)
{
    if (id == SVK_KERNEL_GEMM)
        return true;
    if (!svk_gemm_kernel_is_texel(id))
        return false;
    uint32_t spec[SVK_MAX_SPEC];
    memcpy(spec, svk_kernel_info_get(id)->spec_defaults, sizeof(spec));
    const uint32_t sg = texel_layout(ctx, g, spec);
    return sg && sg % (spec[3] / 4) == 0;
}

/* The chunks of K gemm_texel.comp runs g in (1: one dispatch): products
 * whose A is [M, K] with K > SVK_GEMM_TEXEL_KCHUNK_ABOVE go as dispatches
 * over SVK_GEMM_TEXEL_KCHUNK steps of k each (the last takes the rest),
 * the partial sums kept in C between them (SVK_GEMM_SPEC_ACC_IN, _ACC_OUT),
 * which is why C must not be read (beta 0, no dual residual).
 *
 * Why: at K = 3C and 4C, the backward's dx products at C = 1024, an
 * invocation's 16 rows of A span 192 to 256 KiB; our reading is that the
 * sweep of the workgroups along N pushes them out of a core's L2 before
 * the next invocation of the row reads them again (the gain is measured,
 * the cause inferred). Measured on lavapipe (2 threads, Zen 4
 * host, alternated runs): NN 1024x1024x4096 44.7 -> 65.5 GFLOP/s and
 * 1024x1024x3072 52 -> 65 with chunks of 1024; chunks of 768 to 2048
 * within noise of each other, 256 and 512 worse (58.8, 62.7). Products
 * with A [K, M] (the weight gradients, K = tokens) gained nothing
 * measurable at K = 4096, nor did K <= 2048. */
#define SVK_GEMM_TEXEL_KCHUNK 1024u
#define SVK_GEMM_TEXEL_KCHUNK_ABOVE 2048u
static uint32_t texel_k_chunks(const svk_gemm_args *g)
{
    const bool reads_c = g->beta != 0.0f || g->epilogue == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    if (g->trans_a || reads_c || g->sum_a || g->structure != SVK_GEMM_DENSE || g->K <= SVK_GEMM_TEXEL_KCHUNK_ABOVE)
        return 1;
    return g->K / SVK_GEMM_TEXEL_KCHUNK;
}

/* What gemm_texel.comp would pack of g (gemm_pack.h): the rows of A and
 * of B one iteration of its k loop reads are its block's TM and the TN
 * columns of each lane of a subgroup. */
static void texel_pack_plan(const svk_ctx *ctx, const svk_gemm_args *g, svk_gemm_pack *p)
{
    uint32_t spec[SVK_MAX_SPEC];
    memcpy(spec, svk_kernel_info_get(SVK_KERNEL_GEMM_TEXEL)->spec_defaults, sizeof(spec));
    const uint32_t share = texel_layout(ctx, g, spec);
    const uint32_t sg = ctx->info.subgroup_size ? ctx->info.subgroup_size : 1;
    /* With two rows of blocks per subgroup (texel_rows2), an iteration
     * reads twice the rows of A and half the columns of B. */
    const uint32_t rows2 = texel_rows2(g, spec, share) ? 2u : 1u;
    const uint64_t lda = g->lda ? g->lda : g->trans_a ? g->M : g->K;
    const uint64_t ldb = g->ldb ? g->ldb : g->trans_b ? g->K : g->N;
    svk_gemm_pack_plan(g, lda, ldb, spec[3] * rows2, spec[4] * sg / rows2, p);
}

/* Rows and columns of C one workgroup of kernel id covers with spec. */
static void block_shape(svk_kernel_id id, const uint32_t *spec, uint32_t *bm, uint32_t *bn)
{
    /* gemm_cpu.comp is one row of invocations; the others are WG_X x WG_Y
     * invocations of TM x TN each. */
    if (id == SVK_KERNEL_GEMM_COOPMAT) {
        /* SGM x SGN subgroups of FM x FN fragments of LM x LN */
        *bm = spec[6] * spec[8] * spec[3];
        *bn = spec[7] * spec[9] * spec[4];
        return;
    }
    *bm = is_cpu_ssbo(id) ? spec[3] : spec[1] * spec[3];
    *bn = spec[0] * spec[4];
    if (svk_gemm_kernel_is_texel(id) && (spec[12] & SVK_GEMM_SPEC_ROWS2)) {
        *bm *= 2; /* one row of invocations, two rows of blocks */
        *bn /= 2;
    }
}

/* The kernel a GEMM records: the variant's, unless a CPU form cannot run
 * it (see svk_gemm_variant). */
static svk_status choose_kernel(svk_ctx *ctx, const char *label, const svk_gemm_args *g, bool log,
                                svk_kernel_id *out)
{
    svk_gemm_variant variant = SVK_GEMM_VARIANT_PORTABLE;
    svk_status st = pick_variant(ctx, label, g->variant, log, &variant);
    if (st != SVK_OK)
        return st;
    *out = variant == SVK_GEMM_VARIANT_COOPMAT ? SVK_KERNEL_GEMM_COOPMAT : SVK_KERNEL_GEMM;
    if (variant == SVK_GEMM_VARIANT_PORTABLE || variant == SVK_GEMM_VARIANT_COOPMAT)
        return SVK_OK;
    /* Both CPU forms are compiled with subgroupShuffle (used only where
     * the subgroup allows, but the capability is the module's). */
    if (!ctx->subgroup_shuffle)
        return SVK_OK;
    svk_kernel_id id =
        variant == SVK_GEMM_VARIANT_CPU && texel_ok(ctx, label, g, log) ? texel_kernel(ctx, g) : cpu_kernel(ctx);
    /* Loop iterations of one SIMD batch: gemm_texel.comp K / 4;
     * gemm_cpu.comp K / 4, then K % 4 single steps, plus one masked pass of
     * each loop of its paths not taken: K / 4 + 5 at most. */
    if ((uint64_t)g->K / 4 + 5 > SVK_OP_CPU_LOOP_BUDGET)
        return SVK_OK;
    uint32_t bm, bn;
    block_shape(id, svk_kernel_info_get(id)->spec_defaults, &bm, &bn);
    if (svk_div_up(g->N, bn) > ctx->info.max_workgroup_count[0] || svk_div_up(g->M, bm) > ctx->info.max_workgroup_count[1])
        return SVK_OK;
    *out = id;
    return SVK_OK;
}

/* Floats of scratch split-K would use for g (0: no split), with the
 * portable kernel's partial row sums where g has sum_a. */
static uint64_t split_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g)
{
    /* The portable and coopmat kernels split; a CPU variant's fallback to
     * the portable one (rare: svk_gemm_variant) records unsplit for want
     * of room. */
    svk_gemm_variant variant = SVK_GEMM_VARIANT_AUTO;
    if (pick_variant(ctx, g->label ? g->label : "gemm", g->variant, false, &variant) != SVK_OK ||
        (variant != SVK_GEMM_VARIANT_PORTABLE && variant != SVK_GEMM_VARIANT_COOPMAT))
        return 0;
    /* Each has one tile shape for every product (kernels.c: 8 x 8 per
     * invocation ran 10 times slower on an H200 than 4 x 4). */
    uint32_t bm, bn, spec[SVK_MAX_SPEC];
    if (variant == SVK_GEMM_VARIANT_COOPMAT) {
        coopmat_spec(ctx, g, spec);
        block_shape(SVK_KERNEL_GEMM_COOPMAT, spec, &bm, &bn);
    } else {
        block_shape(SVK_KERNEL_GEMM, svk_kernel_info_get(SVK_KERNEL_GEMM)->spec_defaults, &bm, &bn);
    }
    const uint32_t s = svk_gemm_split_count(g, g->ldc ? g->ldc : g->N, bm, bn);
    return s > 1 ? svk_gemm_split_scratch_elems(g, s, g->sum_a && variant == SVK_GEMM_VARIANT_PORTABLE) : 0;
}

/* Whether a GEMM asking for variant `asked` would run a texel form on ctx
 * (which also needs A and B viewable as texel buffers: for a query with
 * none to look at, it counts). Logs nothing. */
static bool texel_form_runs(svk_ctx *ctx, const char *label, svk_gemm_variant asked)
{
    svk_gemm_variant variant = SVK_GEMM_VARIANT_AUTO;
    return ctx->subgroup_shuffle && svk_op_texel_allowed(ctx) && coopmat_env() >= 0 &&
           pick_variant(ctx, label, asked, false, &variant) == SVK_OK && variant == SVK_GEMM_VARIANT_CPU;
}

uint64_t svk_gemm_pack_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g)
{
    svk_gemm_pack pack = {0};
    if (ctx && g && texel_form_runs(ctx, g->label ? g->label : "gemm", g->variant))
        texel_pack_plan(ctx, g, &pack);
    return pack.elems;
}

uint32_t svk_gemm_activation_ld(svk_ctx *ctx, uint32_t K)
{
    if (!ctx || !svk_op_gemm_pack_allowed() || !texel_form_runs(ctx, "gemm", SVK_GEMM_VARIANT_AUTO))
        return K;
    /* The rows of A an iteration reads where a GEMM has 256 rows or more
     * (texel_tile), the training step's. */
    return svk_gemm_pack_ld(K, 32u);
}

uint64_t svk_gemm_scratch_elems(svk_ctx *ctx, const svk_gemm_args *g)
{
    /* A query logs nothing: an unusable explicit COOPMAT or a bad
     * $SVK_GEMM_COOPMAT is the record's error to report (once, not once
     * per plan op). */
    if (!ctx || !g || (g->variant == SVK_GEMM_VARIANT_COOPMAT && !ctx->info.coopmat_m) || coopmat_env() < 0)
        return 0;
    /* sum_a's column sum runs before the product: the two use the room in
     * turn. Without A and B to look at (texel views), it counts. */
    const uint64_t split = split_scratch_elems(ctx, g);
    svk_kernel_id id = SVK_KERNEL_GEMM;
    const bool fused = g->sum_a && g->a && g->b &&
                       choose_kernel(ctx, g->label ? g->label : "gemm", g, false, &id) == SVK_OK &&
                       sum_a_fused(ctx, g, id);
    const uint64_t sums = g->sum_a && !fused ? svk_colsum_scratch_elems(g->K, g->M) : 0;
    const uint64_t most = split > sums ? split : sums, pack = sums ? 0 : svk_gemm_pack_scratch_elems(ctx, g);
    return most > pack ? most : pack;
}

svk_status svk_gemm_auto_variant(svk_ctx *ctx, svk_gemm_variant *out)
{
    SVK_CHECK_ARG(NULL, ctx && out);
    return pick_variant(ctx, "gemm", SVK_GEMM_VARIANT_AUTO, false, out);
}

svk_status svk_gemm_kernel(const svk_gemm_args *g, svk_kernel_id *out)
{
    SVK_CHECK_ARG(NULL, g && g->a && g->b && out);
    return choose_kernel(g->a->ctx, g->label ? g->label : "gemm", g, false, out);
}

/* Whether the first `need` floats of g's scratch stay clear of the n
 * ranges ops (named by `what` in the error); if not, the error. */
static svk_status check_scratch(svk_ctx *ctx, const svk_gemm_args *g, const char *label, uint64_t need,
                                const svk_range *ops, int n, const char *what)
{
    const svk_range rs = {g->scratch, g->off_scratch * 4, need * 4};
    for (int i = 0; i < n; i++)
        if (svk_range_overlap(rs, ops[i]))
            return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': scratch (element %llu of '%s') overlaps %s",
                             label, (unsigned long long)g->off_scratch, g->scratch->name, what);
    return SVK_OK;
}

/* sum_a where the kernel does not add it: the column sums of A [K, M]
 * (lda), accumulated, before the product; room from g's scratch, which must
 * not overlap A, B or C (ops). */
static svk_status record_sum_a(svk_cmdlist *cl, const svk_gemm_args *g, uint64_t lda, const char *label,
                               const svk_range ops[3])
{
    svk_ctx *ctx = g->a->ctx;
    const uint64_t need = svk_colsum_scratch_elems(g->K, g->M);
    if (need && (!g->scratch || g->scratch_elems < need))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': sum_a's column sum needs %llu floats of scratch, %llu given", label,
                         (unsigned long long)need, (unsigned long long)(g->scratch ? g->scratch_elems : 0));
    svk_status st;
    if (need && (st = check_scratch(ctx, g, label, need, ops, 3, "A, B or C")) != SVK_OK)
        return st;
    svk_colsum_args cs = {
        .rows = g->K,
        .N = g->M,
        .ld = lda,
        .src = {g->a, g->off_a},
        .dst = {g->sum_a, g->off_sum_a},
        .scratch = {g->scratch, g->off_scratch},
        .label = label,
    };
    return svk_colsum_record_named(cl, &cs, "gemm", "A", "sum_a");
}

/* Whether gemm_texel.comp's k loop takes eight steps of k per iteration
 * (SVK_GEMM_SPEC_K8), not four, for g with the tile tm x tn: the 16 x 8
 * tile's NN products with K >= 256 (dense, K & ~3 a multiple of 8), unless
 * $SVK_GEMM_K8 is "0". Each accumulator then takes eight steps per load
 * and store. Measured on lavapipe (svk-bench, 2 rounds alternated with
 * SVK_GEMM_K8=0, minimum times): those products 1.02-1.09x faster at C =
 * 128 to 512 (mlp.proj's NN forward at K = 512 1.24x); NN with K = 128
 * within noise; the 32 x 4 tile's NN products with K of 1536 and 2048
 * 0.90-0.96x and the weight gradients (TN) 0.76-1.04x, so not there. */
static bool texel_k8(const svk_gemm_args *g, uint32_t tm, uint32_t tn)
{
    return tm == 16 && tn == 8 && !g->trans_a && !g->trans_b && g->K >= 256 && g->structure == SVK_GEMM_DENSE &&
           (g->K & ~3u) % 8 == 0 && svk_op_env_allows("SVK_GEMM_K8");
}

/* d, gemm_texel.comp's dispatch of all of g's K, as `chunks` dispatches
 * over consecutive chunks of it (texel_k_chunks). */
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
        push.K = j + 1 < chunks ? SVK_GEMM_TEXEL_KCHUNK : g->K - k0;
        push.off_a = (uint32_t)(g->off_a + k0);
        push.off_b = (uint32_t)(g->off_b + (g->trans_b ? k0 : (uint64_t)k0 * ldb));
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
    h.scratch = NULL;
    h.off_scratch = h.scratch_elems = 0;
    if (p->a) {
        h.a = g->scratch;
        h.off_a = g->off_scratch + p->off_a;
        h.lda = p->lda;
    }
    if (p->b) {
        h.b = g->scratch;
        h.off_b = g->off_scratch + p->off_b;
        h.ldb = p->ldb;
    }
    return svk_gemm_record(cl, &h);
}

svk_status svk_gemm_record(svk_cmdlist *cl, const svk_gemm_args *g)
{
    SVK_CHECK_ARG(NULL, cl && g && g->a && g->b && g->c);
    svk_ctx *ctx = g->a->ctx;
    const char *label = g->label ? g->label : "gemm";
    if (g->M == 0 || g->N == 0 || g->K == 0)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': empty shape M=%u N=%u K=%u", label,
                         g->M, g->N, g->K);
    uint64_t batch = g->batch ? g->batch : 1, outer = g->outer ? g->outer : 1;
    /* Stored shapes: A is [M, K] or, transposed, [K, M]; likewise B. */
    uint64_t a_rows = g->trans_a ? g->K : g->M, a_cols = g->trans_a ? g->M : g->K;
    uint64_t b_rows = g->trans_b ? g->N : g->K, b_cols = g->trans_b ? g->K : g->N;
    uint64_t lda = g->lda ? g->lda : a_cols, ldb = g->ldb ? g->ldb : b_cols, ldc = g->ldc ? g->ldc : g->N;
    uint64_t sa = g->stride_a ? g->stride_a : a_rows * lda;
    uint64_t sb = g->stride_b ? g->stride_b : b_rows * ldb;
    uint64_t sc = g->stride_c ? g->stride_c : (uint64_t)g->M * ldc;
    svk_status st;
    if (batch * outer > UINT32_MAX || batch * outer > ctx->info.max_workgroup_count[2])
        return svk_error(&ctx->log, SVK_ERROR_TOO_LARGE, "gemm '%s': %llu x %llu batches, the device allows %u",
                         label, (unsigned long long)outer, (unsigned long long)batch, ctx->info.max_workgroup_count[2]);
    if ((st = check_operand(ctx, label, "A", g->a, g->off_a, a_rows, a_cols, lda, sa, batch, g->stride2_a, outer)) != SVK_OK ||
        (st = check_operand(ctx, label, "B", g->b, g->off_b, b_rows, b_cols, ldb, sb, batch, g->stride2_b, outer)) != SVK_OK ||
        (st = check_operand(ctx, label, "C", g->c, g->off_c, g->M, g->N, ldc, sc, batch, g->stride2_c, outer)) != SVK_OK)
        return st;
    if (g->bias && (st = check_operand(ctx, label, "bias", g->bias, g->off_bias, 1, g->N, g->N, 0, 1, 0, 1)) != SVK_OK)
        return st;
    const bool epi = g->epilogue != SVK_GEMM_EPILOGUE_NONE;
    const bool dual = g->epilogue == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    const bool residual = dual || g->epilogue == SVK_GEMM_EPILOGUE_RESIDUAL;
    if (g->epilogue > SVK_GEMM_EPILOGUE_DUAL_RESIDUAL)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': unknown epilogue %d", label, (int)g->epilogue);
    if ((unsigned)g->structure > SVK_GEMM_A_UPPER)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': unknown structure %d", label,
                         (int)g->structure);
    if (epi && !g->aux)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': the epilogue's operand aux has no buffer", label);
    if (dual && !g->aux2)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': the dual residual's aux2 has no buffer", label);
    if (residual && g->beta != 0.0f)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': a residual epilogue needs beta 0 (is %g)", label,
                         (double)g->beta);
    if (dual && (!isfinite(g->res_c) || g->res_c == 0.0f))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': res_c=%g must be finite and nonzero", label,
                         (double)g->res_c);
    if (epi && (st = check_operand(ctx, label, "aux", g->aux, g->off_aux, g->M, g->N, ldc, sc, batch, g->stride2_c,
                                   outer)) != SVK_OK)
        return st;
    if (dual && (st = check_operand(ctx, label, "aux2", g->aux2, g->off_aux2, g->M, g->N, ldc, sc, batch,
                                    g->stride2_c, outer)) != SVK_OK)
        return st;
    if (g->sum_a &&
        (!g->trans_a || (batch != 1 && !g->sum_a_per_matrix) || outer != 1 || g->structure != SVK_GEMM_DENSE))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': sum_a needs trans_a, one matrix (batch %llu, outer %llu) and the DENSE structure",
                         label, (unsigned long long)batch, (unsigned long long)outer);
    const uint64_t n_sum = g->sum_a_per_matrix ? batch * g->M : g->M;
    if (g->sum_a &&
        (st = check_operand(ctx, label, "sum_a", g->sum_a, g->off_sum_a, 1, n_sum, n_sum, 0, 1, 0, 1)) != SVK_OK)
        return st;

    svk_kernel_id kernel_id;
    if ((st = choose_kernel(ctx, label, g, true, &kernel_id)) != SVK_OK)
        return st;
    if (g->sum_a_per_matrix && kernel_id != SVK_KERNEL_GEMM)
        return svk_error(&ctx->log, SVK_ERROR_INTERNAL, "gemm '%s': per-matrix sums need the portable kernel", label);
    const svk_kernel_info *k = svk_kernel_info_get(kernel_id);
    uint32_t spec[SVK_MAX_SPEC];
    memcpy(spec, k->spec_defaults, sizeof(spec));
    bool texel_epi = false, texel_aux = false, texel_c = false;
    const bool sum_fused = g->sum_a && sum_a_fused(ctx, g, kernel_id);
    const bool vec_a = g->off_a % 4 == 0 && lda % 4 == 0 && sa % 4 == 0 && g->stride2_a % 4 == 0;
    const bool vec_b = g->off_b % 4 == 0 && ldb % 4 == 0 && sb % 4 == 0 && g->stride2_b % 4 == 0;
    /* The CPU forms' VEC_C: C, the bias and the epilogue's operands may be
     * accessed as vec4s (four columns from a multiple of 4 all inside C or
     * all outside it). */
    const bool vec_c = g->off_c % 4 == 0 && ldc % 4 == 0 && sc % 4 == 0 && g->stride2_c % 4 == 0 && g->N % 4 == 0 &&
                       (!g->bias || g->off_bias % 4 == 0) && (!epi || g->off_aux % 4 == 0) &&
                       (!dual || g->off_aux2 % 4 == 0);
    /* What the output loop does: the bias and the epilogue. The CPU forms
     * compile these in, with whether C is read (EPI_FLAGS and READ_C):
     * lavapipe would otherwise run every epilogue's branch, loads and
     * stores included, for every element. */
    const uint32_t out_flags = (g->bias ? SVK_GEMM_FLAG_BIAS : 0u) |
                               (g->epilogue == SVK_GEMM_EPILOGUE_GELU ? SVK_GEMM_FLAG_GELU : 0u) |
                               (g->epilogue == SVK_GEMM_EPILOGUE_GELU_BWD ? SVK_GEMM_FLAG_GELU_BWD : 0u) |
                               (g->epilogue == SVK_GEMM_EPILOGUE_RESIDUAL ? SVK_GEMM_FLAG_RESIDUAL : 0u) |
                               (dual ? SVK_GEMM_FLAG_DUAL_RESIDUAL : 0u);
    if (svk_gemm_kernel_is_texel(kernel_id)) {
        /* Each invocation a spec[3] x spec[4] block of C; the transposes,
         * the operands' vec4 alignment and K % 4 are compiled in (spec
         * 5..9, 11), so that the k loop's address arithmetic, fetch widths
         * and trip counts are fixed and it has no branch. */
        const uint32_t share = texel_layout(ctx, g, spec);
        spec[5] = g->trans_a;
        spec[6] = g->trans_b;
        spec[7] = vec_a && (!g->trans_a || g->M % 4 == 0);
        spec[8] = vec_b && (g->trans_b || g->N % 4 == 0);
        spec[9] = g->K % 4;
        spec[10] = share;
        spec[11] = vec_c;
        spec[12] = out_flags | (texel_k8(g, spec[3], spec[4]) ? SVK_GEMM_SPEC_K8 : 0u);
        spec[13] = g->beta != 0.0f;
        if (sum_fused)
            spec[12] |= SVK_GEMM_FLAG_SUM_A;
        if (texel_rows2(g, spec, share))
            spec[12] |= SVK_GEMM_SPEC_ROWS2;
        /* The output loop's vec4 reads of aux and C through texel views,
         * where it has any and their buffers can be viewed. */
        const bool reads_aux = g->epilogue == SVK_GEMM_EPILOGUE_GELU_BWD ||
                               g->epilogue == SVK_GEMM_EPILOGUE_RESIDUAL || dual;
        const bool reads_c = g->beta != 0.0f || dual || texel_k_chunks(g) > 1;
        texel_epi = spec[11] && (reads_aux || reads_c) && svk_op_texel_allowed(ctx) &&
                    (!reads_aux || svk_texel_usable(g->aux, SVK_TEXEL_RGBA32F, NULL, 0)) &&
                    (!reads_c || svk_texel_usable(g->c, SVK_TEXEL_RGBA32F, NULL, 0));
        if (texel_epi)
            spec[12] |= SVK_GEMM_SPEC_TEXEL_EPI;
        texel_aux = texel_epi && reads_aux;
        texel_c = texel_epi && reads_c;
    } else if (is_cpu_ssbo(kernel_id)) {
        /* A row of spec[0] invocations, each spec[3] x spec[4] of C; the
         * transposes are compiled in (spec 6, 7) so that the k loop's
         * address arithmetic is fixed. */
        spec[5] = g->trans_a;
        spec[6] = g->trans_b;
        spec[7] = ctx->info.subgroup_size;
        spec[8] = out_flags;
        spec[9] = g->beta != 0.0f;
        spec[10] = vec_c;
    } else if (kernel_id == SVK_KERNEL_GEMM_COOPMAT) {
        coopmat_spec(ctx, g, spec);
        /* gemm_coopmat.comp's float16 tiles of op(A) and op(B), rows
         * padded by 8 (along k, or along m or n when transposed), and a
         * float fragment per subgroup, rows padded by 4 */
        uint32_t tm, tn;
        block_shape(SVK_KERNEL_GEMM_COOPMAT, spec, &tm, &tn);
        const uint64_t bk = (uint64_t)spec[10] * spec[5];
        const uint64_t tile_a = g->trans_a ? bk * (tm + 8) : tm * (bk + 8);
        const uint64_t tile_b = g->trans_b ? tn * (bk + 8) : bk * (tn + 8);
        const uint64_t shared = (tile_a + tile_b) * 2 + (uint64_t)spec[6] * spec[7] * spec[3] * (spec[4] + 4) * 4;
        if (shared > ctx->info.max_shared_memory)
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "gemm '%s': cooperative-matrix tiles need %llu bytes of shared memory, the device has %u",
                             label, (unsigned long long)shared, ctx->info.max_shared_memory);
    } else {
        uint64_t shared = (uint64_t)(spec[1] * spec[3] + 1 + spec[0] * spec[4] + 1) * spec[5] * sizeof(float);
        if (shared > ctx->info.max_shared_memory)
            return svk_error(&ctx->log, SVK_ERROR_UNSUPPORTED,
                             "gemm tiles need %llu bytes of shared memory, the device has %u",
                             (unsigned long long)shared, ctx->info.max_shared_memory);
    }
    uint32_t bm, bn;
    block_shape(kernel_id, spec, &bm, &bn);

    svk_push_gemm push = {
        .M = g->M, .N = g->N, .K = g->K,
        .lda = (uint32_t)lda, .ldb = (uint32_t)ldb, .ldc = (uint32_t)ldc,
        .off_a = (uint32_t)g->off_a, .off_b = (uint32_t)g->off_b, .off_c = (uint32_t)g->off_c,
        .off_bias = (uint32_t)g->off_bias,
        .off_aux = (uint32_t)g->off_aux,
        .off_aux2 = (uint32_t)g->off_aux2,
        .res_c = dual ? g->res_c : 1.0f,
        .stride_a = (uint32_t)sa, .stride_b = (uint32_t)sb, .stride_c = (uint32_t)sc,
        .batch = (uint32_t)batch,
        .stride2_a = (uint32_t)g->stride2_a, .stride2_b = (uint32_t)g->stride2_b, .stride2_c = (uint32_t)g->stride2_c,
        .flags = (g->trans_a ? SVK_GEMM_FLAG_TRANS_A : 0u) | (g->trans_b ? SVK_GEMM_FLAG_TRANS_B : 0u) | out_flags |
                 (vec_a ? SVK_GEMM_FLAG_VEC4_A : 0u) | (vec_b ? SVK_GEMM_FLAG_VEC4_B : 0u) |
                 (g->structure == SVK_GEMM_CAUSAL_OUT ? SVK_GEMM_FLAG_CAUSAL_OUT : 0u) |
                 (g->structure == SVK_GEMM_A_LOWER ? SVK_GEMM_FLAG_A_LOWER : 0u) |
                 (g->structure == SVK_GEMM_A_UPPER ? SVK_GEMM_FLAG_A_UPPER : 0u) |
                 (sum_fused ? SVK_GEMM_FLAG_SUM_A : 0u) | (g->sum_a_per_matrix ? SVK_GEMM_FLAG_SUM_A_STORE : 0u),
        .alpha = g->alpha,
        .beta = g->beta,
        .off_sum_a = sum_fused ? (uint32_t)g->off_sum_a : 0u,
    };
    uint64_t n_a = extent(a_rows, a_cols, lda, sa, batch, g->stride2_a, outer);
    uint64_t n_b = extent(b_rows, b_cols, ldb, sb, batch, g->stride2_b, outer);
    uint64_t n_c = extent(g->M, g->N, ldc, sc, batch, g->stride2_c, outer);
    const svk_range ra = {g->a, g->off_a * 4, n_a * 4}, rb = {g->b, g->off_b * 4, n_b * 4};
    const svk_range rc = {g->c, g->off_c * 4, n_c * 4};
    const svk_range rsum = g->sum_a ? (svk_range){g->sum_a, g->off_sum_a * 4, n_sum * 4} : rc;
    if (g->sum_a && (svk_range_overlap(rsum, ra) || svk_range_overlap(rsum, rb) || svk_range_overlap(rsum, rc)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "gemm '%s': sum_a (element %llu of '%s') overlaps A, B or C",
                         label, (unsigned long long)g->off_sum_a, g->sum_a->name);
    const svk_range operands[3] = {ra, rb, rc};
    if (g->sum_a && !sum_fused && (st = record_sum_a(cl, g, lda, label, operands)) != SVK_OK)
        return st;
    if ((kernel_id == SVK_KERNEL_GEMM || kernel_id == SVK_KERNEL_GEMM_COOPMAT) && g->scratch) {
        /* sum_fused here: the portable kernel's partial sums beside its partials. */
        const uint32_t splits = svk_gemm_split_count(g, ldc, bm, bn);
        const uint64_t need = svk_gemm_split_scratch_elems(g, splits, sum_fused);
        if (splits > 1 && g->scratch_elems >= need) {
            if ((st = check_scratch(ctx, g, label, need, operands, 3, "A, B or C")) != SVK_OK)
                return st;
            return svk_gemm_split_record(cl, g, splits, lda, ldb, sum_fused);
        }
    }
    /* Without a bias the shaders never read its binding; A stands in.
     * Without an epilogue C stands in for aux (and aux2): the shaders declare aux
     * writable, so the validation layer (and the barrier tracking, which
     * follows the kernel's write_mask) count it as written, as C is
     * anyway. GELU_BWD only reads aux but is tracked the same way: a
     * barrier more at worst. */
    const svk_range rbias = g->bias ? (svk_range){g->bias, g->off_bias * 4, (uint64_t)g->N * 4} : ra;
    const svk_range raux = epi ? (svk_range){g->aux, g->off_aux * 4, n_c * 4} : rc;
    const svk_range raux2 = dual ? (svk_range){g->aux2, g->off_aux2 * 4, n_c * 4} : rc;
    if (epi && (svk_range_overlap(raux, ra) || svk_range_overlap(raux, rb) || svk_range_overlap(raux, rc)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': the epilogue's aux (element %llu of '%s') overlaps A, B or C", label,
                         (unsigned long long)g->off_aux, g->aux->name);
    if (dual && (svk_range_overlap(raux2, ra) || svk_range_overlap(raux2, rb) || svk_range_overlap(raux2, rc) ||
                 svk_range_overlap(raux2, raux)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "gemm '%s': the epilogue's aux2 (element %llu of '%s') overlaps A, B, C or aux", label,
                         (unsigned long long)g->off_aux2, g->aux2->name);
    /* gemm_texel.comp with scratch (and no column sum using it): operands
     * whose rows share L1 sets are copied there first, clear of everything
     * the product reads or writes. */
    if (svk_gemm_kernel_is_texel(kernel_id) && g->scratch && (!g->sum_a || sum_fused)) {
        svk_gemm_pack p;
        texel_pack_plan(ctx, g, &p);
        if (p.elems && g->scratch_elems >= p.elems && svk_texel_usable(g->scratch, SVK_TEXEL_R32F, NULL, 0) &&
            svk_texel_usable(g->scratch, SVK_TEXEL_RGBA32F, NULL, 0)) {
            const svk_range touched[7] = {ra, rb, rc, rbias, raux, raux2, rsum};
            if ((st = check_scratch(ctx, g, label, p.elems, touched, 7, "A, B, C, the bias, aux, aux2 or sum_a")) !=
                SVK_OK)
                return st;
            return record_packed(cl, g, lda, ldb, &p);
        }
    }
    svk_dispatch d = {
        .kernel = kernel_id,
        .spec = spec,
        .push = &push,
        .push_size = sizeof(push),
        .groups = {(uint32_t)((g->N + bn - 1) / bn), (uint32_t)((g->M + bm - 1) / bm), (uint32_t)(batch * outer)},
        .label = label,
    };
    if (svk_gemm_kernel_is_texel(kernel_id)) {
        /* A and B each as an RGBA32F and an R32F view, then aux and C as
         * RGBA32F views where the output loop reads them so (A stands in
         * where it does not: kernels.c), then sum_a (C stands in). */
        const svk_range b[11] = {ra, ra, rb, rb, rc, rbias, raux, raux2, texel_aux ? raux : ra,
                                 texel_c ? rc : ra, sum_fused ? rsum : rc};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 11;
        const uint32_t chunks = texel_k_chunks(g);
        if (chunks > 1)
            return record_k_chunks(cl, &d, g, chunks, ldb);
    } else if (kernel_id == SVK_KERNEL_GEMM) {
        /* sum_a last (C stands in). */
        const svk_range b[7] = {ra, rb, rc, rbias, raux, raux2, sum_fused ? rsum : rc};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 7;
    } else {
        const svk_range b[6] = {ra, rb, rc, rbias, raux, raux2};
        memcpy(d.bindings, b, sizeof(b));
        d.n_bindings = 6;
    }
    return svk_cmdlist_dispatch(cl, &d);
}
