/*
 * Training data (svk/data.h): the addition task's batches are correct sums
 * (plain or reversed), carry loss on the answers only, never contain a
 * held-out problem and repeat per seed and position; text batches are windows of the file, in
 * random or sequential order, and resume from a saved position; raw token
 * files are read exactly. Both streams give the very batches of the code
 * they replaced (svk-train's runs and checkpoints depend on it): a hash of
 * their output is pinned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/data.h"
#include "test_util.h"

enum { B = 16, T = 64 };

/* FNV-1a over the bytes given, for the pinned streams. */
static void fnv(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= c[i];
        *h *= 1099511628211ull;
    }
}

/* A file of the given bytes under dir; false if it cannot be written. */
static bool write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(bytes, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* The held-out keys a * 1000 + b of a 3-digit task, for the leak check. */
static bool heldout_keys(const svk_addition *task, uint32_t n, uint64_t *keys)
{
    for (uint32_t i = 0; i < n; i++) {
        char prompt[SVK_ADDITION_TEXT_MAX], answer[SVK_ADDITION_TEXT_MAX];
        unsigned a, b;
        if (svk_addition_heldout(task, i, prompt, sizeof(prompt), answer, sizeof(answer)) != SVK_OK ||
            sscanf(prompt, "%u+%u=", &a, &b) != 2)
            return false;
        keys[i] = (uint64_t)a * 1000 + b;
    }
    return true;
}

/* c's digits as written in the answer format given, into a number. */
static unsigned answer_value(const char *digits, svk_addition_answer order)
{
    unsigned v = 0;
    const size_t n = strlen(digits);
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (unsigned)(digits[order == SVK_ADDITION_ANSWER_REVERSED ? n - 1 - i : i] - '0');
    return v;
}

/* An operand's text as the format writes it: 3 digits when padded, else
 * no leading zero (but "0"). */
static bool operand_ok(const char *x, svk_addition_operands operands)
{
    return operands == SVK_ADDITION_OPERANDS_PADDED ? strlen(x) == 3 : x[0] != '0' || !x[1];
}

static void addition_batches(tu_tally *t, uint64_t seed, svk_addition_answer order, svk_addition_operands operands)
{
    static int32_t tok[B * T], tgt[B * T];
    enum { HELD = 200 };
    char format[48];
    snprintf(format, sizeof(format), "%s operands, %s answers",
             operands == SVK_ADDITION_OPERANDS_PADDED ? "padded" : "plain",
             order == SVK_ADDITION_ANSWER_REVERSED ? "reversed" : "plain");
    svk_addition_params p = svk_addition_params_default();
    p.digits = 3;
    p.heldout = HELD;
    p.seed = seed;
    p.answer = order;
    p.operands = operands;
    svk_addition *task = NULL;
    svk_status st = svk_addition_create(&p, &task);
    tu_check(t, st == SVK_OK, "addition task with 200 held-out problems, %s: %s", format, st ? svk_last_error() : "");
    if (st != SVK_OK)
        return;
    uint64_t held[HELD];
    tu_check(t, heldout_keys(task, HELD, held), "the held-out problems read back");
    bool sorted = true;
    for (int i = 1; i < HELD; i++)
        sorted = sorted && held[i - 1] < held[i];
    tu_check(t, sorted, "held-out problems distinct, in increasing order of (a, b)");
    int bad_sum = 0, bad_target = 0, leaked = 0, problems = 0, loss_positions = 0;
    for (int batch = 0; batch < 50; batch++) {
        if (svk_addition_batch(task, B, T, tok, tgt) != SVK_OK)
            break;
        for (int r = 0; r < B; r++) {
            const int32_t *x = tok + r * T, *y = tgt + r * T;
            for (int i = 0; i < T; i++) {
                if (y[i] != -1 && (i + 1 >= T ? false : y[i] != x[i + 1]))
                    bad_target++;
                loss_positions += y[i] != -1;
            }
            /* Parse the row's text: "a+b=c\n" repeated, then '\n' padding. */
            char row[T + 1];
            for (int i = 0; i < T; i++)
                row[i] = (char)x[i];
            row[T] = '\0';
            const char *q = row;
            char ta[16], tb[16], c[16];
            int used;
            /* (%n after the number: a '\n' in the format would also eat the padding) */
            while (sscanf(q, "%15[0-9]+%15[0-9]=%15[0-9]%n", ta, tb, c, &used) == 3 && q[used] == '\n') {
                used++;
                problems++;
                const unsigned a = (unsigned)strtoul(ta, NULL, 10), b = (unsigned)strtoul(tb, NULL, 10);
                /* A reversed answer's last digit is c's first, never 0
                 * unless c is 0; a plain one's first likewise. */
                const size_t lc = strlen(c);
                if (a + b != answer_value(c, order) ||
                    (lc > 1 && c[order == SVK_ADDITION_ANSWER_REVERSED ? lc - 1 : 0] == '0') ||
                    !operand_ok(ta, operands) || !operand_ok(tb, operands))
                    bad_sum++;
                for (int h = 0; h < HELD; h++)
                    leaked += held[h] == (uint64_t)a * 1000 + b;
                /* Loss exactly on "c\n": the targets of the positions before them. */
                const char *eq = strchr(q, '=');
                int start = (int)(eq - row), end = (int)(q - row) + used - 1;
                for (int i = (int)(q - row); i < end; i++) {
                    bool want = i >= start;
                    if ((y[i] != -1) != want)
                        bad_target++;
                }
                q += used;
            }
        }
    }
    tu_check(t, problems > 1000 && bad_sum == 0, "%s: %d problems parsed, %d wrong sums or operands", format,
             problems, bad_sum);
    tu_check(t, bad_target == 0, "targets are next tokens, on answer digits and newline only (%d loss positions, %d bad)",
             loss_positions, bad_target);
    tu_check(t, leaked == 0, "no held-out problem in 50 training batches (%d leaked)", leaked);
    char prompt[SVK_ADDITION_TEXT_MAX], answer[SVK_ADDITION_TEXT_MAX];
    int wrong = 0;
    for (uint32_t i = 0; i < HELD; i++) {
        svk_addition_heldout(task, i, prompt, sizeof(prompt), answer, sizeof(answer));
        char ta[16], tb[16], c[16];
        wrong += !(sscanf(prompt, "%15[0-9]+%15[0-9]=", ta, tb) == 2 && operand_ok(ta, operands) &&
                   operand_ok(tb, operands) && sscanf(answer, "%15[0-9]", c) == 1 &&
                   strtoul(ta, NULL, 10) + strtoul(tb, NULL, 10) == answer_value(c, order) &&
                   strlen(c) + 1 == strlen(answer) && answer[strlen(answer) - 1] == '\n');
    }
    svk_addition_heldout(task, HELD - 1, prompt, sizeof(prompt), answer, sizeof(answer));
    tu_check(t, wrong == 0, "%s: %d of %d held-out problems wrong; the last: %s%.*s", format, wrong, HELD, prompt,
             (int)strlen(answer) - 1, answer);

    /* The held-out set depends on the digits alone, and a smaller one is
     * the start of the same draw. */
    svk_addition_params p2 = p;
    p2.seed = seed + 1;
    p2.heldout = 50;
    svk_addition *other = NULL;
    uint64_t held2[50];
    bool subset = svk_addition_create(&p2, &other) == SVK_OK && heldout_keys(other, 50, held2);
    for (int i = 0; i < 50 && subset; i++) {
        bool found = false;
        for (int j = 0; j < HELD; j++)
            found = found || held[j] == held2[i];
        subset = found;
    }
    tu_check(t, subset, "another seed's 50 held-out problems are among these 200");
    svk_addition_destroy(&other);
    svk_addition_destroy(&task);
    tu_check(t, task == NULL, "svk_addition_destroy sets the handle to NULL");
    svk_addition_destroy(&task);
    svk_addition_destroy(NULL);
}

/* The same seed gives the same batches; a position read and sought again
 * gives the batches that followed it. */
static void addition_positions(tu_tally *t)
{
    static int32_t tok[B * T], tgt[B * T], tok2[B * T], tgt2[B * T];
    svk_addition_params p = svk_addition_params_default();
    p.heldout = 10;
    p.seed = 99;
    svk_addition *t1 = NULL, *t2 = NULL;
    if (svk_addition_create(&p, &t1) != SVK_OK || svk_addition_create(&p, &t2) != SVK_OK) {
        tu_check(t, false, "two addition tasks: %s", svk_last_error());
        svk_addition_destroy(&t1);
        return;
    }
    svk_addition_batch(t1, B, T, tok, tgt);
    svk_addition_batch(t2, B, T, tok2, tgt2);
    tu_check(t, !memcmp(tok, tok2, sizeof(tok)) && !memcmp(tgt, tgt2, sizeof(tgt)), "same seed, same batches");
    uint64_t pos = 0, pos2 = 1;
    svk_addition_position(t1, &pos);
    svk_addition_batch(t1, B, T, tok, tgt);
    svk_addition_seek(t2, 12345);
    svk_addition_batch(t2, B, T, tok2, tgt2);
    svk_addition_seek(t2, pos);
    svk_addition_position(t2, &pos2);
    svk_addition_batch(t2, B, T, tok2, tgt2);
    tu_check(t, pos == pos2 && !memcmp(tok, tok2, sizeof(tok)) && !memcmp(tgt, tgt2, sizeof(tgt)),
             "a position sought again gives the batch that followed it");
    svk_status st = svk_addition_batch(t1, 1, 10, tok, tgt);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "needs >= 11"),
             "T 10 too short for a 2-digit problem: %s", svk_last_error());
    char prompt[4], answer[SVK_ADDITION_TEXT_MAX];
    st = svk_addition_heldout(t1, 0, prompt, sizeof(prompt), answer, sizeof(answer));
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "prompt_size is 4"),
             "a prompt buffer too small: %s", svk_last_error());
    char prompt2[SVK_ADDITION_TEXT_MAX];
    st = svk_addition_heldout(t1, 10, prompt2, sizeof(prompt2), answer, sizeof(answer));
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "problem 10 of a held-out set of 10"),
             "held-out problem 10 of 10: %s", svk_last_error());
    svk_addition_destroy(&t1);
    svk_addition_destroy(&t2);
}

/* The answer format changes the answers' text alone: the same seed gives
 * the same problems in the same places, the same loss positions and the
 * same generator positions, each answer's digits reversed. */
static void addition_same_problems(tu_tally *t, uint64_t seed)
{
    static int32_t tok[B * T], tgt[B * T], rtok[B * T], rtgt[B * T];
    svk_addition_params p = svk_addition_params_default();
    p.seed = seed;
    svk_addition *plain = NULL, *rev = NULL;
    p.answer = SVK_ADDITION_ANSWER_REVERSED;
    svk_status st = svk_addition_create(&p, &rev);
    p.answer = SVK_ADDITION_ANSWER_PLAIN;
    if (st != SVK_OK || svk_addition_create(&p, &plain) != SVK_OK) {
        tu_check(t, false, "plain and reversed tasks: %s", svk_last_error());
        svk_addition_destroy(&rev);
        return;
    }
    int differ = 0, reversed_digits = 0;
    for (int batch = 0; batch < 20; batch++) {
        svk_addition_batch(plain, B, T, tok, tgt);
        svk_addition_batch(rev, B, T, rtok, rtgt);
        for (int r = 0; r < B; r++) {
            /* Each row starts a problem and holds whole ones (an answer
             * may end at the row's end, its '\n' the last target); reverse
             * the digits after each '=' of the plain row and it must be the
             * reversed row. */
            int32_t *x = tok + r * T;
            for (int i = 0; i < T; i++) {
                if (x[i] != '=')
                    continue;
                int j = i + 1;
                while (j < T && x[j] >= '0' && x[j] <= '9')
                    j++;
                for (int a = i + 1, b = j - 1; a < b; a++, b--) {
                    int32_t c = x[a];
                    x[a] = x[b];
                    x[b] = c;
                    reversed_digits++;
                }
                i = j;
            }
        }
        for (int k = 0; k < B * T; k++) {
            /* Targets are next tokens, -1 where the plain ones are; a
             * row's last is '\n' or -1 in both. */
            bool next_ok = (k + 1) % T == 0 ? tgt[k] == rtgt[k]
                                            : tgt[k] == -1 ? rtgt[k] == -1 : rtgt[k] == tok[k + 1];
            differ += tok[k] != rtok[k] || !next_ok;
        }
    }
    uint64_t pp = 0, rp = 1;
    svk_addition_position(plain, &pp);
    svk_addition_position(rev, &rp);
    tu_check(t, differ == 0 && reversed_digits > 1000 && pp == rp,
             "reversed answers: the plain batches with each answer's digits reversed (%d tokens or targets differ, "
             "%d digit swaps), the same position", differ, reversed_digits);
    svk_addition_destroy(&plain);
    svk_addition_destroy(&rev);
}

static void addition_params(tu_tally *t)
{
    svk_addition_params p = svk_addition_params_default();
    tu_check(t, p.digits == 2 && p.heldout == 500 && p.seed == 1 && p.answer == SVK_ADDITION_ANSWER_PLAIN &&
                     p.operands == SVK_ADDITION_OPERANDS_PLAIN && !p.reserved[0] && !p.reserved[2],
             "svk_addition_params_default: 2 digits, 500 held out, seed 1, plain operands and answers");
    /* answer and operands took the first of four reserved uint64_t: the
     * struct keeps its size. */
    tu_check(t, sizeof(p) == 48, "svk_addition_params is 48 bytes, as before answer (%zu)", sizeof(p));
    uint32_t len = 0;
    svk_status st = svk_addition_max_len(&p, &len);
    tu_check(t, st == SVK_OK && len == 10, "the longest 2-digit problem, \"99+99=198\\n\", is 10 tokens (%u)", len);
    p.digits = 9;
    p.heldout = 0;
    st = svk_addition_max_len(&p, &len);
    tu_check(t, st == SVK_OK && len + 1 <= SVK_ADDITION_TEXT_MAX, "9 digits: %u tokens, a text within %u bytes", len,
             SVK_ADDITION_TEXT_MAX);
    svk_addition *task = NULL;
    p.digits = 0;
    st = svk_addition_create(&p, &task);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !task && strstr(svk_last_error(), "digits=0"), "0 digits refused: %s",
             svk_last_error());
    p.digits = 10;
    st = svk_addition_max_len(&p, &len);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "digits=10"), "10 digits refused: %s",
             svk_last_error());
    p.digits = 1;
    p.heldout = 51;
    st = svk_addition_create(&p, &task);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "51 held-out problems"),
             "more than half the problems held out refused: %s", svk_last_error());
    p = svk_addition_params_default();
    p.reserved[1] = 3;
    st = svk_addition_create(&p, &task);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "reserved[1] is 3"),
             "a reserved field set refused: %s", svk_last_error());
    p = svk_addition_params_default();
    p.operands = (svk_addition_operands)5;
    st = svk_addition_max_len(&p, &len);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "operands=5"),
             "an unknown operand format refused: %s", svk_last_error());
    p = svk_addition_params_default();
    p.answer = (svk_addition_answer)2;
    st = svk_addition_create(&p, &task);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !task && strstr(svk_last_error(), "answer=2"),
             "an unknown answer format refused: %s", svk_last_error());
    st = svk_addition_create(NULL, &task);
    tu_check(t, st == SVK_OK, "params NULL: the defaults");
    svk_addition_destroy(&task);
}

static void text_windows(tu_tally *t, const char *dir)
{
    static int32_t tok[B * T], tgt[B * T];
    char path[256];
    snprintf(path, sizeof(path), "%s/text.txt", dir);
    const char *text = "the quick brown fox jumps over the lazy dog, again and again and again.";
    const size_t n = strlen(text);
    if (!write_file(path, text, n)) {
        tu_check(t, false, "writing %s", path);
        return;
    }
    svk_text_data_params tp = svk_text_data_params_default();
    tp.seed = 5;
    svk_text_data *tx = NULL;
    svk_status st = svk_text_data_open(path, &tp, &tx);
    uint64_t size = 0;
    bool ok = st == SVK_OK && svk_text_data_size(tx, &size) == SVK_OK && size == n;
    if (ok) {
        svk_text_data_batch(tx, 4, 16, tok, tgt);
        for (int r = 0; r < 4 && ok; r++) {
            char w[17];
            for (int i = 0; i < 16; i++)
                w[i] = (char)tok[r * 16 + i];
            w[16] = '\0';
            const char *at = strstr(text, w);
            ok = at && tgt[r * 16 + 15] == (unsigned char)at[16];
        }
        /* Position and seek: the batch that followed. */
        static int32_t tok2[B * T], tgt2[B * T];
        uint64_t pos;
        svk_text_data_position(tx, &pos);
        svk_text_data_batch(tx, 4, 16, tok, tgt);
        svk_text_data_seek(tx, pos);
        svk_text_data_batch(tx, 4, 16, tok2, tgt2);
        tu_check(t, !memcmp(tok, tok2, 64 * sizeof(int32_t)) && !memcmp(tgt, tgt2, 64 * sizeof(int32_t)),
                 "text: a position sought again gives the same batch");
        st = svk_text_data_batch(tx, 1, (uint32_t)n, tok, tgt);
        tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "shorter than one sequence"),
                 "sequence as long as the file (one byte short): %s", svk_last_error());
        st = svk_text_data_batch(tx, 1, (uint32_t)n - 1, tok, tgt);
        tu_check(t, st == SVK_OK && tok[0] == text[0] && tgt[n - 2] == text[n - 1],
                 "a window of the whole file (size - 1 tokens): the only one there is");
    }
    svk_text_data_destroy(&tx);
    tu_check(t, ok && !tx, "text batches are windows of the file, targets shifted by one");

    /* Sequential: consecutive windows T bytes apart, back to the start
     * where the next would run past the end. */
    tp.order = SVK_TEXT_SEQUENTIAL;
    st = svk_text_data_open(path, &tp, &tx);
    ok = st == SVK_OK && svk_text_data_batch(tx, 5, 16, tok, tgt) == SVK_OK;
    /* 71 bytes: windows of 17 bytes start at 0, 16, 32, 48 (48 + 17 <= 71),
     * then 64 does not fit and the fifth row starts again at 0. */
    static const int starts[5] = {0, 16, 32, 48, 0};
    for (int r = 0; r < 5 && ok; r++)
        for (int i = 0; i < 16 && ok; i++)
            ok = tok[r * 16 + i] == text[starts[r] + i] && tgt[r * 16 + i] == text[starts[r] + i + 1];
    uint64_t pos = 0;
    ok = ok && svk_text_data_position(tx, &pos) == SVK_OK && pos == 16;
    tu_check(t, ok, "sequential windows at 0, 16, 32, 48, then 0 again; next at 16 (%llu)", (unsigned long long)pos);
    st = svk_text_data_seek(tx, n);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "offset 71 is past the end"),
             "an offset past the end: %s", svk_last_error());
    svk_text_data_seek(tx, 40);
    ok = svk_text_data_batch(tx, 1, 16, tok, tgt) == SVK_OK && tok[0] == text[40];
    tu_check(t, ok, "a sought offset is where the next window starts");
    svk_text_data_destroy(&tx);

    tp = svk_text_data_params_default();
    tp.order = (svk_text_order)7;
    st = svk_text_data_open(path, &tp, &tx);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !tx && strstr(svk_last_error(), "order=7"), "order 7 refused: %s",
             svk_last_error());
    unlink(path);
    st = svk_text_data_open("/nonexistent/file.txt", NULL, &tx);
    tu_check(t, st == SVK_ERROR_IO && !tx && strstr(svk_last_error(), "/nonexistent/file.txt"), "missing file: %s",
             svk_last_error());
}

static void token_files(tu_tally *t, const char *dir)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/tokens.bin", dir);
    /* Little-endian whatever the host: 1, -2, 0x01020304. */
    const unsigned char bytes[12] = {1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 4, 3, 2, 1};
    if (!write_file(path, bytes, sizeof(bytes))) {
        tu_check(t, false, "writing %s", path);
        return;
    }
    int32_t v[4] = {9, 9, 9, 9};
    svk_status st = svk_token_file_read(path, v, 3);
    tu_check(t, st == SVK_OK && v[0] == 1 && v[1] == -2 && v[2] == 0x01020304 && v[3] == 9,
             "3 little-endian int32 values read: %d %d %d", v[0], v[1], v[2]);
    st = svk_token_file_read(path, v, 4);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "holds 12 bytes, not the 16"),
             "a file too short: %s", svk_last_error());
    st = svk_token_file_read(path, v, 2);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "holds 12 bytes, not the 8"),
             "a file too long: %s", svk_last_error());
    st = svk_token_file_read(path, v, UINT64_MAX / 2);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "overflow"), "a count past 2^62: %s",
             svk_last_error());
    unlink(path);
}

/* Pinned: the first 5 batches [4, 32] of the default 2-digit task (seed 1,
 * 500 held out), its generator state after them and its held-out texts,
 * then 5 random text windows of 3000 fixed bytes, seed 1, hashed in that
 * order; values of the implementation svk-train used before svk/data.h. */
static void pinned_streams(tu_tally *t, const char *dir)
{
    static int32_t tok[4 * 32], tgt[4 * 32];
    uint64_t h = 1469598103934665603ull;
    svk_addition *task = NULL;
    if (svk_addition_create(NULL, &task) != SVK_OK) {
        tu_check(t, false, "default addition task: %s", svk_last_error());
        return;
    }
    for (int k = 0; k < 5; k++) {
        svk_addition_batch(task, 4, 32, tok, tgt);
        fnv(&h, tok, sizeof(tok));
        fnv(&h, tgt, sizeof(tgt));
    }
    uint64_t state;
    svk_addition_position(task, &state);
    fnv(&h, &state, sizeof(state));
    for (uint32_t i = 0; i < 500; i++) {
        char prompt[SVK_ADDITION_TEXT_MAX], answer[SVK_ADDITION_TEXT_MAX];
        svk_addition_heldout(task, i, prompt, sizeof(prompt), answer, sizeof(answer));
        fnv(&h, prompt, strlen(prompt));
        fnv(&h, answer, strlen(answer));
    }
    svk_addition_destroy(&task);
    tu_check(t, h == 0xd0d659de26b7f5c2ull, "the addition task's pinned stream (hash %016llx)", (unsigned long long)h);

    char path[256];
    snprintf(path, sizeof(path), "%s/pinned.bin", dir);
    unsigned char bytes[3000];
    for (int i = 0; i < 3000; i++)
        bytes[i] = (unsigned char)((i * 37 + i / 7) % 251);
    svk_text_data *tx = NULL;
    if (!write_file(path, bytes, sizeof(bytes)) || svk_text_data_open(path, NULL, &tx) != SVK_OK) {
        tu_check(t, false, "pinned text: %s", svk_last_error());
        unlink(path);
        return;
    }
    for (int k = 0; k < 5; k++) {
        svk_text_data_batch(tx, 4, 32, tok, tgt);
        fnv(&h, tok, sizeof(tok));
        fnv(&h, tgt, sizeof(tgt));
    }
    svk_text_data_destroy(&tx);
    unlink(path);
    tu_check(t, h == 0x16d558488bec6fc8ull, "the text's pinned stream (hash %016llx)", (unsigned long long)h);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_data", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-data-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    addition_batches(&t, args.seed, SVK_ADDITION_ANSWER_PLAIN, SVK_ADDITION_OPERANDS_PLAIN);
    addition_batches(&t, args.seed, SVK_ADDITION_ANSWER_REVERSED, SVK_ADDITION_OPERANDS_PLAIN);
    addition_batches(&t, args.seed, SVK_ADDITION_ANSWER_PLAIN, SVK_ADDITION_OPERANDS_PADDED);
    addition_batches(&t, args.seed, SVK_ADDITION_ANSWER_REVERSED, SVK_ADDITION_OPERANDS_PADDED);
    addition_same_problems(&t, args.seed);
    addition_positions(&t);
    addition_params(&t);
    text_windows(&t, dir);
    token_files(&t, dir);
    pinned_streams(&t, dir);
    rmdir(dir);
    return tu_finish(&t);
}
