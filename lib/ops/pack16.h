/*
 * Activations kept in 16 bits on the device (shaders/pack16.comp,
 * unpack16.comp; docs/MODEL.md, "Precision"): pack rounds a float tensor
 * in place to fp16 or bf16 values and writes their codes, two to a 32-bit
 * word; unpack gives the floats back. The CPU reference is
 * svk_ref_pack16 / svk_ref_unpack16 (lib/ref/pack16.c), bit for bit.
 */
#ifndef SVK_OPS_PACK16_H
#define SVK_OPS_PACK16_H

#include "ops.h"

/* The 32-bit words n 16-bit codes take. */
static inline uint64_t svk_pack16_words(uint64_t n)
{
    return (n + 1) / 2;
}

typedef struct svk_pack16_args {
    uint64_t n;         /* elements, >= 1 */
    uint32_t fmt;       /* SVK_FMT_FP16 or SVK_FMT_BF16 (shaders/common/push_pack16.h) */
    svk_tref x;         /* [n] floats; pack: rounded in place, unpack: written */
    svk_tref packed;    /* [svk_pack16_words(n)] words; pack with packed.buf NULL: x is only rounded */
    svk_tref scale;     /* pack: [1], x multiplied by it before rounding (the loss scale, a power of two);
                           buf NULL: x as it is */
    bool codes_only;    /* pack: x is left as it is, only the codes written (packed.buf must be set) */
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_pack16_args;

svk_status svk_pack16_record(svk_cmdlist *cl, const svk_pack16_args *a);
svk_status svk_unpack16_record(svk_cmdlist *cl, const svk_pack16_args *a);

#endif
