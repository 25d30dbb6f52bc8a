/*
 * Training data: the addition task's batches are correct sums, carry loss on
 * the answers only, never contain a held-out problem and repeat per seed;
 * text batches are windows of the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/data.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_data", &args);
    tu_tally t = {0, 0};
    enum { B = 16, T = 64 };
    static int32_t tok[B * T], tgt[B * T], tok2[B * T], tgt2[B * T];

    svk_addition task;
    svk_status st = svk_addition_init(NULL, &task, 3, 200, args.seed);
    tu_check(&t, st == SVK_OK, "addition task with 200 held-out problems");
    int bad_sum = 0, bad_target = 0, leaked = 0, problems = 0, loss_positions = 0;
    for (int batch = 0; batch < 50; batch++) {
        svk_addition_batch(NULL, &task, B, T, tok, tgt);
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
            const char *p = row;
            unsigned a, b, c;
            int used;
            /* (%n after the number: a '\n' in the format would also eat the padding) */
            while (sscanf(p, "%u+%u=%u%n", &a, &b, &c, &used) == 3 && p[used] == '\n') {
                used++;
                problems++;
                if (a + b != c)
                    bad_sum++;
                for (size_t h = 0; h < task.n_heldout; h++)
                    if (task.heldout[h] == (uint64_t)a * 1000 + b)
                        leaked++;
                /* Loss exactly on "c\n": the targets of the positions before them. */
                const char *eq = strchr(p, '=');
                int start = (int)(eq - row), end = (int)(p - row) + used - 1;
                for (int i = (int)(p - row); i < end; i++) {
                    bool want = i >= start;
                    if ((y[i] != -1) != want)
                        bad_target++;
                }
                p += used;
            }
        }
    }
    tu_check(&t, problems > 1000 && bad_sum == 0, "%d problems parsed, %d wrong sums", problems, bad_sum);
    tu_check(&t, bad_target == 0, "targets are next tokens, on answer digits and newline only (%d loss positions, %d bad)",
             loss_positions, bad_target);
    tu_check(&t, leaked == 0, "no held-out problem in 50 training batches (%d leaked)", leaked);
    char prompt[16], answer[16];
    svk_addition_heldout(&task, 0, prompt, answer);
    unsigned a, b, c;
    tu_check(&t, sscanf(prompt, "%u+%u=", &a, &b) == 2 && sscanf(answer, "%u", &c) == 1 && a + b == c &&
                     answer[strlen(answer) - 1] == '\n',
             "held-out problem 0: %s%.*s", prompt, (int)strlen(answer) - 1, answer);
    svk_addition_free(&task);

    svk_addition t1, t2;
    svk_addition_init(NULL, &t1, 2, 10, 99);
    svk_addition_init(NULL, &t2, 2, 10, 99);
    svk_addition_batch(NULL, &t1, B, T, tok, tgt);
    svk_addition_batch(NULL, &t2, B, T, tok2, tgt2);
    tu_check(&t, !memcmp(tok, tok2, sizeof(tok)) && !memcmp(tgt, tgt2, sizeof(tgt)), "same seed, same batches");
    st = svk_addition_batch(NULL, &t1, 1, 8, tok, tgt);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "T too short for a problem: %s", svk_last_error());
    svk_addition_free(&t1);
    svk_addition_free(&t2);
    st = svk_addition_init(NULL, &t1, 0, 10, 1);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "0 digits refused: %s", svk_last_error());
    st = svk_addition_init(NULL, &t1, 1, 90, 1);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "too many held-out problems refused: %s", svk_last_error());

    /* Text. */
    char path[] = "/tmp/svk-text-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "the quick brown fox jumps over the lazy dog, again and again and again.";
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return 1;
    close(fd);
    svk_text tx;
    st = svk_text_open(NULL, &tx, path, 5);
    int ok = st == SVK_OK;
    if (ok) {
        svk_text_batch(NULL, &tx, 4, 16, tok, tgt);
        for (int r = 0; r < 4 && ok; r++) {
            char w[17];
            for (int i = 0; i < 16; i++)
                w[i] = (char)tok[r * 16 + i];
            w[16] = '\0';
            const char *at = strstr(text, w);
            ok = at && tgt[r * 16 + 15] == (unsigned char)at[16];
        }
        st = svk_text_batch(NULL, &tx, 1, 200, tok, tgt);
        tu_check(&t, st == SVK_ERROR_INVALID_ARG, "sequence longer than the file: %s", svk_last_error());
        svk_text_free(&tx);
    }
    tu_check(&t, ok, "text batches are windows of the file, targets shifted by one");
    unlink(path);
    st = svk_text_open(NULL, &tx, "/nonexistent/file.txt", 1);
    tu_check(&t, st == SVK_ERROR_IO && strstr(svk_last_error(), "/nonexistent/file.txt"), "missing file: %s",
             svk_last_error());
    return tu_finish(&t);
}
