/*
 * Command lists: the barriers derived from declared accesses (one where a
 * hazard exists, none where it does not), results through chained
 * dispatches, replay, timestamps, the dispatch checks, and a negative
 * control proving that the validation layer catches the hazards the
 * barriers prevent (so a clean validation run means something).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/push_gemm.h"
#include "ops/gemm.h"
#include "ops/ops.h"
#include "ops/transpose.h"
#include "ref.h"
#include "test_util.h"
#include "vk/vk_context.h"

#define DIM 24 /* square matrices: every GEMM here is DIM x DIM x DIM */
#define NN ((size_t)DIM * DIM)

static svk_buffer *make(svk_ctx *ctx, const char *name, size_t elems, const float *data)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = elems * sizeof(float);
    p.name = name;
    svk_buffer *b = NULL;
    if (svk_buffer_create(ctx, &p, &b) != SVK_OK)
        return NULL;
    if (data && svk_buffer_upload(b, 0, data, p.size) != SVK_OK)
        svk_buffer_destroy(&b);
    return b;
}

/* C[off_c..] = A[off_a..] * B[off_b..], DIM x DIM x DIM. */
static svk_status mm(svk_cmdlist *cl, svk_buffer *a, uint64_t off_a, svk_buffer *b, uint64_t off_b, svk_buffer *c,
                     uint64_t off_c)
{
    svk_gemm_args g = {.shape = {.M = DIM, .N = DIM, .K = DIM}, .alpha = 1.0f,
                       .a = {.buf = a, .off = off_a}, .b = {.buf = b, .off = off_b}, .c = {.buf = c, .off = off_c}};
    return svk_gemm_record(cl, &g);
}

static void ref_mm(const float *a, const float *b, double *c)
{
    double *da = malloc(NN * sizeof(double)), *db = malloc(NN * sizeof(double));
    for (size_t i = 0; i < NN; i++) {
        da[i] = a[i];
        db[i] = b[i];
    }
    svk_ref_gemm_f64(0, 0, DIM, DIM, DIM, 1.0, da, DIM, 0, db, DIM, 0, 0.0, c, DIM, 0, NULL, 1);
    free(da);
    free(db);
}

static uint32_t barriers_of(svk_cmdlist *cl)
{
    uint32_t b;
    svk_cmdlist_stats(cl, NULL, &b);
    return b;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_cmdlist", &args);
    tu_tally t = {0, 0};
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);
    float *ha = malloc(NN * sizeof(float)), *hb = malloc(NN * sizeof(float)), *out = malloc(2 * NN * sizeof(float));
    double *r1 = malloc(NN * sizeof(double)), *r2 = malloc(NN * sizeof(double));
    float *r1f = malloc(NN * sizeof(float));
    cf_fill_uniform(&rng, ha, NN, -1, 1);
    cf_fill_uniform(&rng, hb, NN, -1, 1);
    svk_buffer *a = make(ctx, "a", NN, ha), *b = make(ctx, "b", NN, hb);
    svk_buffer *x = make(ctx, "x", 2 * NN, NULL), *y = make(ctx, "y", 2 * NN, NULL), *w = make(ctx, "w", NN, NULL);
    svk_cmdlist *cl = NULL;
    svk_cmdlist_params cp = {.timestamp_capacity = 16};
    if (!a || !b || !x || !y || !w || svk_cmdlist_create(ctx, &cp, &cl) != SVK_OK) {
        tu_check(&t, false, "setup: %s", svk_last_error());
        goto out;
    }

    /* 1. Independent dispatches (shared inputs, separate outputs): none. */
    svk_cmdlist_begin(cl);
    mm(cl, a, 0, b, 0, x, 0);
    mm(cl, a, 0, b, 0, y, 0);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 0, "independent dispatches: %u barriers (want 0)", barriers_of(cl));
    /* Disjoint halves of one buffer: the descriptor exposes all of it, so
     * they are ordered (what synchronisation validation expects). */
    svk_cmdlist_begin(cl);
    mm(cl, a, 0, b, 0, x, 0);
    mm(cl, b, 0, a, 0, x, NN);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 1, "two writes into one buffer: %u barriers (want 1)", barriers_of(cl));

    /* 2. Read-after-write: x = a b; y = x b. */
    svk_cmdlist_begin(cl);
    mm(cl, a, 0, b, 0, x, 0);
    mm(cl, x, 0, b, 0, y, 0);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 1, "read-after-write: %u barriers (want 1)", barriers_of(cl));
    svk_status st = svk_cmdlist_submit(cl);
    if (st == SVK_OK)
        st = svk_cmdlist_wait(cl);
    if (st == SVK_OK)
        st = svk_buffer_download(y, 0, out, NN * sizeof(float));
    ref_mm(ha, hb, r1);
    for (size_t i = 0; i < NN; i++)
        r1f[i] = (float)r1[i]; /* what the device saw as x */
    {
        double *dx = malloc(NN * sizeof(double)), *db = malloc(NN * sizeof(double));
        for (size_t i = 0; i < NN; i++) {
            dx[i] = r1f[i];
            db[i] = hb[i];
        }
        svk_ref_gemm_f64(0, 0, DIM, DIM, DIM, 1.0, dx, DIM, 0, db, DIM, 0, 0.0, r2, DIM, 0, NULL, 1);
        free(dx);
        free(db);
    }
    double err = st == SVK_OK ? cf_rel_error(out, r2, NN) : INFINITY;
    tu_check(&t, err < 1e-5, "chained result (a b) b: rel err %.3e %s", err, st == SVK_OK ? "" : svk_last_error());

    /* Timestamps of that submission: one per dispatch, non-negative. */
    double ns[16];
    const char *labels[16];
    uint32_t count = 16;
    st = svk_cmdlist_timings(cl, ns, labels, NULL, &count);
    tu_check(&t, st == SVK_OK && count == 2 && ns[0] >= 0 && ns[1] >= 0, "timestamps: %u dispatches timed (%.0f ns, %.0f ns)",
             count, count > 0 ? ns[0] : -1.0, count > 1 ? ns[1] : -1.0);

    /* 3. Write-after-read: y = x b; x = a b (x read, then written). */
    svk_cmdlist_begin(cl);
    mm(cl, x, 0, b, 0, y, 0);
    mm(cl, a, 0, b, 0, x, 0);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 1, "write-after-read: %u barriers (want 1)", barriers_of(cl));

    /* 4. Write-after-write: x = a b twice. */
    svk_cmdlist_begin(cl);
    mm(cl, a, 0, b, 0, x, 0);
    mm(cl, b, 0, a, 0, x, 0);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 1, "write-after-write: %u barriers (want 1)", barriers_of(cl));

    /* 5. A barrier orders everything before it: x = a b; y = x b (barrier);
     *    w = x a reads x again: no second barrier. */
    svk_cmdlist_begin(cl);
    mm(cl, a, 0, b, 0, x, 0);
    mm(cl, x, 0, b, 0, y, 0);
    mm(cl, x, 0, a, 0, w, 0);
    svk_cmdlist_end(cl);
    tu_check(&t, barriers_of(cl) == 1, "one barrier serves later readers: %u barriers (want 1)", barriers_of(cl));

    /* 6. Replay many times: the same list, resubmitted, same results. */
    int same = 1;
    for (int i = 0; i < 5 && same; i++) {
        float *o2 = malloc(NN * sizeof(float));
        st = svk_cmdlist_submit(cl);
        if (st == SVK_OK)
            st = svk_buffer_download(y, 0, o2, NN * sizeof(float));
        same = st == SVK_OK && !memcmp(o2, out, NN * sizeof(float));
        free(o2);
    }
    tu_check(&t, same, "5 replays give the first submission's result bit for bit");

    /* 6b. The CPU texel GEMM runs a long K with A [M, K] as dispatches
     *     over chunks of K, the sums kept in C: 4 at K = 4100 (the last
     *     takes the 1028 steps left), each after a barrier; a product
     *     that reads C (beta) stays one. Results: the conformance rows. */
    {
        const uint32_t KL = 4100;
        svk_buffer *la = make(ctx, "long a", 4 * KL, NULL), *lc = make(ctx, "long c", 16, NULL);
        svk_gemm_args lg = {.shape = {.trans_b = true, .M = 4, .N = 4, .K = KL}, .alpha = 1, .a.buf = la, .b.buf = la,
                            .c.buf = lc, .variant = SVK_GEMM_VARIANT_CPU};
        svk_kernel_id kid = SVK_KERNEL_GEMM;
        if (la && lc && svk_gemm_kernel(&lg, &kid) == SVK_OK && svk_gemm_kernel_is_texel(kid)) {
            uint32_t nd[2], nb[2];
            for (int i = 0; i < 2; i++) {
                lg.beta = (float)i;
                svk_cmdlist_begin(cl);
                st = svk_gemm_record(cl, &lg);
                svk_cmdlist_end(cl);
                svk_cmdlist_stats(cl, &nd[i], &nb[i]);
                tu_check(&t, st == SVK_OK, "long-K GEMM (beta %d) recorded: %s", i, svk_status_string(st));
            }
            tu_check(&t, nd[0] == 4 && nb[0] == 3, "K = 4100 in chunks: %u dispatches, %u barriers (want 4, 3)",
                     nd[0], nb[0]);
            tu_check(&t, nd[1] == 1, "K = 4100 with beta 1 in one dispatch: %u (want 1)", nd[1]);
            /* B [64, 1024] of an NT product, its rows 4 KiB apart: with
             * scratch, copied there with a wider leading dimension first
             * (ops/gemm_pack.h), then the product reads the copy. */
            svk_buffer *pb = make(ctx, "pack b", 64 * 1024, NULL), *pc = make(ctx, "pack c", 4 * 64, NULL);
            svk_gemm_args pg = {.shape = {.trans_b = true, .M = 4, .N = 64, .K = 1024}, .alpha = 1, .a.buf = la,
                                .b.buf = pb, .c.buf = pc, .variant = SVK_GEMM_VARIANT_CPU};
            const uint64_t need = svk_gemm_pack_scratch_elems(ctx, &pg);
            svk_buffer *ls = need ? make(ctx, "pack scratch", need, NULL) : NULL;
            pg.scratch.buf = ls;
            pg.scratch.elems = need;
            svk_cmdlist_begin(cl);
            st = pb && pc && ls ? svk_gemm_record(cl, &pg) : SVK_ERROR_INVALID_ARG;
            svk_cmdlist_end(cl);
            svk_cmdlist_stats(cl, &nd[0], &nb[0]);
            tu_check(&t, st == SVK_OK && need >= 64 * 1024 && nd[0] == 2 && nb[0] == 1,
                     "NT with B's rows 4 KiB apart packs B: %s, %llu floats of scratch, %u commands, %u barriers "
                     "(want >= 65536, 2, 1)",
                     svk_status_string(st), (unsigned long long)need, nd[0], nb[0]);
            svk_buffer_destroy(&pb);
            svk_buffer_destroy(&pc);
            svk_buffer_destroy(&ls);
        } else {
            printf("note: the CPU texel GEMM is not this device's (kernel '%s'): K chunks not checked\n",
                   svk_kernel_info_get(kid)->name);
        }
        svk_buffer_destroy(&la);
        svk_buffer_destroy(&lc);
    }

    /* 7. The dispatch checks refuse instead of recording something invalid. */
    svk_cmdlist_begin(cl);
    svk_gemm_args bad = {.shape = {.M = DIM, .N = DIM, .K = DIM}, .alpha = 1, .a = {.buf = a, .ld = DIM - 1},
                         .b.buf = b, .c.buf = x};
    st = svk_gemm_record(cl, &bad);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "lda < K refused: %s (%s)", svk_status_string(st), svk_ctx_last_error(ctx));
    bad = (svk_gemm_args){.shape = {.M = DIM, .N = DIM, .K = DIM}, .alpha = 1, .a.buf = a, .b.buf = b,
                          .c = {.buf = x, .off = 2 * NN}};
    st = svk_gemm_record(cl, &bad);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "output past the buffer refused: %s (%s)", svk_status_string(st),
             svk_ctx_last_error(ctx));
    bad = (svk_gemm_args){.shape = {.M = 1, .N = 1, .K = 1, .batch = 70000}, .alpha = 1, .a.buf = a, .b.buf = b,
                          .c.buf = x};
    /* batch 70000 of 1x1 outputs: the group count z exceeds lavapipe's 65535 (and most GPUs'). */
    svk_buffer *big = make(ctx, "big", 70000, NULL);
    bad.a.buf = bad.b.buf = bad.c.buf = big;
    st = big ? svk_gemm_record(cl, &bad) : SVK_ERROR_OUT_OF_DEVICE_MEMORY;
    tu_check(&t, st == SVK_ERROR_TOO_LARGE, "group count over the device limit refused: %s (%s)", svk_status_string(st),
             svk_ctx_last_error(ctx));
    /* sum_a (a Linear's bias gradient in its weight-gradient GEMM) only
     * with op(A) transposed, and never overlapping an operand. */
    bad = (svk_gemm_args){.shape = {.M = DIM, .N = DIM, .K = DIM}, .alpha = 1, .a.buf = a, .b.buf = b, .c.buf = x,
                          .sum_a.buf = y};
    st = svk_gemm_record(cl, &bad);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && strstr(svk_ctx_last_error(ctx), "sum_a needs trans_a"),
             "sum_a without trans_a refused: %s (%s)", svk_status_string(st), svk_ctx_last_error(ctx));
    bad = (svk_gemm_args){.shape = {.trans_a = true, .M = DIM, .N = DIM, .K = DIM}, .alpha = 1, .a.buf = a, .b.buf = b,
                          .c.buf = x, .sum_a = {.buf = x, .off = 1}};
    st = svk_gemm_record(cl, &bad);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && strstr(svk_ctx_last_error(ctx), "overlaps"),
             "sum_a overlapping C refused: %s (%s)", svk_status_string(st), svk_ctx_last_error(ctx));
    /* A transpose's leading dimension below its width, and dst over src. */
    svk_transpose_args ta = {.rows = DIM, .cols = DIM, .ld = DIM - 1, .src = {a, 0}, .dst = {x, 0}};
    st = svk_transpose_record(cl, &ta);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && strstr(svk_ctx_last_error(ctx), "ld="),
             "transpose with ld < cols refused: %s (%s)", svk_status_string(st), svk_ctx_last_error(ctx));
    ta = (svk_transpose_args){.rows = 2, .cols = DIM, .src = {a, 0}, .dst = {a, DIM}};
    st = svk_transpose_record(cl, &ta);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG && strstr(svk_ctx_last_error(ctx), "overlaps"),
             "transpose onto its own source refused: %s (%s)", svk_status_string(st), svk_ctx_last_error(ctx));
    svk_dispatch d = {.kernel = SVK_KERNEL_GEMM, .n_bindings = 3, .groups = {1, 1, 1}};
    st = svk_cmdlist_dispatch(cl, &d);
    tu_check(&t, st == SVK_ERROR_INTERNAL, "wrong buffer count refused: %s (%s)", svk_status_string(st),
             svk_ctx_last_error(ctx));
    /* A texel binding whose buffer cannot be viewed (here as if it held
     * more than maxTexelBufferElements) is refused, not bound. */
    svk_push_gemm pg = {.M = 1, .N = 1, .K = 1, .batch = 1};
    svk_dispatch td = {.kernel = SVK_KERNEL_GEMM_TEXEL, .n_bindings = 11, .push = &pg, .push_size = sizeof(pg),
                       .groups = {1, 1, 1},
                       .bindings = {{a, 0, 0}, {a, 0, 0}, {b, 0, 0}, {b, 0, 0}, {x, 0, 0}, {a, 0, 0}, {x, 0, 0},
                                    {x, 0, 0}, {a, 0, 0}, {a, 0, 0}, {x, 0, 0}}};
    const uint32_t max_texels = ctx->profile.texel.max_elements;
    ctx->profile.texel.max_elements = 0;
    st = svk_cmdlist_dispatch(cl, &td);
    ctx->profile.texel.max_elements = max_texels;
    tu_check(&t, st == SVK_ERROR_UNSUPPORTED && strstr(svk_ctx_last_error(ctx), "maxTexelBufferElements"),
             "texel binding beyond maxTexelBufferElements refused: %s (%s)", svk_status_string(st),
             svk_ctx_last_error(ctx));
    /* On a driver whose texel fetches are slow (lib/vk/quirks.c) the ops
     * record the storage forms; the tuning's texel_buffers=1 brings the
     * texel forms back at subgroup size 8 only, =0 removes them anywhere. */
    {
        const svk_ctx_tuning saved = *svk_ctx_tuning_get(ctx);
        svk_ctx_tuning tu = saved;
        const bool slow = ctx->profile.texel.slow_fetch;
        ctx->profile.texel.slow_fetch = true;
        tu.texel = SVK_TUNE_TEXEL_AUTO;
        svk_ctx_tuning_set(ctx, &tu);
        const bool unset_slow = svk_op_texel_allowed(ctx);
        tu.texel = SVK_TUNE_TEXEL_ON;
        svk_ctx_tuning_set(ctx, &tu);
        const bool forced_slow = svk_op_texel_allowed(ctx);
        ctx->profile.texel.slow_fetch = false;
        const bool forced_fast = svk_op_texel_allowed(ctx);
        tu.texel = SVK_TUNE_TEXEL_OFF;
        svk_ctx_tuning_set(ctx, &tu);
        const bool off_fast = svk_op_texel_allowed(ctx);
        tu.texel = SVK_TUNE_TEXEL_AUTO;
        svk_ctx_tuning_set(ctx, &tu);
        const bool unset_fast = svk_op_texel_allowed(ctx);
        ctx->profile.texel.slow_fetch = slow;
        svk_ctx_tuning_set(ctx, &saved);
        const bool sg8 = ctx->info.subgroup_size == 8;
        tu_check(&t, !unset_slow && forced_slow == sg8 && forced_fast && !off_fast && unset_fast,
                 "texel forms: slow driver %d, forced there %d (subgroup %u), fast driver %d, forced %d, "
                 "off %d", unset_slow, forced_slow, ctx->info.subgroup_size, unset_fast, forced_fast, off_fast);
    }
    svk_cmdlist_end(cl);
    svk_buffer_destroy(&big);
    uint32_t nd;
    svk_cmdlist_stats(cl, &nd, NULL);
    tu_check(&t, nd == 0, "nothing recorded by refused dispatches (%u dispatches)", nd);

    /* 8. Negative control: the same RAW chain with barriers suppressed must
     *    make synchronisation validation complain. */
    if (svk_ctx_validation_enabled(ctx)) {
        svk_cmdlist *raw = NULL;
        svk_cmdlist_params up = {.unsafe_no_barriers = true};
        int before = tu_validation_messages();
        if (svk_cmdlist_create(ctx, &up, &raw) == SVK_OK) {
            svk_cmdlist_begin(raw);
            mm(raw, a, 0, b, 0, x, 0);
            mm(raw, x, 0, b, 0, y, 0);
            svk_cmdlist_end(raw);
            svk_cmdlist_submit(raw);
            svk_cmdlist_wait(raw);
        }
        svk_cmdlist_destroy(&raw);
        int provoked = tu_validation_messages() - before;
        printf("     (the %d message(s) above were provoked on purpose)\n", provoked);
        tu_check(&t, provoked > 0, "validation catches a missing barrier (%d message(s))", provoked);
        tu_validation_forgive(provoked);
    }

out:
    svk_cmdlist_destroy(&cl);
    svk_buffer_destroy(&a);
    svk_buffer_destroy(&b);
    svk_buffer_destroy(&x);
    svk_buffer_destroy(&y);
    svk_buffer_destroy(&w);
    free(ha); free(hb); free(out); free(r1); free(r2); free(r1f);
    tu_ctx_finish(&ctx, &t);
    return tu_finish(&t);
}
