/* Packing of gemm_texel.comp's operands into scratch: gemm_pack.h says why. */
#include "gemm_pack.h"
#include "ops.h"

/* The L1 data cache these rules assume: sets of 64-byte lines, addresses
 * 4 KiB apart in the same set, and the rows per set past which an
 * iteration's lines evict each other (the smallest associativity of the
 * x86 cores measured: 8). */
#define L1_LINE 64u
#define L1_SETS 64u
#define L1_WAYS 8u

/* The most lines that `rows` rows ld floats apart need in one L1 set
 * (their first lines; rows that share a line count once). */
static uint32_t rows_per_set(uint32_t rows, uint64_t ld)
{
    uint32_t count[L1_SETS] = {0}, most = 0;
    uint64_t last = UINT64_MAX;
    for (uint32_t r = 0; r < rows; r++) {
        const uint64_t line = r * ld * 4 / L1_LINE;
        if (line == last)
            continue;
        last = line;
        const uint32_t set = (uint32_t)(line % L1_SETS);
        if (++count[set] > most)
            most = count[set];
    }
    return most;
}

/* K rounded up to 4, then one or two lines more: whichever puts fewer of
 * the rows in one set. */
uint32_t svk_gemm_pack_ld(uint32_t K, uint32_t rows)
{
    const uint32_t k4 = (K + 3u) & ~3u;
    const uint32_t one = k4 + L1_LINE / 4, two = k4 + 2 * L1_LINE / 4;
    return rows_per_set(rows, two) < rows_per_set(rows, one) ? two : one;
}

void svk_gemm_pack_plan(const svk_gemm_args *g, uint64_t lda, uint64_t ldb, uint32_t rows_a, uint32_t rows_b,
                        svk_gemm_pack *out)
{
    *out = (svk_gemm_pack){0};
    if ((g->shape.batch > 1) || (g->shape.outer > 1))
        return;
    /* The rows an iteration reads: no more than the operand has. */
    const uint32_t ra = rows_a < g->shape.M ? rows_a : g->shape.M, rb = rows_b < g->shape.N ? rows_b : g->shape.N;
    out->a = !g->shape.trans_a && rows_per_set(ra, lda) > L1_WAYS;
    out->b = g->shape.trans_b && rows_per_set(rb, ldb) > L1_WAYS;
    if (out->a) {
        out->lda = svk_gemm_pack_ld(g->shape.K, ra);
        out->elems = (uint64_t)g->shape.M * out->lda;
    }
    if (out->b) {
        out->ldb = svk_gemm_pack_ld(g->shape.K, rb);
        out->off_b = out->elems;
        out->elems += (uint64_t)g->shape.N * out->ldb;
    }
}

static svk_status copy_rows(svk_cmdlist *cl, svk_buffer *src, uint64_t off, uint64_t ld, uint32_t rows,
                            const svk_gemm_args *g, uint64_t dst_off, uint32_t dst_ld, const char *label)
{
    const uint64_t row_bytes = (uint64_t)g->shape.K * 4;
    const svk_transfer t = {
        .kind = SVK_TRANSFER_COPY,
        .src = {src, off * 4, (rows - 1) * ld * 4 + row_bytes},
        .dst = {g->scratch.buf, (g->scratch.off + dst_off) * 4, (rows - 1) * (uint64_t)dst_ld * 4 + row_bytes},
        .rows = rows,
        .row_bytes = row_bytes,
        .src_pitch = ld * 4,
        .dst_pitch = (uint64_t)dst_ld * 4,
        .label = label,
    };
    return svk_cmdlist_transfer(cl, &t);
}

svk_status svk_gemm_pack_record(svk_cmdlist *cl, const svk_gemm_args *g, uint64_t lda, uint64_t ldb,
                                const svk_gemm_pack *p)
{
    svk_status st = SVK_OK;
    const char *label = g->label ? g->label : "gemm";
    if (p->a)
        st = copy_rows(cl, g->a.buf, g->a.off, lda, g->shape.M, g, p->off_a, p->lda, label);
    if (st == SVK_OK && p->b)
        st = copy_rows(cl, g->b.buf, g->b.off, ldb, g->shape.N, g, p->off_b, p->ldb, label);
    return st;
}
