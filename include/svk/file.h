/*
 * An application's own files at a user's path, written and read under the
 * rules libsvk keeps for its checkpoints (docs/RELIABILITY.md, rows 2f and
 * 6a): for the logs, reports and tables a training program writes beside
 * them. No context is involved; errors are reported through
 * svk_last_error(). Thread-safety: any thread; two writes of one path at
 * once leave one of the two files.
 */
#ifndef SVK_FILE_H
#define SVK_FILE_H

#include <stdbool.h>
#include "common.h"

SVK_BEGIN_DECLS

/* Writes size bytes as the file at path, replacing it atomically: a
 * temporary beside it ("<file>.tmp.<pid>.<n>"), flushed, renamed over it,
 * the directory synced, so that a crash at any point leaves the old file
 * or the new one whole. A symlink is followed and the file it points to
 * replaced; a path that exists and is not a regular file (a FIFO, a
 * socket, a directory, a device) or that has more than one hard link is
 * refused (SVK_ERROR_IO, naming it) without being opened; a replaced file
 * keeps its permission bits (and its owner where permitted), a new one
 * gets 0666 less the umask. data may be NULL when size is 0. */
SVK_API svk_status svk_file_write_atomic(const char *path, const void *data, size_t size);

/* Reads the regular file at path whole into *data, a buffer libsvk
 * allocates with one byte more than *size, that byte 0 (so text is a
 * C string), and that svk_file_data_free releases. A FIFO, directory,
 * socket or device is refused at once (SVK_ERROR_IO, naming what it is),
 * never waited on; so is a file larger than limit bytes, or one whose size
 * changes while it is read. On failure *data is NULL and *size 0. */
SVK_API svk_status svk_file_read_whole(const char *path, uint64_t limit, void **data, size_t *size);

/* Releases a buffer of svk_file_read_whole and sets *data to NULL. Accepts
 * NULL and &NULL. */
SVK_API void svk_file_data_free(void **data);

SVK_END_DECLS

#endif
