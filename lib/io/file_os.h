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

/* The type bits (S_IFMT) and size of the file at path, or (path NULL) of
 * open descriptor fd: 0, or -1 with errno set. */
int svk_file_os_stat(const char *path, int fd, unsigned *type, uint64_t *bytes);

/* Opens path for reading, not inherited by child processes and not
 * blocking on what the name may have become since its stat: a
 * descriptor, or -1 with errno set. */
int svk_file_os_open(const char *path);

/* Makes the reads of a descriptor that svk_file_os_open gave, now checked
 * to be a regular file's, block as reads of files do. */
void svk_file_os_ready(int fd);

/* One read of at most want bytes (want <= 1 GiB): the count, 0 at the
 * end, or -1 with errno set. */
long long svk_file_os_read(int fd, void *buf, size_t want);

void svk_file_os_close(int fd);

/* Maps the first bytes (> 0) of the regular file open as fd, read-only and
 * private: the address, or NULL with the reason (strerror's, or Windows'
 * error number) in why. The mapping outlives fd, which the caller closes. */
const void *svk_file_os_map(int fd, size_t bytes, char *why, size_t why_size);
/* Unmaps what svk_file_os_map gave (the same bytes). */
void svk_file_os_unmap(const void *addr, size_t bytes);
/* Tells the system a mapping will be read at random places: no read-ahead
 * around each page touched (POSIX_MADV_RANDOM; nothing on Windows, whose
 * views have no such hint). Advice only: nothing fails. */
void svk_file_os_advise_random(const void *addr, size_t bytes);

/* Calls add(user, name) for every name matching pattern, in no particular
 * order: 0 (also when nothing matches), add's non-zero value where it
 * returned one (it stops there), or -1 with the reason in why. POSIX:
 * glob(3), wildcards in any component. Windows: FindFirstFile, wildcards
 * (* and ?) in the last component only (file_win32.c says why). */
int svk_file_os_glob(const char *pattern, int (*add)(void *user, const char *name), void *user, char *why,
                     size_t why_size);

#endif
