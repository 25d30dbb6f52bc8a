/*
 * What the operating system gives lib/io: file.c (POSIX) or file_win32.c
 * (Windows) implements these, and file_read.c reads files through them
 * the same way on both. Internal to lib/io.
 */
#ifndef SVK_IO_FILE_OS_H
#define SVK_IO_FILE_OS_H

#include "io_file.h"

/* A failure's message: into quiet (SVK_ERROR_MAX bytes) when it is not
 * NULL, else to the log. Returns st. */
svk_status svk_file_report(svk_log *log, char *quiet, svk_status st, const char *fmt, ...) SVK_PRINTF(4, 5);

/* Opens the regular file at path for reading, refusing anything else by
 * name without blocking on it; *bytes is its size when opened. */
svk_status svk_file_open_read(svk_log *log, char *quiet, const char *path, int *fd, uint64_t *bytes);

/* One read of at most want bytes (want <= 1 GiB): the count, 0 at the
 * end, or -1 with errno set. */
long long svk_file_os_read(int fd, void *buf, size_t want);

void svk_file_os_close(int fd);

#endif
