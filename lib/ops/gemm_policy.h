/*
 * Every choice a GEMM makes (lib/ops/gemm.c asks; it checks operands and
 * records): the variant and kernel, the tile and workgroup, the texel
 * form's per-product switches, splitting K and packing operands. Each is a
 * function of the product's shape, the device profile and the context's
 * tuning (lib/vk/device_profile.h, lib/vk/tuning.h), so that the rule for
 * a product can be read, and changed, in one file: gemm_policy.c, whose
 * first comment lists the decisions.
 */
#ifndef SVK_OPS_GEMM_POLICY_H
#define SVK_OPS_GEMM_POLICY_H

#include "gemm.h"
#include "gemm_pack.h"

/* The texel form's chunks of K (svk_gemm_policy_k_chunks). */
#define SVK_GEMM_TEXEL_KCHUNK 1024u
#define SVK_GEMM_TEXEL_KCHUNK_ABOVE 2048u

/* Whether id is gemm_cpu.comp in either store form. */
bool svk_gemm_kernel_is_cpu_ssbo(svk_kernel_id id);

/* The variant that runs for `want` (AUTO resolved by svk_gemm_variant's
 * rule). log: warn once per context where SVK_GEMM_COOPMAT=1 finds no
 * cooperative matrices. An explicit COOPMAT the device lacks is
 * SVK_ERROR_UNSUPPORTED. */
svk_status svk_gemm_policy_variant(svk_ctx *ctx, const char *label, svk_gemm_variant want, bool log,
                                   svk_gemm_variant *out);

/* The kernel g records: its variant's, unless a CPU form cannot run it
 * (svk_gemm_variant says when). log: say once per context why a texel
 * form falls back to storage buffers. */
svk_status svk_gemm_policy_kernel(svk_ctx *ctx, const char *label, const svk_gemm_args *g, bool log,
                                  svk_kernel_id *out);

/* Kernel id's choices for g in spec, which holds the kernel's defaults on
 * entry: the texel form's tile (3, 4), workgroup (0) and subgroup it
 * shares op(A) over (10), with SVK_GEMM_SPEC_K8 and _ROWS2 in 12; the
 * storage form's subgroup size (7); the cooperative-matrix kernel's whole
 * specialisation. What the operands dictate (transposes, alignments,
 * epilogue flags) is the recorder's to add. */
void svk_gemm_policy_spec(const svk_ctx *ctx, const svk_gemm_args *g, svk_kernel_id id, uint32_t *spec);

/* Rows (bm) and columns (bn) of C one workgroup of kernel id covers with spec. */
void svk_gemm_block_shape(svk_kernel_id id, const uint32_t *spec, uint32_t *bm, uint32_t *bn);

/* Whether kernel id adds g's sum_a itself, rather than after a column sum of A. */
bool svk_gemm_policy_sum_a_fused(const svk_ctx *ctx, const svk_gemm_args *g, svk_kernel_id id);

/* The dispatches the texel form runs g's K in (1: one). */
uint32_t svk_gemm_policy_k_chunks(const svk_gemm_args *g);

/* What the texel form packs of g into its scratch (gemm_pack.h); nothing
 * with the tuning's gemm_pack=0. */
void svk_gemm_policy_pack(const svk_ctx *ctx, const svk_gemm_args *g, svk_gemm_pack *p);

/* The parts the portable kernels cut g's K into, C covered by bm x bn
 * tiles (gemm_split.h; 1 with the tuning's gemm_split=0). */
uint32_t svk_gemm_policy_split(const svk_ctx *ctx, const svk_gemm_args *g, uint64_t ldc, uint32_t bm, uint32_t bn);

/* Floats of scratch split-K would use for g (0: no split). Logs nothing. */
uint64_t svk_gemm_policy_split_scratch(svk_ctx *ctx, const svk_gemm_args *g);

/* Whether a GEMM asking for `asked` would run a texel form on ctx (for a
 * query without operands to look at, viewable ones). Logs nothing. */
bool svk_gemm_policy_texel_form_runs(svk_ctx *ctx, const char *label, svk_gemm_variant asked);

#endif
