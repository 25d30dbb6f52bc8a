/*
 * Split-K for the portable GEMM (shaders/gemm.comp) on GPUs: a product
 * whose C has too few tiles to fill the device but a long K (the weight
 * gradients X^T dY of a small model, C [C_in, C_out] over thousands of
 * tokens) runs as S batched partial products over K / S each, into scratch
 * [S, M, N], then a column sum of the S partials into C (colsum.comp): S
 * times the workgroups, each walking S times fewer k steps. The partials
 * are added in a fixed order, so the result is the same on every run.
 */
#ifndef SVK_OPS_GEMM_SPLIT_H
#define SVK_OPS_GEMM_SPLIT_H

#include "gemm.h"

/* How many parts g's K is cut into when its C is covered by tiles of
 * bm x bn (1: no split). Splits only a single dense product without bias or
 * epilogue, beta 0 or 1, C packed (ldc == N), into parts of at least 64 k
 * steps that divide K. Whether to split at all is the caller's (the
 * tuning's gemm_split=0 never does). */
uint32_t svk_gemm_split_count(const svk_gemm_args *g, uint64_t ldc, uint32_t bm, uint32_t bn);

/* Records g as `splits` partial products into g->scratch and their column
 * sum into C. lda and ldb are g's (resolved) leading dimensions. sums: g's
 * sum_a too, each partial product storing its row sums of op(A) after the
 * partials ([splits, M] from element splits M N of the scratch) and a
 * second column sum adding them to sum_a (the portable kernel; room:
 * svk_gemm_split_scratch_elems). */
svk_status svk_gemm_split_record(svk_cmdlist *cl, const svk_gemm_args *g, uint32_t splits, uint64_t lda,
                                 uint64_t ldb, bool sums);

/* Floats of scratch a split of g into `splits` parts uses (sums: as
 * svk_gemm_split_record's). */
uint64_t svk_gemm_split_scratch_elems(const svk_gemm_args *g, uint32_t splits, bool sums);

#endif
