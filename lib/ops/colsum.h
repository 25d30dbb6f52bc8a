/*
 * Column sums on the device (shaders/colsum.comp), accumulated:
 *   dst[c] += sum over r of src[r, c]  (or, with overwrite, dst[c] = ...),  src [rows, N] with leading dimension ld,
 * deterministic (no float atomics; a fixed order, the same bits on every
 * run). The gradient of any parameter broadcast over rows is one: a Linear's
 * bias (svk_bias_bwd_record), or a norm's gain from a [rows, C] product
 * computed beforehand.
 *
 * Two stages: the rows are cut into blocks of svk_colsum_rows_per_block(rows)
 * rows; the first dispatch writes each block's column sums to scratch
 * [blocks, N], the second adds the blocks in order and accumulates into dst.
 * When one block covers every row, a single dispatch accumulates directly
 * and no scratch is used.
 */
#ifndef SVK_OPS_COLSUM_H
#define SVK_OPS_COLSUM_H

#include <stdbool.h>

#include "ops.h"

typedef struct svk_colsum_args {
    uint64_t rows;      /* >= 1 */
    uint64_t N;         /* columns, >= 1 */
    uint64_t ld;        /* elements between rows of src, >= N; 0 means N */
    svk_tref src;       /* [rows, ld] (the last row needs only N elements) */
    svk_tref dst;       /* [N], accumulated (+=), or overwritten when overwrite is set;
                         * must not overlap src or scratch */
    svk_tref scratch;   /* [svk_colsum_scratch_elems(rows, N)] floats, clobbered;
                         * ignored (buf may be NULL) when that is 0 */
    const char *label;  /* names the dispatches in messages and timings; may be NULL */
    bool overwrite;     /* dst = the sums (never read), instead of += */
} svk_colsum_args;

/* Rows one first-stage block sums: 32, or more when rows > 32768, so that
 * the second stage never adds more than 1024 blocks per column. */
uint64_t svk_colsum_rows_per_block(uint64_t rows);
/* Floats of scratch svk_colsum_record needs: blocks * N, or 0 for one block. */
uint64_t svk_colsum_scratch_elems(uint64_t rows, uint64_t N);

svk_status svk_colsum_record(svk_cmdlist *cl, const svk_colsum_args *a);
/* The same, with messages naming the caller's op and operands instead of
 * colsum's src and dst (e.g. bias_bwd's dout and dbias). */
svk_status svk_colsum_record_named(svk_cmdlist *cl, const svk_colsum_args *a, const char *kernel,
                                   const char *src_name, const char *dst_name);

#endif
