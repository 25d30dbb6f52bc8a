/*
 * svk-tokenize: encodes text files with GPT-2's tokenizer (svk/tokenizer.h)
 * into one llm.c shard, which svk-train reads with --train-data and
 * --token-format llmc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_exit.h"
#include "svk/svk.h"

/* llm.c's .bin (svk/data.h, SVK_TOKENS_LLMC): 256 int32, then uint16
 * tokens. */
#define LLMC_MAGIC 20240520
#define LLMC_VERSION 1
#define LLMC_HEADER_INTS 256
#define LLMC_TOKENS_MAX 2147483647u /* header[2] is an int32 */
/* The most bytes read from one input file. */
#define FILE_MAX (1ull << 32)

static void usage(FILE *f)
{
    fprintf(f,
"usage: svk-tokenize --tokenizer DIR --out PATH.bin [--eot] FILE...\n"
"Encodes each FILE's bytes with GPT-2's byte-level BPE and writes their tokens, file after file,\n"
"as one llm.c shard: a header of 256 int32 (magic 20240520, version 1, the token count), then\n"
"uint16 tokens. svk-train reads it with --train-data PATH.bin --token-format llmc.\n"
"  --tokenizer DIR  the folder holding GPT-2's vocab.json and merges.txt\n"
"  --out PATH       the shard to write (replaced whole, atomically)\n"
"  --eot            put <|endoftext|> before each file's tokens, as llm.c's data scripts put it\n"
"                   before each document (its id from vocab.json)\n"
"A token of 65536 or more does not fit the format: the run fails naming it.\n"
SVK_EXIT_HELP "\n");
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The shard being built: the header's room, then two bytes a token. */
typedef struct shard {
    unsigned char *buf;
    size_t tokens, cap; /* cap in tokens */
} shard;

static bool shard_reserve(shard *s, size_t more)
{
    if (s->tokens + more <= s->cap)
        return true;
    size_t cap = s->cap ? s->cap : 1024;
    while (cap < s->tokens + more)
        cap *= 2;
    unsigned char *b = realloc(s->buf, LLMC_HEADER_INTS * 4 + cap * 2);
    if (!b)
        return false;
    s->buf = b;
    s->cap = cap;
    return true;
}

/* Appends n tokens of file (named for messages); false with a message if
 * one does not fit in uint16. */
static bool shard_add(shard *s, const int32_t *tok, size_t n, const char *file)
{
    if (!shard_reserve(s, n)) {
        fprintf(stderr, "svk-tokenize: out of host memory for %zu tokens\n", s->tokens + n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (tok[i] < 0 || tok[i] > 65535) {
            fprintf(stderr, "svk-tokenize: %s: token %d (the file's token %zu) does not fit llm.c's uint16 tokens\n",
                    file, tok[i], i);
            return false;
        }
        unsigned char *p = s->buf + LLMC_HEADER_INTS * 4 + 2 * (s->tokens + i);
        p[0] = (unsigned char)(tok[i] & 0xFF);
        p[1] = (unsigned char)(tok[i] >> 8);
    }
    s->tokens += n;
    return true;
}

static bool encode_file(const svk_tokenizer *tok, const char *path, int32_t eot, shard *s)
{
    void *data = NULL;
    size_t size = 0, n = 0;
    if (svk_file_read_whole(path, FILE_MAX, &data, &size) != SVK_OK) {
        fprintf(stderr, "svk-tokenize: %s\n", svk_last_error());
        return false;
    }
    /* A text has no more tokens than bytes. */
    int32_t *ids = malloc((size + 1) * sizeof(*ids));
    bool ok = ids != NULL;
    if (!ok)
        fprintf(stderr, "svk-tokenize: out of host memory for %s's tokens\n", path);
    if (ok && eot >= 0)
        ids[n++] = eot;
    size_t got = 0;
    if (ok && svk_tokenizer_encode(tok, data, size, ids + n, size, &got) != SVK_OK) {
        fprintf(stderr, "svk-tokenize: %s: %s\n", path, svk_last_error());
        ok = false;
    }
    ok = ok && shard_add(s, ids, n + got, path);
    free(ids);
    svk_file_data_free(&data);
    return ok;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    bool eot = false;
    /* The files in order, wherever they stand among the options. */
    const char **files = malloc((size_t)argc * sizeof(*files));
    int n_files = 0;
    if (!files) {
        fprintf(stderr, "svk-tokenize: out of host memory\n");
        return SVK_EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(files);
            return SVK_EXIT_OK;
        } else if (!strcmp(a, "--eot")) {
            eot = true;
        } else if (!strcmp(a, "--tokenizer") || !strcmp(a, "--out")) {
            if (i + 1 >= argc || !*argv[i + 1]) {
                fprintf(stderr, "svk-tokenize: %s needs a value (try --help)\n", a);
                free(files);
                return SVK_EXIT_USAGE;
            }
            *(a[2] == 't' ? &dir : &out) = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "svk-tokenize: unknown option '%s' (try --help)\n", a);
            free(files);
            return SVK_EXIT_USAGE;
        } else {
            files[n_files++] = a;
        }
    }
    if (!dir || !out || n_files == 0) {
        fprintf(stderr, "svk-tokenize: %s\n", !dir ? "no --tokenizer DIR given" : !out ? "no --out PATH given"
                                                                                       : "no FILE given");
        usage(stderr);
        free(files);
        return SVK_EXIT_USAGE;
    }
    svk_tokenizer *tok = NULL;
    if (svk_tokenizer_open_dir(dir, &tok) != SVK_OK) {
        fprintf(stderr, "svk-tokenize: --tokenizer %s: %s\n", dir, svk_last_error());
        free(files);
        return SVK_EXIT_FAILURE;
    }
    int32_t eot_id = -1;
    if (eot && svk_tokenizer_token_id(tok, "<|endoftext|>", &eot_id) != SVK_OK) {
        fprintf(stderr, "svk-tokenize: --eot: %s (in %s/vocab.json)\n", svk_last_error(), dir);
        svk_tokenizer_destroy(&tok);
        free(files);
        return SVK_EXIT_FAILURE;
    }
    shard s = {0};
    bool ok = shard_reserve(&s, 0);
    for (int f = 0; ok && f < n_files; f++)
        ok = encode_file(tok, files[f], eot_id, &s);
    if (ok && s.tokens > LLMC_TOKENS_MAX) {
        fprintf(stderr, "svk-tokenize: %zu tokens, more than an llm.c shard counts (%u)\n", s.tokens,
                LLMC_TOKENS_MAX);
        ok = false;
    }
    if (ok) {
        memset(s.buf, 0, LLMC_HEADER_INTS * 4);
        put_le32(s.buf, LLMC_MAGIC);
        put_le32(s.buf + 4, LLMC_VERSION);
        put_le32(s.buf + 8, (uint32_t)s.tokens);
        if (svk_file_write_atomic(out, s.buf, LLMC_HEADER_INTS * 4 + s.tokens * 2) != SVK_OK) {
            fprintf(stderr, "svk-tokenize: --out %s: %s\n", out, svk_last_error());
            ok = false;
        } else {
            printf("%s: %zu tokens from %d file%s\n", out, s.tokens, n_files, n_files == 1 ? "" : "s");
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "svk-tokenize: writing to stdout: %s\n", strerror(errno));
                ok = false;
            }
        }
    }
    free(s.buf);
    free(files);
    svk_tokenizer_destroy(&tok);
    return ok ? SVK_EXIT_OK : SVK_EXIT_FAILURE;
}
