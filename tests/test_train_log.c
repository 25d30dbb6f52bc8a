/*
 * svk-train's run record (tools/train/train_log.c, svg_plot.c) without a
 * device: the CSV's rows byte for byte (non-finite values as nan/inf, an
 * empty held-out loss until measured), where the files go by default, a
 * resumed run's rows (those past its position dropped, a gap, a missing
 * file, a file of something else, a torn row, a FIFO refused at once), and
 * the loss curve of a long run with gaps: every finite stretch drawn, a
 * lone point as a dot, the file bounded. svk_train_cli.sh and
 * svk_train_ux.sh check the same files from real runs, their SVG parsed
 * as XML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svg_plot.h"
#include "test_util.h"
#include "train_log.h"

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fputs(text, f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* The file as a C string (tu_read_file leaves a spare byte after it). */
static char *read_text(const char *path)
{
    unsigned char *data;
    size_t size;
    if (!tu_read_file(path, &data, &size))
        return NULL;
    data[size] = '\0';
    return (char *)data;
}

static void rows(tu_tally *t, const char *dir)
{
    svk_train_log l = {0};
    char csv[256];
    snprintf(csv, sizeof(csv), "%s/rows.csv", dir);
    bool ok = svk_train_log_paths(&l, csv, NULL, NULL) && svk_train_log_add(&l, 1, 5.5f, 6e-5f, 2.25f, 1234.5, false) &&
              svk_train_log_add(&l, 2, NAN, 1.2e-4f, INFINITY, -1, true) &&
              svk_train_log_add(&l, 3, -INFINITY, 0.003f, -NAN, 99.04, true);
    svk_train_log_heldout(&l, 4.25f);
    ok = ok && svk_train_log_add(&l, 4, 0.1f, 0.003f, 1, 10, false);
    svk_train_log_heldout(&l, NAN);
    const char *want = "step,loss,lr,grad_norm,tokens_per_s,heldout_loss,skipped\n"
                       "1,5.5,6e-05,2.25,1234.5,,0\n"
                       "2,nan,0.00012,inf,,,1\n"
                       "3,-inf,0.003,nan,99.0,4.25,1\n"
                       "4,0.100000001,0.003,1,10.0,nan,0\n";
    tu_check(t, ok && l.text && !strcmp(l.text, want), "rows as written:\n%s", l.text ? l.text : "(none)");
    tu_check(t, l.n == 4 && isnan(l.points[1].loss) && l.points[2].heldout == 4.25f && l.points[2].skipped &&
                    isnan(l.points[0].heldout),
             "the curve's points follow the rows");
    ok = svk_train_log_write(&l) == SVK_OK;
    char *back = read_text(csv);
    tu_check(t, ok && back && !strcmp(back, want) && l.written_n == 4, "the file holds the rows: %s", svk_last_error());
    free(back);
    svk_train_log_free(&l);
}

static void paths(tu_tally *t)
{
    const struct {
        const char *log, *save, *resume, *csv, *svg;
    } c[] = {
        {NULL, NULL, NULL, "svk-train.csv", "svk-train.svg"},
        {NULL, "run.safetensors", NULL, "run.csv", "run.svg"},
        {NULL, NULL, "old/run.st", "old/run.csv", "old/run.svg"},
        {NULL, "new.st", "old.st", "new.csv", "new.svg"},
        {NULL, "dir.d/run", NULL, "dir.d/run.csv", "dir.d/run.svg"},
        {NULL, ".hidden", NULL, ".hidden.csv", ".hidden.svg"},
        {NULL, "x.csv", NULL, "x.csv.csv", "x.csv.svg"},
        {"log.csv", "run.st", NULL, "log.csv", "log.svg"},
        {"log", NULL, NULL, "log", "log.svg"},
        {"a.svg", NULL, NULL, "a.svg", "a.svg.svg"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        svk_train_log l = {0};
        bool ok = svk_train_log_paths(&l, c[i].log, c[i].save, c[i].resume) && !strcmp(l.csv, c[i].csv) &&
                  !strcmp(l.svg, c[i].svg);
        tu_check(t, ok, "--log %s --save %s --resume %s: %s and %s", c[i].log ? c[i].log : "-",
                 c[i].save ? c[i].save : "-", c[i].resume ? c[i].resume : "-", l.csv, l.svg);
        svk_train_log_free(&l);
    }
}

/* A resumed run's rows, from a file of rows 1..10 (held-out at 5 and 10). */
static void resume(tu_tally *t, const char *dir)
{
    char csv[256], text[4096] = SVK_TRAIN_LOG_HEADER;
    snprintf(csv, sizeof(csv), "%s/resume.csv", dir);
    size_t upto6 = 0;
    for (int s = 1; s <= 10; s++) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof(text) - n, "%d,%g,0.001,1.5,100.0,%s,0\n", s, 6.0 - 0.25 * s,
                 s % 5 ? "" : "3.5");
        if (s == 6)
            upto6 = strlen(text);
    }
    const struct {
        uint64_t position;
        size_t keep;
        const char *what;
    } c[] = {
        {6, 6, "rows past the position dropped"},
        {10, 10, "every row"},
        {15, 10, "every row, the gap after them noted"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        svk_train_log l = {0};
        bool ok = write_text(csv, text) && svk_train_log_paths(&l, csv, NULL, NULL) &&
                  svk_train_log_resume(&l, c[i].position);
        ok = ok && l.n == c[i].keep && l.points[l.n - 1].step == c[i].keep && l.points[4].heldout == 3.5f &&
             isnan(l.points[3].heldout);
        if (c[i].position == 6)
            ok = ok && l.len == upto6 && !memcmp(l.text, text, upto6);
        /* The next step's row follows them. */
        ok = ok && svk_train_log_add(&l, c[i].position + 1, 1, 0.001f, 1, 1, false);
        tu_check(t, ok, "resumed at %llu: %s (%zu rows)", (unsigned long long)c[i].position, c[i].what, l.n);
        svk_train_log_free(&l);
    }
    const struct {
        const char *text, *what;
        size_t keep;
    } bad[] = {
        {NULL, "no file: no rows", 0},
        {"time,value\n1,2\n", "another CSV: no rows", 0},
        {"", "an empty file: no rows", 0},
        {SVK_TRAIN_LOG_HEADER "1,5,0.001,1,1,,0\n2,4,0.001,1,1,,0\n3,x,0.001,1,1,,0\n4,3,0.001,1,1,,0\n",
         "a row that is not one: the rows before it", 2},
        {SVK_TRAIN_LOG_HEADER "1,5,0.001,1,1,,0\n2,4,0.001,1,1,,0\n3,3,0.0", "a torn last row: the rows before it", 2},
        {SVK_TRAIN_LOG_HEADER "1,5,0.001,1,1,,0\n3,4,0.001,1,1,,0\n2,3,0.001,1,1,,0\n",
         "a step out of order: the rows before it", 2},
        {SVK_TRAIN_LOG_HEADER "1,5,0.001,1,1,,0,extra\n", "a row with a field too many: none", 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svk_train_log l = {0};
        unlink(csv);
        bool ok = (!bad[i].text || write_text(csv, bad[i].text)) && svk_train_log_paths(&l, csv, NULL, NULL) &&
                  svk_train_log_resume(&l, 6) && l.n == bad[i].keep;
        tu_check(t, ok, "resumed: %s (%zu rows)", bad[i].what, l.n);
        svk_train_log_free(&l);
    }
    unlink(csv);
    if (mkfifo(csv, 0600) == 0) {
        svk_train_log l = {0};
        tu_watchdog(20, "a FIFO as the CSV to resume");
        bool ok = svk_train_log_paths(&l, csv, NULL, NULL) && !svk_train_log_resume(&l, 6) && l.n == 0;
        ok = ok && svk_train_log_write(&l) == SVK_ERROR_IO && strstr(svk_last_error(), "FIFO");
        tu_watchdog_off();
        struct stat sb;
        tu_check(t, ok && lstat(csv, &sb) == 0 && S_ISFIFO(sb.st_mode),
                 "a FIFO at the CSV's path: refused to read and to write, left a FIFO: %s", svk_last_error());
        svk_train_log_free(&l);
        unlink(csv);
    }
}

/* Occurrences of needle in s. */
static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void curve(tu_tally *t, const char *dir)
{
    char csv[256];
    snprintf(csv, sizeof(csv), "%s/curve.csv", dir);
    /* 30000 steps with two stretches of skipped steps: three finite
     * stretches, past FULL_DETAIL_MAX (drawn per pixel column). */
    svk_train_log l = {0};
    bool ok = svk_train_log_paths(&l, csv, NULL, NULL);
    for (uint64_t s = 1; ok && s <= 30000; s++) {
        const bool skip = (s >= 10000 && s < 10100) || (s >= 20000 && s < 20050);
        ok = svk_train_log_add(&l, s, skip ? NAN : (float)(5 * exp(-(double)s / 5000) + 0.1 * sin((double)s)),
                               0.001f, 1, 1, skip);
        if (ok && s % 1000 == 0)
            svk_train_log_heldout(&l, (float)(5 * exp(-(double)s / 5000) + 0.3));
    }
    ok = ok && svk_train_svg_write(&l, "a <title> & \"quotes\" \x01\xff") == SVK_OK;
    char *svg = ok ? read_text(l.svg) : NULL;
    ok = svg && !strncmp(svg, "<?xml", 5) && strlen(svg) < 200000 && !strcmp(svg + strlen(svg) - 7, "</svg>\n");
    tu_check(t, ok, "30000 rows: an SVG of %zu bytes", svg ? strlen(svg) : 0);
    const char *loss = svg ? strstr(svg, "stroke=\"#1f77b4\" stroke-width=\"1.2\"") : NULL;
    const char *d = loss ? strstr(loss, " d=\"") : NULL, *d_end = d ? strchr(d + 4, '"') : NULL;
    size_t moves = 0;
    for (const char *p = d; p && p < d_end; p++)
        moves += *p == 'M';
    tu_check(t, d_end && moves == 3, "the training loss in three stretches, broken at the skipped steps (%zu)", moves);
    tu_check(t, svg && count(svg, "fill=\"#d62728\"") == 30 && strstr(svg, "held-out loss") &&
                    strstr(svg, "150 skipped steps"),
             "30 held-out points, the legend with 150 skipped steps");
    tu_check(t, svg && strstr(svg, "a &lt;title&gt; &amp; &quot;quotes&quot; ??") && !strchr(svg, '\x01'),
             "the title escaped for XML");
    free(svg);
    svk_train_log_free(&l);

    /* A lone finite loss between skipped steps: a dot. */
    ok = svk_train_log_paths(&l, csv, NULL, NULL) && svk_train_log_add(&l, 1, 5, 0.001f, 1, 1, false) &&
         svk_train_log_add(&l, 2, NAN, 0.001f, NAN, 1, true) && svk_train_svg_write(&l, "two") == SVK_OK;
    svg = ok ? read_text(l.svg) : NULL;
    tu_check(t, svg && count(svg, "<circle") == 1 && strstr(svg, "1 skipped step "), "a lone point drawn as a dot");
    free(svg);
    svk_train_log_free(&l);
    /* No rows at all, or none finite: a frame that says so. */
    ok = svk_train_log_paths(&l, csv, NULL, NULL) && svk_train_svg_write(&l, "none") == SVK_OK;
    svg = ok ? read_text(l.svg) : NULL;
    tu_check(t, svg && strstr(svg, "no finite loss") && !strstr(svg, "nan") && !strstr(svg, "inf"),
             "no rows: an empty frame, no nan or inf in it");
    free(svg);
    unlink(l.svg);
    svk_train_log_free(&l);
    unlink(csv);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_train_log", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-train-log-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    rows(&t, dir);
    paths(&t);
    resume(&t, dir);
    curve(&t, dir);
    char path[300];
    snprintf(path, sizeof(path), "%s/rows.csv", dir);
    unlink(path);
    rmdir(dir);
    return tu_finish(&t);
}
