/*
 * GPT-2's tokenizer (svk/tokenizer.h) on vocabularies made here, in a
 * temporary directory: the 256 byte tokens (id = the byte) and the results
 * of a few merges chosen so that each rule of the pre-tokenisation pattern
 * and of the merge order shows in the tokens. Known segmentations, worked
 * out by hand from GPT-2's rules (each case says why); random byte strings,
 * UTF-8 or not, decode back to themselves; random texts encode as a plain
 * implementation of GPT-2's merge loop, written here, encodes them; every
 * refusal (a missing or corrupt file, a merge naming a token the vocabulary
 * lacks, a byte with no token, a token or capacity out of range) names what
 * is wrong, and so does each host allocation failing in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "svk/tokenizer.h"
#include "test_util.h"
#include "text/pretokenize.h"

enum { MAX_TOKENS = 1024, MAX_TEXT = 64 };

static char dir[] = "/tmp/svk-tokenizer-XXXXXX";

/* GPT-2's character for a byte, in UTF-8 (the table this test checks the
 * library's against, written from the rule rather than shared). */
static size_t byte_char(uint8_t b, char *out)
{
    const bool prints = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    unsigned c = b;
    if (!prints) {
        unsigned n = 0;
        for (unsigned x = 0; x < b; x++)
            n += !((x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE);
        c = 256 + n;
    }
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    out[0] = (char)(0xC0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
}

/* A vocabulary: the byte tokens (unless leave_out_byte >= 0 names one to
 * omit), then extra tokens in order. Texts are GPT-2's characters. */
typedef struct vocab {
    char text[MAX_TOKENS][MAX_TEXT];
    int n;
} vocab;

static void vocab_bytes(vocab *v, int leave_out_byte)
{
    v->n = 0;
    for (int b = 0; b < 256; b++) {
        size_t k = byte_char((uint8_t)b, v->text[b]);
        v->text[b][k] = '\0';
    }
    v->n = 256;
    if (leave_out_byte >= 0) /* the last byte token takes its place, so ids stay 0..n-1 */
        memcpy(v->text[leave_out_byte], v->text[--v->n], MAX_TEXT);
}

static int vocab_find(const vocab *v, const char *s)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->text[i], s))
            return i;
    return -1;
}

static void vocab_add(vocab *v, const char *s)
{
    if (vocab_find(v, s) < 0 && v->n < MAX_TOKENS)
        snprintf(v->text[v->n++], MAX_TEXT, "%s", s);
}

/* a then b into out; false (out empty) if they do not fit. */
static bool concat(char out[MAX_TEXT], const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    out[0] = '\0';
    if (na + nb >= MAX_TEXT)
        return false;
    memcpy(out, a, na);
    memcpy(out + na, b, nb + 1);
    return true;
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(text, 1, strlen(text), f) == strlen(text);
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* vocab.json: {"text": id, ...}, quotes and backslashes escaped. */
static bool write_vocab(const char *path, const vocab *v)
{
    size_t cap = (size_t)v->n * (2 * MAX_TEXT + 16) + 4, len = 0;
    char *json = malloc(cap);
    if (!json)
        return false;
    json[len++] = '{';
    for (int i = 0; i < v->n; i++) {
        len += (size_t)snprintf(json + len, cap - len, "%s\n\"", i ? "," : "");
        for (const char *c = v->text[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                json[len++] = '\\';
            json[len++] = *c;
        }
        len += (size_t)snprintf(json + len, cap - len, "\": %d", i);
    }
    snprintf(json + len, cap - len, "}\n");
    bool ok = write_file(path, json);
    free(json);
    return ok;
}

static char vocab_path[64], merges_path[64];

/* Writes v and merges (text as merges.txt holds it) and opens them. */
static svk_tokenizer *open_made(tu_tally *t, const char *what, const vocab *v, const char *merges)
{
    snprintf(vocab_path, sizeof(vocab_path), "%s/vocab.json", dir);
    snprintf(merges_path, sizeof(merges_path), "%s/merges.txt", dir);
    svk_tokenizer *tok = NULL;
    if (!write_vocab(vocab_path, v) || !write_file(merges_path, merges)) {
        tu_check(t, false, "%s: writing the files", what);
        return NULL;
    }
    if (svk_tokenizer_open_dir(dir, &tok) != SVK_OK)
        tu_check(t, false, "%s: open: %s", what, svk_last_error());
    return tok;
}

/* ---- known segmentations -------------------------------------------------- */

/* The merges of the known cases, lowest rank first, with "#version" and a
 * CRLF line and an empty one, which are skipped. */
static const char *const known_merges[][2] = {
    {"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}, {"'", "s"}, {"Ġ", "Ġ"}, {"1", "2"}, {"!", "!"}, {"Ċ", "Ċ"},
    {"a", "a"}, {"l", "l"}, {"'", "ll"}, {"c", "a"}, {"Ġ", "ca"}, {"Ġca", "t"}, {"ĠĠ", "ĠĠ"}, {"Ġ", "12"},
    {"a", "b"}, {"b", "c"}, {"\"", "\\"},
};
enum { N_KNOWN_MERGES = sizeof(known_merges) / sizeof(known_merges[0]) };

typedef struct known_case {
    const char *why, *text;
    const char *tokens[16]; /* their texts, NULL after the last */
} known_case;

static const known_case known[] = {
    {"a merge applies inside a word, leading-space words merge their space", "the cat's",
     {"t", "he", "Ġcat", "'s"}},
    {"the lowest rank first: Ġ t (0) before h e (1), then Ġt he (2)", " the", {"Ġthe"}},
    {"contraction 'll is its own piece, l l (9) before ' ll (10)", "we'll", {"w", "e", "'ll"}},
    {"contractions are case-sensitive: 'S is punctuation then a word", "'S", {"'", "S"}},
    {"'s is cut wherever it is, with no word boundary", "'sx", {"'s", "x"}},
    {"a space before an apostrophe joins the punctuation run, not the contraction", "a 's", {"a", "Ġ", "'", "s"}},
    {"a run of spaces before a word leaves its last space to the word", "a   cat", {"a", "ĠĠ", "Ġcat"}},
    {"spaces at the end stay one piece", "a    ", {"a", "ĠĠĠĠ"}},
    {"numbers are pieces apart from letters, with their leading space", "x 12 123", {"x", "Ġ12", "Ġ12", "3"}},
    {"letters then numbers: two pieces; a b (16) before b c (17)", "abc123", {"ab", "c", "12", "3"}},
    {"punctuation runs; ! ! merges left to right: !! then !", "hi!!! ?", {"h", "i", "!!", "!", "Ġ", "?"}},
    {"two newlines before a word: one each (the run leaves its last)", "a\n\nb", {"a", "Ċ", "Ċ", "b"}},
    {"three newlines before a word: two, then one", "a\n\n\nb", {"a", "ĊĊ", "Ċ", "b"}},
    {"newlines at the end stay one piece", "a\n\n", {"a", "ĊĊ"}},
    {"a tab is whitespace of its own before a word, not a space to join it", "a\tb", {"a", "ĉ", "b"}},
    {"a space then a newline before a word: the space alone, then the newline", "a \nb", {"a", "Ġ", "Ċ", "b"}},
    {"a a overlapping: merged left to right, not the last pair", "aaa", {"aa", "a"}},
    {"a non-ASCII letter is a letter: one piece, its two bytes two tokens", " héllo",
     {"Ġ", "h", "Ã", "©", "ll", "o"}},
    {"an Arabic-Indic digit is a number: a piece apart from the letter", "x\xd9\xa3", {"x", "Ù", "£"}},
    {"a no-break space (U+00A0) is whitespace, not the space that joins a word", "a\xc2\xa0" "b",
     {"a", "Â", "ł", "b"}},
    {"bytes that are not UTF-8 are punctuation: their own piece", "a\xff b", {"a", "ÿ", "Ġ", "b"}},
    {"a truncated UTF-8 sequence: each byte punctuation", "\xe4\xb8" "a", {"ä", "¸", "a"}},
    {"<|endoftext|> in text is plain text", "<|endoftext|>",      {"<", "|", "e", "n", "d", "o", "f", "t", "e", "x", "t", "|", ">"}},
    {"quote and backslash tokens (escaped in vocab.json) merge", "\"\\", {"\"\\"}},
};

static void known_segmentations(tu_tally *t)
{
    vocab *v = calloc(1, sizeof(*v));
    char *merges = calloc(1, 64 * 1024);
    if (!v || !merges) {
        tu_check(t, false, "known: out of memory");
        goto done;
    }
    vocab_bytes(v, -1);
    size_t len = (size_t)snprintf(merges, 64 * 1024, "#version: 0.2\n");
    for (int i = 0; i < N_KNOWN_MERGES; i++) {
        char cat[MAX_TEXT];
        concat(cat, known_merges[i][0], known_merges[i][1]);
        vocab_add(v, cat);
        len += (size_t)snprintf(merges + len, 64 * 1024 - len, "%s %s%s", known_merges[i][0], known_merges[i][1],
                                i == 3 ? "\r\n\n" : "\n");
    }
    /* A token no merge makes: in the vocabulary, never produced. */
    vocab_add(v, "<|endoftext|>");
    svk_tokenizer *tok = open_made(t, "known", v, merges);
    if (!tok)
        goto done;
    uint32_t size = 0;
    svk_status st = svk_tokenizer_vocab_size(tok, &size);
    tu_check(t, st == SVK_OK && size == (uint32_t)v->n, "vocab size %u is the %d tokens written", size, v->n);
    int32_t eot = -1;
    st = svk_tokenizer_token_id(tok, "<|endoftext|>", &eot);
    tu_check(t, st == SVK_OK && eot == v->n - 1, "<|endoftext|> has its id %d (%d)", v->n - 1, eot);
    for (size_t c = 0; c < sizeof(known) / sizeof(known[0]); c++) {
        const known_case *k = &known[c];
        int32_t want[16], got[MAX_TEXT];
        size_t n_want = 0, n_got = 0;
        bool ids = true;
        for (; n_want < 16 && k->tokens[n_want]; n_want++)
            ids = ids && svk_tokenizer_token_id(tok, k->tokens[n_want], &want[n_want]) == SVK_OK;
        st = svk_tokenizer_encode(tok, k->text, strlen(k->text), got, MAX_TEXT, &n_got);
        bool same = ids && st == SVK_OK && n_got == n_want;
        for (size_t i = 0; same && i < n_want; i++)
            same = got[i] == want[i];
        char line[256] = "";
        for (size_t i = 0, at = 0; i < n_got && at < sizeof(line) - 16; i++)
            at += (size_t)snprintf(line + at, sizeof(line) - at, " %d", got[i]);
        tu_check(t, same, "known: %s (got%s%s)", k->why, line, st == SVK_OK ? "" : svk_last_error());
        char back[MAX_TEXT];
        size_t n_back = 0;
        tu_check(t, svk_tokenizer_decode(tok, got, n_got, back, sizeof(back), &n_back) == SVK_OK &&
                        n_back == strlen(k->text) && !memcmp(back, k->text, n_back),
                 "known: decodes back: %s", k->why);
    }
    svk_tokenizer_destroy(&tok);
    tu_check(t, tok == NULL, "destroy sets the handle to NULL");
    svk_tokenizer_destroy(&tok);
    svk_tokenizer_destroy(NULL);
done:
    free(v);
    free(merges);
}

/* ---- random texts --------------------------------------------------------- */

/* A random text: runs of letters, digits, spaces, newlines, apostrophes,
 * UTF-8 letters and raw bytes of any value. */
static size_t random_text(uint64_t *rng, char *s, size_t max)
{
    static const char *const parts[] = {"a", "b", "c", "l", " ", " ", "  ", "\n", "'", "'s", "!", "1", "2", "\t",
                                        "\xc3\xa9", "\xe4\xb8\xad", "\xd9\xa3", "\xf0\x9f\x98\x80", "\xc2\xa0"};
    const size_t want = svk_splitmix64(rng) % max;
    size_t n = 0;
    while (n < want) {
        const uint64_t r = svk_splitmix64(rng);
        if (r % 8 == 0) { /* any byte, valid UTF-8 or not */
            s[n++] = (char)(r >> 8);
            continue;
        }
        const char *p = parts[(r >> 8) % (sizeof(parts) / sizeof(parts[0]))];
        const size_t k = strlen(p);
        if (n + k > max)
            break;
        memcpy(s + n, p, k);
        n += k;
    }
    return n;
}

static void round_trips(tu_tally *t, uint64_t seed)
{
    vocab *v = calloc(1, sizeof(*v));
    if (!v) {
        tu_check(t, false, "round trips: out of memory");
        return;
    }
    vocab_bytes(v, -1);
    /* Merges over the characters random_text uses most, at random. */
    static const char *const base[] = {"a", "b", "c", "l", "Ġ", "Ċ", "'", "s", "!", "1"};
    char merges[16384];
    size_t len = 0;
    uint64_t rng = seed;
    for (int i = 0; i < 80 && v->n < MAX_TOKENS; i++) {
        /* The left a base character or, one time in three, a merge's result. */
        const char *l = v->n > 256 && svk_splitmix64(&rng) % 3 == 0
                            ? v->text[256 + svk_splitmix64(&rng) % (uint64_t)(v->n - 256)]
                            : base[svk_splitmix64(&rng) % 10];
        const char *r = base[svk_splitmix64(&rng) % 10];
        char cat[MAX_TEXT];
        if (!concat(cat, l, r))
            continue;
        len += (size_t)snprintf(merges + len, sizeof(merges) - len, "%s %s\n", l, r);
        vocab_add(v, cat);
    }
    svk_tokenizer *tok = open_made(t, "round trips", v, merges);
    free(v);
    if (!tok)
        return;
    enum { TEXT = 600, CASES = 400 };
    char text[TEXT], back[TEXT];
    int32_t ids[TEXT];
    int bad = 0;
    rng = seed ^ 0x5eedull;
    for (int c = 0; c < CASES && bad < 3; c++) {
        const size_t n = random_text(&rng, text, TEXT);
        size_t n_ids = 0, n_back = 0, counted = 0;
        svk_status st = svk_tokenizer_encode(tok, text, n, ids, n, &n_ids);
        if (st == SVK_OK)
            st = svk_tokenizer_encode(tok, text, n, NULL, 0, &counted);
        if (st == SVK_OK)
            st = svk_tokenizer_decode(tok, ids, n_ids, back, sizeof(back), &n_back);
        if (st != SVK_OK || n_back != n || memcmp(back, text, n) || counted != n_ids || n_ids > n) {
            tu_check(t, false, "round trip %d (%zu bytes, %zu tokens, %zu counted): %s", c, n, n_ids, counted,
                     st == SVK_OK ? "decoded to other bytes" : svk_last_error());
            bad++;
        }
    }
    if (!bad)
        tu_check(t, true, "%d random texts (any bytes) decode back to themselves", CASES);
    svk_tokenizer_destroy(&tok);
}

/* GPT-2's merge loop as written there, over one piece: find the pair of
 * lowest rank, merge its every occurrence from the left, repeat. Quadratic,
 * plain, independent of the library's heap. */
typedef struct merge_rule {
    int32_t left, right, result;
} merge_rule;

static size_t plain_bpe(const merge_rule *rules, int n_rules, int32_t *w, size_t n)
{
    for (;;) {
        int best = -1;
        for (size_t i = 0; i + 1 < n; i++)
            for (int r = 0; r < n_rules && (best < 0 || r < best); r++)
                if (rules[r].left == w[i] && rules[r].right == w[i + 1])
                    best = r;
        if (best < 0)
            return n;
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            if (i + 1 < n && w[i] == rules[best].left && w[i + 1] == rules[best].right) {
                w[o++] = rules[best].result;
                i++;
            } else {
                w[o++] = w[i];
            }
        }
        n = o;
    }
}

static void against_plain(tu_tally *t, uint64_t seed)
{
    vocab *v = calloc(1, sizeof(*v));
    merge_rule *rules = calloc(200, sizeof(*rules));
    char *merges = calloc(1, 16384);
    if (!v || !rules || !merges) {
        tu_check(t, false, "plain: out of memory");
        goto done;
    }
    vocab_bytes(v, -1);
    /* A small alphabet, so merges chain and compete: "a", "b", " ", "!". */
    int cand[200] = {'a', 'b', ' ', '!'}; /* byte tokens' ids are the bytes */
    int n_cand = 4, n_rules = 0;
    size_t len = 0;
    uint64_t rng = seed ^ 0xb9eull;
    while (n_rules < 60) {
        const int l = cand[svk_splitmix64(&rng) % (uint64_t)n_cand], r = cand[svk_splitmix64(&rng) % (uint64_t)n_cand];
        char cat[MAX_TEXT];
        if (!concat(cat, v->text[l], v->text[r]))
            continue;
        const int before = v->n;
        vocab_add(v, cat);
        const int res = vocab_find(v, cat);
        if (v->n > before && n_cand < 200)
            cand[n_cand++] = res;
        rules[n_rules++] = (merge_rule){l, r, res};
    }
    /* In any order: a merge may then come before the merges that make its
     * tokens, and a pair a pass creates may rank below the pass's own,
     * which a merges.txt from training never shows. */
    for (int i = n_rules - 1; i > 0; i--) {
        const int j = (int)(svk_splitmix64(&rng) % (uint64_t)(i + 1));
        const merge_rule x = rules[i];
        rules[i] = rules[j];
        rules[j] = x;
    }
    for (int i = 0; i < n_rules; i++) {
        len += (size_t)snprintf(merges + len, 16384 - len, "%s %s\n", v->text[rules[i].left], v->text[rules[i].right]);
        /* A pair given twice takes its later rank: the earlier rule is
         * dropped from the plain list, as GPT-2's dict overwrites it. */
        for (int k = 0; k < i; k++)
            if (rules[k].left == rules[i].left && rules[k].right == rules[i].right)
                rules[k].left = -1;
    }
    svk_tokenizer *tok = open_made(t, "plain", v, merges);
    if (!tok)
        goto done;
    int bad = 0;
    enum { CASES = 300, TEXT = 80 };
    for (int c = 0; c < CASES && bad < 3; c++) {
        char text[TEXT];
        const size_t n = 1 + svk_splitmix64(&rng) % (TEXT - 1);
        for (size_t i = 0; i < n; i++)
            text[i] = "aaab !"[svk_splitmix64(&rng) % 6];
        int32_t got[TEXT], want[TEXT];
        size_t n_got = 0, n_want = 0;
        svk_status st = svk_tokenizer_encode(tok, text, n, got, TEXT, &n_got);
        for (size_t pos = 0; pos < n;) {
            const size_t k = svk_pretokenize_next((const uint8_t *)text, n, pos);
            int32_t w[TEXT];
            for (size_t i = 0; i < k; i++)
                w[i] = (uint8_t)text[pos + i];
            const size_t m = plain_bpe(rules, n_rules, w, k);
            memcpy(want + n_want, w, m * sizeof(*w));
            n_want += m;
            pos += k;
        }
        bool same = st == SVK_OK && n_got == n_want && !memcmp(got, want, n_want * sizeof(*got));
        if (!same) {
            tu_check(t, false, "plain: text %d \"%.*s\": %zu tokens, the plain loop %zu (%s)", c, (int)n, text, n_got,
                     n_want, st == SVK_OK ? "different tokens" : svk_last_error());
            bad++;
        }
    }
    if (!bad)
        tu_check(t, true, "%d random texts encode as GPT-2's plain merge loop does (%d merges, repeats included)",
                 CASES, n_rules);
    svk_tokenizer_destroy(&tok);
done:
    free(v);
    free(rules);
    free(merges);
}

/* ---- refusals ------------------------------------------------------------- */

static void expect(tu_tally *t, svk_status st, svk_status want, const char *needle, const char *what)
{
    const char *msg = svk_last_error();
    tu_check(t, st == want && strstr(msg, needle) != NULL, "refused: %s: %s, \"%s\" (want %s naming \"%s\")", what,
             svk_status_string(st), msg, svk_status_string(want), needle);
}

static void refusals(tu_tally *t)
{
    vocab *v = calloc(1, sizeof(*v));
    if (!v) {
        tu_check(t, false, "refusals: out of memory");
        return;
    }
    svk_tokenizer *tok = (svk_tokenizer *)(uintptr_t)1;
    char missing[96];
    snprintf(missing, sizeof(missing), "%s/none/vocab.json", dir);
    expect(t, svk_tokenizer_open(missing, "x", &tok), SVK_ERROR_IO, missing, "a missing vocab.json");
    tu_check(t, tok == NULL, "a failed open leaves NULL");
    expect(t, svk_tokenizer_open_dir(NULL, &tok), SVK_ERROR_INVALID_ARG, "dir", "a NULL directory");
    expect(t, svk_tokenizer_open(NULL, "x", &tok), SVK_ERROR_INVALID_ARG, "vocab_path", "a NULL vocab path");
    expect(t, svk_tokenizer_open("x", "x", NULL), SVK_ERROR_INVALID_ARG, "out", "a NULL out");

    vocab_bytes(v, -1);
    vocab_add(v, "ab");
    tok = open_made(t, "good", v, "a b\n");
    svk_tokenizer_destroy(&tok);
    /* A merges.txt that is missing (the vocabulary is fine). */
    unlink(merges_path);
    expect(t, svk_tokenizer_open_dir(dir, &tok), SVK_ERROR_IO, "merges.txt", "a missing merges.txt");

    static const struct {
        const char *json, *needle, *what;
    } bad_json[] = {
        {"{\"a\": 0, \"b\": 1", "not JSON", "corrupt JSON (unclosed)"},
        {"{\"a\": 0} x", "not JSON", "text after the object"},
        {"[\"a\", \"b\"]", "not a JSON object", "an array"},
        {"{}", "no tokens", "an empty object"},
        {"{\"a\": 0, \"b\": 2}", "\"b\" has id 2", "an id past the count"},
        {"{\"a\": 0, \"b\": 0.5}", "\"b\" has id 0.5", "a fractional id"},
        {"{\"a\": \"0\"}", "no number", "an id that is a string"},
        {"{\"a\": 1, \"b\": 1}", "id 1 is given to both \"a\" and \"b\"", "an id given twice"},
        {"{\"a\": 0, \"a\": 1}", "\"a\" is given twice", "a token given twice"},
    };
    for (size_t i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
        write_file(vocab_path, bad_json[i].json);
        write_file(merges_path, "");
        expect(t, svk_tokenizer_open(vocab_path, merges_path, &tok), SVK_ERROR_INVALID_ARG, bad_json[i].needle,
               bad_json[i].what);
    }
    {
        FILE *f = fopen(vocab_path, "wb");
        if (f) {
            fwrite("{\"a\": 0}\0 x", 1, 11, f);
            fclose(f);
        }
        expect(t, svk_tokenizer_open(vocab_path, merges_path, &tok), SVK_ERROR_INVALID_ARG, "NUL byte at byte 8",
               "a NUL byte in vocab.json");
    }

    static const struct {
        const char *merges, *needle, *what;
    } bad_merges[] = {
        {"#version: 0.2\na b\nx xyz\n", "line 3: \"xyz\" is not in", "a merge naming a token not in the vocabulary"},
        {"a b\nb a\n", "line 2: \"ba\" (the merge of \"b\" and \"a\") is not in",
         "a merge whose result is not in the vocabulary"},
        {"a b\nab\n", "line 2: \"ab\" is not two tokens", "a line with one token"},
        {"a  b\n", "line 1: \"a  b\" is not two tokens", "two spaces"},
        {"a b c\n", "line 1: \"a b c\" is not two tokens", "three tokens"},
        {"#version: 0.2\n#version: 0.2\n", "line 2: \"#version:\" is not in",
         "#version past the first line"},
    };
    for (size_t i = 0; i < sizeof(bad_merges) / sizeof(bad_merges[0]); i++) {
        write_vocab(vocab_path, v);
        write_file(merges_path, bad_merges[i].merges);
        expect(t, svk_tokenizer_open(vocab_path, merges_path, &tok), SVK_ERROR_INVALID_ARG, bad_merges[i].needle,
               bad_merges[i].what);
        tu_check(t, strstr(svk_last_error(), merges_path) != NULL, "refused: %s: names %s", bad_merges[i].what,
                 merges_path);
    }

    /* A vocabulary without the newline's token: encoding a newline names it;
     * a token outside the byte map decodes to nothing: refused. */
    vocab_bytes(v, '\n');
    vocab_add(v, "\xe4\xb8\xad"); /* U+4E2D stands for no byte */
    tok = open_made(t, "no newline", v, "");
    if (tok) {
        int32_t ids[16];
        size_t n = 0;
        expect(t, svk_tokenizer_encode(tok, "ab\ncd", 5, ids, 16, &n), SVK_ERROR_INVALID_ARG,
               "byte 0x0a (at byte 2 of the text) has no token: \"Ċ\"", "a byte whose token is missing");
        int32_t zh = -1;
        tu_check(t, svk_tokenizer_token_id(tok, "\xe4\xb8\xad", &zh) == SVK_OK, "token_id of a non-byte token");
        char out[16];
        const int32_t odd[2] = {'a', zh};
        expect(t, svk_tokenizer_decode(tok, odd, 2, out, 16, &n), SVK_ERROR_INVALID_ARG,
               "tokens[1]), \"\xe4\xb8\xad\", holds a character", "decoding a token outside the byte map");
        const int32_t past[2] = {'a', v->n};
        expect(t, svk_tokenizer_decode(tok, past, 2, out, 16, &n), SVK_ERROR_INVALID_ARG, "token 256 (tokens[1])",
               "decoding an id past the vocabulary");
        const int32_t neg[1] = {-1};
        expect(t, svk_tokenizer_decode(tok, neg, 1, out, 16, &n), SVK_ERROR_INVALID_ARG, "token -1 (tokens[0])",
               "decoding a negative id");
        expect(t, svk_tokenizer_token_id(tok, "Ċ", &zh), SVK_ERROR_INVALID_ARG, "\"Ċ\" is not in the vocabulary",
               "token_id of a token not in the vocabulary");
        expect(t, svk_tokenizer_encode(tok, "abcd", 4, ids, 3, &n), SVK_ERROR_INVALID_ARG,
               "4 tokens, more than capacity=3", "an encode past its capacity");
        tu_check(t, n == 4, "an encode past its capacity still gives the count (%zu)", n);
        const int32_t abcd[4] = {'a', 'b', 'c', 'd'};
        expect(t, svk_tokenizer_decode(tok, abcd, 4, out, 3, &n), SVK_ERROR_INVALID_ARG,
               "4 bytes, more than capacity=3", "a decode past its capacity");
        tu_check(t, n == 4, "a decode past its capacity still gives the length (%zu)", n);
        tu_check(t, svk_tokenizer_decode(tok, abcd, 4, NULL, 0, &n) == SVK_OK && n == 4,
                 "decode with text NULL counts the bytes");
        expect(t, svk_tokenizer_encode(tok, NULL, 3, ids, 16, &n), SVK_ERROR_INVALID_ARG, "text || len == 0",
               "encode of NULL text");
        tu_check(t, svk_tokenizer_encode(tok, NULL, 0, ids, 16, &n) == SVK_OK && n == 0, "an empty text: no tokens");
        expect(t, svk_tokenizer_encode(NULL, "a", 1, ids, 16, &n), SVK_ERROR_INVALID_ARG, "tok is NULL",
               "encode without a tokenizer");
        svk_tokenizer_destroy(&tok);
    }

    /* A merge given twice takes its later rank: with "a b", "b c", "a b",
     * "abc" pairs b c (rank 1) before a b (now rank 2). */
    vocab_bytes(v, -1);
    vocab_add(v, "ab");
    vocab_add(v, "bc");
    tok = open_made(t, "repeated merge", v, "a b\nb c\na b\n");
    if (tok) {
        int32_t ids[4], want[2] = {'a', -1};
        size_t n = 0;
        svk_tokenizer_token_id(tok, "bc", &want[1]);
        tu_check(t, svk_tokenizer_encode(tok, "abc", 3, ids, 4, &n) == SVK_OK && n == 2 && ids[0] == want[0] &&
                        ids[1] == want[1],
                 "a merge given twice takes its later rank: abc is a + bc");
        svk_tokenizer_destroy(&tok);
    }
    /* A pair a pass makes waits for the next pass, even when it ranks
     * below the pass's own: with "ab a" (0) before "a b" (1), "abab" is
     * ab + ab, both merged in the pass of a b, not aba + b. */
    vocab_bytes(v, -1);
    vocab_add(v, "ab");
    vocab_add(v, "aba");
    tok = open_made(t, "pass order", v, "ab a\na b\n");
    if (tok) {
        int32_t ids[4], ab = -1;
        size_t n = 0;
        svk_tokenizer_token_id(tok, "ab", &ab);
        tu_check(t, svk_tokenizer_encode(tok, "abab", 4, ids, 4, &n) == SVK_OK && n == 2 && ids[0] == ab &&
                        ids[1] == ab,
                 "a pass merges every occurrence before the pairs it makes: abab is ab + ab");
        svk_tokenizer_destroy(&tok);
    }
    unlink(vocab_path);
    unlink(merges_path);
    free(v);
}

/* Every host allocation of an open, an encode and a decode fails in turn
 * (core/alloc.h's fault injection): each is reported as
 * SVK_ERROR_OUT_OF_HOST_MEMORY with a message, and leaks nothing (the
 * sanitizer build checks). cJSON's own allocations are not counted. */
static void allocation_failures(tu_tally *t)
{
    vocab *v = calloc(1, sizeof(*v));
    if (!v) {
        tu_check(t, false, "allocations: out of memory");
        return;
    }
    vocab_bytes(v, -1);
    vocab_add(v, "ab");
    svk_tokenizer *tok = open_made(t, "allocations", v, "a b\n");
    free(v);
    svk_tokenizer_destroy(&tok);
    static const char text[] = "ab abab a";
    int32_t ids[16];
    char back[16];
    int bad = 0;
    uint64_t k = 1;
    for (;; k++) {
        size_t n = 0, m = 0;
        svk_alloc_fault_arm(k);
        svk_status st = svk_tokenizer_open_dir(dir, &tok);
        if (st == SVK_OK)
            st = svk_tokenizer_encode(tok, text, sizeof(text) - 1, ids, 16, &n);
        if (st == SVK_OK)
            st = svk_tokenizer_decode(tok, ids, n, back, sizeof(back), &m);
        const bool fired = svk_alloc_fault_fired();
        svk_alloc_fault_arm(0);
        svk_tokenizer_destroy(&tok);
        if (!fired) {
            tu_check(t, st == SVK_OK && m == sizeof(text) - 1 && !memcmp(back, text, m),
                     "allocations: with none failing, the text round-trips");
            break;
        }
        if (st != SVK_ERROR_OUT_OF_HOST_MEMORY || !*svk_last_error()) {
            tu_check(t, false, "allocations: allocation %llu failing gives %s, \"%s\"", (unsigned long long)k,
                     svk_status_string(st), svk_last_error());
            bad++;
        }
    }
    if (!bad)
        tu_check(t, true, "allocations: each of the %llu allocations failing is SVK_ERROR_OUT_OF_HOST_MEMORY",
                 (unsigned long long)(k - 1));
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_tokenizer", &args);
    tu_tally t = {0, 0};
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (!args.filter || strstr("known", args.filter))
        known_segmentations(&t);
    if (!args.filter || strstr("round_trips", args.filter))
        round_trips(&t, args.seed);
    if (!args.filter || strstr("plain", args.filter))
        against_plain(&t, args.seed);
    if (!args.filter || strstr("refusals", args.filter))
        refusals(&t);
    if (!args.filter || strstr("allocations", args.filter))
        allocation_failures(&t);
    char path[96];
    snprintf(path, sizeof(path), "%s/vocab.json", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/merges.txt", dir);
    unlink(path);
    if (rmdir(dir) != 0)
        tu_check(&t, false, "%s left empty", dir);
    return tu_finish(&t);
}
