/* Which elements of which tensors each plan op reads and writes: the one
 * table svk_model_find_nonfinite checks a step against (lib/model/finite.c).
 * The extents follow the opcodes' definitions in plan.h and their device
 * operations in backend_vk.c. */
#include "plan.h"

typedef struct builder {
    const svk_plan *p;
    svk_plan_operand *out;
    uint32_t n;
} builder;

/* rows x cols elements of tensor t with stride ld (0: cols), from element
 * offset of it; nothing for an absent tensor. */
static void add(builder *b, uint32_t t, const char *role, bool read, bool written, uint64_t offset, uint64_t rows,
                uint64_t cols, uint64_t ld)
{
    if (t == SVK_NONE || rows == 0 || cols == 0 || b->n == SVK_PLAN_MAX_OPERANDS)
        return;
    b->out[b->n++] = (svk_plan_operand){
        .tensor = t, .role = role, .read = read, .written = written, .offset = offset,
        .rows = rows, .cols = cols, .ld = ld ? ld : cols,
    };
}

/* n dense elements from the start of t. */
static void dense(builder *b, uint32_t t, const char *role, bool read, bool written, uint64_t n)
{
    add(b, t, role, read, written, 0, 1, n, 0);
}

/* The whole of t: tensors the op owns outright (parameters, saved
 * statistics), whose extent the op's dims do not spell out. */
static void whole(builder *b, uint32_t t, const char *role, bool read, bool written)
{
    if (t != SVK_NONE)
        dense(b, t, role, read, written, b->p->tensors[t].elems);
}

#define IN true, false
#define OUT false, true
#define INOUT true, true

uint32_t svk_plan_op_operands(const svk_plan *p, const svk_plan_op *o, svk_plan_operand out[SVK_PLAN_MAX_OPERANDS])
{
    builder b = {p, out, 0};
    const uint32_t *t = o->t;
    const uint64_t *d = o->dims;
    switch (o->code) {
    case SVK_OP_ZERO:
        dense(&b, t[0], "out", OUT, d[0]);
        break;
    case SVK_OP_COPY:
        dense(&b, t[1], "src", IN, d[0]);
        dense(&b, t[0], "dst", OUT, d[0]);
        break;
    case SVK_OP_ADD:
        dense(&b, t[1], "src", IN, d[0]);
        dense(&b, t[0], "dst", INOUT, d[0]);
        break;
    case SVK_OP_EMBED_FWD: /* dims B, T, C, V; tokens t1 and the count t4 are integers */
        whole(&b, t[2], "wte", IN);
        dense(&b, t[3], "wpe", IN, d[1] * d[2]);
        dense(&b, t[0], "out", OUT, d[0] * d[1] * d[2]);
        break;
    case SVK_OP_EMBED_BWD:
        dense(&b, t[3], "dout", IN, d[0] * d[1] * d[2]);
        whole(&b, t[0], "dwte", INOUT);
        dense(&b, t[1], "dwpe", INOUT, d[1] * d[2]);
        break;
    case SVK_OP_NORM_FWD: /* dims rows, width */
        dense(&b, t[3], "x", IN, d[0] * d[1]);
        whole(&b, t[4], "g", IN);
        whole(&b, t[5], "b", IN);
        dense(&b, t[0], "out", OUT, d[0] * d[1]);
        whole(&b, t[1], "mean", OUT);
        whole(&b, t[2], "rstd", OUT);
        break;
    case SVK_OP_NORM_BWD:
        dense(&b, t[3], "dout", IN, d[0] * d[1]);
        dense(&b, t[4], "x", IN, d[0] * d[1]);
        whole(&b, t[5], "mean", IN);
        whole(&b, t[6], "rstd", IN);
        whole(&b, t[7], "g", IN);
        dense(&b, t[0], "dx", OUT, d[0] * d[1]);
        whole(&b, t[1], "dg", INOUT);
        whole(&b, t[2], "db", INOUT);
        break;
    case SVK_OP_SIAMESE_FWD: /* dims rows, C; g and b (and dg, db) are [3, C]: three norms' parameters */
        dense(&b, t[4], "x", IN, d[0] * d[1]);
        dense(&b, t[5], "y", IN, d[0] * d[1]);
        dense(&b, t[6], "g", IN, 3 * d[1]);
        dense(&b, t[7], "b", IN, 3 * d[1]);
        dense(&b, t[0], "xn", OUT, d[0] * d[1]);
        dense(&b, t[1], "h", OUT, d[0] * d[1]);
        whole(&b, t[2], "mean", OUT);
        whole(&b, t[3], "rstd", OUT);
        break;
    case SVK_OP_SIAMESE_BWD: /* t13 is scratch */
        dense(&b, t[4], "dh", IN, d[0] * d[1]);
        dense(&b, t[5], "dxn", IN, d[0] * d[1]);
        dense(&b, t[6], "dy_in", IN, d[0] * d[1]);
        dense(&b, t[7], "x", IN, d[0] * d[1]);
        dense(&b, t[8], "y", IN, d[0] * d[1]);
        whole(&b, t[9], "mean", IN);
        whole(&b, t[10], "rstd", IN);
        dense(&b, t[11], "g", IN, 3 * d[1]);
        dense(&b, t[12], "b", IN, 3 * d[1]);
        dense(&b, t[0], "dx", OUT, d[0] * d[1]);
        dense(&b, t[1], "dy", OUT, d[0] * d[1]);
        dense(&b, t[2], "dg", INOUT, 3 * d[1]);
        dense(&b, t[3], "db", INOUT, 3 * d[1]);
        dense(&b, t[14], "dz", OUT, d[0] * d[1]);
        break;
    case SVK_OP_SOUT_FWD: /* t7 is scratch */
        dense(&b, t[3], "x", IN, d[0] * d[1]);
        dense(&b, t[4], "y", IN, d[0] * d[1]);
        dense(&b, t[5], "g", IN, 3 * d[1]);
        dense(&b, t[6], "b", IN, 3 * d[1]);
        dense(&b, t[0], "out", OUT, d[0] * d[1]);
        whole(&b, t[1], "mean", OUT);
        whole(&b, t[2], "rstd", OUT);
        break;
    case SVK_OP_SOUT_BWD: /* t11 is scratch */
        dense(&b, t[4], "dout", IN, d[0] * d[1]);
        dense(&b, t[5], "x", IN, d[0] * d[1]);
        dense(&b, t[6], "y", IN, d[0] * d[1]);
        whole(&b, t[7], "mean", IN);
        whole(&b, t[8], "rstd", IN);
        dense(&b, t[9], "g", IN, 3 * d[1]);
        dense(&b, t[10], "b", IN, 3 * d[1]);
        dense(&b, t[0], "dx", OUT, d[0] * d[1]);
        dense(&b, t[1], "dy", OUT, d[0] * d[1]);
        dense(&b, t[2], "dg", INOUT, 3 * d[1]);
        dense(&b, t[3], "db", INOUT, 3 * d[1]);
        dense(&b, t[12], "dz", OUT, d[0] * d[1]);
        break;
    case SVK_OP_GEMM: { /* dims M, N, K; A [M, K] or, with TA, [K, M]; B [K, N] or, with TB, [N, K] */
        const uint64_t M = d[0], N = d[1], K = d[2];
        const bool ta = o->flags & SVK_FLAG_TA, tb = o->flags & SVK_FLAG_TB;
        add(&b, t[1], "A", IN, 0, ta ? K : M, ta ? M : K, o->ld[0]);
        add(&b, t[2], "B", IN, 0, tb ? N : K, tb ? K : N, o->ld[1]);
        dense(&b, t[3], "bias", IN, N);
        /* The epilogue's operands are laid out as C (plan.h). */
        if (o->flags & (SVK_FLAG_GELU_BWD | SVK_FLAG_RESIDUAL | SVK_FLAG_DUAL_RESIDUAL))
            add(&b, t[4], "aux", IN, 0, M, N, o->ld[2]);
        const bool c_read = o->f[1] != 0.0f || (o->flags & SVK_FLAG_DUAL_RESIDUAL);
        add(&b, t[0], "C", c_read, true, 0, M, N, o->ld[2]);
        if (o->flags & SVK_FLAG_GELU)
            add(&b, t[4], "gelu", OUT, 0, M, N, o->ld[2]);
        if (o->flags & SVK_FLAG_DUAL_RESIDUAL)
            add(&b, t[5], "aux2", OUT, 0, M, N, o->ld[2]);
        break;
    }
    case SVK_OP_ROPE_FWD:
    case SVK_OP_ROPE_BWD: /* dims B, T, C, H */
        dense(&b, t[0], "qkv", INOUT, d[0] * d[1] * 3 * d[2]);
        break;
    case SVK_OP_ATTN_FWD:
        dense(&b, t[2], "qkv", IN, d[0] * d[1] * 3 * d[2]);
        dense(&b, t[0], "out", OUT, d[0] * d[1] * d[2]);
        whole(&b, t[1], (o->flags & SVK_FLAG_FLASH) ? "stats" : "att", OUT);
        break;
    case SVK_OP_ATTN_BWD:
        dense(&b, t[1], "dout", IN, d[0] * d[1] * d[2]);
        dense(&b, t[2], "qkv", IN, d[0] * d[1] * 3 * d[2]);
        whole(&b, t[3], (o->flags & SVK_FLAG_FLASH) ? "stats" : "att", IN);
        if (o->flags & SVK_FLAG_FLASH)
            dense(&b, t[4], "out", IN, d[0] * d[1] * d[2]);
        dense(&b, t[0], "dqkv", OUT, d[0] * d[1] * 3 * d[2]);
        break;
    case SVK_OP_SWIGLU_FWD:
        dense(&b, t[1], "gate", IN, d[0]);
        dense(&b, t[2], "up", IN, d[0]);
        dense(&b, t[0], "out", OUT, d[0]);
        break;
    case SVK_OP_SWIGLU_BWD:
        dense(&b, t[2], "gate", IN, d[0]);
        dense(&b, t[3], "up", IN, d[0]);
        dense(&b, t[4], "dout", IN, d[0]);
        dense(&b, t[0], "dgate", OUT, d[0]);
        dense(&b, t[1], "dup", OUT, d[0]);
        break;
    case SVK_OP_BIAS_BWD: /* dims rows, N */
        add(&b, t[1], "dout", IN, 0, d[0], d[1], o->ld[0]);
        dense(&b, t[0], "dbias", INOUT, d[1]);
        break;
    case SVK_OP_XENT: /* dims rows, V; targets t3 are integers */
        dense(&b, t[2], "logits", IN, d[0] * d[1]);
        dense(&b, t[1], "dlogits", OUT, d[0] * d[1]);
        add(&b, t[0], "loss", OUT, SVK_OUT_LOSS, 1, 1, 0);
        break;
    case SVK_OP_CLIP:
        dense(&b, t[1], "gradients", IN, d[0]);
        add(&b, t[0], "gradient norm", OUT, SVK_OUT_GRAD_NORM, 1, 2, 0);
        break;
    case SVK_OP_ADAMW: /* t4's clip scale and guards are read too; not listed */
        dense(&b, t[1], "g", IN, d[0]);
        dense(&b, t[0], "p", INOUT, d[0]);
        dense(&b, t[2], "m", INOUT, d[0]);
        dense(&b, t[3], "v", INOUT, d[0]);
        break;
    case SVK_OP_TRANSPOSE: /* dims rows, cols of src */
        dense(&b, t[1], "src", IN, d[0] * d[1]);
        dense(&b, t[0], "dst", OUT, d[0] * d[1]);
        break;
    case SVK_OP_COUNT_:
        break;
    }
    return b.n;
}
