/*
 * Files libsvk reads and writes at a user's path: checkpoints, dumps, the
 * training text, the pipeline cache. Every such read and write goes through
 * here, so that the rules below hold for all of them.
 *
 * Reading: only a regular file is read. Anything else (a FIFO, which would
 * block the open until a writer came, a directory, a socket, a device) is
 * refused with a message naming the path and what it is, without hanging.
 *
 * Writing replaces the file atomically: a temporary next to the file, fsync,
 * rename over it, fsync of the directory, so a crash at any point leaves
 * either the old file or the new one. What the rename would otherwise do to
 * the name is decided here:
 *   - a symlink (or a chain of them, or one that dangles) is followed: the
 *     file it points to is replaced, the link stays;
 *   - a name that exists and is not a regular file (FIFO, socket,
 *     directory, device) is refused, and nothing is created or opened;
 *   - a file with more than one hard link is refused (file.c says why);
 *   - the replaced file's permission bits are kept, and its owner and group
 *     where the process may set them; a new file gets 0666 minus the umask,
 *     as fopen would make it.
 *
 * Failures are reported like any libsvk error (svk_error into log), or,
 * where quiet is non-NULL, only written into quiet (SVK_ERROR_MAX bytes):
 * for a caller to whom the failure is not an error (the pipeline cache, whose
 * loss costs compile time only) and which must not overwrite the message of
 * a real error the application may still be about to read.
 *
 * Thread-safety: the functions share no state but a temporary-name counter
 * (atomic); one svk_file_replace is one thread's.
 */
#ifndef SVK_IO_FILE_H
#define SVK_IO_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

/* Longest path handled, the terminator included (Linux's PATH_MAX). */
#define SVK_FILE_PATH_MAX 4096

/* Reads the regular file at path whole into *data (from svk_malloc, one
 * spare byte after *size; the caller frees it). A file larger than limit
 * bytes is refused, as is one whose size changes while it is read. On
 * failure *data is NULL and *size 0. */
svk_status svk_file_read(svk_log *log, char *quiet, const char *path, uint64_t limit, void **data, size_t *size);
/* The same for the first min(max, the file's size) bytes only (a
 * checkpoint's header, without its tensors); *file_size is the whole
 * file's. */
svk_status svk_file_read_head(svk_log *log, char *quiet, const char *path, uint64_t max, void **data, size_t *size,
                              uint64_t *file_size);

/* Whether something is at path (symlinks followed: a dangling one is
 * nothing): for a writer that must not replace a user's file unless asked
 * (svk_gpt2_import's and svk_gpt2_export's output). A check, not a lock:
 * whoever may write the directory can still put a file there before the
 * replacement's rename. Fails (SVK_ERROR_IO) only when the answer is
 * unknown, e.g. a directory on the way may not be searched. */
svk_status svk_file_exists(svk_log *log, const char *path, bool *exists);

/* A regular file mapped read-only (mmap, MapViewOfFile): its pages are
 * read from the disk as they are touched, so a file larger than memory
 * costs only the pages read. */
typedef struct svk_file_mapping {
    const uint8_t *data; /* the file's bytes; NULL when it is empty */
    uint64_t size;
} svk_file_mapping;

/* Maps the regular file at path, refusing anything else by name without
 * waiting on it, as svk_file_read does. Nothing may truncate the file while
 * it is mapped: on POSIX, touching a page past the new end raises SIGBUS.
 * On failure *m is {NULL, 0}. */
svk_status svk_file_map(svk_log *log, char *quiet, const char *path, svk_file_mapping *m);
/* Unmaps and sets *m to {NULL, 0}; accepts an empty or unset mapping. */
void svk_file_unmap(svk_file_mapping *m);
/* Hints that m will be read at random places (svk_file_os_advise_random):
 * each read then brings in its own pages, not the read-ahead around them. */
void svk_file_map_advise_random(const svk_file_mapping *m);

/* The paths matching a pattern (svk_file_os_glob in file_os.h: glob(3) on
 * POSIX, the last component's * and ? on Windows), sorted by strcmp, so
 * their order is the same on every system and in every locale. */
typedef struct svk_file_list {
    char **paths; /* count of them, each from svk_malloc */
    size_t count;
} svk_file_list;

/* Fills *list (empty when nothing matches: not a failure here). */
svk_status svk_file_glob(svk_log *log, char *quiet, const char *pattern, svk_file_list *list);
/* Frees the paths and the array and empties *list. */
void svk_file_list_free(svk_file_list *list);

/* The temporary a save writes first is "<file>.tmp.<pid>.<n>", where <file>
 * is the path with symlinks resolved. A process killed mid-save leaves its
 * temporary behind: nothing reads it and no later save reuses it; deleting
 * it is always safe. */
#define SVK_FILE_TMP_INFIX ".tmp."

/* One atomic replacement in progress. */
typedef struct svk_file_replace {
    svk_log *log;
    char *quiet;
    const char *path;                  /* as the caller gave it, for messages */
    char target[SVK_FILE_PATH_MAX];    /* path with symlinks resolved: what the rename replaces */
    char tmp[SVK_FILE_PATH_MAX + 64];  /* the temporary, next to target */
    int fd;                            /* the temporary, open for writing; -1 when none */
} svk_file_replace;

/* Checks path, resolves it and creates the temporary with the mode (and
 * owner) the file will have. On failure nothing was created and r->fd is
 * -1. r->path keeps the pointer: path must outlive r. */
svk_status svk_file_replace_begin(svk_log *log, char *quiet, const char *path, svk_file_replace *r);
/* Writes n bytes to the temporary (all of them, or fails). */
svk_status svk_file_replace_write(svk_file_replace *r, const void *p, size_t n);
/* fsync, rename over the target, fsync of the directory. On failure before
 * the rename, the temporary is removed and the old file stays. */
svk_status svk_file_replace_commit(svk_file_replace *r);
/* Removes the temporary (after a failed write); the old file stays. Safe
 * after a commit and on an r whose begin failed. */
void svk_file_replace_abort(svk_file_replace *r);

/* Creates the directory path and its missing parents (mode 0755 less the
 * umask, where there are modes). Failures are not reported: the open of a
 * file inside says what is wrong. path is modified and restored. */
void svk_file_make_dirs(char *path);

/* The variables the user's cache directory derives from, as lib/vk/env.c
 * read them (NULL where unset): each platform's file layer uses its own. */
typedef struct svk_file_cache_vars {
    const char *xdg_cache_home, *home; /* POSIX */
    const char *local_app_data;        /* Windows */
} svk_file_cache_vars;

/* The user's cache directory for libsvk into out: $XDG_CACHE_HOME/siamese-vk,
 * else $HOME/.cache/siamese-vk (%LOCALAPPDATA%\siamese-vk on Windows).
 * false where none is set or it does not fit in size bytes. */
bool svk_file_cache_dir(const svk_file_cache_vars *vars, char *out, size_t size);

/* "a FIFO", "a directory", "a character device", ... for a st_mode; "a
 * regular file" for one. */
const char *svk_file_kind(mode_t mode);

#endif
