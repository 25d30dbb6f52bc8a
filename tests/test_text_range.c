/*
 * A range of a text's bytes (svk_text_data_params.begin/end) and views over
 * one read of the file (svk_text_data_view), for held-out splits: every
 * window of a range lies inside it, random and sequential; a range of the
 * whole file is the stream without one, draw for draw (test_data pins
 * that stream); a view gives the batches a file opened with the same
 * params gives; ranges that do not fit the file, reserved fields and seeks
 * outside the range are refused with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/data.h"
#include "test_util.h"

enum { N = 3000, BR = 8, TR = 32 };

static bool write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(bytes, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* Every row of a batch is a window of bytes[] at an offset within [lo, hi -
 * T): its tokens and targets are the bytes there, shifted by one. The
 * bytes are pseudo-random (main), so a window of 32 of them occurs once in
 * the file and its offset is found by search. */
static bool rows_within(const unsigned char *bytes, const int32_t *tok, const int32_t *tgt, uint32_t B, uint32_t T,
                        size_t lo, size_t hi, size_t *first_offset)
{
    for (uint32_t r = 0; r < B; r++) {
        size_t o = SIZE_MAX;
        for (size_t c = 0; c + T < N && o == SIZE_MAX; c++) {
            bool same = true;
            for (uint32_t i = 0; i < T && same; i++)
                same = tok[r * T + i] == bytes[c + i] && tgt[r * T + i] == bytes[c + i + 1];
            if (same)
                o = c;
        }
        if (o == SIZE_MAX || o < lo || o + T + 1 > hi)
            return false;
        if (r == 0 && first_offset)
            *first_offset = o;
    }
    return true;
}

static void ranges(tu_tally *t, const char *path, const unsigned char *bytes, uint64_t seed)
{
    static int32_t tok[BR * TR], tgt[BR * TR], tok2[BR * TR], tgt2[BR * TR];
    svk_text_data *whole = NULL, *full = NULL, *train = NULL, *held = NULL;
    svk_text_data_params p = svk_text_data_params_default();
    p.seed = seed;
    svk_status st = svk_text_data_open(path, &p, &whole);
    tu_check(t, st == SVK_OK, "open without a range: %s", svk_last_error());
    if (st != SVK_OK)
        return;

    /* [0, size) given explicitly, and as a view: the same draws. */
    svk_text_data_params pf = p;
    pf.end = N;
    st = svk_text_data_view(whole, &pf, &full);
    bool same = st == SVK_OK;
    for (int k = 0; k < 20 && same; k++)
        same = svk_text_data_batch(whole, BR, TR, tok, tgt) == SVK_OK &&
               svk_text_data_batch(full, BR, TR, tok2, tgt2) == SVK_OK && !memcmp(tok, tok2, sizeof(tok)) &&
               !memcmp(tgt, tgt2, sizeof(tgt));
    tu_check(t, same, "the range [0, size) draws the windows of the whole file, batch for batch");
    svk_text_data_destroy(&full);

    /* A 90/10 split: random training windows never reach the held-out
     * tail, sequential held-out windows never leave it. */
    const size_t split = N - N / 10;
    svk_text_data_params pt = p, ph = svk_text_data_params_default();
    pt.end = split;
    ph.order = SVK_TEXT_SEQUENTIAL;
    ph.begin = split;
    bool ok = svk_text_data_view(whole, &pt, &train) == SVK_OK && svk_text_data_view(whole, &ph, &held) == SVK_OK;
    for (int k = 0; k < 200 && ok; k++)
        ok = svk_text_data_batch(train, BR, TR, tok, tgt) == SVK_OK &&
             rows_within(bytes, tok, tgt, BR, TR, 0, split, NULL);
    tu_check(t, ok, "200 random batches of the range [0, %zu): every window inside it", split);
    size_t first = 0;
    ok = held && svk_text_data_batch(held, BR, TR, tok, tgt) == SVK_OK &&
         rows_within(bytes, tok, tgt, BR, TR, split, N, &first) && first == split;
    for (int k = 0; k < 20 && ok; k++)
        ok = svk_text_data_batch(held, BR, TR, tok, tgt) == SVK_OK && rows_within(bytes, tok, tgt, BR, TR, split, N, NULL);
    tu_check(t, ok, "sequential batches of the range [%zu, %d): from its start (%zu), wrapping inside it", split, N,
             first);
    uint64_t pos = 0;
    ok = held && svk_text_data_position(held, &pos) == SVK_OK && pos >= split && pos < N;
    tu_check(t, ok, "a sequential range's position is an offset inside it (%llu)", (unsigned long long)pos);
    /* Position and seek in a range: the same batch again. */
    ok = svk_text_data_position(train, &pos) == SVK_OK && svk_text_data_batch(train, BR, TR, tok, tgt) == SVK_OK &&
         svk_text_data_seek(train, pos) == SVK_OK && svk_text_data_batch(train, BR, TR, tok2, tgt2) == SVK_OK &&
         !memcmp(tok, tok2, sizeof(tok));
    tu_check(t, ok, "a range's position sought again gives the same batch");
    st = held ? svk_text_data_seek(held, 10) : SVK_ERROR_INVALID_ARG;
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "outside the range [2700, 3000)"),
             "a seek before a sequential range: %s", svk_last_error());
    st = held ? svk_text_data_seek(held, split) : SVK_ERROR_INVALID_ARG;
    tu_check(t, st == SVK_OK, "a seek to the range's start");

    /* A view outlives nothing of its own: destroying it leaves data whole
     * (ASan would see a double free or a use after one). */
    svk_text_data_destroy(&held);
    svk_text_data_destroy(&train);
    ok = svk_text_data_batch(whole, BR, TR, tok, tgt) == SVK_OK && !train && !held;
    tu_check(t, ok, "views destroyed, the text they viewed still gives batches");

    /* A range shorter than one window, and ranges that do not fit. */
    svk_text_data_params ps = p;
    ps.begin = 100;
    ps.end = 100 + TR;
    st = svk_text_data_view(whole, &ps, &train);
    st = st == SVK_OK ? svk_text_data_batch(train, 1, TR, tok, tgt) : st;
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "range [100, 132) of the data (32 bytes)"),
             "a range one byte short of a window: %s", svk_last_error());
    svk_text_data_destroy(&train);
    ps.end = 100 + TR + 1;
    ok = svk_text_data_view(whole, &ps, &train) == SVK_OK && svk_text_data_batch(train, 3, TR, tok, tgt) == SVK_OK &&
         rows_within(bytes, tok, tgt, 3, TR, 100, 133, &first) && first == 100;
    tu_check(t, ok, "a range of exactly one window gives it every time");
    svk_text_data_destroy(&train);
    const struct {
        uint64_t begin, end;
        const char *what;
    } bad[] = {
        {0, N + 1, "end past the file"},
        {N + 1, 0, "begin past the file (end 0: its end)"},
        {200, 100, "begin after end"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ps = p;
        ps.begin = bad[i].begin;
        ps.end = bad[i].end;
        st = svk_text_data_view(whole, &ps, &train);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && !train && strstr(svk_last_error(), "does not lie within"),
                 "view, %s: %s", bad[i].what, svk_last_error());
        st = svk_text_data_open(path, &ps, &train);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && !train && strstr(svk_last_error(), path),
                 "open, %s: %s", bad[i].what, svk_last_error());
    }
    ps = p;
    ps.reserved[1] = 9;
    st = svk_text_data_view(whole, &ps, &train);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !train && strstr(svk_last_error(), "svk_text_data_view: params->reserved[1] is 9"),
             "a reserved field set: %s", svk_last_error());
    st = svk_text_data_view(NULL, NULL, &train);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !train, "a view of NULL: %s", svk_last_error());
    st = svk_text_data_view(whole, NULL, NULL);
    tu_check(t, st == SVK_ERROR_INVALID_ARG, "out NULL: %s", svk_last_error());
    /* params NULL: the defaults, the whole file from the default seed. */
    svk_text_data *def = NULL, *opened = NULL;
    ok = svk_text_data_view(whole, NULL, &def) == SVK_OK && svk_text_data_open(path, NULL, &opened) == SVK_OK &&
         svk_text_data_batch(def, BR, TR, tok, tgt) == SVK_OK &&
         svk_text_data_batch(opened, BR, TR, tok2, tgt2) == SVK_OK && !memcmp(tok, tok2, sizeof(tok));
    tu_check(t, ok, "a view with params NULL draws as a file opened with params NULL");
    svk_text_data_destroy(&def);
    svk_text_data_destroy(&opened);
    svk_text_data_destroy(&whole);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_text_range", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-range-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof(path), "%s/text.bin", dir);
    static unsigned char bytes[N];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bytes[i] = (unsigned char)(x >> 56);
    }
    if (!write_file(path, bytes, N)) {
        tu_check(&t, false, "writing %s", path);
    } else {
        ranges(&t, path, bytes, args.seed);
        unlink(path);
    }
    rmdir(dir);
    return tu_finish(&t);
}
