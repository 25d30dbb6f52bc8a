/* io_file.h and file_os.h on POSIX systems: opening only regular files,
 * mapping them (mmap), listing a glob's matches (glob(3)), and saving by a
 * temporary renamed over its target (file_read.c reads, maps and lists
 * through file_os.h on every system). */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "file_os.h"

/* Linux's own limit on a chain (MAXSYMLINKS); beyond it a loop is likelier
 * than a real chain. */
#define SYMLINK_HOPS 40

int svk_file_os_stat(const char *path, int fd, unsigned *type, uint64_t *bytes)
{
    struct stat sb;
    if ((path ? stat(path, &sb) : fstat(fd, &sb)) != 0)
        return -1;
    *type = (unsigned)sb.st_mode;
    *bytes = (uint64_t)sb.st_size;
    return 0;
}

int svk_file_os_open(const char *path)
{
    /* O_NONBLOCK: should the name become a FIFO after the stat, the open
     * returns at once instead of waiting for a writer that may never come.
     * O_NOCTTY: nor may a terminal become ours. */
    int fd;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

void svk_file_os_ready(int fd)
{
    /* Linux ignores O_NONBLOCK on regular files, but POSIX lets reads with it
     * fail with EAGAIN under mandatory locks: the reads block. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

long long svk_file_os_read(int fd, void *buf, size_t want)
{
    ssize_t r;
    do
        r = read(fd, buf, want);
    while (r < 0 && errno == EINTR);
    return r;
}

void svk_file_os_close(int fd)
{
    close(fd);
}

const void *svk_file_os_map(int fd, size_t bytes, char *why, size_t why_size)
{
    /* MAP_PRIVATE: libsvk never writes through it, and a private mapping
     * needs no write permission on the file. */
    void *p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, why_size, "%s", strerror(errno));
        return NULL;
    }
    return p;
}

void svk_file_os_unmap(const void *addr, size_t bytes)
{
    munmap((void *)(uintptr_t)addr, bytes);
}

void svk_file_os_advise_random(const void *addr, size_t bytes)
{
    posix_madvise((void *)(uintptr_t)addr, bytes, POSIX_MADV_RANDOM);
}

int svk_file_os_glob(const char *pattern, int (*add)(void *user, const char *name), void *user, char *why,
                     size_t why_size)
{
    /* GLOB_NOSORT: the caller sorts by bytes, since glob's own order
     * follows the locale's collation, and a run must see its shards in the
     * same order everywhere. Unreadable directories are skipped (no
     * GLOB_ERR), as a shell skips them. */
    glob_t g;
    int r = glob(pattern, GLOB_NOSORT, NULL, &g);
    if (r == GLOB_NOMATCH)
        return 0;
    if (r != 0) {
        snprintf(why, why_size, "%s", r == GLOB_NOSPACE ? "out of memory" : "a directory could not be read");
        globfree(&g);
        return -1;
    }
    int out = 0;
    for (size_t i = 0; i < g.gl_pathc && !out; i++)
        out = add(user, g.gl_pathv[i]);
    globfree(&g);
    return out;
}

/* " (where symlink P points)" after the target's name in a message when the
 * caller's path was a link, so the message names what the caller gave. */
#define VIA_FMT "%s%s%s"
#define VIA(r)                                                                                                \
    strcmp((r)->path, (r)->target) ? " (where symlink " : "", strcmp((r)->path, (r)->target) ? (r)->path : "", \
        strcmp((r)->path, (r)->target) ? " points)" : ""

/* Follows the chain of symlinks at r->path into r->target, the name the
 * rename must replace: renaming over a link would replace the link, and the
 * user who saves to a link means the file it points to. Only the last
 * component needs following: links among the directories are resolved by
 * the kernel alike for the temporary and the target, which therefore share
 * a directory and a filesystem. realpath() would not do: it fails on a
 * dangling link, which names a file to create. *exists says whether the
 * final name exists, *sb is its lstat. */
static svk_status resolve(svk_file_replace *r, struct stat *sb, bool *exists)
{
    size_t len = strlen(r->path);
    if (len >= sizeof(r->target))
        return svk_file_report(r->log, r->quiet, SVK_ERROR_INVALID_ARG, "path of %zu bytes is too long (limit %d): %.64s...",
                               len, SVK_FILE_PATH_MAX - 1, r->path);
    memcpy(r->target, r->path, len + 1);
    for (int hops = 0;; hops++) {
        if (lstat(r->target, sb) != 0) {
            if (errno == ENOENT) {
                *exists = false;
                return SVK_OK;
            }
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot write %s" VIA_FMT ": %s", r->target, VIA(r),
                                   strerror(errno));
        }
        if (!S_ISLNK(sb->st_mode)) {
            *exists = true;
            return SVK_OK;
        }
        if (hops == SYMLINK_HOPS)
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO,
                                   "cannot write %s: more than %d symbolic links in a row from it (a loop?)", r->path,
                                   SYMLINK_HOPS);
        char link[SVK_FILE_PATH_MAX];
        ssize_t n = readlink(r->target, link, sizeof(link));
        if (n < 0)
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot read symlink %s: %s", r->target, strerror(errno));
        if ((size_t)n >= sizeof(link))
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "symlink %s points to a path too long (limit %d bytes)",
                                   r->target, SVK_FILE_PATH_MAX - 1);
        link[n] = '\0';
        /* A relative link is relative to the directory that holds it. */
        const char *slash = strrchr(r->target, '/');
        size_t dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash - r->target) + 1;
        if (dir_len + (size_t)n >= sizeof(r->target))
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "symlink %s points to a path too long (limit %d bytes)",
                                   r->target, SVK_FILE_PATH_MAX - 1);
        memcpy(r->target + dir_len, link, (size_t)n + 1);
    }
}

/* Creates "<target>.tmp.<pid>.<n>" exclusively: in the target's directory,
 * so the rename cannot cross filesystems; unique per process (pid) and per
 * call (n), so concurrent saves, even to one path, never share a temporary.
 * One left by a killed process is never reused (O_EXCL): the next n is
 * taken. */
static svk_status open_temporary(svk_file_replace *r, mode_t mode)
{
    static atomic_uint serial;
    int err = 0;
    for (int tries = 0; tries < 1000; tries++) {
        unsigned n = atomic_fetch_add(&serial, 1);
        if (snprintf(r->tmp, sizeof(r->tmp), "%s" SVK_FILE_TMP_INFIX "%ld.%u", r->target, (long)getpid(), n) >=
            (int)sizeof(r->tmp))
            return svk_file_report(r->log, r->quiet, SVK_ERROR_INVALID_ARG, "path too long: %s", r->target);
        r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, mode);
        if (r->fd >= 0)
            return SVK_OK;
        err = errno;
        if (err != EEXIST && err != EINTR)
            break;
    }
    svk_status st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot create %s" VIA_FMT ": %s", r->tmp, VIA(r),
                                    strerror(err));
    r->tmp[0] = '\0';
    return st;
}

/* Gives the temporary the replaced file's owner, group and mode, before any
 * data reaches it: a 0600 checkpoint's new contents are never readable by
 * others, not even for the moment before the rename. The owner and group
 * only where permitted (root, or a group the user is in): a user replacing
 * another's file in a directory both may write ends up owning the new one,
 * as with any editor that saves by rename. The setuid, setgid and sticky
 * bits are kept only with the owner and group, or they would now grant the
 * saver's identity. ACLs and extended attributes are not copied. */
static svk_status keep_attributes(svk_file_replace *r, const struct stat *old)
{
    struct stat now;
    if (fstat(r->fd, &now) != 0)
        return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot stat %s: %s", r->tmp, strerror(errno));
    if (now.st_uid != old->st_uid || now.st_gid != old->st_gid) {
        if (fchown(r->fd, old->st_uid, old->st_gid) != 0) {
            if (errno != EPERM)
                return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot give %s the owner of %s: %s", r->tmp,
                                       r->target, strerror(errno));
            if (now.st_gid != old->st_gid && fchown(r->fd, (uid_t)-1, old->st_gid) != 0 && errno != EPERM)
                return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot give %s the group of %s: %s", r->tmp,
                                       r->target, strerror(errno));
        }
        if (fstat(r->fd, &now) != 0)
            return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot stat %s: %s", r->tmp, strerror(errno));
    }
    bool same_owner = now.st_uid == old->st_uid && now.st_gid == old->st_gid;
    mode_t mode = old->st_mode & (same_owner ? 07777 : 0777);
    /* Not ignorable: the file would come back with wider permissions. */
    if (fchmod(r->fd, mode) != 0)
        return svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "cannot give %s the mode %04o of %s: %s", r->tmp,
                               (unsigned)mode, r->target, strerror(errno));
    return SVK_OK;
}

svk_status svk_file_replace_begin(svk_log *log, char *quiet, const char *path, svk_file_replace *r)
{
    r->log = log;
    r->quiet = quiet;
    r->path = path;
    r->target[0] = r->tmp[0] = '\0';
    r->fd = -1;
    struct stat old;
    bool exists = false;
    svk_status st = resolve(r, &old, &exists);
    if (st != SVK_OK)
        return st;
    /* Checked by name, never by opening: opening a FIFO blocks, opening a
     * device can act. Whoever may write the directory can still swap the
     * name between this check and the rename; then the rename replaces
     * what they put there, which they could have removed anyway. */
    if (exists && !S_ISREG(old.st_mode))
        return svk_file_report(log, quiet, SVK_ERROR_IO, "refusing to replace %s" VIA_FMT ": it is %s, not a regular file",
                               r->target, VIA(r), svk_file_kind(old.st_mode));
    /* A rename gives the name a new inode, so the file's other hard links
     * would keep the old contents: the links split, silently. Writing in
     * place would keep them but lose atomicity, and a crash mid-save would
     * then destroy the only copy of the user's checkpoint. Atomicity and
     * the data matter more; the user can save to a new name or drop the
     * other links. */
    if (exists && old.st_nlink > 1)
        return svk_file_report(log, quiet, SVK_ERROR_IO,
                               "refusing to replace %s" VIA_FMT ": it has %ju hard links, and an atomic save would split "
                               "them (the other names would keep the old contents); save to another name, or remove the "
                               "other links first",
                               r->target, VIA(r), (uintmax_t)old.st_nlink);
    /* A new file: 0666 minus the umask, as fopen, shell redirection and
     * most tools make it, so the umask stays the user's one setting. A
     * replacement starts owner-only and gets the old mode before any data. */
    if ((st = open_temporary(r, exists ? 0600 : 0666)) != SVK_OK)
        return st;
    if (exists && (st = keep_attributes(r, &old)) != SVK_OK) {
        svk_file_replace_abort(r);
        return st;
    }
    return SVK_OK;
}

svk_status svk_file_replace_write(svk_file_replace *r, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(r->fd, c, n < (1u << 30) ? n : (1u << 30));
        if (w < 0 && errno == EINTR)
            continue;
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
    if (fsync(r->fd) != 0)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "fsync %s: %s", r->tmp, strerror(errno));
    if (close(r->fd) != 0 && st == SVK_OK)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "closing %s: %s", r->tmp, strerror(errno));
    r->fd = -1;
    if (st == SVK_OK && rename(r->tmp, r->target) != 0)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "renaming %s to %s" VIA_FMT ": %s", r->tmp, r->target, VIA(r),
                             strerror(errno));
    if (st != SVK_OK) {
        svk_file_replace_abort(r);
        return st;
    }
    r->tmp[0] = '\0';
    /* The rename itself must reach the disk: sync the directory. The new
     * file is in place either way; an error here says it may not survive a
     * power cut. Filesystems that cannot sync a directory say EINVAL. */
    char dir[SVK_FILE_PATH_MAX];
    const char *slash = strrchr(r->target, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == r->target)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - r->target), r->target);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return svk_file_report(r->log, r->quiet, SVK_ERROR_IO,
                               "%s was written, but its directory cannot be opened to sync the rename: %s", r->target,
                               strerror(errno));
    if (fsync(dfd) != 0 && errno != EINVAL)
        st = svk_file_report(r->log, r->quiet, SVK_ERROR_IO, "%s was written, but syncing its directory failed: %s", r->target,
                             strerror(errno));
    close(dfd);
    return st;
}

void svk_file_replace_abort(svk_file_replace *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    if (r->tmp[0])
        unlink(r->tmp);
    r->tmp[0] = '\0';
}

void svk_file_make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

bool svk_file_cache_dir(const svk_file_cache_vars *vars, char *out, size_t size)
{
    const char *xdg = vars->xdg_cache_home, *home = vars->home;
    int n;
    if (xdg && *xdg)
        n = snprintf(out, size, "%s/siamese-vk", xdg);
    else if (home && *home)
        n = snprintf(out, size, "%s/.cache/siamese-vk", home);
    else
        return false;
    return n >= 0 && (size_t)n < size;
}
