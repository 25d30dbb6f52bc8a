/*
 * Pre-tokenized shards (svk/data.h, svk_token_data): small files of each
 * format (llm.c's .bin, raw uint16, raw uint32) in a temporary directory.
 * Random batches equal the windows this test draws itself with the same
 * generator over the shards, walked linearly (the library searches); a
 * sequential pass equals a walk shard by shard; a position read and sought
 * gives the same next batches, in the same object and in a new one; a
 * glob's shards come sorted by bytes. Every refusal names the file: a bad
 * llm.c magic, version or token count, a raw size that is not a whole
 * number of tokens, a shard shorter than T + 1 (with both sizes), no match,
 * something not a regular file, and a token >= vocab (with its offset,
 * found as a batch reads it, the position unchanged). A 2 GiB sparse shard
 * gives random windows without growing the resident set: mapped, not read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rng.h"
#include "svk/data.h"
#include "test_util.h"

enum { MAXB = 8, MAXT = 64, MAXS = 4 };

/* A shard as the test wrote it: its tokens, to compute expected windows. */
typedef struct shard {
    char path[256];
    uint32_t *tok;
    uint64_t n;
} shard;

static void le(unsigned char *p, uint32_t v, unsigned width)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes n tokens of width 2 or 4 after an llm.c header when llmc, with
 * the given magic, version and header count. */
static bool write_tokens(const char *path, const uint32_t *tok, uint64_t n, unsigned width, bool llmc,
                         int32_t magic, int32_t version, int32_t count)
{
    const size_t head = llmc ? 1024 : 0, bytes = head + (size_t)n * width;
    unsigned char *buf = calloc(1, bytes + 1);
    if (!buf)
        return false;
    if (llmc) {
        le(buf, (uint32_t)magic, 4);
        le(buf + 4, (uint32_t)version, 4);
        le(buf + 8, (uint32_t)count, 4);
    }
    for (uint64_t i = 0; i < n; i++)
        le(buf + head + i * width, tok[i], width);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(buf, 1, bytes, f) == bytes;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(buf);
    return ok;
}

static bool write_bytes(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = fputc((int)(i & 0x7f), f) != EOF;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* Shard k of n tokens, token i = base + k * 1000 + i (distinct across
 * shards, so a window tells which shard and offset it came from). */
static bool make_shard(shard *s, const char *path, uint64_t n, uint32_t base, uint32_t k, unsigned width, bool llmc)
{
    snprintf(s->path, sizeof(s->path), "%s", path);
    s->n = n;
    s->tok = malloc(n * sizeof(uint32_t));
    if (!s->tok)
        return false;
    for (uint64_t i = 0; i < n; i++)
        s->tok[i] = base + k * 1000 + (uint32_t)i;
    return write_tokens(path, s->tok, n, width, llmc, 20240520, 1, (int32_t)n);
}

static void free_shards(shard *s, int n)
{
    for (int i = 0; i < n; i++) {
        unlink(s[i].path);
        free(s[i].tok);
        s[i].tok = NULL;
    }
}

/* The windows the library must give: random, each row one draw over every
 * window of every shard, walked shard by shard here; sequential, a walk
 * that moves to the next shard where a window would not fit. *state is
 * the generator, or the offset across shards. */
static void expected_batch(const shard *s, int ns, bool random, uint64_t *state, uint32_t B, uint32_t T,
                           int32_t *tok, int32_t *tgt)
{
    uint64_t windows = 0;
    for (int k = 0; k < ns; k++)
        windows += s[k].n - T;
    for (uint32_t r = 0; r < B; r++) {
        int k = 0;
        uint64_t o;
        if (random) {
            o = svk_splitmix64(state) % windows;
            while (o >= s[k].n - T)
                o -= s[k++].n - T;
        } else {
            uint64_t first = 0;
            while (k < ns - 1 && *state >= first + s[k].n)
                first += s[k++].n;
            o = *state - first;
            if (o + T + 1 > s[k].n) {
                first += s[k].n;
                k = (k + 1) % ns;
                if (k == 0)
                    first = 0;
                o = 0;
            }
            *state = first + o + T;
        }
        for (uint32_t i = 0; i < T; i++) {
            tok[r * T + i] = (int32_t)s[k].tok[o + i];
            tgt[r * T + i] = (int32_t)s[k].tok[o + i + 1];
        }
    }
}

static svk_token_data *open_data(tu_tally *t, const char *pattern, svk_token_format format, uint32_t vocab,
                                 svk_text_order order, uint64_t seed)
{
    svk_token_data_params p = svk_token_data_params_default();
    p.format = format;
    p.vocab = vocab;
    p.order = order;
    p.seed = seed;
    svk_token_data *d = NULL;
    svk_status st = svk_token_data_open(pattern, &p, &d);
    tu_check(t, st == SVK_OK && d, "open %s: %s", pattern, st ? svk_last_error() : "ok");
    return d;
}

static const char *format_name(svk_token_format f)
{
    return f == SVK_TOKENS_LLMC ? "llm.c" : f == SVK_TOKENS_U16 ? "uint16" : "uint32";
}

/* Three shards of one format, random and sequential, against the
 * expected windows; positions sought in the same object and a new one. */
static void batches(tu_tally *t, const char *dir, svk_token_format format, uint64_t seed)
{
    static int32_t tok[MAXB * MAXT], tgt[MAXB * MAXT], etok[MAXB * MAXT], etgt[MAXB * MAXT];
    const unsigned width = format == SVK_TOKENS_U32 ? 4 : 2;
    const bool llmc = format == SVK_TOKENS_LLMC;
    /* uint32 tokens above 2^16, to see all four bytes decoded. */
    const uint32_t base = format == SVK_TOKENS_U32 ? 70000 : 5, vocab = format == SVK_TOKENS_U32 ? 80000 : 50257;
    const uint64_t sizes[3] = {40, 57, 100};
    shard s[3];
    memset(s, 0, sizeof(s));
    char path[256], pattern[256];
    bool ok = true;
    for (uint32_t k = 0; k < 3 && ok; k++) {
        snprintf(path, sizeof(path), "%s/%s_%u.bin", dir, format_name(format), k);
        ok = make_shard(&s[k], path, sizes[k], base, k, width, llmc);
    }
    tu_check(t, ok, "%s: three shards written", format_name(format));
    snprintf(pattern, sizeof(pattern), "%s/%s_*.bin", dir, format_name(format));
    const char *name = format_name(format);
    for (int order = 0; order < 2 && ok; order++) {
        const bool random = order == 0;
        svk_token_data *d = open_data(t, pattern, format, vocab, random ? SVK_TEXT_RANDOM : SVK_TEXT_SEQUENTIAL, seed);
        if (!d)
            break;
        uint64_t total = 0;
        uint32_t count = 0;
        svk_token_data_tokens(d, &total);
        svk_token_data_shards(d, &count);
        tu_check(t, total == 197 && count == 3, "%s: 3 shards, 197 tokens (%u, %llu)", name, count,
                 (unsigned long long)total);
        uint64_t state = random ? seed : 0;
        int bad = 0;
        const uint32_t shapes[4][2] = {{8, 8}, {4, 16}, {8, 39}, {1, 1}};
        for (int b = 0; b < 12; b++) {
            const uint32_t B = shapes[b % 4][0], T = shapes[b % 4][1];
            uint64_t before = 0;
            svk_token_data_position(d, &before);
            expected_batch(s, 3, random, &state, B, T, etok, etgt);
            svk_status st = svk_token_data_batch(d, B, T, tok, tgt);
            if (st != SVK_OK || memcmp(tok, etok, B * T * sizeof(int32_t)) || memcmp(tgt, etgt, B * T * sizeof(int32_t))) {
                if (!bad++)
                    printf("  %s %s batch %d [%u, %u] from position %llu differs: %s; first token %d, expected %d\n",
                           name, random ? "random" : "sequential", b, B, T, (unsigned long long)before,
                           st ? svk_last_error() : "ok", tok[0], etok[0]);
            }
            uint64_t pos = 0;
            svk_token_data_position(d, &pos);
            bad += pos != state;
        }
        tu_check(t, bad == 0, "%s, %s: 12 batches of 4 shapes equal the expected windows and positions", name,
                 random ? "random (seeded)" : "sequential");

        /* Resume: a position read, two batches, the position sought again
         * (in this object and in a new one) gives those two batches. */
        static int32_t a[2][MAXB * MAXT], at[2][MAXB * MAXT];
        uint64_t pos = 0;
        svk_token_data_position(d, &pos);
        for (int k = 0; k < 2; k++)
            svk_token_data_batch(d, 8, 16, a[k], at[k]);
        svk_token_data_batch(d, 8, 16, tok, tgt);
        bool same = svk_token_data_seek(d, pos) == SVK_OK;
        svk_token_data *e = open_data(t, pattern, format, vocab, random ? SVK_TEXT_RANDOM : SVK_TEXT_SEQUENTIAL,
                                      seed + 1);
        same = same && e && svk_token_data_seek(e, pos) == SVK_OK;
        const size_t n = 8 * 16 * sizeof(int32_t);
        for (int k = 0; k < 2 && same; k++) {
            same = svk_token_data_batch(d, 8, 16, tok, tgt) == SVK_OK && !memcmp(tok, a[k], n) && !memcmp(tgt, at[k], n);
            same = same && svk_token_data_batch(e, 8, 16, tok, tgt) == SVK_OK && !memcmp(tok, a[k], n) &&
                   !memcmp(tgt, at[k], n);
        }
        tu_check(t, same, "%s, %s: position %llu sought again gives the next two batches, here and in a new object",
                 name, random ? "random" : "sequential", (unsigned long long)pos);
        svk_token_data_destroy(&e);

        if (random) {
            /* Every window is drawn: 400 batches of 8 x 16 cover the 149
             * windows of T = 16 (24 + 41 + 84; a miss has odds about
             * 149 e^-21), each shard by its weight. */
            static bool seen[3][100];
            memset(seen, 0, sizeof(seen));
            int rows[3] = {0, 0, 0};
            for (int b = 0; b < 400; b++) {
                svk_token_data_batch(d, 8, 16, tok, tgt);
                for (int r = 0; r < 8; r++) {
                    const uint32_t v = (uint32_t)tok[r * 16] - base;
                    rows[v / 1000]++;
                    seen[v / 1000][v % 1000] = true;
                }
            }
            int covered = 0;
            for (int k = 0; k < 3; k++)
                for (int o = 0; o < 100; o++)
                    covered += seen[k][o];
            tu_check(t, covered == 149 && rows[0] < rows[1] && rows[1] < rows[2],
                     "%s: 3200 random windows cover all 149, shards drawn by their windows (%d, %d, %d rows)", name,
                     rows[0], rows[1], rows[2]);
        } else {
            /* Sequential, T 16: offsets 0, 16 in shard 0 (40 tokens), 40,
             * 56, 72 in shard 1 (57), 97 + 0..80 in shard 2 (100), then 0. */
            static const uint32_t starts[12] = {0, 16, 40, 56, 72, 97, 113, 129, 145, 161, 177, 0};
            svk_token_data_seek(d, 0);
            svk_token_data_batch(d, 8, 16, tok, tgt);
            svk_token_data_batch(d, 4, 16, tok + 8 * 16, tgt + 8 * 16);
            int wrong = 0;
            for (int r = 0; r < 12; r++) {
                const uint32_t g = starts[r], k = g >= 97 ? 2 : g >= 40 ? 1 : 0, o = g - (k == 2 ? 97 : k == 1 ? 40 : 0);
                wrong += (uint32_t)tok[r * 16] != base + k * 1000 + o ||
                         (uint32_t)tgt[r * 16 + 15] != base + k * 1000 + o + 16;
            }
            uint64_t next = 0;
            svk_token_data_position(d, &next);
            tu_check(t, wrong == 0 && next == 16,
                     "%s: a sequential pass is 0, 16 | 40, 56, 72 | 97..177, then 0 again; next 16 (%d wrong, %llu)",
                     name, wrong, (unsigned long long)next);
            svk_status st = svk_token_data_seek(d, 197);
            tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "offset 197 is past the shards' 197"),
                     "%s: an offset past the end refused: %s", name, svk_last_error());
        }

        /* A shard shorter than T + 1: the batch is refused naming it and
         * both sizes, and the position stays. */
        uint64_t p0 = 0, p1 = 1;
        svk_token_data_position(d, &p0);
        svk_status st = svk_token_data_batch(d, 2, 40, tok, tgt);
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", svk_last_error());
        svk_token_data_position(d, &p1);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(msg, s[0].path) && strstr(msg, "holds 40 tokens") &&
                        strstr(msg, "T + 1 = 41") && p0 == p1,
                 "%s: T 40 refused, naming the 40-token shard, position kept: %s", name, msg);
        st = svk_token_data_batch(d, 2, 0, tok, tgt);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "T=0"), "%s: T 0 refused: %s", name,
                 svk_last_error());
        svk_token_data_destroy(&d);
        tu_check(t, d == NULL, "svk_token_data_destroy sets the handle to NULL");
    }
    free_shards(s, 3);
}

/* Names sorted by bytes: shard_10 before shard_2, whatever the order of
 * their writing or the locale's collation. */
static void glob_order(tu_tally *t, const char *dir)
{
    const char *names[MAXS] = {"shard_2.bin", "shard_10.bin", "shard_B.bin", "shard_a.bin"};
    const char *sorted[MAXS] = {"shard_10.bin", "shard_2.bin", "shard_B.bin", "shard_a.bin"};
    shard s[MAXS];
    memset(s, 0, sizeof(s));
    char path[256], pattern[256];
    bool ok = true;
    for (uint32_t k = 0; k < MAXS && ok; k++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
        ok = make_shard(&s[k], path, 20 + k, 0, k, 2, false);
    }
    snprintf(path, sizeof(path), "%s/other.bin", dir);
    ok = ok && write_bytes(path, 6);
    snprintf(pattern, sizeof(pattern), "%s/shard_*.bin", dir);
    svk_token_data *d = ok ? open_data(t, pattern, SVK_TOKENS_U16, 50257, SVK_TEXT_SEQUENTIAL, 1) : NULL;
    uint32_t count = 0;
    ok = d && svk_token_data_shards(d, &count) == SVK_OK && count == MAXS;
    static const int written[MAXS] = {1, 0, 2, 3}; /* sorted[k] is names[written[k]] */
    for (uint32_t k = 0; k < MAXS && ok; k++) {
        const char *p = NULL;
        uint64_t n = 0;
        ok = svk_token_data_shard(d, k, &p, &n) == SVK_OK && strstr(p, sorted[k]) && n == s[written[k]].n;
    }
    tu_check(t, ok, "a glob of 4 shards (not other.bin) in strcmp order: shard_10, shard_2, shard_B, shard_a");
    svk_status st = d ? svk_token_data_shard(d, MAXS, NULL, NULL) : SVK_ERROR_INVALID_ARG;
    tu_check(t, st == SVK_ERROR_INVALID_ARG && (!d || strstr(svk_last_error(), "shard 4 of 4")),
             "shard 4 of 4 refused: %s", d ? svk_last_error() : "");
    svk_token_data_destroy(&d);
    /* A literal path is a pattern matching itself alone. */
    d = open_data(t, s[0].path, SVK_TOKENS_U16, 50257, SVK_TEXT_RANDOM, 1);
    uint64_t n = 0;
    const bool one = d && svk_token_data_tokens(d, &n) == SVK_OK && n == 20;
    tu_check(t, one, "one file by its path: 20 tokens (%llu)", (unsigned long long)n);
    svk_token_data_destroy(&d);
    free_shards(s, MAXS);
    unlink(path);
}

/* Opening pattern is refused with status want, a message holding the two
 * strings given (NULL: not checked), and *out NULL. */
static void refused(tu_tally *t, const char *what, const char *pattern, svk_token_format format, svk_status want,
                    const char *s1, const char *s2)
{
    svk_token_data_params p = svk_token_data_params_default();
    p.format = format;
    svk_token_data *d = (svk_token_data *)&p; /* not NULL: the refusal must write NULL */
    svk_status st = svk_token_data_open(pattern, &p, &d);
    const char *msg = svk_last_error();
    tu_check(t, st == want && !d && (!s1 || strstr(msg, s1)) && (!s2 || strstr(msg, s2)), "%s refused: %s", what,
             msg);
    if (st == SVK_OK)
        svk_token_data_destroy(&d);
}

static void refusals(tu_tally *t, const char *dir)
{
    char path[256];
    const uint32_t tok[50] = {1, 2, 3};
    snprintf(path, sizeof(path), "%s/magic.bin", dir);
    write_tokens(path, tok, 50, 2, true, 20240521, 1, 50);
    refused(t, "an llm.c shard with magic 20240521", path, SVK_TOKENS_LLMC, SVK_ERROR_INVALID_ARG, path,
            "magic 20240521 is not llm.c's 20240520");
    unlink(path);
    snprintf(path, sizeof(path), "%s/version.bin", dir);
    write_tokens(path, tok, 50, 2, true, 20240520, 2, 50);
    refused(t, "an llm.c shard of version 2", path, SVK_TOKENS_LLMC, SVK_ERROR_INVALID_ARG, path,
            "version 2; only version 1");
    unlink(path);
    snprintf(path, sizeof(path), "%s/count.bin", dir);
    write_tokens(path, tok, 50, 2, true, 20240520, 1, 51);
    refused(t, "an llm.c header of 51 tokens before 50", path, SVK_TOKENS_LLMC, SVK_ERROR_INVALID_ARG, path,
            "header says 51 tokens, but 100 bytes follow");
    write_tokens(path, tok, 50, 2, true, 20240520, 1, -1);
    refused(t, "an llm.c header of -1 tokens", path, SVK_TOKENS_LLMC, SVK_ERROR_INVALID_ARG, path,
            "header says -1 tokens");
    unlink(path);
    snprintf(path, sizeof(path), "%s/short.bin", dir);
    write_bytes(path, 1000);
    refused(t, "a 1000-byte llm.c shard", path, SVK_TOKENS_LLMC, SVK_ERROR_INVALID_ARG, path,
            "1000 bytes, less than llm.c's header of 1024");
    unlink(path);
    snprintf(path, sizeof(path), "%s/odd.bin", dir);
    write_bytes(path, 41);
    refused(t, "a raw uint16 file of 41 bytes", path, SVK_TOKENS_U16, SVK_ERROR_INVALID_ARG, path,
            "41 bytes, not a whole number of 2-byte tokens");
    write_bytes(path, 42);
    refused(t, "a raw uint32 file of 42 bytes", path, SVK_TOKENS_U32, SVK_ERROR_INVALID_ARG, path,
            "42 bytes, not a whole number of 4-byte tokens");
    unlink(path);
    snprintf(path, sizeof(path), "%s/none_*.bin", dir);
    refused(t, "a pattern matching nothing", path, SVK_TOKENS_U16, SVK_ERROR_IO, "no file matches", path);

    /* Among good shards, a FIFO and a directory are refused by name,
     * without blocking on the FIFO. */
    char good[256], odd[256], pattern[256];
    snprintf(good, sizeof(good), "%s/mix_0.bin", dir);
    write_bytes(good, 64);
    snprintf(odd, sizeof(odd), "%s/mix_1.bin", dir);
    snprintf(pattern, sizeof(pattern), "%s/mix_*.bin", dir);
    if (mkfifo(odd, 0600) == 0) {
        tu_watchdog(10, "a FIFO among the shards");
        refused(t, "a FIFO among the shards", pattern, SVK_TOKENS_U16, SVK_ERROR_IO, odd, "it is a FIFO");
        tu_watchdog_off();
        unlink(odd);
    } else {
        tu_check(t, false, "mkfifo %s", odd);
    }
    if (mkdir(odd, 0700) == 0) {
        refused(t, "a directory among the shards", pattern, SVK_TOKENS_U16, SVK_ERROR_IO, odd, "it is a directory");
        rmdir(odd);
    }
    unlink(good);

    /* Bad params, each named. */
    svk_token_data_params p = svk_token_data_params_default();
    tu_check(t, p.format == SVK_TOKENS_LLMC && p.vocab == 50257 && p.order == SVK_TEXT_RANDOM && p.seed == 1 &&
                    !p.reserved[0] && !p.reserved[3],
             "defaults: llm.c format, vocab 50257, random, seed 1");
    svk_token_data *d = NULL;
    p.vocab = 0;
    svk_status st = svk_token_data_open(path, &p, &d);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !d && strstr(svk_last_error(), "vocab=0"), "vocab 0 refused: %s",
             svk_last_error());
    p = svk_token_data_params_default();
    p.format = (svk_token_format)7;
    st = svk_token_data_open(path, &p, &d);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "format=7"), "format 7 refused: %s",
             svk_last_error());
    p = svk_token_data_params_default();
    p.order = (svk_text_order)9;
    st = svk_token_data_open(path, &p, &d);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "order=9"), "order 9 refused: %s",
             svk_last_error());
    p = svk_token_data_params_default();
    p.reserved[1] = 2;
    st = svk_token_data_open(path, &p, &d);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "reserved[1] is 2"),
             "a reserved field set refused: %s", svk_last_error());
    st = svk_token_data_open("", NULL, &d);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "empty"), "an empty pattern refused: %s",
             svk_last_error());
    svk_token_data_destroy(NULL);
    svk_token_data_destroy(&d);
}

/* A token >= vocab is found as a batch reads it: the message names the
 * file, the token, its offset in tokens and in bytes (after llm.c's
 * header), and the position stays. */
static void vocab_check(tu_tally *t, const char *dir, svk_token_format format)
{
    static int32_t tok[MAXB * MAXT], tgt[MAXB * MAXT];
    const bool llmc = format == SVK_TOKENS_LLMC;
    const unsigned width = format == SVK_TOKENS_U32 ? 4 : 2;
    uint32_t v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (uint32_t)i;
    v[37] = 1000; /* vocab 1000: the one token out of it */
    char path[256];
    snprintf(path, sizeof(path), "%s/vocab_%s.bin", dir, format_name(format));
    if (!write_tokens(path, v, 64, width, llmc, 20240520, 1, 64)) {
        tu_check(t, false, "writing %s", path);
        return;
    }
    svk_token_data *d = open_data(t, path, format, 1000, SVK_TEXT_SEQUENTIAL, 1);
    if (!d) {
        unlink(path);
        return;
    }
    /* Windows at 0 and 16 hold tokens 0..32: fine. The third, 32..48,
     * reaches token 37. */
    svk_status st = svk_token_data_batch(d, 2, 16, tok, tgt);
    uint64_t p0 = 0, p1 = 1;
    svk_token_data_position(d, &p0);
    tu_check(t, st == SVK_OK && p0 == 32, "%s: the windows before the bad token are given (position %llu)",
             format_name(format), (unsigned long long)p0);
    st = svk_token_data_batch(d, 1, 16, tok, tgt);
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", svk_last_error());
    svk_token_data_position(d, &p1);
    char want[96];
    snprintf(want, sizeof(want), "token 1000 at token offset 37 (byte %u)", (llmc ? 1024 : 0) + 37 * width);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(msg, path) && strstr(msg, want) &&
                    strstr(msg, "vocabulary of 1000") && p1 == p0,
             "%s: a token >= vocab refused as read, position kept: %s", format_name(format), msg);
    /* With vocab 1001 the same window is read. */
    svk_token_data_destroy(&d);
    d = open_data(t, path, format, 1001, SVK_TEXT_SEQUENTIAL, 1);
    st = d ? svk_token_data_seek(d, 32) : SVK_ERROR_INVALID_ARG;
    st = st == SVK_OK ? svk_token_data_batch(d, 1, 16, tok, tgt) : st;
    tu_check(t, st == SVK_OK && tok[5] == 1000 && tgt[4] == 1000, "%s: vocab 1001 reads token 1000 at offset 37",
             format_name(format));
    svk_token_data_destroy(&d);
    unlink(path);
}

/* A 2 GiB shard (sparse: no disk used) is mapped, not read: 1000 random
 * windows, over byte offsets past 2^31, leave the peak resident set within
 * 256 MiB of where it was, and the last window reads the token written at
 * the file's very end. */
static void large_shard(tu_tally *t, const char *dir)
{
    static int32_t tok[MAXB * MAXT], tgt[MAXB * MAXT];
    char path[256];
    snprintf(path, sizeof(path), "%s/large.bin", dir);
    const uint64_t bytes = 2ull << 30, n = bytes / 2;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const unsigned char last[2] = {0x34, 0x12}; /* token 0x1234 */
    bool made = fd >= 0 && ftruncate(fd, (off_t)bytes) == 0 && pwrite(fd, last, 2, (off_t)(bytes - 2)) == 2;
    if (fd >= 0)
        close(fd);
    tu_check(t, made, "a sparse file of 2 GiB written at %s", path);
    svk_token_data *d = made ? open_data(t, path, SVK_TOKENS_U16, 50257, SVK_TEXT_RANDOM, 3) : NULL;
    if (d) {
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        bool ok = true;
        for (int b = 0; b < 125 && ok; b++)
            ok = svk_token_data_batch(d, 8, 64, tok, tgt) == SVK_OK;
        getrusage(RUSAGE_SELF, &after);
        const long grown_kib = after.ru_maxrss - before.ru_maxrss;
        /* Each fault may map the pages around it too (fault-around,
         * 64 KiB on Linux): 1000 windows could cost 64 MiB, never 2 GiB. */
        tu_check(t, ok && grown_kib < 256 * 1024,
                 "1000 random windows of a 2 GiB shard: peak resident set grew %ld KiB (< 256 MiB): mapped, not read",
                 grown_kib);
        svk_token_data_destroy(&d);
    }
    /* The last window, in order: tokens n - 65 .. n - 2, the last target
     * the token at the file's end. */
    d = made ? open_data(t, path, SVK_TOKENS_U16, 50257, SVK_TEXT_SEQUENTIAL, 1) : NULL;
    svk_status st = d ? svk_token_data_seek(d, n - 65) : SVK_ERROR_INVALID_ARG;
    st = st == SVK_OK ? svk_token_data_batch(d, 1, 64, tok, tgt) : st;
    tu_check(t, st == SVK_OK && tgt[63] == 0x1234 && tok[63] == 0,
             "the last window of 2^30 tokens ends with the token at byte 2^31 - 2 (%d)", tgt[63]);
    svk_token_data_destroy(&d);
    unlink(path);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_token_data", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-token-data-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const svk_token_format formats[3] = {SVK_TOKENS_LLMC, SVK_TOKENS_U16, SVK_TOKENS_U32};
    for (int f = 0; f < 3; f++) {
        batches(&t, dir, formats[f], args.seed);
        vocab_check(&t, dir, formats[f]);
    }
    glob_order(&t, dir);
    refusals(&t, dir);
    large_shard(&t, dir);
    if (rmdir(dir) != 0)
        tu_check(&t, false, "%s left empty", dir);
    return tu_finish(&t);
}
