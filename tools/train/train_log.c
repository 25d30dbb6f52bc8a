#include "train_log.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "svk/file.h"

/* A CSV read back for --resume is at most this large: a million steps take
 * some 80 MB. */
#define CSV_READ_MAX (1ull << 30)

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* path without its extension (the last '.' after the last '/', unless it
 * begins the name), as a length. */
static size_t stem_len(const char *path)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path, *dot = strrchr(name, '.');
    return dot && dot != name ? (size_t)(dot - path) : strlen(path);
}

/* path with its extension replaced by ext; where that would give path
 * itself ("run.csv" for a checkpoint named so), ext is added instead. */
static char *with_ext(const char *path, const char *ext)
{
    const size_t n = stem_len(path);
    if (!strcmp(path + n, ext))
        return dup_printf("%s%s", path, ext);
    return dup_printf("%.*s%s", (int)n, path, ext);
}

bool svk_train_log_paths(svk_train_log *l, const char *csv_given, const char *save, const char *resume)
{
    const char *beside = save ? save : resume;
    l->csv = csv_given ? dup_printf("%s", csv_given) : beside ? with_ext(beside, ".csv") : dup_printf("svk-train.csv");
    l->svg = l->csv ? with_ext(l->csv, ".svg") : NULL;
    if (!l->csv || !l->svg) {
        fprintf(stderr, "svk-train: out of memory\n");
        return false;
    }
    return true;
}

static bool append(svk_train_log *l, const char *s, size_t n)
{
    if (l->len + n + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->len + n + 1)
            cap *= 2;
        char *t = realloc(l->text, cap);
        if (!t)
            return false;
        l->text = t;
        l->cap = cap;
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
    l->text[l->len] = '\0';
    return true;
}

static bool add_point(svk_train_log *l, svk_train_point p)
{
    if (l->n == l->n_cap) {
        size_t cap = l->n_cap ? 2 * l->n_cap : 1024;
        svk_train_point *t = realloc(l->points, cap * sizeof(*t));
        if (!t)
            return false;
        l->points = t;
        l->n_cap = cap;
    }
    l->points[l->n++] = p;
    return true;
}

/* A float as the CSV writes it: exact (%.9g reads back as the same float),
 * and "nan", "inf" or "-inf" where printf might write "-nan". */
static void fmt_float(char *buf, size_t size, float v)
{
    if (isnan(v))
        snprintf(buf, size, "nan");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, size, "%.9g", (double)v);
}

bool svk_train_log_add(svk_train_log *l, uint64_t step, float loss, float lr, float grad_norm, double tokens_per_s,
                       bool skipped)
{
    if (!l->len && !append(l, SVK_TRAIN_LOG_HEADER, strlen(SVK_TRAIN_LOG_HEADER)))
        return false;
    char fl[32], fg[32], tps[32] = "", row[160];
    fmt_float(fl, sizeof(fl), loss);
    fmt_float(fg, sizeof(fg), grad_norm);
    if (tokens_per_s >= 0 && isfinite(tokens_per_s))
        snprintf(tps, sizeof(tps), "%.1f", tokens_per_s);
    /* The held-out loss and skipped are the row's last two fields, and the
     * loss is filled in after (svk_train_log_heldout): the row ends ",," +
     * skipped until then. */
    int n = snprintf(row, sizeof(row), "%" PRIu64 ",%s,%.6g,%s,%s,,%d\n", step, fl, (double)lr, fg, tps,
                     skipped ? 1 : 0);
    return append(l, row, (size_t)n) &&
           add_point(l, (svk_train_point){.step = step, .loss = loss, .heldout = NAN, .skipped = skipped});
}

void svk_train_log_heldout(svk_train_log *l, float heldout_loss)
{
    if (!l->n || l->len < 3)
        return;
    /* The last row ends ",S\n" (skipped), after the held-out loss's empty
     * field: the loss goes before those three bytes. One append of both,
     * so that a failed one leaves the row as it was. */
    char h[48];
    fmt_float(h, sizeof(h) - 3, heldout_loss);
    const size_t n = strlen(h);
    memcpy(h + n, l->text + l->len - 3, 3);
    l->len -= 3;
    if (!append(l, h, n + 3)) {
        l->len += 3;
        return;
    }
    l->points[l->n - 1].heldout = heldout_loss;
}

/* Field i (0-based) of a row of fields separated by commas, as [*b, *e). */
static bool field(const char *row, const char *end, int i, const char **b, const char **e)
{
    const char *p = row;
    for (int k = 0; k < i; k++) {
        p = memchr(p, ',', (size_t)(end - p));
        if (!p)
            return false;
        p++;
    }
    const char *c = memchr(p, ',', (size_t)(end - p));
    *b = p;
    *e = c ? c : end;
    return true;
}

/* A float field: a number, nan or inf as fmt_float writes them; empty is
 * NaN where empty_ok. */
static bool parse_float(const char *b, const char *e, bool empty_ok, float *v)
{
    char buf[48];
    if (b == e) {
        *v = NAN;
        return empty_ok;
    }
    if ((size_t)(e - b) >= sizeof(buf))
        return false;
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
    char *end;
    *v = strtof(buf, &end);
    return *end == '\0';
}

/* One row of the file into p; false if it is not one svk-train writes. */
static bool parse_row(const char *row, const char *end, svk_train_point *p)
{
    const char *b, *e;
    char buf[24];
    if (!field(row, end, 0, &b, &e) || b == e || (size_t)(e - b) >= sizeof(buf) || *b < '0' || *b > '9')
        return false;
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
    char *stop;
    p->step = strtoull(buf, &stop, 10);
    if (*stop)
        return false;
    if (!field(row, end, 1, &b, &e) || !parse_float(b, e, false, &p->loss) || !field(row, end, 5, &b, &e) ||
        !parse_float(b, e, true, &p->heldout) || !field(row, end, 6, &b, &e) || e - b != 1 || (*b != '0' && *b != '1'))
        return false;
    p->skipped = *b == '1';
    return e == end;
}

bool svk_train_log_resume(svk_train_log *l, uint64_t position)
{
    void *data;
    size_t size;
    if (!position)
        return true;
    if (svk_file_read_whole(l->csv, CSV_READ_MAX, &data, &size) != SVK_OK) {
        /* Missing is a run that kept none (or kept it elsewhere): its rows
         * start here. Anything else that cannot be read (a FIFO, which
         * stat does not open) stops the run before it starts. */
        struct stat sb;
        if (stat(l->csv, &sb) != 0 && errno == ENOENT) {
            fprintf(stderr, "svk-train: note: no %s to continue: its rows start at step %" PRIu64 "\n", l->csv,
                    position + 1);
            return true;
        }
        fprintf(stderr, "svk-train: --log %s: %s\n", l->csv, svk_last_error());
        return false;
    }
    const char *text = data, *end = text + size;
    const size_t hl = strlen(SVK_TRAIN_LOG_HEADER);
    if (size < hl || memcmp(text, SVK_TRAIN_LOG_HEADER, hl)) {
        fprintf(stderr, "svk-train: note: %s is not an svk-train CSV (its first line is not \"%.*s\"): it is replaced, "
                        "its rows starting at step %" PRIu64 "\n", l->csv, (int)hl - 1, SVK_TRAIN_LOG_HEADER,
                position + 1);
        svk_file_data_free(&data);
        return true;
    }
    bool ok = append(l, text, hl);
    uint64_t last = 0, line = 1;
    const char *row = text + hl, *why = NULL;
    while (ok && row < end) {
        const char *nl = memchr(row, '\n', (size_t)(end - row));
        svk_train_point p;
        line++;
        if (!nl)
            why = "is cut short";
        else if (!parse_row(row, nl, &p))
            why = "is not a row svk-train writes";
        else if (p.step <= last)
            why = "does not follow the row before it";
        if (why || p.step > position)
            break;
        ok = append(l, row, (size_t)(nl + 1 - row)) && add_point(l, p);
        last = p.step;
        row = nl + 1;
    }
    if (ok && why)
        fprintf(stderr, "svk-train: note: %s: line %" PRIu64 " %s; the rows from there on are dropped\n", l->csv, line,
                why);
    if (ok && last == 0)
        fprintf(stderr, "svk-train: note: %s holds no row to keep: its rows start at step %" PRIu64 "\n", l->csv,
                position + 1);
    else if (ok && last < position)
        fprintf(stderr, "svk-train: note: %s holds rows up to step %" PRIu64 " only; the run resumes after step %"
                        PRIu64 ", so steps %" PRIu64 "-%" PRIu64 " have no row\n", l->csv, last, position, last + 1,
                position);
    svk_file_data_free(&data);
    if (!ok)
        fprintf(stderr, "svk-train: out of memory reading %s\n", l->csv);
    return ok;
}

bool svk_train_log_due(const svk_train_log *l)
{
    const double since = monotonic() - l->written_at;
    return since >= 10 && since >= 20 * l->write_cost;
}

svk_status svk_train_log_write(svk_train_log *l)
{
    const double t0 = monotonic();
    if (!l->len && !append(l, SVK_TRAIN_LOG_HEADER, strlen(SVK_TRAIN_LOG_HEADER)))
        return SVK_ERROR_OUT_OF_HOST_MEMORY;
    svk_status st = svk_file_write_atomic(l->csv, l->text, l->len);
    if (st == SVK_OK)
        l->written_n = l->n;
    l->written_at = monotonic();
    l->write_cost = l->written_at - t0;
    return st;
}

void svk_train_log_free(svk_train_log *l)
{
    free(l->csv);
    free(l->svg);
    free(l->text);
    free(l->points);
    *l = (svk_train_log){0};
}
