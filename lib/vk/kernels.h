/*
 * The kernel registry: one table entry per compute shader, with everything
 * the pipeline builder and the dispatch helper need to know about it.
 *
 * Specialisation constants: ids 0, 1, 2 are always the workgroup size
 * (layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2));
 * ids from 3 on are the kernel's own (tile sizes and the like), described in
 * the shader.
 */
#ifndef SVK_VK_KERNELS_H
#define SVK_VK_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* Most kernels bind at most 8 buffers; SiameseNorm's fused backward binds
 * 13 storage buffers and is recorded only where the device allows that many
 * (svk_device_info.max_storage_buffers), and its texel form 5 views more. */
#define SVK_MAX_BINDINGS 18
#define SVK_MAX_SPEC 14

typedef enum svk_kernel_id {
    SVK_KERNEL_GEMM = 0,
    SVK_KERNEL_GEMM_CPU,      /* register-blocked GEMM for CPU devices (lavapipe), storage buffers */
    SVK_KERNEL_GEMM_CPU_S64,  /* the same loading and storing through 64-bit views (needs shaderInt64) */
    SVK_KERNEL_GEMM_TEXEL,    /* the same through uniform texel buffers (lavapipe's fast path) */
    SVK_KERNEL_GEMM_TEXEL_S64, /* the same storing C through 64-bit views (needs shaderInt64) */
    SVK_KERNEL_GEMM_COOPMAT,  /* cooperative matrices, float16 in, float32 accumulate (opt-in) */
    SVK_KERNEL_COPY,
    SVK_KERNEL_FMA_PEAK,      /* the benchmark's multiply-add rate (lib/ops/fma_peak.h) */
    SVK_KERNEL_LAYERNORM_FWD,
    SVK_KERNEL_LAYERNORM_BWD,
    SVK_KERNEL_RMSNORM_FWD,
    SVK_KERNEL_RMSNORM_BWD,
    SVK_KERNEL_SIAMESE_NORM_FWD,
    SVK_KERNEL_SIAMESE_NORM_BWD,
    SVK_KERNEL_NORM_PARAM_REDUCE,
    SVK_KERNEL_RESIDUAL_FWD,
    SVK_KERNEL_RESIDUAL_BWD,
    /* The norms' CPU forms (shaders/<name>_cpu.comp, lib/ops/norm_rows.h):
     * bindings and push constants as the portable kernel of the same name. */
    SVK_KERNEL_LAYERNORM_FWD_CPU,
    SVK_KERNEL_LAYERNORM_BWD_CPU,
    SVK_KERNEL_RMSNORM_FWD_CPU,
    SVK_KERNEL_RMSNORM_BWD_CPU,
    SVK_KERNEL_SIAMESE_NORM_FWD_CPU,
    SVK_KERNEL_SIAMESE_NORM_BWD_CPU,
    /* SiameseNorm's whole backward in one dispatch, a CPU form (13
     * bindings; lib/ops/siamese_norm.c) */
    SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_CPU,
    /* The same in the portable form (rows of invocations), for GPUs. */
    SVK_KERNEL_SIAMESE_NORM_BWD_FUSED,
    /* Texel forms of CPU forms: the same kernel with its row operands also
     * bound as RGBA32F views, after its storage bindings, and read through
     * them (lib/ops/norm_rows.c picks them where it can) */
    SVK_KERNEL_SIAMESE_NORM_FWD_TEXEL,
    SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_TEXEL,
    SVK_KERNEL_LAYERNORM_FWD_TEXEL,
    SVK_KERNEL_LAYERNORM_BWD_TEXEL,
    SVK_KERNEL_RMSNORM_FWD_TEXEL,
    SVK_KERNEL_RMSNORM_BWD_TEXEL,
    /* SiameseNorm's forward texel form with each group of rows shared by a
     * subgroup's lanes (needs subgroupAdd): wide rows on CPU devices */
    SVK_KERNEL_SIAMESE_NORM_FWD_SPLIT,
    /* and its fused backward so (each lane of partials a subgroup's) */
    SVK_KERNEL_SIAMESE_NORM_BWD_FUSED_SPLIT,
    /* LayerNorm's and RMSNorm's texel forms so */
    SVK_KERNEL_LAYERNORM_FWD_SPLIT,
    SVK_KERNEL_RMSNORM_FWD_SPLIT,
    SVK_KERNEL_LAYERNORM_BWD_SPLIT,
    SVK_KERNEL_RMSNORM_BWD_SPLIT,
    /* @norm-kernels@ */
    SVK_KERNEL_ATTENTION_SOFTMAX_FWD,
    SVK_KERNEL_ATTENTION_SOFTMAX_BWD,
    SVK_KERNEL_ATTENTION_FLASH_FWD,
    SVK_KERNEL_ATTENTION_FLASH_BWD_DQ,
    SVK_KERNEL_ATTENTION_FLASH_BWD_DKV,
    SVK_KERNEL_ROPE_FWD,
    SVK_KERNEL_ROPE_BWD,
    SVK_KERNEL_ATTENTION_SOFTMAX_FWD_CPU, /* the CPU forms (common/row_cpu.glsl) */
    SVK_KERNEL_ATTENTION_SOFTMAX_BWD_CPU,
    /* Their texel forms: the rows also bound as RGBA32F views, after the
     * storage bindings (lib/ops/attention.c picks them where it can). */
    SVK_KERNEL_ATTENTION_SOFTMAX_FWD_TEXEL,
    SVK_KERNEL_ATTENTION_SOFTMAX_BWD_TEXEL,
    /* @attention-kernels@ */
    SVK_KERNEL_GELU_FWD,
    SVK_KERNEL_GELU_BWD,
    SVK_KERNEL_SWIGLU_FWD,
    SVK_KERNEL_SWIGLU_BWD,
    SVK_KERNEL_BIAS_FWD,
    SVK_KERNEL_COLSUM,
    SVK_KERNEL_COLSUM_TEXEL,  /* colsum reading src through an RGBA32F view (CPU devices) */
    SVK_KERNEL_TRANSPOSE,
    SVK_KERNEL_TRANSPOSE_TEXEL,
    SVK_KERNEL_EMBEDDING_FWD,
    SVK_KERNEL_EMBEDDING_BWD,
    SVK_KERNEL_INDEX_CHECK,
    SVK_KERNEL_CROSS_ENTROPY,
    SVK_KERNEL_CROSS_ENTROPY_LOSS,
    SVK_KERNEL_CLIP_SUMSQ,
    SVK_KERNEL_CLIP_SCALE,
    SVK_KERNEL_ADAMW,
    SVK_KERNEL_CROSS_ENTROPY_CPU, /* the CPU form of SVK_KERNEL_CROSS_ENTROPY (common/row_cpu.glsl) */
    SVK_KERNEL_EMBEDDING_BWD_CPU, /* the CPU form of SVK_KERNEL_EMBEDDING_BWD: vec4 columns, no barriers */
    SVK_KERNEL_FINITE_CHECK,      /* NaN/Inf statistics of a tensor (saves, svk_model_find_nonfinite) */
    SVK_KERNEL_DECODE_EMBED,      /* generation with a key-value cache (lib/ops/decode.h) */
    SVK_KERNEL_DECODE_ATTENTION,
    SVK_KERNEL_PACK16,            /* activations kept in 16 bits (lib/ops/pack16.h) */
    SVK_KERNEL_UNPACK16,
    /* @elementwise-kernels@ */
    SVK_KERNEL_COUNT
} svk_kernel_id;

/* How a binding is declared in the shader, hence its descriptor type. */
typedef enum svk_binding_kind {
    SVK_BIND_STORAGE = 0,      /* a std430 buffer block: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER */
    /* A uniform textureBuffer read with texelFetch (lib/vk/texel.h):
     * VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER over a view of the whole buffer
     * in the given format. Read-only (never in write_mask). */
    SVK_BIND_TEXEL_R32F,
    SVK_BIND_TEXEL_RGBA32F,
} svk_binding_kind;

typedef struct svk_kernel_info {
    const char *name;          /* shaders/<name>.comp */
    const uint32_t *spv;
    size_t spv_size;           /* bytes */
    /* gemm_coopmat's module rewritten for VK_KHR_cooperative_matrix
     * (shaders/coopmat_khr.py), created instead of spv where the context
     * enabled that extension (svk_device_info.coopmat_khr); NULL elsewhere. */
    const uint32_t *spv_khr;
    size_t spv_khr_size;
    uint32_t n_buffers;        /* buffers at set 0, bindings 0..n-1 */
    uint32_t write_mask;       /* bit i: binding i is written */
    /* svk_binding_kind of each binding; all zero (the default): storage
     * buffers. A buffer may be bound at several bindings (e.g. as R32F and
     * as RGBA32F). */
    uint8_t binding_kind[SVK_MAX_BINDINGS];
    uint32_t push_size;        /* bytes of the push-constant block */
    uint32_t n_spec;           /* specialisation constants, ids 0..n_spec-1 */
    uint32_t spec_defaults[SVK_MAX_SPEC];
} svk_kernel_info;

/* The descriptor type of a binding of this kind. */
static inline VkDescriptorType svk_binding_descriptor_type(uint8_t kind)
{
    return kind == SVK_BIND_STORAGE ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
}

/* The entry of a kernel, or NULL for an id out of range. */
const svk_kernel_info *svk_kernel_info_get(svk_kernel_id id);

#endif
