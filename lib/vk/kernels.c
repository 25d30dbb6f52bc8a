/* The kernel registry's table. Adding a kernel: its shader in shaders/, its
 * name in shaders/meson.build, its push block in shaders/common/, an id in
 * kernels.h and a row here. */
#include "kernels.h"

#include "common/push_gemm.h"
#include "gemm.spv.h"
#include "gemm_cpu.spv.h"
#include "gemm_texel.spv.h"
#include "gemm_texel_s64.spv.h"
#include "gemm_cpu_s64.spv.h"
#include "gemm_coopmat.spv.h"
#include "gemm_coopmat_khr.spv.h"
#include "common/push_copy.h"
#include "copy.spv.h"
#include "common/push_fma_peak.h"
#include "fma_peak.spv.h"
#include "common/push_norm_bwd.h"
#include "common/push_norm_fwd.h"
#include "common/push_norm_param_reduce.h"
#include "common/push_residual.h"
#include "common/push_siamese_norm_bwd.h"
#include "common/push_siamese_norm_fwd.h"
#include "layernorm_bwd.spv.h"
#include "layernorm_fwd.spv.h"
#include "norm_param_reduce.spv.h"
#include "residual_bwd.spv.h"
#include "residual_fwd.spv.h"
#include "rmsnorm_bwd.spv.h"
#include "rmsnorm_fwd.spv.h"
#include "siamese_norm_bwd.spv.h"
#include "siamese_norm_fwd.spv.h"
#include "layernorm_bwd_cpu.spv.h"
#include "layernorm_fwd_cpu.spv.h"
#include "rmsnorm_bwd_cpu.spv.h"
#include "rmsnorm_fwd_cpu.spv.h"
#include "siamese_norm_bwd_cpu.spv.h"
#include "common/push_siamese_norm_bwd_fused.h"
#include "siamese_norm_bwd_fused_cpu.spv.h"
#include "siamese_norm_bwd_fused.spv.h"
#include "siamese_norm_bwd_fused_texel.spv.h"
#include "siamese_norm_fwd_texel.spv.h"
#include "siamese_norm_fwd_split.spv.h"
#include "siamese_norm_bwd_fused_split.spv.h"
#include "layernorm_fwd_split.spv.h"
#include "rmsnorm_fwd_split.spv.h"
#include "layernorm_bwd_split.spv.h"
#include "rmsnorm_bwd_split.spv.h"
#include "rmsnorm_bwd_texel.spv.h"
#include "rmsnorm_fwd_texel.spv.h"
#include "layernorm_bwd_texel.spv.h"
#include "layernorm_fwd_texel.spv.h"
#include "siamese_norm_fwd_cpu.spv.h"
/* @norm-includes@ */
#include "common/push_attention_flash.h"
#include "common/push_attention_softmax.h"
#include "common/push_rope.h"
#include "attention_flash_bwd_dkv.spv.h"
#include "attention_flash_bwd_dq.spv.h"
#include "attention_flash_fwd.spv.h"
#include "attention_softmax_bwd.spv.h"
#include "attention_softmax_fwd.spv.h"
#include "rope_bwd.spv.h"
#include "rope_fwd.spv.h"
#include "attention_softmax_bwd_cpu.spv.h"
#include "attention_softmax_bwd_texel.spv.h"
#include "attention_softmax_fwd_texel.spv.h"
#include "attention_softmax_fwd_cpu.spv.h"
/* @attention-includes@ */
#include "common/push_decode.h"
#include "decode_attention.spv.h"
#include "decode_embed.spv.h"
#include "pack16.spv.h"
#include "unpack16.spv.h"
#include "common/push_pack16.h"
#include "common/push_gelu.h"
#include "common/push_swiglu.h"
#include "common/push_bias.h"
#include "common/push_colsum.h"
#include "common/push_transpose.h"
#include "common/push_embedding.h"
#include "common/push_index_check.h"
#include "common/push_cross_entropy.h"
#include "common/push_clip.h"
#include "common/push_adamw.h"
#include "gelu_fwd.spv.h"
#include "gelu_bwd.spv.h"
#include "swiglu_fwd.spv.h"
#include "swiglu_bwd.spv.h"
#include "bias_fwd.spv.h"
#include "colsum.spv.h"
#include "colsum_texel.spv.h"
#include "transpose.spv.h"
#include "transpose_texel.spv.h"
#include "embedding_fwd.spv.h"
#include "embedding_bwd.spv.h"
#include "index_check.spv.h"
#include "cross_entropy.spv.h"
#include "cross_entropy_loss.spv.h"
#include "clip_sumsq.spv.h"
#include "clip_scale.spv.h"
#include "adamw.spv.h"
#include "cross_entropy_cpu.spv.h"
#include "embedding_bwd_cpu.spv.h"
#include "common/push_finite_check.h"
#include "finite_check.spv.h"
/* @elementwise-includes@ */

#define SPV(name) name, sizeof(name)

static const svk_kernel_info kernels[SVK_KERNEL_COUNT] = {
    [SVK_KERNEL_GEMM] = {
        .name = "gemm",
        SPV(svk_spv_gemm),
        .n_buffers = 7,      /* A, B, C, bias, aux, aux2 (the epilogue's), sum_a */
        .write_mask = 1u << 2 | 1u << 4 | 1u << 5 | 1u << 6,
        .push_size = sizeof(svk_push_gemm),
        /* workgroup 16x16, each invocation a 4x4 block of C, K tiles of 16:
         * 64x64 tiles of C, 8 KiB of shared memory. */
        .n_spec = 6,
        .spec_defaults = {16, 16, 1, 4, 4, 16},
    },
    /* A, B, C, bias, aux, aux2: SVK_KERNEL_GEMM's first six. A row of 16
     * invocations, each a 16x4 block of C (TM, TN): the fastest tile of
     * this form on lavapipe (docs/PERFORMANCE.md, "GEMM tiles on CPU
     * devices"). Then TRANS_A, TRANS_B, the subgroup size, EPI_FLAGS,
     * READ_C and VEC_C, set per call by lib/ops/gemm.c; the two forms
     * differ only in how they load A and B and store C
     * (shaders/gemm_cpu.comp). */
#define GEMM_CPU_ENTRY(kernel_name, spv)                                                                       \
    {                                                                                                          \
        .name = kernel_name, SPV(spv), .n_buffers = 6, .write_mask = 1u << 2 | 1u << 4 | 1u << 5,              \
        .push_size = sizeof(svk_push_gemm), .n_spec = 11, .spec_defaults = {16, 1, 1, 16, 4, 0, 0, 0, 0, 0},   \
    }
    [SVK_KERNEL_GEMM_CPU] = GEMM_CPU_ENTRY("gemm_cpu", svk_spv_gemm_cpu),
    [SVK_KERNEL_GEMM_CPU_S64] = GEMM_CPU_ENTRY("gemm_cpu_s64", svk_spv_gemm_cpu_s64),
#undef GEMM_CPU_ENTRY
    /* A (RGBA32F, R32F), B (RGBA32F, R32F), C, bias, aux, aux2, aux and C
     * again as RGBA32F views for the output loop's reads, sum_a. A row of
     * 32 invocations, each a 16x4 block of C (TM, TN), the default tile
     * (docs/PERFORMANCE.md); lib/ops/gemm.c takes 32 x 4 or 16 x 8 for
     * some products (texel_tile). Then TRANS_A, TRANS_B, VEC_A, VEC_B,
     * KTAIL, SG, VEC_C, EPI_FLAGS and READ_C, set per call by
     * lib/ops/gemm.c. The two forms differ only in how they store C
     * (shaders/gemm_texel.comp). */
#define GEMM_TEXEL_ENTRY(kernel_name, spv)                                                                     \
    {                                                                                                          \
        .name = kernel_name, SPV(spv), .n_buffers = 11, .write_mask = 1u << 4 | 1u << 6 | 1u << 7 | 1u << 10, \
        .binding_kind = {SVK_BIND_TEXEL_RGBA32F, SVK_BIND_TEXEL_R32F, SVK_BIND_TEXEL_RGBA32F,                  \
                         SVK_BIND_TEXEL_R32F, [8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F},     \
        .push_size = sizeof(svk_push_gemm), .n_spec = 14,                                                      \
        .spec_defaults = {32, 1, 1, 16, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0},                                         \
    }
    [SVK_KERNEL_GEMM_TEXEL] = GEMM_TEXEL_ENTRY("gemm_texel", svk_spv_gemm_texel),
    [SVK_KERNEL_GEMM_TEXEL_S64] = GEMM_TEXEL_ENTRY("gemm_texel_s64", svk_spv_gemm_texel_s64),
#undef GEMM_TEXEL_ENTRY
    [SVK_KERNEL_GEMM_COOPMAT] = {
        .name = "gemm_coopmat",
        SPV(svk_spv_gemm_coopmat),
        .spv_khr = svk_spv_gemm_coopmat_khr,
        .spv_khr_size = sizeof(svk_spv_gemm_coopmat_khr),
        .n_buffers = 6,      /* A, B, C, bias, aux, aux2: SVK_KERNEL_GEMM's first six */
        .write_mask = 1u << 2 | 1u << 4 | 1u << 5,
        .push_size = sizeof(svk_push_gemm),
        /* local_size_x = subgroup size x SGM x SGN and the fragment shape
         * (spec 3..5) are the device's, set by lib/ops/gemm.c; then 2 x 2
         * subgroups of FM x FN = 2 x 2 fragments (64 x 64 tiles of C at
         * 16 x 16 fragments; gemm.c takes 4 x 4 for large products), 2
         * fragments of k per stage, TRANS_A and TRANS_B (set per call). */
        .n_spec = 13,
        .spec_defaults = {128, 1, 1, 16, 16, 16, 2, 2, 2, 2, 2, 0, 0},
    },
    [SVK_KERNEL_COPY] = {
        .name = "copy",
        SPV(svk_spv_copy),
        .n_buffers = 2,      /* dst, src */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_copy),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_FMA_PEAK] = {
        .name = "fma_peak",
        SPV(svk_spv_fma_peak),
        .n_buffers = 1,      /* out */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_fma_peak),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    /* Row kernels of the norms: spec[0] invocations per row, spec[1] rows
     * per workgroup; lib/ops/norm_rows.c sizes them to the row. */
    [SVK_KERNEL_LAYERNORM_FWD] = {
        .name = "layernorm_fwd",
        SPV(svk_spv_layernorm_fwd),
        .n_buffers = 6,      /* x, g, b, out, mean, rstd */
        .write_mask = (1u << 3) | (1u << 4) | (1u << 5),
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_LAYERNORM_BWD] = {
        .name = "layernorm_bwd",
        SPV(svk_spv_layernorm_bwd),
        .n_buffers = 8,      /* dout, add, x, mean, rstd, g, dx, partials */
        .write_mask = (1u << 6) | (1u << 7),
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_RMSNORM_FWD] = {
        .name = "rmsnorm_fwd",
        SPV(svk_spv_rmsnorm_fwd),
        .n_buffers = 4,      /* x, g, out, rstd */
        .write_mask = (1u << 2) | (1u << 3),
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_RMSNORM_BWD] = {
        .name = "rmsnorm_bwd",
        SPV(svk_spv_rmsnorm_bwd),
        .n_buffers = 7,      /* dout, add, x, rstd, g, dx, partials */
        .write_mask = (1u << 5) | (1u << 6),
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_SIAMESE_NORM_FWD] = {
        .name = "siamese_norm_fwd",
        SPV(svk_spv_siamese_norm_fwd),
        .n_buffers = 8,      /* x, y, g, b, xn, h, mean, rstd */
        .write_mask = (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),
        .push_size = sizeof(svk_push_siamese_norm_fwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD] = {
        .name = "siamese_norm_bwd",
        SPV(svk_spv_siamese_norm_bwd),
        .n_buffers = 8,      /* dh, x, y, g, b, mean, rstd, scratch (du, partials) */
        .write_mask = 1u << 7,
        .push_size = sizeof(svk_push_siamese_norm_bwd),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_NORM_PARAM_REDUCE] = {
        .name = "norm_param_reduce",
        SPV(svk_spv_norm_param_reduce),
        .n_buffers = 3,      /* partials, dg, db */
        .write_mask = (1u << 1) | (1u << 2),
        .push_size = sizeof(svk_push_norm_param_reduce),
        .n_spec = 3,
        .spec_defaults = {128, 1, 1},
    },
    [SVK_KERNEL_RESIDUAL_FWD] = {
        .name = "residual_fwd",
        SPV(svk_spv_residual_fwd),
        .n_buffers = 3,      /* x, y (both updated in place), z */
        .write_mask = (1u << 0) | (1u << 1),
        .push_size = sizeof(svk_push_residual),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_RESIDUAL_BWD] = {
        .name = "residual_bwd",
        SPV(svk_spv_residual_bwd),
        .n_buffers = 3,      /* dx, dy, dz */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_residual),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    /* The norms' CPU forms (common/row_cpu.glsl): spec[0] rows (forward)
     * or lanes (backward) per workgroup, one invocation each; spec[3] VEC4
     * and spec[4] RC_FLAGS, set per call (svk_norm_row_dispatch). Bindings, write masks and push
     * constants are those of the portable kernel of the same name. */
    [SVK_KERNEL_LAYERNORM_FWD_CPU] = {
        .name = "layernorm_fwd_cpu",
        SPV(svk_spv_layernorm_fwd_cpu),
        .n_buffers = 6,      /* x, g, b, out, mean, rstd */
        .write_mask = (1u << 3) | (1u << 4) | (1u << 5),
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_LAYERNORM_BWD_CPU] = {
        .name = "layernorm_bwd_cpu",
        SPV(svk_spv_layernorm_bwd_cpu),
        .n_buffers = 8,      /* dout, add, x, mean, rstd, g, dx, partials */
        .write_mask = (1u << 6) | (1u << 7),
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_RMSNORM_FWD_CPU] = {
        .name = "rmsnorm_fwd_cpu",
        SPV(svk_spv_rmsnorm_fwd_cpu),
        .n_buffers = 4,      /* x, g, out, rstd */
        .write_mask = (1u << 2) | (1u << 3),
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_RMSNORM_BWD_CPU] = {
        .name = "rmsnorm_bwd_cpu",
        SPV(svk_spv_rmsnorm_bwd_cpu),
        .n_buffers = 7,      /* dout, add, x, rstd, g, dx, partials */
        .write_mask = (1u << 5) | (1u << 6),
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_FWD_CPU] = {
        .name = "siamese_norm_fwd_cpu",
        SPV(svk_spv_siamese_norm_fwd_cpu),
        .n_buffers = 8,      /* x, y, g, b, xn, h, mean, rstd */
        .write_mask = (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),
        .push_size = sizeof(svk_push_siamese_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD_CPU] = {
        .name = "siamese_norm_bwd_cpu",
        SPV(svk_spv_siamese_norm_bwd_cpu),
        .n_buffers = 8,      /* dh, x, y, g, b, mean, rstd, scratch */
        .write_mask = 1u << 7,
        .push_size = sizeof(svk_push_siamese_norm_bwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_CPU] = {
        .name = "siamese_norm_bwd_fused_cpu",
        SPV(svk_spv_siamese_norm_bwd_fused_cpu),
        .n_buffers = 13,     /* dh, dxn, dy_in, x, y, g, b, mean, rstd, dx, dy, scratch (partials), dz */
        .write_mask = (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12),
        .push_size = sizeof(svk_push_siamese_norm_bwd_fused),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD_FUSED] = {
        .name = "siamese_norm_bwd_fused",
        SPV(svk_spv_siamese_norm_bwd_fused),
        .n_buffers = 13,     /* as siamese_norm_bwd_fused_cpu */
        .write_mask = (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12),
        .push_size = sizeof(svk_push_siamese_norm_bwd_fused),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_SIAMESE_NORM_FWD_TEXEL] = {
        .name = "siamese_norm_fwd_texel",
        SPV(svk_spv_siamese_norm_fwd_texel),
        .n_buffers = 10,     /* as siamese_norm_fwd_cpu, then x and y as views */
        .write_mask = (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),
        .binding_kind = {[8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_siamese_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_FWD_SPLIT] = {
        .name = "siamese_norm_fwd_split",
        SPV(svk_spv_siamese_norm_fwd_split),
        .n_buffers = 10,     /* as siamese_norm_fwd_texel */
        .write_mask = (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),
        .binding_kind = {[8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_siamese_norm_fwd),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_TEXEL] = {
        .name = "siamese_norm_bwd_fused_texel",
        SPV(svk_spv_siamese_norm_bwd_fused_texel),
        .n_buffers = 18,     /* as siamese_norm_bwd_fused_cpu, then dh, dxn, dy_in, x and y as views */
        .write_mask = (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12),
        .binding_kind = {[13] = SVK_BIND_TEXEL_RGBA32F, [14] = SVK_BIND_TEXEL_RGBA32F, [15] = SVK_BIND_TEXEL_RGBA32F,
                         [16] = SVK_BIND_TEXEL_RGBA32F, [17] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_siamese_norm_bwd_fused),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_SPLIT] = {
        .name = "siamese_norm_bwd_fused_split",
        SPV(svk_spv_siamese_norm_bwd_fused_split),
        .n_buffers = 18,     /* as siamese_norm_bwd_fused_texel */
        .write_mask = (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12),
        .binding_kind = {[13] = SVK_BIND_TEXEL_RGBA32F, [14] = SVK_BIND_TEXEL_RGBA32F, [15] = SVK_BIND_TEXEL_RGBA32F,
                         [16] = SVK_BIND_TEXEL_RGBA32F, [17] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_siamese_norm_bwd_fused),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    [SVK_KERNEL_LAYERNORM_FWD_TEXEL] = {
        .name = "layernorm_fwd_texel",
        SPV(svk_spv_layernorm_fwd_texel),
        .n_buffers = 7,      /* as layernorm_fwd_cpu, then x as views */
        .write_mask = (1u << 3) | (1u << 4) | (1u << 5),
        .binding_kind = {[6] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_LAYERNORM_FWD_SPLIT] = {
        .name = "layernorm_fwd_split",
        SPV(svk_spv_layernorm_fwd_split),
        .n_buffers = 7,      /* as layernorm_fwd_texel */
        .write_mask = (1u << 3) | (1u << 4) | (1u << 5),
        .binding_kind = {[6] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    [SVK_KERNEL_LAYERNORM_BWD_TEXEL] = {
        .name = "layernorm_bwd_texel",
        SPV(svk_spv_layernorm_bwd_texel),
        .n_buffers = 11,      /* as layernorm_bwd_cpu, then dout, add and x as views */
        .write_mask = (1u << 6) | (1u << 7),
        .binding_kind = {[8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F, [10] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_LAYERNORM_BWD_SPLIT] = {
        .name = "layernorm_bwd_split",
        SPV(svk_spv_layernorm_bwd_split),
        .n_buffers = 11,     /* as layernorm_bwd_texel */
        .write_mask = (1u << 6) | (1u << 7),
        .binding_kind = {[8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F, [10] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    [SVK_KERNEL_RMSNORM_FWD_TEXEL] = {
        .name = "rmsnorm_fwd_texel",
        SPV(svk_spv_rmsnorm_fwd_texel),
        .n_buffers = 5,      /* as rmsnorm_fwd_cpu, then x as views */
        .write_mask = (1u << 2) | (1u << 3),
        .binding_kind = {[4] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_RMSNORM_FWD_SPLIT] = {
        .name = "rmsnorm_fwd_split",
        SPV(svk_spv_rmsnorm_fwd_split),
        .n_buffers = 5,      /* as rmsnorm_fwd_texel */
        .write_mask = (1u << 2) | (1u << 3),
        .binding_kind = {[4] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_fwd),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    [SVK_KERNEL_RMSNORM_BWD_TEXEL] = {
        .name = "rmsnorm_bwd_texel",
        SPV(svk_spv_rmsnorm_bwd_texel),
        .n_buffers = 10,      /* as rmsnorm_bwd_cpu, then dout, add and x as views */
        .write_mask = (1u << 5) | (1u << 6),
        .binding_kind = {[7] = SVK_BIND_TEXEL_RGBA32F, [8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 5,
        .spec_defaults = {16, 1, 1, 0, 0},
    },
    [SVK_KERNEL_RMSNORM_BWD_SPLIT] = {
        .name = "rmsnorm_bwd_split",
        SPV(svk_spv_rmsnorm_bwd_split),
        .n_buffers = 10,     /* as rmsnorm_bwd_texel */
        .write_mask = (1u << 5) | (1u << 6),
        .binding_kind = {[7] = SVK_BIND_TEXEL_RGBA32F, [8] = SVK_BIND_TEXEL_RGBA32F, [9] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_norm_bwd),
        .n_spec = 6,
        .spec_defaults = {16, 1, 1, 1, 0, 8},
    },
    /* @norm-rows@ */
    [SVK_KERNEL_ATTENTION_SOFTMAX_FWD] = {
        .name = "attention_softmax_fwd",
        SPV(svk_spv_attention_softmax_fwd),
        .n_buffers = 1,      /* scores in, probabilities out, in place */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_attention_softmax),
        /* One row per workgroup; lib/ops/attention.c sizes it to the row. */
        .n_spec = 3,
        .spec_defaults = {128, 1, 1},
    },
    [SVK_KERNEL_ATTENTION_SOFTMAX_BWD] = {
        .name = "attention_softmax_bwd",
        SPV(svk_spv_attention_softmax_bwd),
        .n_buffers = 2,      /* P (read), dP in / dS out in place */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_attention_softmax),
        .n_spec = 3,
        .spec_defaults = {128, 1, 1},
    },
    [SVK_KERNEL_ATTENTION_FLASH_FWD] = {
        .name = "attention_flash_fwd",
        SPV(svk_spv_attention_flash_fwd),
        .n_buffers = 3,      /* qkv, out, stats */
        .write_mask = 1u << 1 | 1u << 2,
        .push_size = sizeof(svk_push_attention_flash),
        /* 4 invocations per query row x 16 rows, key tiles of 16, head
         * width up to 128; lib/ops/attention.c picks per D and device. */
        .n_spec = 5,
        .spec_defaults = {4, 16, 1, 16, 128},
    },
    [SVK_KERNEL_ATTENTION_FLASH_BWD_DQ] = {
        .name = "attention_flash_bwd_dq",
        SPV(svk_spv_attention_flash_bwd_dq),
        .n_buffers = 6,      /* qkv, out, stats, dout, delta, dqkv */
        .write_mask = 1u << 4 | 1u << 5,
        .push_size = sizeof(svk_push_attention_flash),
        .n_spec = 5,         /* as the forward */
        .spec_defaults = {4, 16, 1, 16, 128},
    },
    [SVK_KERNEL_ATTENTION_FLASH_BWD_DKV] = {
        .name = "attention_flash_bwd_dkv",
        SPV(svk_spv_attention_flash_bwd_dkv),
        .n_buffers = 5,      /* qkv, stats, dout, delta, dqkv */
        .write_mask = 1u << 4,
        .push_size = sizeof(svk_push_attention_flash),
        /* 4 invocations per key row x 16 rows, query tiles of 16. */
        .n_spec = 5,
        .spec_defaults = {4, 16, 1, 16, 128},
    },
    [SVK_KERNEL_ROPE_FWD] = {
        .name = "rope_fwd",
        SPV(svk_spv_rope_fwd),
        .n_buffers = 1,      /* qkv, in place */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_rope),
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_ROPE_BWD] = {
        .name = "rope_bwd",
        SPV(svk_spv_rope_bwd),
        .n_buffers = 1,      /* dqkv, in place */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_rope),
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_ATTENTION_SOFTMAX_FWD_CPU] = {
        .name = "attention_softmax_fwd_cpu",
        SPV(svk_spv_attention_softmax_fwd_cpu),
        .n_buffers = 1,      /* as SVK_KERNEL_ATTENTION_SOFTMAX_FWD */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_attention_softmax),
        /* spec[0] rows per workgroup, one invocation each; spec[3] VEC4
         * (common/row_cpu.glsl); lib/ops/attention.c sets both. */
        .n_spec = 4,
        .spec_defaults = {16, 1, 1, 0},
    },
    [SVK_KERNEL_ATTENTION_SOFTMAX_BWD_CPU] = {
        .name = "attention_softmax_bwd_cpu",
        SPV(svk_spv_attention_softmax_bwd_cpu),
        .n_buffers = 2,      /* as SVK_KERNEL_ATTENTION_SOFTMAX_BWD */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_attention_softmax),
        .n_spec = 4,
        .spec_defaults = {16, 1, 1, 0},
    },
    [SVK_KERNEL_ATTENTION_SOFTMAX_FWD_TEXEL] = {
        .name = "attention_softmax_fwd_texel",
        SPV(svk_spv_attention_softmax_fwd_texel),
        .n_buffers = 2,      /* p, then p as a view */
        .write_mask = 1u << 0,
        .binding_kind = {[1] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_attention_softmax),
        .n_spec = 4,
        .spec_defaults = {16, 1, 1, 0},
    },
    [SVK_KERNEL_ATTENTION_SOFTMAX_BWD_TEXEL] = {
        .name = "attention_softmax_bwd_texel",
        SPV(svk_spv_attention_softmax_bwd_texel),
        .n_buffers = 4,      /* p, d, then both as views */
        .write_mask = 1u << 1,
        .binding_kind = {[2] = SVK_BIND_TEXEL_RGBA32F, [3] = SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_attention_softmax),
        .n_spec = 4,
        .spec_defaults = {16, 1, 1, 0},
    },
    /* @attention-rows@ */
    [SVK_KERNEL_GELU_FWD] = {
        .name = "gelu_fwd",
        SPV(svk_spv_gelu_fwd),
        .n_buffers = 2,      /* x, out */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_gelu),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_GELU_BWD] = {
        .name = "gelu_bwd",
        SPV(svk_spv_gelu_bwd),
        .n_buffers = 3,      /* x, dout, dx */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_gelu),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_SWIGLU_FWD] = {
        .name = "swiglu_fwd",
        SPV(svk_spv_swiglu_fwd),
        .n_buffers = 3,      /* gate, up, out */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_swiglu),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_SWIGLU_BWD] = {
        .name = "swiglu_bwd",
        SPV(svk_spv_swiglu_bwd),
        .n_buffers = 5,      /* gate, up, dout, dgate, dup */
        .write_mask = (1u << 3) | (1u << 4),
        .push_size = sizeof(svk_push_swiglu),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_BIAS_FWD] = {
        .name = "bias_fwd",
        SPV(svk_spv_bias_fwd),
        .n_buffers = 2,      /* bias, out (read and written) */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_bias),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_COLSUM] = {
        .name = "colsum",
        SPV(svk_spv_colsum),
        .n_buffers = 2,      /* src, dst (partials, or accumulated) */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_colsum),
        /* 64 columns (or vec4s of columns, VEC4) per workgroup; row
         * blocks in z. Then VEC4, set per call by lib/ops/colsum.c. */
        .n_spec = 4,
        .spec_defaults = {64, 1, 1, 0},
    },
    [SVK_KERNEL_COLSUM_TEXEL] = {
        .name = "colsum_texel",
        SPV(svk_spv_colsum_texel),
        .n_buffers = 2,      /* src, dst (partials, or accumulated) */
        .write_mask = 1u << 1,
        .binding_kind = {SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_colsum),
        /* 64 columns (or vec4s of columns, VEC4) per workgroup; row
         * blocks in z. Then VEC4, set per call by lib/ops/colsum.c. */
        .n_spec = 4,
        .spec_defaults = {64, 1, 1, 0},
    },
    [SVK_KERNEL_TRANSPOSE] = {
        .name = "transpose",
        SPV(svk_spv_transpose),
        .n_buffers = 2,      /* src, dst */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_transpose),
        /* 64 invocations per workgroup; then VEC4, set per call by
         * lib/ops/transpose.c. */
        .n_spec = 4,
        .spec_defaults = {64, 1, 1, 0},
    },
    [SVK_KERNEL_TRANSPOSE_TEXEL] = {
        .name = "transpose_texel",
        SPV(svk_spv_transpose_texel),
        .n_buffers = 2,      /* src (a view), dst */
        .write_mask = 1u << 1,
        .binding_kind = {SVK_BIND_TEXEL_RGBA32F},
        .push_size = sizeof(svk_push_transpose),
        /* 64 invocations per workgroup, a 4 x 4 block each. */
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_EMBEDDING_FWD] = {
        .name = "embedding_fwd",
        SPV(svk_spv_embedding_fwd),
        .n_buffers = 4,      /* tokens, wte, wpe, out */
        .write_mask = 1u << 3,
        .push_size = sizeof(svk_push_embedding),
        .n_spec = 4,         /* spec[3]: VEC4 */
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_EMBEDDING_BWD] = {
        .name = "embedding_bwd",
        SPV(svk_spv_embedding_bwd),
        .n_buffers = 3,      /* tokens, dout, dwte or dwpe (accumulated) */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_embedding),
        /* 64 columns (and 64 staged tokens) per workgroup. */
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_INDEX_CHECK] = {
        .name = "index_check",
        SPV(svk_spv_index_check),
        .n_buffers = 2,      /* idx, counts */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_index_check),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_CROSS_ENTROPY] = {
        .name = "cross_entropy",
        SPV(svk_spv_cross_entropy),
        .n_buffers = 5,      /* logits, targets, counts, dlogits, losses */
        .write_mask = (1u << 3) | (1u << 4),
        .push_size = sizeof(svk_push_cross_entropy),
        /* One workgroup per row. */
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_CROSS_ENTROPY_LOSS] = {
        .name = "cross_entropy_loss",
        SPV(svk_spv_cross_entropy_loss),
        .n_buffers = 3,      /* losses, counts, loss */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_cross_entropy),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_CLIP_SUMSQ] = {
        .name = "clip_sumsq",
        SPV(svk_spv_clip_sumsq),
        .n_buffers = 2,      /* x, partials */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_clip),
        /* 256 invocations x 16 elements: 4096 elements per partial slot;
         * 4: the CPU form's elements per slot (0: the portable form); 5: VEC4. */
        .n_spec = 6,
        .spec_defaults = {256, 1, 1, 16, 0, 0},
    },
    [SVK_KERNEL_CLIP_SCALE] = {
        .name = "clip_scale",
        SPV(svk_spv_clip_scale),
        .n_buffers = 4,      /* partials, out (norm, scale), loss scaler state, out_scale */
        .write_mask = (1u << 1) | (1u << 2) | (1u << 3),
        .push_size = sizeof(svk_push_clip),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_ADAMW] = {
        .name = "adamw",
        SPV(svk_spv_adamw),
        .n_buffers = 8,      /* p, g, m, v, scale, step, guard, prev */
        .write_mask = (1u << 0) | (1u << 2) | (1u << 3),
        .push_size = sizeof(svk_push_adamw),
        .n_spec = 4,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_CROSS_ENTROPY_CPU] = {
        .name = "cross_entropy_cpu",
        SPV(svk_spv_cross_entropy_cpu),
        .n_buffers = 5,      /* as SVK_KERNEL_CROSS_ENTROPY */
        .write_mask = (1u << 3) | (1u << 4),
        .push_size = sizeof(svk_push_cross_entropy),
        /* spec[0] rows per workgroup, one invocation each; spec[3] VEC4
         * (common/row_cpu.glsl); lib/ops/cross_entropy.c sets both. */
        .n_spec = 4,
        .spec_defaults = {16, 1, 1, 0},
    },
    [SVK_KERNEL_EMBEDDING_BWD_CPU] = {
        .name = "embedding_bwd_cpu",
        SPV(svk_spv_embedding_bwd_cpu),
        .n_buffers = 3,      /* as SVK_KERNEL_EMBEDDING_BWD */
        .write_mask = 1u << 2,
        .push_size = sizeof(svk_push_embedding),
        /* Four columns per invocation, 8 invocations (one SIMD batch at
         * lavapipe's default width) per workgroup: C = 128 makes 32 of
         * them, 4 workgroups for the device's threads. */
        .n_spec = 3,
        .spec_defaults = {8, 1, 1},
    },
    [SVK_KERNEL_FINITE_CHECK] = {
        .name = "finite_check",
        SPV(svk_spv_finite_check),
        .n_buffers = 2,      /* x, stats */
        .write_mask = 1u << 1,
        .push_size = sizeof(svk_push_finite_check),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_DECODE_EMBED] = {
        .name = "decode_embed",
        SPV(svk_spv_decode_embed),
        .n_buffers = 4,      /* step, wte, wpe, out */
        .write_mask = 1u << 3,
        .push_size = sizeof(svk_push_decode),
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_DECODE_ATTENTION] = {
        .name = "decode_attention",
        SPV(svk_spv_decode_attention),
        .n_buffers = 4,      /* step, qkv, cache, out */
        .write_mask = (1u << 2) | (1u << 3),
        .push_size = sizeof(svk_push_decode),
        /* One workgroup per head; a power of two (its tree reductions),
         * at most the shader's LMAX. */
        .n_spec = 3,
        .spec_defaults = {64, 1, 1},
    },
    [SVK_KERNEL_PACK16] = {
        .name = "pack16",
        SPV(svk_spv_pack16),
        .n_buffers = 3,      /* x (rounded in place), packed, scale */
        .write_mask = (1u << 0) | (1u << 1),
        .push_size = sizeof(svk_push_pack16),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    [SVK_KERNEL_UNPACK16] = {
        .name = "unpack16",
        SPV(svk_spv_unpack16),
        .n_buffers = 2,      /* x, packed */
        .write_mask = 1u << 0,
        .push_size = sizeof(svk_push_pack16),
        .n_spec = 3,
        .spec_defaults = {256, 1, 1},
    },
    /* @elementwise-rows@ */
};

const svk_kernel_info *svk_kernel_info_get(svk_kernel_id id)
{
    if ((unsigned)id >= SVK_KERNEL_COUNT)
        return NULL;
    return &kernels[id];
}
