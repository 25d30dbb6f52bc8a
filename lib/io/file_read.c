/* Reading a file at a user's path, the same on every system: the system's
 * part (opening only regular files, one read, a mapping, a glob) is
 * file_os.h's. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "file_os.h"

svk_status svk_file_report(svk_log *log, char *quiet, svk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (quiet)
        vsnprintf(quiet, SVK_ERROR_MAX, fmt, ap);
    else
        svk_verror(log, st, fmt, ap);
    va_end(ap);
    return st;
}

const char *svk_file_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
#ifdef S_IFSOCK
    case S_IFSOCK: return "a socket";
#endif
#ifdef S_IFBLK
    case S_IFBLK: return "a block device";
#endif
#ifdef S_IFLNK
    case S_IFLNK: return "a symbolic link";
#endif
    default: return "a file of unknown type";
    }
}

static svk_status not_regular(svk_log *log, char *quiet, const char *path, unsigned type)
{
    return svk_file_report(log, quiet, SVK_ERROR_IO,
                           "%s is not a regular file (it is %s); libsvk reads regular files only", path,
                           svk_file_kind((mode_t)type));
}

svk_status svk_file_exists(svk_log *log, const char *path, bool *exists)
{
    unsigned type;
    uint64_t bytes;
    *exists = false;
    if (svk_file_os_stat(path, -1, &type, &bytes) == 0)
        *exists = true;
    else if (errno != ENOENT && errno != ENOTDIR)
        return svk_error(log, SVK_ERROR_IO, "cannot tell whether %s exists: %s", path, strerror(errno));
    return SVK_OK;
}

/* Opens the regular file at path for reading; *bytes is its size. */
static svk_status open_regular(svk_log *log, char *quiet, const char *path, int *fd, uint64_t *bytes)
{
    *fd = -1;
    /* stat before open: a FIFO or device (on Windows CON, NUL or COM1) is
     * refused without being opened at all, since opening a device can act
     * (a tape rewinds, a modem line hangs up). The fstat after the open is
     * the check that counts; this one spares the common mistake the open. */
    unsigned type;
    if (svk_file_os_stat(path, -1, &type, bytes) != 0)
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(type))
        return not_regular(log, quiet, path, type);
    int f = svk_file_os_open(path);
    if (f < 0)
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
    if (svk_file_os_stat(NULL, f, &type, bytes) != 0) {
        int err = errno;
        svk_file_os_close(f);
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot stat %s: %s", path, strerror(err));
    }
    if (!S_ISREG(type)) {
        svk_file_os_close(f);
        return not_regular(log, quiet, path, type);
    }
    svk_file_os_ready(f);
    *fd = f;
    return SVK_OK;
}

/* Reads n bytes from the start of fd into a new buffer of n + 1 bytes.
 * whole: the file must end there, which the spare byte checks (a read that
 * fills it finds the file longer than it was when opened). */
static svk_status read_start(svk_log *log, char *quiet, const char *path, int fd, size_t n, bool whole, void **data)
{
    char b1[32];
    uint8_t *buf = svk_malloc(n + 1);
    if (!buf)
        return svk_file_report(log, quiet, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading %s (%s)", path,
                               svk_fmt_bytes(b1, n));
    const size_t want_total = whole ? n + 1 : n;
    size_t got = 0;
    while (got < want_total) {
        /* At most 1 GiB a call: Linux moves under 2 GiB per read anyway,
         * and Windows' _read counts in an int. */
        size_t want = want_total - got < (1u << 30) ? want_total - got : (1u << 30);
        long long r = svk_file_os_read(fd, buf + got, want);
        if (r < 0) {
            int err = errno;
            free(buf);
            return svk_file_report(log, quiet, SVK_ERROR_IO, "reading %s: %s", path, strerror(err));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got != n) {
        free(buf);
        return svk_file_report(log, quiet, SVK_ERROR_IO,
                               "%s changed size while it was read (%zu bytes when opened, %s%zu read)"
                               ": is another process writing it?",
                               path, n, got > n ? "over " : "", got > n ? n : got);
    }
    *data = buf;
    return SVK_OK;
}

svk_status svk_file_read(svk_log *log, char *quiet, const char *path, uint64_t limit, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    int fd;
    uint64_t bytes;
    svk_status st = open_regular(log, quiet, path, &fd, &bytes);
    if (st != SVK_OK)
        return st;
    char b1[32], b2[32];
    if (bytes > limit || bytes >= SIZE_MAX) {
        svk_file_os_close(fd);
        return svk_file_report(log, quiet, SVK_ERROR_IO, "%s is %s, over the limit of %s for this file", path,
                               svk_fmt_bytes(b1, bytes), svk_fmt_bytes(b2, limit < SIZE_MAX - 1 ? limit : SIZE_MAX - 1));
    }
    st = read_start(log, quiet, path, fd, (size_t)bytes, true, data);
    svk_file_os_close(fd);
    if (st == SVK_OK)
        *size = (size_t)bytes;
    return st;
}

svk_status svk_file_read_head(svk_log *log, char *quiet, const char *path, uint64_t max, void **data, size_t *size,
                              uint64_t *file_size)
{
    *data = NULL;
    *size = 0;
    *file_size = 0;
    int fd;
    uint64_t bytes;
    svk_status st = open_regular(log, quiet, path, &fd, &bytes);
    if (st != SVK_OK)
        return st;
    const uint64_t n = bytes < max ? bytes : max;
    if (n >= SIZE_MAX) {
        svk_file_os_close(fd);
        return svk_file_report(log, quiet, SVK_ERROR_IO, "%s: %" PRIu64 " bytes do not fit in memory", path, n);
    }
    st = read_start(log, quiet, path, fd, (size_t)n, n == bytes, data);
    svk_file_os_close(fd);
    if (st == SVK_OK) {
        *size = (size_t)n;
        *file_size = bytes;
    }
    return st;
}

svk_status svk_file_map(svk_log *log, char *quiet, const char *path, svk_file_mapping *m)
{
    m->data = NULL;
    m->size = 0;
    int fd;
    uint64_t bytes;
    svk_status st = open_regular(log, quiet, path, &fd, &bytes);
    if (st != SVK_OK)
        return st;
    /* An empty file has nothing to map (mmap refuses a length of 0). */
    if (bytes == 0) {
        svk_file_os_close(fd);
        return SVK_OK;
    }
    if (bytes >= SIZE_MAX) {
        svk_file_os_close(fd);
        return svk_file_report(log, quiet, SVK_ERROR_IO, "%s: %" PRIu64 " bytes do not fit in the address space", path,
                               bytes);
    }
    char why[128];
    const void *p = svk_file_os_map(fd, (size_t)bytes, why, sizeof(why));
    svk_file_os_close(fd);
    if (!p)
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot map %s: %s", path, why);
    m->data = p;
    m->size = bytes;
    return SVK_OK;
}

void svk_file_unmap(svk_file_mapping *m)
{
    if (m->data)
        svk_file_os_unmap(m->data, (size_t)m->size);
    m->data = NULL;
    m->size = 0;
}

void svk_file_map_advise_random(const svk_file_mapping *m)
{
    if (m->data)
        svk_file_os_advise_random(m->data, (size_t)m->size);
}

/* svk_file_glob's collector: the array grows by doubling. */
typedef struct glob_acc {
    svk_file_list list;
    size_t capacity;
} glob_acc;

static int glob_add(void *user, const char *name)
{
    glob_acc *a = user;
    if (a->list.count == a->capacity) {
        size_t cap = a->capacity ? 2 * a->capacity : 16;
        char **p = svk_realloc(a->list.paths, cap * sizeof(*p));
        if (!p)
            return 1;
        a->list.paths = p;
        a->capacity = cap;
    }
    char *copy = svk_strdup(name);
    if (!copy)
        return 1;
    a->list.paths[a->list.count++] = copy;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

svk_status svk_file_glob(svk_log *log, char *quiet, const char *pattern, svk_file_list *list)
{
    list->paths = NULL;
    list->count = 0;
    glob_acc a = {{NULL, 0}, 0};
    char why[128] = "";
    int r = svk_file_os_glob(pattern, glob_add, &a, why, sizeof(why));
    if (r != 0) {
        svk_file_list_free(&a.list);
        if (r > 0)
            return svk_file_report(log, quiet, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing %s", pattern);
        return svk_file_report(log, quiet, SVK_ERROR_IO, "cannot list the files matching %s: %s", pattern, why);
    }
    if (a.list.count > 1)
        qsort(a.list.paths, a.list.count, sizeof(*a.list.paths), by_bytes);
    *list = a.list;
    return SVK_OK;
}

void svk_file_list_free(svk_file_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
    list->paths = NULL;
    list->count = 0;
}
