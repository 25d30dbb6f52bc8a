/*
 * The internal override of kernel choices. By default every variant and
 * tile follows from the device profile (device_profile.h) through the
 * policy code of lib/ops; a context's tuning steers it away from those
 * choices. Its user-facing part comes from the environment at context
 * creation (env.c: SVK_KERNEL_VARIANT, SVK_ATTENTION, SVK_GEMM_COOPMAT);
 * the comparison switches exist so that svk-bench and svk-conformance can
 * time or test the path a default does not take, and only they set them,
 * through svk_ctx_tuning_set (their --tune option, parsed by
 * svk_ctx_tuning_parse). Nothing here is public API.
 *
 * Recording reads the tuning current at that moment: a command list keeps
 * the choices it was recorded with, so a tool may change the tuning
 * between recordings.
 */
#ifndef SVK_VK_TUNING_H
#define SVK_VK_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "svk/context.h"

/* Which form of the row kernels (and GEMM) records (svk_kernel_variant,
 * lib/ops/ops.h): AUTO follows the profile (CPU forms on CPU devices). */
typedef enum svk_tune_variant {
    SVK_TUNE_VARIANT_AUTO = 0,
    SVK_TUNE_VARIANT_PORTABLE,
    SVK_TUNE_VARIANT_CPU,
} svk_tune_variant;

/* The training step's attention: AUTO is flash on GPUs, scores on CPU
 * devices (svk_attention_flash_preferred). */
typedef enum svk_tune_attention {
    SVK_TUNE_ATTENTION_AUTO = 0,
    SVK_TUNE_ATTENTION_FLASH,
    SVK_TUNE_ATTENTION_SCORES,
} svk_tune_attention;

/* Uniform texel buffers for the CPU forms (svk_op_texel_allowed): AUTO
 * where the driver fetches them fast (lib/vk/quirks.c); OFF never; ON also
 * on a driver whose fetches are slow (at subgroup size 8 only). */
typedef enum svk_tune_texel {
    SVK_TUNE_TEXEL_AUTO = 0,
    SVK_TUNE_TEXEL_OFF,
    SVK_TUNE_TEXEL_ON,
} svk_tune_texel;

/* Decisions a comparison can switch off (svk_ctx_tuning.off), each the
 * default's alternative that docs/PERFORMANCE.md measured against. */
enum {
    SVK_TUNE_OFF_VEC4 = 1u << 0,              /* elementwise kernels move vec4s */
    SVK_TUNE_OFF_TRANSFER_COPIES = 1u << 1,   /* fills and copies as transfer commands */
    SVK_TUNE_OFF_GEMM_SPLIT = 1u << 2,        /* the portable GEMM splits K (gemm_split.c) */
    SVK_TUNE_OFF_GEMM_PACK = 1u << 3,         /* the texel GEMM packs operands (gemm_pack.h) */
    SVK_TUNE_OFF_GEMM_WIDE = 1u << 4,         /* the texel GEMM's 16 x 8 tile */
    SVK_TUNE_OFF_GEMM_K8 = 1u << 5,           /* the texel GEMM's eight k steps per iteration */
    SVK_TUNE_OFF_GEMM_ROWS = 1u << 6,         /* the texel GEMM's two rows of blocks per subgroup */
    SVK_TUNE_OFF_GEMM_STORE64 = 1u << 7,      /* the CPU GEMMs' 64-bit views */
    SVK_TUNE_OFF_NORM_SPLIT = 1u << 8,        /* the norms' rows shared over a subgroup */
    SVK_TUNE_OFF_FUSED_SIAMESE_BWD = 1u << 9, /* SiameseNorm's backward as one kernel */
};

typedef struct svk_ctx_tuning {
    svk_tune_variant variant;     /* SVK_KERNEL_VARIANT; default AUTO */
    svk_tune_attention attention; /* SVK_ATTENTION; default AUTO */
    bool gemm_coopmat;            /* SVK_GEMM_COOPMAT=1: portable GEMMs on cooperative matrices */
    svk_tune_texel texel;         /* texel_buffers=0/1; default AUTO */
    uint32_t coopmat_frags;       /* coopmat_frags=1..4: fragments per subgroup; 0 (default) the policy's */
    uint32_t off;                 /* SVK_TUNE_OFF_* switched off; default 0 */
} svk_ctx_tuning;

/* Whether t switches the decision `bit` (SVK_TUNE_OFF_*) off. */
static inline bool svk_tune_off(const svk_ctx_tuning *t, uint32_t bit)
{
    return (t->off & bit) != 0;
}

/* The context's tuning, and its replacement (from the next recording on).
 * set refuses out-of-range values with SVK_ERROR_INVALID_ARG. */
const svk_ctx_tuning *svk_ctx_tuning_get(const svk_ctx *ctx);
svk_status svk_ctx_tuning_set(svk_ctx *ctx, const svk_ctx_tuning *t);

/* Applies "name=value[,name=value...]" to *t, the names being those of
 * the environment variables the switches used to be, lower case without
 * SVK_: kernel_variant=portable|cpu, attention=flash|scores,
 * gemm_coopmat=0|1, texel_buffers=0|1, coopmat_frags=1..4, and =0 for
 * vec4, transfer_copies, gemm_split, gemm_pack, gemm_wide, gemm_k8,
 * gemm_rows, gemm_store64, norm_split and fused_siamese_bwd (=1 gives the
 * default back). false with a message in why (why_size bytes) naming the
 * item it could not read. */
bool svk_ctx_tuning_parse(const char *text, svk_ctx_tuning *t, char *why, size_t why_size);

/* One line per name svk_ctx_tuning_parse accepts, for a tool's --help. */
extern const char svk_ctx_tuning_help[];

#endif
