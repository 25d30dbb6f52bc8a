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
