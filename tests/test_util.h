/*
 * Shared by the device tests: argument parsing, PASS/FAIL tallies, a
 * context with validation that the test fails on if the layer said anything,
 * and the clock and watchdog of the tests that time or may hang.
 * The numerics (generator, NaN poison, guards, error metric) are the
 * conformance tool's: tools/conformance/numeric.h.
 */
#ifndef SVK_TEST_UTIL_H
#define SVK_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numeric.h"
#include "svk/svk.h"

typedef struct tu_args {
    uint64_t seed;        /* --seed N; default: from the clock */
    const char *filter;   /* --test=SUBSTRING; NULL: all */
    bool verbose;         /* -v */
    uint32_t part, parts; /* --part=I/N: this process runs share I of N (tests that split say how); 0/1 */
} tu_args;

/* Parses --seed, --test=, --part=I/N, -v; prints "seed: N" so a failure can be repeated.
 * Exits with 2 on an unknown argument (test programs may exit; the library
 * never does). */
void tu_parse_args(int argc, char **argv, const char *prog, tu_args *out);

/* Counting results: "N passed, N failed" at the end. */
typedef struct tu_tally {
    int passed, failed;
} tu_tally;
void tu_check(tu_tally *t, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prints the summary line; returns the process exit code. */
int tu_finish(const tu_tally *t);

/* Reads a whole file into *data (malloc'd, one spare byte so an empty file
 * still gets a buffer; the caller frees it) and its length into *size.
 * false, with *data NULL and *size 0, if it cannot be opened or read. */
bool tu_read_file(const char *path, unsigned char **data, size_t *size);

/* Log callback for test contexts: prints, and counts validation messages. */
void tu_log_fn(void *user, svk_log_level level, const char *msg);

/* Creates a context for tests: validation on when SVK_VALIDATION=1 (meson
 * sets it), pipeline cache off. Prints the device and subgroup size. Returns
 * NULL (after printing why) on failure. */
svk_ctx *tu_ctx_create(void);
/* Destroys the context, then checks that validation was on if SVK_VALIDATION
 * asked for it and that the layer reported nothing, destruction included. */
void tu_ctx_finish(svk_ctx **ctx, tu_tally *t);
/* Validation messages seen so far by contexts from tu_ctx_create. */
int tu_validation_messages(void);
/* Takes back n messages a test provoked on purpose. */
void tu_validation_forgive(int n);

/* Runs fn on the CPU backend (ctx NULL), then on the Vulkan backend with a
 * context from tu_ctx_create (a failure to create one is a FAIL in t), and
 * ends with tu_ctx_finish's checks. fn gets dir, a new directory
 * /tmp/<name>_XXXXXX, which it must leave empty: it is removed at the end.
 * Returns tu_finish(t), or 1 if the directory cannot be made. */
typedef void tu_backend_fn(svk_ctx *ctx, svk_backend backend, const char *dir);
int tu_each_backend(tu_tally *t, const char *name, tu_backend_fn *fn);

/* The small model of the tests that poison a checkpoint with NaN or
 * infinity (test_nonfinite_step, test_save_nonfinite, test_find_nonfinite):
 * vocab TU_SMALL_V, ctx TU_SMALL_T, width TU_SMALL_C, 2 heads, `layers`
 * layers, embeddings tied or not, the other settings the defaults, on
 * `backend` (ctx: the Vulkan context; NULL for the CPU). Its creation is a
 * check in t, "<name>: create: <last error>" ("create (untied embeddings)"
 * when untied); NULL if it failed. */
enum { TU_SMALL_V = 16, TU_SMALL_T = 8, TU_SMALL_C = 8 };
svk_model *tu_small_model(tu_tally *t, const char *name, svk_ctx *ctx, svk_backend backend, uint32_t layers,
                          bool tied);
/* n tokens and their targets for a vocabulary of v, in a fixed pattern
 * (token i is (7i + 3) mod v, target i (5i + 1) mod v). */
void tu_fixed_batch(int32_t *tokens, int32_t *targets, int n, int v);
/* Batch k of a seeded sequence: n random tokens below v, and targets below
 * v or, one in ignore (0: never), -1; the same for the same seed and k. */
void tu_random_batch(uint64_t seed, uint32_t k, int32_t *tokens, int32_t *targets, int n, int v, int ignore);
/* Whether two files hold the same bytes (false if either cannot be read). */
bool tu_same_files(const char *a, const char *b);

/* Seconds on CLOCK_MONOTONIC, for timing a case (differences only). */
double tu_now(void);

/* Turns a hang into a failure that names the case, instead of a suite that
 * never ends: arms SIGALRM for `seconds`; if it fires first, the process
 * writes "FAIL hung (no answer within N s): <fmt, ...>" to stdout and exits
 * with 1 at once. The line is formatted now (and cut at 640 bytes), so its
 * arguments may be buffers the case reuses. A later call replaces the case
 * and the time; seconds 0 disarms, like tu_watchdog_off. Not for tests that
 * use SIGALRM or alarm() themselves. */
void tu_watchdog(unsigned seconds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_watchdog_off(void);

#endif
