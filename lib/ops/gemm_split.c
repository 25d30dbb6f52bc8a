#include "gemm_split.h"

#include <stdlib.h>
#include <string.h>

#include "colsum.h"

/* Workgroups that keep a large GPU busy: an H200 has 132 multiprocessors,
 * and the dW products of a 128-wide model have 4 tiles of 64 x 64. */
#define FILL_GROUPS 128u
/* Fewer k steps per part than this and the partials' traffic (S M N floats
 * written and read) outweighs the parallelism gained. */
#define MIN_PART_K 64u
/* colsum.comp adds at most 32 rows in one dispatch. */
#define MAX_SPLITS 32u

uint32_t svk_gemm_split_count(const svk_gemm_args *g, uint64_t ldc, uint32_t bm, uint32_t bn)
{
    if ((g->shape.batch > 1) || (g->shape.outer > 1) || g->bias.buf || g->epi.kind != SVK_GEMM_EPILOGUE_NONE ||
        g->structure != SVK_GEMM_DENSE || (g->beta != 0.0f && g->beta != 1.0f) || ldc != g->shape.N)
        return 1;
    const uint64_t tiles = ((uint64_t)g->shape.M + bm - 1) / bm * (((uint64_t)g->shape.N + bn - 1) / bn);
    if (tiles >= FILL_GROUPS)
        return 1;
    uint64_t s = (FILL_GROUPS + tiles - 1) / tiles;
    if (s > g->shape.K / MIN_PART_K)
        s = g->shape.K / MIN_PART_K;
    if (s > MAX_SPLITS)
        s = MAX_SPLITS;
    /* Equal parts, so that one batched dispatch computes them all. */
    while (s > 1 && g->shape.K % s != 0)
        s--;
    /* The partials [S, M * N] must be addressable by colsum's 32-bit offsets. */
    if (s > 1 && s * g->shape.M * g->shape.N > UINT32_MAX)
        return 1;
    return (uint32_t)(s > 1 ? s : 1);
}

uint64_t svk_gemm_split_scratch_elems(const svk_gemm_args *g, uint32_t splits, bool sums)
{
    return (uint64_t)splits * g->shape.M * g->shape.N + (sums ? (uint64_t)splits * g->shape.M : 0);
}

svk_status svk_gemm_split_record(svk_cmdlist *cl, const svk_gemm_args *g, uint32_t splits, uint64_t lda,
                                 uint64_t ldb, bool sums)
{
    const uint32_t kp = g->shape.K / splits;
    const uint64_t mn = (uint64_t)g->shape.M * g->shape.N;
    /* Part s multiplies op(A)[:, s kp : (s + 1) kp] by op(B)[s kp : (s + 1) kp, :]:
     * along A's rows when it is stored transposed ([K, M]), else along its
     * columns; B the other way round. */
    svk_gemm_args part = *g;
    part.shape.K = kp;
    part.shape.batch = splits;
    part.shape.outer = 1;
    part.a.ld = (uint32_t)lda;
    part.b.ld = (uint32_t)ldb;
    part.c.ld = g->shape.N;
    part.a.stride = g->shape.trans_a ? (uint64_t)kp * lda : kp;
    part.b.stride = g->shape.trans_b ? kp : (uint64_t)kp * ldb;
    part.c.stride = mn;
    part.beta = 0.0f;
    part.c.buf = g->scratch.buf;
    part.c.off = g->scratch.off;
    part.scratch.buf = NULL;
    /* Without sums, sum_a is the caller's to record (before the split). */
    part.sum_a.buf = sums ? g->scratch.buf : NULL;
    const uint64_t off_sums = g->scratch.off + splits * mn; /* the partial row sums, after the partials */
    part.sum_a.off = off_sums;
    part.sum_a.per_matrix = sums;
    svk_status st = svk_gemm_record(cl, &part);
    if (st != SVK_OK)
        return st;
    if (sums) {
        /* Independent of C's sum below: no barrier between the two. */
        svk_colsum_args rs = {
            .rows = splits,
            .N = g->shape.M,
            .src = {g->scratch.buf, off_sums},
            .dst = {g->sum_a.buf, g->sum_a.off},
            .label = g->label,
        };
        if ((st = svk_colsum_record_named(cl, &rs, "gemm", "split-K row sums", "sum_a")) != SVK_OK)
            return st;
    }
    svk_colsum_args sum = {
        .rows = splits,
        .N = mn,
        .src = {g->scratch.buf, g->scratch.off},
        .dst = {g->c.buf, g->c.off},
        .label = g->label,
        .overwrite = g->beta == 0.0f,
    };
    return svk_colsum_record_named(cl, &sum, "gemm", "split-K partials", "C");
}
