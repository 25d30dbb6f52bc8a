/*
 * io/io_file.h and file_os.h on Windows (lib/meson.build builds this instead
 * of file.c; file_read.c reads through it on both): the
 * same rules where Windows has the same things, through the C runtime's
 * descriptors (always _O_BINARY: text mode would rewrite line ends inside a
 * checkpoint) and MoveFileEx.
 *
 * What differs from file.c, and why:
 *  - A symbolic link at the name is replaced, not followed: Windows links
 *    need privileges to make and are rare; following one portably would
 *    need GetFinalPathNameByHandle on a name that may not exist yet.
 *  - The replacement gets the directory's inherited ACL, not the old
 *    file's permissions: Windows has no mode bits to copy, and an ACL copy
 *    would need the security API for a case (a file shared with other
 *    users under a private ACL) libsvk's users are unlikely to have.
 *  - No directory sync: MOVEFILE_WRITE_THROUGH returns only once the move
 *    is on disk.
 * The hard-link refusal is kept (GetFileInformationByHandle counts links).
 *  - A glob's wildcards (* and ?) work in its last component only:
 *    FindFirstFile matches names within one directory, and a walk of
 *    every directory a pattern could name is more code than the one use
 *    (shards of a data set, which sit side by side) needs. Other
 *    components are taken literally, as is [...]. FindFirstFile also
 *    matches a file's short 8.3 name, so "*.bin" may find a "x.binary"
 *    whose short name ends in .BIN; the shards' loader then refuses the
 *    stranger by its size or header, naming it.
 *
 * Untested: built by the mingw-w64 cross build (scripts/test.sh), run by
 * nothing here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <direct.h>
#include <io.h>
#include <process.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "core/alloc.h"
#include "file_os.h"

int svk_file_os_stat(const char *path, int fd, unsigned *type, uint64_t *bytes)
{
    struct _stat64 sb;
    if ((path ? _stat64(path, &sb) : _fstat64(fd, &sb)) != 0)
        return -1;
    *type = (unsigned)sb.st_mode;
    *bytes = (uint64_t)sb.st_size;
    return 0;
}

int svk_file_os_open(const char *path)
{
    return _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
}

void svk_file_os_ready(int fd)
{
    (void)fd;
}

long long svk_file_os_read(int fd, void *buf, size_t want)
{
    /* _read takes an unsigned int count and returns an int; want is at
     * most 1 GiB (file_read.c). */
    return _read(fd, buf, (unsigned)want);
}

void svk_file_os_close(int fd)
{
    _close(fd);
}

const void *svk_file_os_map(int fd, size_t bytes, char *why, size_t why_size)
{
    HANDLE file = (HANDLE)_get_osfhandle(fd);
    /* The view keeps the mapping object alive: its handle is closed at
     * once, and UnmapViewOfFile alone releases both. */
    HANDLE m = CreateFileMappingA(file, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!m) {
        snprintf(why, why_size, "CreateFileMapping failed (Windows error %lu)", (unsigned long)GetLastError());
        return NULL;
    }
    const void *p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, bytes);
    unsigned long err = GetLastError();
    CloseHandle(m);
    if (!p)
        snprintf(why, why_size, "MapViewOfFile failed (Windows error %lu)", err);
    return p;
}

void svk_file_os_unmap(const void *addr, size_t bytes)
{
    (void)bytes;
    UnmapViewOfFile(addr);
}

void svk_file_os_advise_random(const void *addr, size_t bytes)
{
    (void)addr;
    (void)bytes;
}

int svk_file_os_glob(const char *pattern, int (*add)(void *user, const char *name), void *user, char *why,
                     size_t why_size)
{
    /* The directory part, separator included, goes before each name found
     * (FindFirstFile gives the last component alone). */
    size_t dir_len = 0;
    for (size_t i = 0; pattern[i]; i++)
        if (pattern[i] == '/' || pattern[i] == '\\' || pattern[i] == ':')
            dir_len = i + 1;
    WIN32_FIND_DATAA found;
    HANDLE h = FindFirstFileA(pattern, &found);
    if (h == INVALID_HANDLE_VALUE) {
        unsigned long err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND || err == ERROR_NO_MORE_FILES)
            return 0;
        snprintf(why, why_size, "FindFirstFile failed (Windows error %lu)", err);
        return -1;
    }
    int out = 0;
    do {
        const char *n = found.cFileName;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        char name[SVK_FILE_PATH_MAX];
        if (dir_len + strlen(n) >= sizeof(name)) {
            snprintf(why, why_size, "a name matching it is longer than %d bytes", SVK_FILE_PATH_MAX - 1);
            out = -1;
            break;
        }
        memcpy(name, pattern, dir_len);
        strcpy(name + dir_len, n);
        out = add(user, name);
    } while (!out && FindNextFileA(h, &found));
    FindClose(h);
    return out;
}

/* The number of names the regular file at path has (1 where it cannot be
 * told: the rename then goes ahead, as it would without the check). */
static unsigned long link_count(const char *path)
{
    int fd = _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
    if (fd < 0)
        return 1;
    BY_HANDLE_FILE_INFORMATION info;
    unsigned long n = 1;
    if (GetFileInformationByHandle((HANDLE)_get_osfhandle(fd), &info))
        n = info.nNumberOfLinks;
    _close(fd);
    return n;
}

/* "<target>.tmp.<pid>.<n>", created exclusively next to the target, as in
 * file.c. */
static svk_status open_temporary(svk_file_replace *r)
{
    static atomic_uint serial;
    int err = 0;
    for (int tries = 0; tries < 1000; tries++) {
        unsigned n = atomic_fetch_add(&serial, 1);
        if (snprintf(r->tmp, sizeof(r->tmp), "%s" SVK_FILE_TMP_INFIX "%d.%u", r->target, _getpid(), n) >=
            (int)sizeof(r->tmp))
            return svk_file_report(r->log, r->quiet, SVK_ERROR_INVALID_ARG, "path too long: %s", r->target);
        r->fd = _open(r->tmp, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
        if (r->fd >= 0)
            return SVK_OK;
        err = errno;
        if (err != EEXIST)
            break;
    }
    svk_status st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot create %s: %s", r->tmp, strerror(err));
    r->tmp[0] = '\0';
    return st;
}

svk_status svk_file_replace_begin(svk_log *log, char *quiet, const char *path, svk_file_replace *r)
{
    r->log = log;
    r->quiet = quiet;
    r->path = path;
    r->target[0] = r->tmp[0] = '\0';
    r->fd = -1;
    size_t len = strlen(path);
    if (len >= sizeof(r->target))
        return svk_file_report(log, quiet, SVK_ERROR_INVALID_ARG, "path of %zu bytes is too long (limit %d): %.64s...", len,
                               SVK_FILE_PATH_MAX - 1, path);
    memcpy(r->target, path, len + 1);
    struct _stat64 old;
    bool exists = _stat64(path, &old) == 0;
    if (!exists && errno != ENOENT)
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
    if (exists && !S_ISREG(old.st_mode))
        return svk_file_report(log, quiet, SVK_ERROR_IO, "refusing to replace %s: it is %s, not a regular file", path,
                               svk_file_kind((mode_t)old.st_mode));
    unsigned long links = exists ? link_count(path) : 1;
    if (links > 1)
        return svk_file_report(log, quiet, SVK_ERROR_IO,
                               "refusing to replace %s: it has %lu hard links, and an atomic save would split them (the "
                               "other names would keep the old contents); save to another name, or remove the other links "
                               "first",
                               path, links);
    return open_temporary(r);
}

svk_status svk_file_replace_write(svk_file_replace *r, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        int w = _write(r->fd, c, n < (1u << 30) ? (unsigned)n : (1u << 30));
        if (w <= 0)
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "writing %s: %s", r->tmp,
                                   w < 0 ? strerror(errno) : "no progress");
        c += w;
        n -= (size_t)w;
    }
    return SVK_OK;
}

svk_status svk_file_replace_commit(svk_file_replace *r)
{
    svk_status st = SVK_OK;
    /* _commit: FlushFileBuffers, Windows' fsync. */
    if (_commit(r->fd) != 0)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "flushing %s: %s", r->tmp, strerror(errno));
    if (_close(r->fd) != 0 && st == SVK_OK)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "closing %s: %s", r->tmp, strerror(errno));
    r->fd = -1;
    /* rename() refuses an existing target on Windows; MoveFileEx replaces
     * it, and with WRITE_THROUGH returns once the move is on disk. */
    if (st == SVK_OK && !MoveFileExA(r->tmp, r->target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "renaming %s to %s: Windows error %lu", r->tmp, r->target,
                             (unsigned long)GetLastError());
    if (st != SVK_OK) {
        svk_file_replace_abort(r);
        return st;
    }
    r->tmp[0] = '\0';
    return SVK_OK;
}

void svk_file_replace_abort(svk_file_replace *r)
{
    if (r->fd >= 0)
        _close(r->fd);
    r->fd = -1;
    if (r->tmp[0])
        _unlink(r->tmp);
    r->tmp[0] = '\0';
}

void svk_file_make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/' && *p != '\\')
            continue;
        char c = *p;
        *p = '\0';
        _mkdir(path);
        *p = c;
    }
    _mkdir(path);
}

bool svk_file_cache_dir(const svk_file_cache_vars *vars, char *out, size_t size)
{
    const char *base = vars->local_app_data;
    if (!base || !*base)
        return false;
    return snprintf(out, size, "%s\\siamese-vk", base) < (int)size;
}
