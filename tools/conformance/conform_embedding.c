/*
 * Token + position embedding (shaders/embedding_*.comp, index_check.comp;
 * lib/ref/embedding.c): V = 2, 256 and 32768, T = 1, with and without wpe
 * (pos = learned / rope), backward with heavily repeated tokens (the
 * scatter-add must serialise them in order without atomics), and invalid
 * tokens (-1, -2^31, V, 2^31 - 1) that must neither be read nor written
 * through, but counted. The backward pass runs with the device's choice of
 * vocabulary slices and with forced ones, so that both the one-slice path
 * (CPU devices) and the sliced one (GPUs) are covered everywhere; and the
 * device's choice once in each kernel variant (the tuning's variant): "bwd"
 * the portable form, "bwd-cpu" the CPU form (shaders/embedding_bwd_cpu.comp,
 * where C and the offsets are multiples of 4; the portable form otherwise).
 * Rows "parts" take the table in parts of rows (row0, rows), as a
 * vocabulary past one storage binding goes (lib/model/plan_vk.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "conform_elem.h"
#include "ops/copy.h"
#include "ops/embedding.h"

/* Forward: one correctly rounded addition per element (a copy without
 * wpe): within 2^-24 relative of the double sum. */
static const double TOL_EMB_FWD = 1e-7;
/* Backward: each gradient element is its initial value plus the
 * contributions of every position with that token (or that t), added in
 * order in float: up to B*T terms for a token repeated everywhere, error
 * about 2^-24 sqrt(terms) relative to the sum of |terms| (random signs); the
 * device result is moreover required to equal the float reference bit for
 * bit (same additions, same order). 1e-5 covers 2048 repeats. */
static const double TOL_EMB_BWD = 1e-5;

typedef enum token_kind {
    TOK_RANDOM,    /* uniform over [0, V) */
    TOK_REPEATED,  /* mostly the same three tokens: long in-order chains */
    TOK_INVALID,   /* random, with every 5th token invalid */
} token_kind;

typedef struct emb_case {
    uint32_t B, T, C, V;
    int wpe;
    token_kind tok;
    uint32_t slices;  /* backward: forced vocabulary slices; 0: the device's choice */
    int quick;
    uint32_t parts;   /* the table in this many parts of rows (row0, rows), as plan_vk.c records a table past
                         one binding; 0: whole */
} emb_case;

static const emb_case cases[] = {
    {1, 1, 1, 2, 1, TOK_RANDOM, 0, 1, 0},
    {2, 1, 5, 2, 1, TOK_RANDOM, 2, 1, 0},
    {3, 7, 33, 256, 1, TOK_RANDOM, 0, 1, 0},
    {3, 7, 33, 256, 0, TOK_RANDOM, 5, 1, 0},
    {4, 64, 128, 256, 1, TOK_REPEATED, 0, 1, 0},
    {4, 64, 128, 256, 1, TOK_REPEATED, 32, 1, 0},
    {5, 13, 17, 256, 1, TOK_INVALID, 3, 1, 0},
    {7, 1, 64, 256, 0, TOK_INVALID, 0, 1, 0},
    {8, 128, 65, 2, 1, TOK_RANDOM, 0, 0, 0},
    {2, 17, 65, 32768, 1, TOK_REPEATED, 0, 1, 0},
    {2, 17, 65, 32768, 1, TOK_REPEATED, 7, 1, 0},
    {16, 128, 96, 32768, 0, TOK_REPEATED, 0, 0, 0},
    {16, 128, 96, 32768, 0, TOK_REPEATED, 16, 0, 0},
    {4, 97, 130, 32768, 1, TOK_INVALID, 0, 0, 0},
    {3, 13, 20, 263, 1, TOK_INVALID, 0, 1, 0},  /* vec4 paths: C / 4 = 5 invocations, a workgroup's surplus */
    {64, 128, 128, 256, 1, TOK_RANDOM, 0, 0, 0}, /* the default model's batch */
    /* The table in parts, as a vocabulary past one binding goes */
    {3, 13, 20, 263, 1, TOK_INVALID, 0, 1, 3},
    {4, 64, 128, 256, 1, TOK_REPEATED, 0, 1, 2},
    {2, 17, 65, 32768, 0, TOK_REPEATED, 7, 1, 5},
};

/* Invalid tokens; V itself is added by make_tokens. */
static const int32_t invalid_tokens[] = {-1, INT32_MIN, INT32_MAX, -7};

static int32_t *make_tokens(cf_state *cf, cf_case *c, const emb_case *e, size_t *bad)
{
    size_t n = (size_t)e->B * e->T;
    int32_t *tok = cf_alloc(c, n * sizeof(int32_t));
    *bad = 0;
    if (!tok)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cf_rng_next(&cf->rng);
        tok[i] = (int32_t)(r % e->V);
        if (e->tok == TOK_REPEATED && r % 8 != 0) {
            /* 7 in 8 positions take one of three tokens, the last of them V - 1. */
            const int32_t few[3] = {0, (int32_t)(e->V / 2), (int32_t)(e->V - 1)};
            tok[i] = few[(r >> 8) % 3];
        }
        if (e->tok == TOK_INVALID && i % 5 == 2) {
            size_t k = (i / 5) % 5;
            tok[i] = k < 4 ? invalid_tokens[k] : (int32_t)e->V;
            (*bad)++;
        }
    }
    return tok;
}

static void shape_name(char *buf, size_t size, const emb_case *e)
{
    static const char *kinds[] = {"", " repeat", " invalid"};
    int len = snprintf(buf, size, "B%u T%u C%u V%u%s%s", e->B, e->T, e->C, e->V, e->wpe ? "" : " rope",
                       kinds[e->tok]);
    if (e->slices && len > 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, " s%u", e->slices);
    if (e->parts && len > 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len, " parts%u", e->parts);
}

/* vec4: out starts at a multiple of 4 elements: with C one too, the vec4
 * path (embedding_fwd.comp), shape " vec4". */
static void emb_fwd(cf_state *cf, const emb_case *e, bool vec4)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    if (vec4)
        snprintf(shape + strlen(shape), sizeof(shape) - strlen(shape), " vec4");
    cf_case *c = cf_begin(cf, "embedding", "fwd", shape);
    if (!c)
        return;
    size_t rows = (size_t)e->B * e->T, n = rows * e->C, bad;
    int32_t *tok = make_tokens(cf, c, e, &bad);
    float *wte = cf_random(c, (size_t)e->V * e->C, -1, 1), *wpe = cf_random(c, (size_t)e->T * e->C, -1, 1);
    if (!tok || !wte || !wpe)
        goto end;
    svk_tref ttok = cf_input_i32(c, "tokens", tok, rows);
    svk_tref twte = cf_input(c, "wte", wte, (size_t)e->V * e->C);
    svk_tref twpe = e->wpe ? cf_input(c, "wpe", wpe, (size_t)e->T * e->C) : (svk_tref){0};
    cf_out *out = cf_output_at(c, "out", n, NULL, vec4);
    cf_out *counts = cf_output(c, "counts", 2, NULL);
    if (!out || !counts)
        goto end;
    svk_embedding_fwd_args a = {
        .B = e->B, .T = e->T, .C = e->C, .V = e->V,
        .tokens = ttok, .wte = twte, .wpe = twpe, .out = cf_tref(out), .counts = cf_tref(counts),
    };
    svk_status st = SVK_OK;
    if (!e->parts) {
        st = svk_embedding_fwd_record(cf_list(c), &a);
    } else {
        /* As plan_vk.c: out zeroed (the invalid tokens' rows), then each
         * part writes its tokens' rows; counted once. */
        const uint64_t per = (e->V + e->parts - 1) / e->parts;
        st = svk_fill_record(cf_list(c), a.out, n, 0.0f, NULL);
        for (uint64_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += per) {
            a.row0 = row0;
            a.rows = e->V - row0 < per ? e->V - row0 : per;
            a.wte = (svk_tref){twte.buf, twte.off + row0 * e->C};
            st = svk_embedding_fwd_record(cf_list(c), &a);
            a.counts = (svk_tref){NULL, 0};
        }
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *dwte = cf_to_double(c, wte, (size_t)e->V * e->C), *dwpe = cf_to_double(c, wpe, (size_t)e->T * e->C);
    double *ref = cf_alloc(c, n * sizeof(double));
    if (!dwte || !dwpe || !ref)
        goto end;
    size_t ref_bad = svk_ref_embedding_fwd_f64(e->B, e->T, e->C, e->V, tok, dwte, e->wpe ? dwpe : NULL, ref);
    if (ref_bad != bad)
        cf_fail(c, "test setup: reference counted %zu invalid tokens, %zu were planted", ref_bad, bad);
    cf_compare(c, out, ref, TOL_EMB_FWD);
    cf_elem_check_counts(c, counts, rows - ref_bad, ref_bad);
end:
    cf_end(c);
}

/* The device result must be the float reference's, bit for bit. */
static void check_bitwise(cf_case *c, const cf_out *o, const float *ref32)
{
    for (size_t i = 0; o && i < o->n; i++)
        if (memcmp(&o->host[i], &ref32[i], sizeof(float))) {
            cf_fail(c, "%s[%zu]: got %.9g, the float reference %.9g: not the reference's order of additions", o->name,
                    i, (double)o->host[i], (double)ref32[i]);
            return;
        }
}

/* vec4: the outputs start at a multiple of 4 elements, as the CPU form
 * needs (the inputs always do). */
static void emb_bwd(cf_state *cf, const emb_case *e, const char *direction, bool vec4)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    cf_case *c = cf_begin(cf, "embedding", direction, shape);
    if (!c)
        return;
    size_t rows = (size_t)e->B * e->T, n = rows * e->C, nte = (size_t)e->V * e->C, npe = (size_t)e->T * e->C, bad;
    int32_t *tok = make_tokens(cf, c, e, &bad);
    float *dout = cf_random(c, n, -1, 1);
    float *wte0 = cf_random(c, nte, -1, 1), *wpe0 = cf_random(c, npe, -1, 1);
    float *wte32 = cf_alloc(c, nte * sizeof(float)), *wpe32 = cf_alloc(c, npe * sizeof(float));
    if (!tok || !dout || !wte0 || !wpe0 || !wte32 || !wpe32)
        goto end;
    svk_tref ttok = cf_input_i32(c, "tokens", tok, rows);
    svk_tref tdout = cf_input(c, "dout", dout, n);
    cf_out *dwte = cf_output_at(c, "dwte", nte, wte0, vec4);
    cf_out *dwpe = e->wpe ? cf_output_at(c, "dwpe", npe, wpe0, vec4) : NULL;
    cf_out *counts = cf_output(c, "counts", 2, NULL);
    if (!dwte || (e->wpe && !dwpe) || !counts)
        goto end;
    svk_embedding_bwd_args a = {
        .B = e->B, .T = e->T, .C = e->C, .V = e->V,
        .tokens = ttok, .dout = tdout, .dwte = cf_tref(dwte), .dwpe = e->wpe ? cf_tref(dwpe) : (svk_tref){0},
        .counts = cf_tref(counts),
    };
    svk_status st = SVK_OK;
    if (!e->parts) {
        st = svk_embedding_bwd_record_sliced(cf_list(c), &a, e->slices);
    } else {
        /* As plan_vk.c: each part adds its tokens' rows; dwpe and the
         * counts with the first. */
        const uint64_t per = (e->V + e->parts - 1) / e->parts;
        const svk_tref whole = a.dwte;
        for (uint64_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += per) {
            a.row0 = row0;
            a.rows = e->V - row0 < per ? e->V - row0 : per;
            a.dwte = (svk_tref){whole.buf, whole.off + row0 * e->C};
            st = svk_embedding_bwd_record_sliced(cf_list(c), &a, e->slices);
            a.dwpe = a.counts = (svk_tref){NULL, 0};
        }
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *dd = cf_to_double(c, dout, n), *rte = cf_to_double(c, wte0, nte), *rpe = cf_to_double(c, wpe0, npe);
    if (!dd || !rte || !rpe)
        goto end;
    size_t ref_bad = svk_ref_embedding_bwd_f64(e->B, e->T, e->C, e->V, tok, dd, rte, e->wpe ? rpe : NULL);
    cf_compare(c, dwte, rte, TOL_EMB_BWD);
    if (dwpe)
        cf_compare(c, dwpe, rpe, TOL_EMB_BWD);
    cf_elem_check_counts(c, counts, rows - ref_bad, ref_bad);
    memcpy(wte32, wte0, nte * sizeof(float));
    memcpy(wpe32, wpe0, npe * sizeof(float));
    svk_ref_embedding_bwd_f32(e->B, e->T, e->C, e->V, tok, dout, wte32, e->wpe ? wpe32 : NULL);
    check_bitwise(c, dwte, wte32);
    if (dwpe)
        check_bitwise(c, dwpe, wpe32);
end:
    cf_end(c);
}

void cf_run_embedding(cf_state *cf)
{
    /* The caller's tuning, restored after each case. */
    const svk_ctx_tuning saved = cf_tuning(cf);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cf->quick && !cases[i].quick)
            continue;
        emb_fwd(cf, &cases[i], false);
        if (cases[i].C % 4 == 0)
            emb_fwd(cf, &cases[i], true);
        cf_tune_variant(cf, &saved, "portable");
        emb_bwd(cf, &cases[i], "bwd", false);
        /* Forced slices are the portable form's alone. */
        if (!cases[i].slices) {
            cf_tune_variant(cf, &saved, "cpu");
            emb_bwd(cf, &cases[i], "bwd-cpu", true);
        }
        cf_tune(cf, &saved);
    }
}
