/*
 * Generation's decode kernels (lib/ops/decode.c, shaders/decode_*.comp;
 * reference lib/ref/decode.c): one token's embedding at a position, and
 * its attention over a key-value cache, the position read from a step
 * buffer. Awkward sizes: width 1 and primes, one head and seven, the first
 * position and the last, a window of one row, tiles of the attention's 64
 * keys plus a few, heads wider than its 256-column chunk (the scores
 * recomputed per chunk), RoPE and not; a token or a position out of range;
 * the table in parts (row0, rows), as a vocabulary past one binding goes.
 * The cache's other rows must come back unchanged.
 */
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "ops/copy.h"
#include "ops/decode.h"

/* Output against the double reference. The attention sums D products per
 * score, a softmax over at most ~300 keys and as many value products per
 * column, in float with another order than the reference's (tiles, tree
 * sums): a few 1e-7 measured; 1e-5 leaves a margin. The cache's new row is
 * RoPE's rotation, held to rope's 1e-6 (conform_rope.c); the embedding is
 * one addition, a float rounding (2^-24 ~ 6e-8) from the reference's. */
static const double TOL_OUT = 1e-5, TOL_CACHE = 1e-6, TOL_EMBED = 2e-7;

typedef struct attn_case {
    uint32_t C, H, ctx;
    int32_t pos;
    bool rope;
    int quick;
} attn_case;

static const attn_case attn_cases[] = {
    {2, 1, 1, 0, true, 1},      /* one row, D = 2 */
    {6, 3, 7, 6, true, 1},      /* D = 2, the last position */
    {13, 1, 5, 2, false, 1},    /* D = 13, odd: no RoPE */
    {14, 7, 67, 66, true, 1},   /* 67 keys: a tile of 64 and 3 */
    {64, 2, 131, 128, true, 0}, /* D = 32, three tiles */
    {520, 1, 17, 16, true, 1},  /* D = 520: three chunks of columns */
    {96, 3, 300, 257, false, 0},
    {8, 2, 9, 9, true, 1},      /* position = ctx: nothing written */
};

static void run_attention(cf_state *cf, const attn_case *ac)
{
    const uint32_t C = ac->C, H = ac->H, ctx = ac->ctx;
    char shape[96];
    snprintf(shape, sizeof(shape), "C%u H%u ctx%u pos%d%s", C, H, ctx, ac->pos, ac->rope ? " rope" : "");
    cf_case *c = cf_begin(cf, "decode_attention", "fwd", shape);
    if (!c)
        return;
    const size_t nc = (size_t)ctx * 3 * C;
    const int32_t step[2] = {5, ac->pos};
    float *qkv = cf_random(c, 3 * C, -1, 1), *init = cf_random(c, nc, -1, 1);
    cf_out *cache = init ? cf_output(c, "cache", nc, init) : NULL;
    cf_out *out = cache ? cf_output(c, "out", C, NULL) : NULL;
    if (!out || !qkv)
        goto end;
    const svk_decode_attention_args a = {C, H, ctx, ac->rope, 10000.0f, cf_input_i32(c, "step", step, 2),
                                         cf_input(c, "qkv", qkv, 3 * C), cf_tref(cache), cf_tref(out), NULL};
    if (!cf_ok(c, svk_decode_attention_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *rq = cf_to_double(c, qkv, 3 * C), *rc = cf_to_double(c, init, nc), *ro = cf_alloc(c, C * sizeof(double));
    if (!rq || !rc || !ro)
        goto end;
    svk_ref_attention_decode_f64(C, H, ctx, ac->pos, ac->rope ? 10000.0 : 0.0, rq, rc, ro);
    cf_compare(c, cache, rc, TOL_CACHE);
    if (ac->pos < (int32_t)ctx)
        cf_compare(c, out, ro, TOL_OUT);
end:
    cf_end(c);
}

typedef struct embed_case {
    uint32_t C, V, ctx;
    int32_t token, pos;
    bool wpe;
    uint32_t parts; /* the table in this many parts of rows, as plan_vk.c records one past a binding; 0: whole */
} embed_case;

static const embed_case embed_cases[] = {
    {1, 1, 1, 0, 0, true, 0},   {13, 7, 5, 6, 4, true, 0}, {67, 11, 3, 2, 1, false, 0},
    {8, 5, 4, 5, 0, true, 0},   /* token = V: zeros */
    {8, 5, 4, 1, 4, true, 0},   /* position = ctx: zeros */
    {13, 131, 5, 130, 4, true, 3}, {13, 131, 5, 0, 2, false, 3}, {13, 131, 5, 131, 2, true, 3}, /* parts */
};

static void run_embed(cf_state *cf, const embed_case *e)
{
    char shape[96];
    snprintf(shape, sizeof(shape), "C%u V%u ctx%u token%d pos%d%s%s", e->C, e->V, e->ctx, e->token, e->pos,
             e->wpe ? "" : " rope", e->parts ? " parts" : "");
    cf_case *c = cf_begin(cf, "decode_embed", "fwd", shape);
    if (!c)
        return;
    const int32_t step[2] = {e->token, e->pos};
    float *wte = cf_random(c, (size_t)e->V * e->C, -1, 1), *wpe = cf_random(c, (size_t)e->ctx * e->C, -1, 1);
    cf_out *out = wte && wpe ? cf_output(c, "out", e->C, NULL) : NULL;
    if (!out)
        goto end;
    svk_decode_embed_args a = {e->C, e->V, e->ctx, cf_input_i32(c, "step", step, 2),
                               cf_input(c, "wte", wte, (size_t)e->V * e->C),
                               e->wpe ? cf_input(c, "wpe", wpe, (size_t)e->ctx * e->C) : (svk_tref){0},
                               cf_tref(out), 0, 0, NULL};
    svk_status st = SVK_OK;
    if (!e->parts) {
        st = svk_decode_embed_record(cf_list(c), &a);
    } else {
        /* As plan_vk.c: out zeroed, then the part holding the token writes it. */
        const uint32_t per = (e->V + e->parts - 1) / e->parts;
        const svk_tref whole = a.wte;
        st = svk_fill_record(cf_list(c), a.out, e->C, 0.0f, NULL);
        for (uint32_t row0 = 0; row0 < e->V && st == SVK_OK; row0 += per) {
            a.row0 = row0;
            a.rows = e->V - row0 < per ? e->V - row0 : per;
            a.wte = (svk_tref){whole.buf, whole.off + (uint64_t)row0 * e->C};
            st = svk_decode_embed_record(cf_list(c), &a);
        }
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *rw = cf_to_double(c, wte, (size_t)e->V * e->C), *rp = cf_to_double(c, wpe, (size_t)e->ctx * e->C);
    double *ro = cf_alloc(c, e->C * sizeof(double));
    if (!rw || !rp || !ro)
        goto end;
    svk_ref_embedding_decode_f64(e->C, e->V, e->ctx, e->token, e->pos, rw, e->wpe ? rp : NULL, ro);
    cf_compare(c, out, ro, TOL_EMBED);
end:
    cf_end(c);
}

void cf_run_decode(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(attn_cases) / sizeof(attn_cases[0]); i++)
        if (!cf->quick || attn_cases[i].quick)
            run_attention(cf, &attn_cases[i]);
    for (size_t i = 0; i < sizeof(embed_cases) / sizeof(embed_cases[0]); i++)
        run_embed(cf, &embed_cases[i]);
}
