/*
 * svk-train's record of a run: one CSV row per training step, in memory
 * and in a file beside the run (--log), and the rows the loss curve
 * (svg_plot.h) is drawn from.
 *
 * The file: a header, then one row per step of the run, numbered from its
 * start:
 *     step,loss,lr,grad_norm,tokens_per_s,heldout_loss,skipped
 * loss and grad_norm as the step reported them, "nan", "inf" or "-inf"
 * where not finite (the step was skipped: skipped is 1, and the library
 * applied no update); heldout_loss empty where it was not measured;
 * tokens_per_s the step's own rate (its tokens over the time since the
 * step before it ended). Numbers are written so that they read back as
 * the very floats (%.9g), so two runs' files compare byte for byte but for
 * tokens_per_s.
 *
 * How it is written: svk-train uses libsvk's public API alone, and every
 * file libsvk writes at a user's path is replaced atomically and refuses a
 * FIFO, device or hard-linked file (docs/RELIABILITY.md, row 6a). So the
 * rows are kept in memory and the whole file is written through
 * svk_file_write_atomic: before every checkpoint (so that a file beside a
 * checkpoint holds at least the steps the checkpoint does), at the end,
 * and in between when it is due (svk_train_log_due), never more than a
 * small share of the run's time. A reader thus always finds a whole file,
 * never a torn last row, at the cost of rewriting it whole (70 bytes or so
 * a step: 7 MB at 100,000 steps).
 */
#ifndef SVK_TRAIN_LOG_H
#define SVK_TRAIN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "svk/common.h"

#define SVK_TRAIN_LOG_COLUMNS "step,loss,lr,grad_norm,tokens_per_s,heldout_loss,skipped"
#define SVK_TRAIN_LOG_HEADER SVK_TRAIN_LOG_COLUMNS "\n"

/* What the curve needs of a row. */
typedef struct svk_train_point {
    uint64_t step;
    float loss;          /* NaN or infinite where the step's was */
    float heldout;       /* NaN where not measured */
    bool skipped;
} svk_train_point;

typedef struct svk_train_log {
    char *csv, *svg;                 /* the paths (owned) */
    char *text;                      /* the CSV's bytes */
    size_t len, cap;
    svk_train_point *points;         /* one per row */
    size_t n, n_cap;
    size_t written_n;                /* rows in the file as last written */
    double written_at, write_cost;   /* when the file was last written (CLOCK_MONOTONIC, s), how long it took */
} svk_train_log;

/* The file names: the CSV at csv_given (--log) or else beside the
 * checkpoint (save, else resume: its name with the extension replaced by
 * .csv), else "svk-train.csv" in the current directory; the SVG beside the
 * CSV, its .csv replaced by .svg (or .svg added). Returns false (out of
 * memory) with a message on stderr. */
bool svk_train_log_paths(svk_train_log *l, const char *csv_given, const char *save, const char *resume);

/* The rows a run resumed after `position` steps starts from: those of the
 * CSV already at l->csv with a step up to position, in the file's order
 * (rows past it, which a run stopped after its last checkpoint wrote, are
 * dropped). A missing file, or one that is not an svk-train CSV, gives
 * none. Writes a note on stderr for whatever it leaves out. Returns false
 * only for a failed read of a file that is there (its message on stderr). */
bool svk_train_log_resume(svk_train_log *l, uint64_t position);

/* Appends the row of a step. tokens_per_s < 0: not measured (empty).
 * false: out of memory. */
bool svk_train_log_add(svk_train_log *l, uint64_t step, float loss, float lr, float grad_norm, double tokens_per_s,
                       bool skipped);

/* The held-out loss of the last row's step. */
void svk_train_log_heldout(svk_train_log *l, float heldout_loss);

/* Whether a write is due: 10 s since the last, and at least 20 times as
 * long as that write took, so that rewriting the file costs at most 5% of
 * the run however long it grows. */
bool svk_train_log_due(const svk_train_log *l);

/* Writes the CSV (svk_file_write_atomic) and notes when, and how long it
 * took; the status and svk_last_error() are the library's. */
svk_status svk_train_log_write(svk_train_log *l);

void svk_train_log_free(svk_train_log *l);

#endif
