/*
 * The GEMM's decisions (gemm_policy.h), in the order a product meets them:
 *
 *   variant   AUTO: the tuning's forced variant, else CPU on CPU devices and
 *             PORTABLE elsewhere; PORTABLE becomes COOPMAT where the tuning
 *             asks and the device has cooperative matrices
 *             (svk_gemm_policy_variant).
 *   kernel    CPU: the texel form where texel buffers are allowed and A and
 *             B viewable, else the storage form; each with 64-bit views
 *             where the device has shaderInt64 (the texel form not for
 *             op(A) = A^T); PORTABLE where the CPU forms cannot run
 *             (no subgroupShuffle, K past the loop budget, the grid past
 *             the device) (svk_gemm_policy_kernel).
 *   tile      the texel form: 32 x 4 from 256 rows of C, 16 x 4 below;
 *             16 x 8 for single NN products with K <= 1024 and TN ones
 *             under 256 rows (texel_tile); a workgroup as narrow as N
 *             allows (texel_shape); two rows of blocks per subgroup where
 *             one fills at most half of it (texel_rows2); eight k steps
 *             per iteration for the 16 x 8 NN products with K >= 256
 *             (texel_k8); K in chunks of 1024 past 2048 for NN
 *             (svk_gemm_policy_k_chunks). The coopmat kernel: 4 x 4
 *             fragments per subgroup for large NN and TN products, else
 *             2 x 2 (coopmat_spec).
 *   split     the portable and coopmat kernels split K where C has fewer
 *             than 128 tiles (gemm_split.c; svk_gemm_policy_split).
 *   pack      the texel form copies an operand whose rows share L1 sets
 *             (gemm_pack.c; svk_gemm_policy_pack).
 *
 * Each rule that is a measured trade-off says so in a line where it is
 * decided, with the tuning switch that turns it off for comparison
 * (docs/ENVIRONMENT.md); the measurements are in the commits that made them.
 */
#include "gemm_policy.h"

#include <string.h>

#include "common/push_gemm.h"
#include "gemm_split.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"
#include "vk/texel.h"

/* The variant that runs: an explicit choice, else the operations' common
 * rule (svk_op_variant: the tuning's forced variant, else by device type),
 * with PORTABLE turned into COOPMAT where the tuning asks
 * (SVK_GEMM_COOPMAT=1; svk_gemm_variant). */
svk_status svk_gemm_policy_variant(svk_ctx *ctx, const char *label, svk_gemm_variant want, bool log,
                                   svk_gemm_variant *out)
{
    if (want == SVK_GEMM_VARIANT_PORTABLE || want == SVK_GEMM_VARIANT_CPU || want == SVK_GEMM_VARIANT_CPU_SSBO) {
        *out = want;
        return SVK_OK;
    }
    if (want == SVK_GEMM_VARIANT_COOPMAT) {
        if (!ctx->profile.coopmat_m)
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
    const bool coopmat = ctx->settings.tuning.gemm_coopmat;
    svk_status st = svk_op_variant(ctx, "gemm", &v);
    if (st != SVK_OK)
        return st;
    *out = v == SVK_KERNEL_VARIANT_CPU ? SVK_GEMM_VARIANT_CPU : SVK_GEMM_VARIANT_PORTABLE;
    if (coopmat && *out == SVK_GEMM_VARIANT_PORTABLE) {
        if (ctx->profile.coopmat_m)
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
    spec[3] = ctx->profile.coopmat_m;
    spec[4] = ctx->profile.coopmat_n;
    spec[5] = ctx->profile.coopmat_k;
    /* 4 x 4 fragments per subgroup (128 x 128 tiles at 16 x 16) where the
     * product has 256 such tiles or more and B is not transposed, 2 x 2
     * otherwise: measured faster on an H200 for large NN and TN products,
     * slower for NT ones and for small ones, which leave multiprocessors
     * idle. The tuning's coopmat_frags (1 to 4) overrides. */
    const uint64_t big = (uint64_t)spec[6] * 4 * spec[3], wide = (uint64_t)spec[7] * 4 * spec[4];
    const svk_gemm_shape *s = &g->shape;
    const uint64_t tiles = svk_div_up(s->M, big) * svk_div_up(s->N, wide) * (s->batch ? s->batch : 1) *
                           (s->outer ? s->outer : 1);
    if (tiles >= 256 && !s->trans_b)
        spec[8] = spec[9] = 4;
    if (ctx->settings.tuning.coopmat_frags)
        spec[8] = spec[9] = ctx->settings.tuning.coopmat_frags;
    spec[0] = ctx->profile.subgroup_size * spec[6] * spec[7];
    spec[11] = s->trans_a;
    spec[12] = s->trans_b;
}

bool svk_gemm_kernel_is_texel(svk_kernel_id id)
{
    return id == SVK_KERNEL_GEMM_TEXEL || id == SVK_KERNEL_GEMM_TEXEL_S64;
}

/* The texel form ctx runs for g: the one storing C through 64-bit views
 * where allowed (svk_op_gemm_store64_allowed), unless op(A) is A^T: the
 * weight gradients, whose C is small and K long, measured slower with it
 * on lavapipe, where the products storing most gained. */
static svk_kernel_id texel_kernel(const svk_ctx *ctx, const svk_gemm_args *g)
{
    return svk_op_gemm_store64_allowed(ctx) && !g->shape.trans_a ? SVK_KERNEL_GEMM_TEXEL_S64 : SVK_KERNEL_GEMM_TEXEL;
}

/* The storage-buffer form ctx runs: the one loading and storing through
 * 64-bit views where allowed, for every product (every product measured
 * faster with them on lavapipe). */
static svk_kernel_id cpu_kernel(const svk_ctx *ctx)
{
    return svk_op_gemm_store64_allowed(ctx) ? SVK_KERNEL_GEMM_CPU_S64 : SVK_KERNEL_GEMM_CPU;
}

bool svk_gemm_kernel_is_cpu_ssbo(svk_kernel_id id)
{
    return id == SVK_KERNEL_GEMM_CPU || id == SVK_KERNEL_GEMM_CPU_S64;
}

/* Whether gemm_texel.comp can read A and B: both viewable as R32F and as
 * RGBA32F texel buffers. If not and log, says why, once per context. */
static bool texel_ok(svk_ctx *ctx, const char *label, const svk_gemm_args *g, bool log)
{
    if (!svk_op_texel_allowed(ctx))
        return false;
    const svk_buffer *ops[2] = {g->a.buf, g->b.buf};
    char why[256];
    for (int i = 0; i < 2; i++)
        for (int f = 0; f < SVK_TEXEL_FORMAT_COUNT; f++)
            if (!svk_texel_usable(ops[i], (svk_texel_format)f, why, sizeof(why))) {
                if (log && !ctx->texel_fallback_logged) {
                    ctx->texel_fallback_logged = true;
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
 * rows of 32), it is halved until it does not (measured faster there). The
 * width stays a multiple of the subgroup size (so op(A) is
 * still shared). op(A) is shared where each subgroup is one row of
 * invocations of the workgroup: one subgroup size on the device, dividing
 * the workgroup's row. */
static uint32_t texel_shape(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *spec)
{
    const uint32_t sg = ctx->profile.subgroup_size ? ctx->profile.subgroup_size : 1;
    const uint32_t need = svk_div_up(svk_div_up(g->shape.N, spec[4]), sg) * sg;
    if (spec[1] == 1) {
        if (need < spec[0])
            spec[0] = need;
        while (spec[0] > sg && spec[0] % (2 * sg) == 0 && 8 * (svk_div_up(need, spec[0]) * spec[0] - need) > need)
            spec[0] /= 2;
    }
    return ctx->profile.subgroup_size && ctx->profile.one_subgroup_size && spec[1] == 1 &&
                   spec[0] % ctx->profile.subgroup_size == 0
               ? ctx->profile.subgroup_size
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
 * Measured faster for those products (--tune gemm_rows=0 compares). */
static bool texel_rows2(const svk_ctx *ctx, const svk_gemm_args *g, const uint32_t *spec, uint32_t share)
{
    const uint64_t cols = svk_div_up(g->shape.N, spec[4]);
    return svk_op_gemm_rows_allowed(ctx) && share >= 4 && (share & (share - 1)) == 0 && spec[0] == share &&
           spec[1] == 1 && 2 * cols <= share && 4 * cols > share && !g->sum_a.buf;
}

/* gemm_texel.comp's block of C per invocation for g: TM x TN (spec 3, 4).
 *
 * TM 32 where C has 256 rows or more, else the default 16 (fewer rows past
 * M computed for nothing in small products, such as attention's per-head
 * ones). Each iteration of the k loop then fetches each B item for twice
 * the multiply-adds: measured faster on lavapipe at C = 1024 (with the
 * packing of gemm_pack.h), within noise at C = 128.
 *
 * The wide tile, 16 x 8 (the same 128 accumulators), where op(B) is B
 * [K, N] and the product is one matrix: NN products with K <= 1024 (the
 * input gradients, and on CPU devices the Linears' forwards, which the
 * plan runs on transposed weights: svk_plan_options.linear_nn) and the
 * weight gradients (TN) with fewer than 256 rows, and
 * only where the wider columns pad N no further (attention's heads of 32
 * would compute twice their columns): measured faster on lavapipe for
 * those products (--tune gemm_wide=0 compares), slower where op(B) is B^T
 * (each lane's eight columns are eight rows of B), for the weight
 * gradients with TM 32 and for NN with K of 3072 and more. TM 32 with TN 8
 * (256 accumulators) is far slower. */
static void texel_tile(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t *tm, uint32_t *tn)
{
    const uint32_t *def = svk_kernel_info_get(SVK_KERNEL_GEMM_TEXEL)->spec_defaults;
    const svk_gemm_shape *s = &g->shape;
    *tm = s->M >= 256 ? 32u : def[3];
    *tn = def[4];
    const uint64_t sg = ctx->profile.subgroup_size ? ctx->profile.subgroup_size : 1;
    const uint64_t wide = 8u * sg, narrow = (uint64_t)def[4] * sg;
    const bool one = (s->batch <= 1) && (s->outer <= 1);
    const bool no_pad = svk_div_up(s->N, wide) * wide == svk_div_up(s->N, narrow) * narrow;
    if (svk_op_gemm_wide_allowed(ctx) && !s->trans_b && one && no_pad && (s->trans_a ? s->M < 256 : s->K <= 1024)) {
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
bool svk_gemm_policy_sum_a_fused(const svk_ctx *ctx, const svk_gemm_args *g, svk_kernel_id id)
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
 * the next invocation of the row reads them again (the gain is measured on
 * lavapipe, the cause inferred). Products with A [K, M] (the weight
 * gradients) and K <= 2048 gained nothing measurable. */
uint32_t svk_gemm_policy_k_chunks(const svk_gemm_args *g)
{
    const bool reads_c = g->beta != 0.0f || g->epi.kind == SVK_GEMM_EPILOGUE_DUAL_RESIDUAL;
    if (g->shape.trans_a || reads_c || g->sum_a.buf || g->structure != SVK_GEMM_DENSE ||
        g->shape.K <= SVK_GEMM_TEXEL_KCHUNK_ABOVE)
        return 1;
    return g->shape.K / SVK_GEMM_TEXEL_KCHUNK;
}

/* What gemm_texel.comp would pack of g (gemm_pack.h): the rows of A and
 * of B one iteration of its k loop reads are its block's TM and the TN
 * columns of each lane of a subgroup. */
void svk_gemm_policy_pack(const svk_ctx *ctx, const svk_gemm_args *g, svk_gemm_pack *p)
{
    uint32_t spec[SVK_MAX_SPEC];
    memcpy(spec, svk_kernel_info_get(SVK_KERNEL_GEMM_TEXEL)->spec_defaults, sizeof(spec));
    const uint32_t share = texel_layout(ctx, g, spec);
    const uint32_t sg = ctx->profile.subgroup_size ? ctx->profile.subgroup_size : 1;
    /* With two rows of blocks per subgroup (texel_rows2), an iteration
     * reads twice the rows of A and half the columns of B. */
    const uint32_t rows2 = texel_rows2(ctx, g, spec, share) ? 2u : 1u;
    const uint64_t lda = g->a.ld ? g->a.ld : g->shape.trans_a ? g->shape.M : g->shape.K;
    const uint64_t ldb = g->b.ld ? g->b.ld : g->shape.trans_b ? g->shape.K : g->shape.N;
    *p = (svk_gemm_pack){0};
    if (svk_op_gemm_pack_allowed(ctx))
        svk_gemm_pack_plan(g, lda, ldb, spec[3] * rows2, spec[4] * sg / rows2, p);
}

/* Rows and columns of C one workgroup of kernel id covers with spec. */
void svk_gemm_block_shape(svk_kernel_id id, const uint32_t *spec, uint32_t *bm, uint32_t *bn)
{
    /* gemm_cpu.comp is one row of invocations; the others are WG_X x WG_Y
     * invocations of TM x TN each. */
    if (id == SVK_KERNEL_GEMM_COOPMAT) {
        /* SGM x SGN subgroups of FM x FN fragments of LM x LN */
        *bm = spec[6] * spec[8] * spec[3];
        *bn = spec[7] * spec[9] * spec[4];
        return;
    }
    *bm = svk_gemm_kernel_is_cpu_ssbo(id) ? spec[3] : spec[1] * spec[3];
    *bn = spec[0] * spec[4];
    if (svk_gemm_kernel_is_texel(id) && (spec[12] & SVK_GEMM_SPEC_ROWS2)) {
        *bm *= 2; /* one row of invocations, two rows of blocks */
        *bn /= 2;
    }
}

/* The kernel a GEMM records: the variant's, unless a CPU form cannot run
 * it (see svk_gemm_variant). */
svk_status svk_gemm_policy_kernel(svk_ctx *ctx, const char *label, const svk_gemm_args *g, bool log,
                                  svk_kernel_id *out)
{
    svk_gemm_variant variant = SVK_GEMM_VARIANT_PORTABLE;
    svk_status st = svk_gemm_policy_variant(ctx, label, g->variant, log, &variant);
    if (st != SVK_OK)
        return st;
    *out = variant == SVK_GEMM_VARIANT_COOPMAT ? SVK_KERNEL_GEMM_COOPMAT : SVK_KERNEL_GEMM;
    if (variant == SVK_GEMM_VARIANT_PORTABLE || variant == SVK_GEMM_VARIANT_COOPMAT)
        return SVK_OK;
    /* Both CPU forms are compiled with subgroupShuffle (used only where
     * the subgroup allows, but the capability is the module's). */
    if (!ctx->profile.subgroup_shuffle)
        return SVK_OK;
    svk_kernel_id id =
        variant == SVK_GEMM_VARIANT_CPU && texel_ok(ctx, label, g, log) ? texel_kernel(ctx, g) : cpu_kernel(ctx);
    /* Loop iterations of one SIMD batch: gemm_texel.comp K / 4;
     * gemm_cpu.comp K / 4, then K % 4 single steps, plus one masked pass of
     * each loop of its paths not taken: K / 4 + 5 at most. */
    if ((uint64_t)g->shape.K / 4 + 5 > SVK_OP_CPU_LOOP_BUDGET)
        return SVK_OK;
    uint32_t bm, bn;
    svk_gemm_block_shape(id, svk_kernel_info_get(id)->spec_defaults, &bm, &bn);
    if (svk_div_up(g->shape.N, bn) > ctx->info.max_workgroup_count[0] ||
        svk_div_up(g->shape.M, bm) > ctx->info.max_workgroup_count[1])
        return SVK_OK;
    *out = id;
    return SVK_OK;
}

/* The parts the portable kernels cut g's K into (gemm_split.h), unless
 * the tuning's gemm_split=0. */
uint32_t svk_gemm_policy_split(const svk_ctx *ctx, const svk_gemm_args *g, uint64_t ldc, uint32_t bm, uint32_t bn)
{
    return svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_SPLIT) ? svk_gemm_split_count(g, ldc, bm, bn) : 1;
}

/* Floats of scratch split-K would use for g (0: no split), with the
 * portable kernel's partial row sums where g has sum_a. */
uint64_t svk_gemm_policy_split_scratch(svk_ctx *ctx, const svk_gemm_args *g)
{
    /* The portable and coopmat kernels split; a CPU variant's fallback to
     * the portable one (rare: svk_gemm_variant) records unsplit for want
     * of room. */
    svk_gemm_variant variant = SVK_GEMM_VARIANT_AUTO;
    if (svk_gemm_policy_variant(ctx, g->label ? g->label : "gemm", g->variant, false, &variant) != SVK_OK ||
        (variant != SVK_GEMM_VARIANT_PORTABLE && variant != SVK_GEMM_VARIANT_COOPMAT))
        return 0;
    /* Each has one tile shape for every product (kernels.c: 4 x 4 per
     * invocation, measured far faster on an H200 than 8 x 8). */
    uint32_t bm, bn, spec[SVK_MAX_SPEC];
    if (variant == SVK_GEMM_VARIANT_COOPMAT) {
        coopmat_spec(ctx, g, spec);
        svk_gemm_block_shape(SVK_KERNEL_GEMM_COOPMAT, spec, &bm, &bn);
    } else {
        svk_gemm_block_shape(SVK_KERNEL_GEMM, svk_kernel_info_get(SVK_KERNEL_GEMM)->spec_defaults, &bm, &bn);
    }
    const uint32_t s = svk_gemm_policy_split(ctx, g, g->c.ld ? g->c.ld : g->shape.N, bm, bn);
    return s > 1 ? svk_gemm_split_scratch_elems(g, s, g->sum_a.buf && variant == SVK_GEMM_VARIANT_PORTABLE) : 0;
}

/* Whether a GEMM asking for variant `asked` would run a texel form on ctx
 * (which also needs A and B viewable as texel buffers: for a query with
 * none to look at, it counts). Logs nothing. */
bool svk_gemm_policy_texel_form_runs(svk_ctx *ctx, const char *label, svk_gemm_variant asked)
{
    svk_gemm_variant variant = SVK_GEMM_VARIANT_AUTO;
    return ctx->profile.subgroup_shuffle && svk_op_texel_allowed(ctx) &&
           svk_gemm_policy_variant(ctx, label, asked, false, &variant) == SVK_OK && variant == SVK_GEMM_VARIANT_CPU;
}

/* Whether gemm_texel.comp's k loop takes eight steps of k per iteration
 * (SVK_GEMM_SPEC_K8), not four, for g with the tile tm x tn: the 16 x 8
 * tile's NN products with K >= 256 (dense, K & ~3 a multiple of 8), unless
 * the tuning's gemm_k8=0. Each accumulator then takes eight steps per load
 * and store: measured faster on lavapipe for those products, slower for
 * the 32 x 4 tile's and for the weight gradients (TN), so not there. */
static bool texel_k8(const svk_ctx *ctx, const svk_gemm_args *g, uint32_t tm, uint32_t tn)
{
    const svk_gemm_shape *s = &g->shape;
    return tm == 16 && tn == 8 && !s->trans_a && !s->trans_b && s->K >= 256 && g->structure == SVK_GEMM_DENSE &&
           (s->K & ~3u) % 8 == 0 && svk_op_tune_on(ctx, SVK_TUNE_OFF_GEMM_K8);
}


void svk_gemm_policy_spec(const svk_ctx *ctx, const svk_gemm_args *g, svk_kernel_id id, uint32_t *spec)
{
    if (svk_gemm_kernel_is_texel(id)) {
        const uint32_t share = texel_layout(ctx, g, spec);
        spec[10] = share;
        spec[12] = (texel_k8(ctx, g, spec[3], spec[4]) ? SVK_GEMM_SPEC_K8 : 0u) |
                   (texel_rows2(ctx, g, spec, share) ? SVK_GEMM_SPEC_ROWS2 : 0u);
    } else if (svk_gemm_kernel_is_cpu_ssbo(id)) {
        spec[7] = ctx->profile.subgroup_size;
    } else if (id == SVK_KERNEL_GEMM_COOPMAT) {
        coopmat_spec(ctx, g, spec);
    }
}
