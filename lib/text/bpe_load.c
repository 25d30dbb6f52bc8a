/*
 * Opening a tokenizer: vocab.json and merges.txt into the tables of bpe.h.
 * Every rule the files must keep is checked here, once, so that encoding
 * and decoding find only ids that exist.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bpe.h"
#include "byte_map.h"
#include "core/alloc.h"
#include "core/error.h"
#include "io/io_file.h"

/* GPT-2's files are 1.0 MB (vocab.json) and 0.46 MB (merges.txt); a
 * vocabulary 100 times larger still fits. cJSON takes some 60 bytes a
 * value, so the limit also bounds what a hostile file costs to refuse. */
#define TOKENIZER_FILE_MAX (128u << 20)

#define BAD(...) svk_error(NULL, SVK_ERROR_INVALID_ARG, __VA_ARGS__)
#define NO_MEMORY(what) svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading %s", what)

/* FNV-1a: short keys, and no hostile input can cost more than the file's
 * size in probes per key. */
static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

/* A power of two at least twice n: probes stay short at half full. */
static uint32_t slots_for(uint64_t n)
{
    uint32_t s = 16;
    while (s < 2 * n)
        s *= 2;
    return s;
}

/* The id of the token whose text is s[0 .. n), or -1. */
static int32_t find_text(const svk_tokenizer *t, const char *s, size_t n)
{
    for (uint64_t i = text_hash(s, n);; i++) {
        const int32_t id = t->by_text[i & t->text_mask];
        if (id < 0)
            return -1;
        const char *x = t->texts + t->tokens[id].text;
        if (strnlen(x, n + 1) == n && memcmp(x, s, n) == 0)
            return id;
    }
}

/* The bytes a token's text stands for, appended at t->bytes + *used;
 * BPE_UNDECODABLE if a character stands for none (or is not UTF-8). */
static uint32_t text_bytes(svk_tokenizer *t, const char *s, uint32_t *used)
{
    const uint32_t start = *used;
    for (size_t i = 0; s[i];) {
        const uint8_t b = (uint8_t)s[i];
        uint32_t c = b;
        size_t n = 1;
        /* GPT-2's characters are all below U+0144: one or two bytes. */
        if (b >= 0x80) {
            if ((b & 0xE0) != 0xC0 || ((uint8_t)s[i + 1] & 0xC0) != 0x80)
                return (*used = start), BPE_UNDECODABLE;
            c = (uint32_t)(b & 0x1F) << 6 | ((uint8_t)s[i + 1] & 0x3F);
            n = 2;
        }
        const int byte = c >= 0x80 || n == 1 ? svk_char_to_byte(c) : -1; /* no overlong forms */
        if (byte < 0)
            return (*used = start), BPE_UNDECODABLE;
        t->bytes[(*used)++] = (uint8_t)byte;
        i += n;
    }
    return *used - start;
}

static svk_status read_text(const char *path, char **data, size_t *size)
{
    svk_status st = svk_file_read(NULL, NULL, path, TOKENIZER_FILE_MAX, (void **)data, size);
    if (st == SVK_OK)
        (*data)[*size] = '\0'; /* svk_file_read's spare byte */
    return st;
}

static svk_status fill_vocab(svk_tokenizer *t, const char *path, const cJSON *o, uint32_t n)
{
    size_t text_size = 0;
    for (const cJSON *it = o->child; it; it = it->next)
        text_size += strlen(it->string) + 1;
    t->n_tokens = n;
    t->text_mask = slots_for(n) - 1;
    t->tokens = svk_malloc((size_t)n * sizeof(*t->tokens));
    t->texts = svk_malloc(text_size);
    t->bytes = svk_malloc(text_size); /* a token has no more bytes than its text */
    t->by_text = svk_malloc((size_t)(t->text_mask + 1) * sizeof(*t->by_text));
    if (!t->tokens || !t->texts || !t->bytes || !t->by_text)
        return NO_MEMORY(path);
    memset(t->by_text, 0xFF, (size_t)(t->text_mask + 1) * sizeof(*t->by_text));
    for (uint32_t i = 0; i < n; i++)
        t->tokens[i].text = UINT32_MAX;
    uint32_t text_used = 0, bytes_used = 0;
    for (const cJSON *it = o->child; it; it = it->next) {
        const char *key = it->string;
        if (!cJSON_IsNumber(it))
            return BAD("%s: \"%.80s\" has no number for its id", path, key);
        const double v = it->valuedouble;
        if (!(v >= 0 && v < n && v == floor(v)))
            return BAD("%s: \"%.80s\" has id %.17g; the ids must number the %u tokens 0..%u, each once", path, key,
                       v, n, n - 1);
        const int32_t id = (int32_t)v;
        if (t->tokens[id].text != UINT32_MAX)
            return BAD("%s: id %d is given to both \"%.80s\" and \"%.80s\"", path, id,
                       t->texts + t->tokens[id].text, key);
        const size_t len = strlen(key);
        if (find_text(t, key, len) >= 0)
            return BAD("%s: \"%.80s\" is given twice", path, key);
        bpe_token *tok = &t->tokens[id];
        tok->text = text_used;
        memcpy(t->texts + text_used, key, len + 1);
        text_used += (uint32_t)len + 1;
        tok->bytes = bytes_used;
        tok->n_bytes = text_bytes(t, key, &bytes_used);
        uint64_t i = text_hash(key, len);
        while (t->by_text[i & t->text_mask] >= 0)
            i++;
        t->by_text[i & t->text_mask] = id;
    }
    return SVK_OK;
}

static svk_status load_vocab(svk_tokenizer *t, const char *path)
{
    char *data;
    size_t size;
    svk_status st = read_text(path, &data, &size);
    if (st != SVK_OK)
        return st;
    /* cJSON wants the terminator inside the length it is given, and would
     * stop at a NUL byte inside the file as at the end. */
    const char *nul = memchr(data, '\0', size), *end = NULL;
    cJSON *o = nul ? NULL : cJSON_ParseWithLengthOpts(data, size + 1, &end, true);
    if (nul) {
        st = BAD("%s: not JSON text (a NUL byte at byte %zu)", path, (size_t)(nul - data));
    } else if (!o) {
        st = BAD("%s: not JSON (the parser stopped at byte %zu of %zu)", path, end ? (size_t)(end - data) : 0, size);
    } else if (!cJSON_IsObject(o)) {
        st = BAD("%s: not a JSON object of tokens and their ids", path);
    } else {
        uint64_t n = 0;
        for (const cJSON *it = o->child; it; it = it->next)
            n++;
        if (n == 0)
            st = BAD("%s: holds no tokens", path);
        else
            st = fill_vocab(t, path, o, (uint32_t)n); /* the file's size bounds n far below 2^31 */
    }
    cJSON_Delete(o);
    free(data);
    return st;
}

/* Adds a merge; a pair given again takes the later rank, as the dict
 * GPT-2's encoder builds from the list does. */
static void add_merge(svk_tokenizer *t, int32_t left, int32_t right, int32_t result, uint32_t rank)
{
    const uint64_t pair = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    uint64_t i = bpe_mix(pair);
    while (t->merges[i & t->merge_mask].pair != BPE_FREE && t->merges[i & t->merge_mask].pair != pair)
        i++;
    t->merges[i & t->merge_mask] = (bpe_merge){.pair = pair, .rank = rank, .result = result};
}

/* One line, "left right", with its number for messages. */
static svk_status parse_merge(svk_tokenizer *t, const char *path, const char *vocab_path, uint32_t line_no,
                              const char *p, size_t len, char *cat, uint32_t rank)
{
    const char *sp = memchr(p, ' ', len);
    if (!sp || sp == p || sp == p + len - 1 || memchr(sp + 1, ' ', (size_t)(p + len - sp - 1)))
        return BAD("%s line %u: \"%.*s\" is not two tokens with one space between them", path, line_no,
                   (int)(len < 80 ? len : 80), p);
    const size_t nl = (size_t)(sp - p), nr = len - nl - 1;
    const int32_t left = find_text(t, p, nl), right = find_text(t, sp + 1, nr);
    if (left < 0 || right < 0) {
        const char *bad = left < 0 ? p : sp + 1;
        const size_t n = left < 0 ? nl : nr;
        return BAD("%s line %u: \"%.*s\" is not in %s", path, line_no, (int)(n < 80 ? n : 80), bad, vocab_path);
    }
    memcpy(cat, p, nl);
    memcpy(cat + nl, sp + 1, nr);
    const int32_t result = find_text(t, cat, nl + nr);
    if (result < 0)
        return BAD("%s line %u: \"%.*s\" (the merge of \"%.*s\" and \"%.*s\") is not in %s", path, line_no,
                   (int)(nl + nr < 80 ? nl + nr : 80), cat, (int)(nl < 80 ? nl : 80), p, (int)(nr < 80 ? nr : 80),
                   sp + 1, vocab_path);
    add_merge(t, left, right, result, rank);
    return SVK_OK;
}

static svk_status load_merges(svk_tokenizer *t, const char *path, const char *vocab_path)
{
    char *data;
    size_t size;
    svk_status st = read_text(path, &data, &size);
    if (st != SVK_OK)
        return st;
    uint64_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    t->merge_mask = slots_for(lines) - 1;
    t->merges = svk_malloc((size_t)(t->merge_mask + 1) * sizeof(*t->merges));
    char *cat = svk_malloc(size + 1); /* a merge's concatenation, for its lookup */
    if (!t->merges || !cat) {
        free(cat);
        free(data);
        return NO_MEMORY(path);
    }
    for (uint32_t i = 0; i <= t->merge_mask; i++)
        t->merges[i].pair = BPE_FREE;
    uint32_t line_no = 0, rank = 0;
    for (size_t pos = 0; pos < size && st == SVK_OK;) {
        const char *p = data + pos, *eol = memchr(p, '\n', size - pos);
        size_t len = eol ? (size_t)(eol - p) : size - pos;
        pos += len + 1;
        line_no++;
        if (len && p[len - 1] == '\r')
            len--;
        if (len == 0 || (line_no == 1 && len >= 8 && !memcmp(p, "#version", 8)))
            continue;
        st = parse_merge(t, path, vocab_path, line_no, p, len, cat, rank++);
    }
    free(cat);
    free(data);
    return st;
}

svk_status svk_tokenizer_open(const char *vocab_path, const char *merges_path, svk_tokenizer **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PATH(NULL, vocab_path);
    SVK_CHECK_PATH(NULL, merges_path);
    svk_tokenizer *t = svk_calloc(1, sizeof(*t));
    if (!t)
        return NO_MEMORY(vocab_path);
    svk_status st = load_vocab(t, vocab_path);
    if (st == SVK_OK)
        st = load_merges(t, merges_path, vocab_path);
    if (st != SVK_OK) {
        svk_tokenizer_destroy(&t);
        return st;
    }
    for (int b = 0; b < 256; b++) {
        char c[2];
        t->byte_token[b] = find_text(t, c, svk_byte_char_utf8((uint8_t)b, c));
    }
    *out = t;
    return SVK_OK;
}

svk_status svk_tokenizer_open_dir(const char *dir, svk_tokenizer **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PATH(NULL, dir);
    const size_t n = strlen(dir);
    char *vocab = svk_malloc(n + sizeof("/vocab.json")), *merges = svk_malloc(n + sizeof("/merges.txt"));
    svk_status st = SVK_ERROR_OUT_OF_HOST_MEMORY;
    if (vocab && merges) {
        snprintf(vocab, n + sizeof("/vocab.json"), "%s/vocab.json", dir);
        snprintf(merges, n + sizeof("/merges.txt"), "%s/merges.txt", dir);
        st = svk_tokenizer_open(vocab, merges, out);
    } else {
        NO_MEMORY(dir);
    }
    free(vocab);
    free(merges);
    return st;
}

void svk_tokenizer_destroy(svk_tokenizer **tok)
{
    if (!tok || !*tok)
        return;
    svk_tokenizer *t = *tok;
    free(t->tokens);
    free(t->texts);
    free(t->bytes);
    free(t->by_text);
    free(t->merges);
    free(t);
    *tok = NULL;
}

svk_status svk_tokenizer_vocab_size(const svk_tokenizer *tok, uint32_t *size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, tok);
    SVK_CHECK_PTR(NULL, size);
    *size = tok->n_tokens;
    return SVK_OK;
}

svk_status svk_tokenizer_token_id(const svk_tokenizer *tok, const char *token, int32_t *id)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, tok);
    SVK_CHECK_PTR(NULL, token);
    SVK_CHECK_PTR(NULL, id);
    *id = find_text(tok, token, strlen(token));
    if (*id < 0)
        return BAD("svk_tokenizer_token_id: \"%.80s\" is not in the vocabulary", token);
    return SVK_OK;
}
