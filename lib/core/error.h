/*
 * Error recording. Every failure inside libsvk goes through svk_error(),
 * which formats the message once and stores it in the context's slot (when
 * there is a context), in the calling thread's slot (always: that is what
 * svk_last_error() reads before a context exists) and passes it to the
 * user's log callback. Nothing here aborts.
 */
#ifndef SVK_CORE_ERROR_H
#define SVK_CORE_ERROR_H

#include <stdarg.h>
#include <stdio.h>
#include "svk/common.h"
#include "svk/context.h"

#define SVK_ERROR_MAX 1024

/* printf-style checking of libsvk's formatting functions. With mingw-w64
 * (Windows) the "printf" archetype means msvcrt's formats, which lack %zu
 * and %ju; libsvk is compiled with _GNU_SOURCE, which gives it mingw's own
 * C99 vsnprintf, and stdio.h names that one's archetype
 * __MINGW_PRINTF_FORMAT. */
#ifdef __MINGW_PRINTF_FORMAT
#define SVK_PRINTF(fmt, first) __attribute__((format(__MINGW_PRINTF_FORMAT, fmt, first)))
#else
#define SVK_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#endif

/* Per-context error slot and log sink. */
typedef struct svk_log {
    char last[SVK_ERROR_MAX];
    svk_log_fn fn;
    void *user;
    svk_log_level level;
} svk_log;

/* Records status with a printf-style message and returns status, so callers
 * can write `return svk_error(log, SVK_ERROR_X, "...")`. log may be NULL. */
svk_status svk_error(svk_log *log, svk_status status, const char *fmt, ...)
    SVK_PRINTF(3, 4);
svk_status svk_verror(svk_log *log, svk_status status, const char *fmt, va_list ap);

/* Passes a non-error message to the log callback (if its level allows). */
void svk_log_msg(svk_log *log, svk_log_level level, const char *fmt, ...)
    SVK_PRINTF(3, 4);

/* Forgets the calling thread's last message (start of a public call). */
void svk_error_clear_thread(void);

/* Argument check at a public entry point: records the failed condition and
 * the function's name, returns SVK_ERROR_INVALID_ARG. Never aborts. */
#define SVK_CHECK_ARG(log, cond)                                              \
    do {                                                                      \
        if (!(cond))                                                          \
            return svk_error((log), SVK_ERROR_INVALID_ARG,                    \
                             "%s: invalid argument: %s", __func__, #cond);    \
    } while (0)

/* A required pointer argument: "func: out is NULL". One pointer per check,
 * so the message names the one that was missing. */
#define SVK_CHECK_PTR(log, p)                                                 \
    do {                                                                      \
        if (!(p))                                                             \
            return svk_error((log), SVK_ERROR_INVALID_ARG, "%s: %s is NULL",  \
                             __func__, #p);                                   \
    } while (0)

/* A required file path: neither NULL nor empty. */
#define SVK_CHECK_PATH(log, p)                                                \
    do {                                                                      \
        if (!(p) || !*(p))                                                    \
            return svk_error((log), SVK_ERROR_INVALID_ARG, "%s: %s is %s",    \
                             __func__, #p, (p) ? "empty" : "NULL");           \
    } while (0)

/* Reserved fields of a params struct must be zero (so that a later version
 * can give them a meaning): names the first one that is not, with its value. */
#define SVK_CHECK_RESERVED(log, array)                                        \
    do {                                                                      \
        for (size_t svk_r_ = 0; svk_r_ < sizeof(array) / sizeof((array)[0]); svk_r_++)  \
            if ((array)[svk_r_] != 0)                                         \
                return svk_error((log), SVK_ERROR_INVALID_ARG,                \
                                 "%s: %s[%zu] is %llu; reserved fields must be zero", \
                                 __func__, #array, svk_r_, (unsigned long long)(array)[svk_r_]); \
    } while (0)

/* Human-readable byte count ("64.0 MiB") into buf; returns buf. */
const char *svk_fmt_bytes(char buf[32], uint64_t bytes);

#endif
