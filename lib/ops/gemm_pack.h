/*
 * Packing of GEMM operands for gemm_texel.comp (the CPU texel form): an
 * operand read along k (A [M, K], B [N, K]) whose rows are a multiple of
 * about 1 KiB apart is first copied into scratch with a wider leading
 * dimension, and the product reads the copy.
 *
 * Why: a CPU's L1 data cache maps addresses 4 KiB apart to the same set
 * (64 sets of 64-byte lines on the x86 cores these devices run on, 8 to
 * 12 ways). Each k-loop iteration of gemm_texel.comp reads 16 rows of such
 * an A and, in NT, 32 rows of B (4 columns per lane, 8 lanes); at 2 or 4
 * KiB apart they fall in one or two sets, each line is evicted before the
 * next iteration reads the rest of it, and the product runs from L2. With
 * the rows one line further apart they spread over all sets: measured
 * far faster on lavapipe for rows 4 KiB apart; rows 1 KiB apart, and A's
 * 16 rows 2 KiB apart, within noise of unpacked.
 */
#ifndef SVK_OPS_GEMM_PACK_H
#define SVK_OPS_GEMM_PACK_H

#include <stdbool.h>
#include <stdint.h>
#include "gemm.h"
#include "vk/cmd.h"

typedef struct svk_gemm_pack {
    bool a, b;            /* which operands are packed */
    uint32_t lda, ldb;    /* their leading dimensions in scratch */
    uint64_t off_a, off_b; /* their offsets in scratch, from g->scratch.off */
    uint64_t elems;       /* scratch floats both take (0: nothing packed) */
} svk_gemm_pack;

/* What gemm_texel.comp should pack for g (one matrix: batch and outer 1),
 * given the rows of A and of B one k-loop iteration of a SIMD batch reads
 * (TM, and TN times the subgroup size), and the leading dimensions g has
 * (lda, ldb, the packed values where g says 0). */
/* Whether to pack at all is the caller's (the tuning's gemm_pack=0 never
 * does). */
void svk_gemm_pack_plan(const svk_gemm_args *g, uint64_t lda, uint64_t ldb, uint32_t rows_a, uint32_t rows_b,
                        svk_gemm_pack *out);

/* The leading dimension an operand read along k (K floats a row) is packed
 * to when an iteration reads `rows` of its rows: at least K, a multiple of
 * 4 (the vec4 fetches), one or two cache lines wider, whichever spreads
 * the rows over more L1 sets. */
uint32_t svk_gemm_pack_ld(uint32_t K, uint32_t rows);

/* Records the copies of p's operands into g's scratch (which must hold
 * p->elems floats from off_scratch and overlap none of A, B and C). */
svk_status svk_gemm_pack_record(svk_cmdlist *cl, const svk_gemm_args *g, uint64_t lda, uint64_t ldb,
                                const svk_gemm_pack *p);

#endif
