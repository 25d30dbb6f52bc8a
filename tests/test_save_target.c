/*
 * What a save does to the name it is given (lib/io/io_file.h). A save writes a
 * temporary and renames it over the target, so without care it replaces
 * whatever the name is: a symlink, a FIFO, a device node, a hard link's one
 * name, a 0600 file with a 0644 one. Checked here, with svk_st_write (what
 * checkpoints and the gradient and logit dumps go through) and once more
 * through the public svk_model_save on the CPU backend:
 *   - a symlink (relative, in directory A, to a file in directory B, and a
 *     chain of two) stays a link, its target gets the new contents, and the
 *     temporary is created in B, none in A (inotify watches both); a link
 *     named without a directory works; a loop of links is refused;
 *   - a dangling symlink: the file is created where it points; one that
 *     points into a missing directory is refused;
 *   - a FIFO, a Unix socket, a directory and (as root) a character device
 *     made with mknod in the test's own directory are refused promptly, with
 *     a message naming the path and what it is, before anything is created
 *     (inotify), and are left as they were;
 *   - a 0600 file stays 0600, a 0755 one 0755; new files get 0666 minus the
 *     umask, as fopen gives (022: 0644, 077: 0600, 002: 0664);
 *   - a file with two hard links is refused, both names unchanged;
 *   - as root, the owner and group of the replaced file are kept.
 * Sub-cases that need root say so when run without it. Never a real /dev node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "test_util.h"

/* One tensor "x" of four copies of v. */
static svk_status save_value(const char *path, float v)
{
    float d[4] = {v, v, v, v};
    svk_st_entry e = {"x", SVK_ST_F32, 1, {4}, d};
    tu_watchdog(5, "svk_st_write to %s", path);
    svk_status st = svk_st_write(NULL, path, &e, 1, NULL, 0);
    tu_watchdog_off();
    return st;
}

/* The value a file saved by save_value holds, or -999 if it cannot be read. */
static float read_value(const char *path)
{
    svk_st_file f;
    if (svk_st_read(NULL, path, &f) != SVK_OK)
        return -999.0f;
    const svk_st_tensor *x = svk_st_find(&f, "x");
    float v = x && x->bytes == 16 ? ((const float *)x->data)[0] : -999.0f;
    svk_st_free(&f);
    return v;
}

static mode_t kind(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0 ? (sb.st_mode & S_IFMT) : 0;
}

/* inotify on directories A and B: what a save created where. */
static int ino = -1, wd_a = -1, wd_b = -1;

typedef struct created {
    int in_a, in_b;          /* names created (or moved in) */
    int temps_in_b;          /* of which in B with the temporary's infix */
    char first_a[256];
} created;

static void collect(created *c)
{
    memset(c, 0, sizeof(*c));
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(ino, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
                if (e->wd == wd_a) {
                    if (!c->in_a++)
                        snprintf(c->first_a, sizeof(c->first_a), "%s", e->len ? e->name : "");
                } else if (e->wd == wd_b) {
                    c->in_b++;
                    c->temps_in_b += e->len && strstr(e->name, SVK_ST_TMP_INFIX) != NULL;
                }
            }
            p += sizeof(*e) + e->len;
        }
    }
}

static char dir_a[300], dir_b[300];

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

/* A save that must be refused without touching anything: message names the
 * path and says what it is, nothing is created in A, the node keeps its kind. */
static void expect_refused(tu_tally *t, const char *label, const char *path, const char *what, mode_t kind_after)
{
    created c;
    collect(&c);
    double t0 = tu_now();
    svk_status st = save_value(path, 9.0f);
    double dt = tu_now() - t0;
    collect(&c);
    const char *msg = svk_last_error();
    tu_check(t, st != SVK_OK && dt < 1.0 && strstr(msg, path) && strstr(msg, what),
             "%s: refused in %.3f s (%s): %s", label, dt, svk_status_string(st), msg);
    tu_check(t, c.in_a == 0 && c.in_b == 0, "%s: nothing was created first (%d in A%s%s, %d in B)", label, c.in_a,
             c.in_a ? ": " : "", c.first_a, c.in_b);
    tu_check(t, kind(path) == kind_after, "%s: still what it was (mode type %o, want %o)", label,
             (unsigned)kind(path), (unsigned)kind_after);
}

static void symlinks(tu_tally *t)
{
    char target[400], link1[400], link2[400];
    path_in(target, sizeof(target), dir_b, "target.safetensors");
    path_in(link1, sizeof(link1), dir_a, "link.safetensors");
    path_in(link2, sizeof(link2), dir_a, "link2.safetensors");
    created c;
    bool made = save_value(target, 1.0f) == SVK_OK && symlink("../B/target.safetensors", link1) == 0 &&
                symlink("link.safetensors", link2) == 0;
    tu_check(t, made, "symlink: made %s -> ../B/target.safetensors and %s -> it", link1, link2);
    const char *links[2] = {link1, link2};
    for (int i = 0; made && i < 2; i++) {
        collect(&c);
        float v = 2.0f + (float)i;
        svk_status st = save_value(links[i], v);
        collect(&c);
        char dest[400] = "";
        ssize_t n = readlink(links[i], dest, sizeof(dest) - 1);
        dest[n > 0 ? n : 0] = '\0';
        tu_check(t, st == SVK_OK, "symlink%s: saved through %s: %s", i ? " chain" : "", links[i],
                 st == SVK_OK ? "ok" : svk_last_error());
        tu_check(t, kind(links[i]) == S_IFLNK && !strcmp(dest, i ? "link.safetensors" : "../B/target.safetensors"),
                 "symlink%s: %s is still a link to %s", i ? " chain" : "", links[i], dest);
        tu_check(t, kind(target) == S_IFREG && read_value(target) == v,
                 "symlink%s: the target holds the new contents (%g)", i ? " chain" : "", (double)read_value(target));
        tu_check(t, c.in_a == 0 && c.temps_in_b == 1,
                 "symlink%s: the temporary was made next to the target (%d in B), none next to the link (%d in A%s%s)",
                 i ? " chain" : "", c.temps_in_b, c.in_a, c.in_a ? ": " : "", c.first_a);
    }
    tu_check(t, kind(link1) == S_IFLNK && kind(link2) == S_IFLNK, "symlink: both links are links at the end");

    /* A path without a directory: the link's target is relative to the
     * working directory, where the link is. */
    char cwd[1024];
    if (made && getcwd(cwd, sizeof(cwd)) && chdir(dir_a) == 0) {
        svk_status st = save_value("link2.safetensors", 6.0f);
        bool back = chdir(cwd) == 0;
        tu_check(t, back && st == SVK_OK && kind(link2) == S_IFLNK && read_value(target) == 6.0f,
                 "symlink named without a directory (from A): the target holds the new contents: %s",
                 st == SVK_OK ? "ok" : svk_last_error());
    }

    /* A loop: refused with a message, both links kept. */
    char loop1[400], loop2[400];
    path_in(loop1, sizeof(loop1), dir_a, "loop1.safetensors");
    path_in(loop2, sizeof(loop2), dir_a, "loop2.safetensors");
    if (symlink("loop2.safetensors", loop1) == 0 && symlink("loop1.safetensors", loop2) == 0) {
        svk_status st = save_value(loop1, 7.0f);
        tu_check(t, st != SVK_OK && strstr(svk_last_error(), loop1) && kind(loop1) == S_IFLNK &&
                        kind(loop2) == S_IFLNK,
                 "a symlink loop: refused, links kept: %s", svk_last_error());
    }

    /* Dangling: the file is made where the link points. */
    char dangle[400], new_target[400];
    path_in(dangle, sizeof(dangle), dir_a, "dangling.safetensors");
    path_in(new_target, sizeof(new_target), dir_b, "new.safetensors");
    made = symlink("../B/new.safetensors", dangle) == 0;
    svk_status st = made ? save_value(dangle, 4.0f) : SVK_ERROR_IO;
    tu_check(t, st == SVK_OK && kind(dangle) == S_IFLNK && kind(new_target) == S_IFREG && read_value(dangle) == 4.0f,
             "dangling symlink: %s stays a link, %s was created with the contents: %s", dangle, new_target,
             st == SVK_OK ? "ok" : svk_last_error());
    /* Pointing into a directory that does not exist: refused, link kept. */
    char nowhere[400];
    path_in(nowhere, sizeof(nowhere), dir_a, "nowhere.safetensors");
    made = symlink("../B/missing/x.safetensors", nowhere) == 0;
    st = made ? save_value(nowhere, 5.0f) : SVK_OK;
    tu_check(t, st != SVK_OK && strstr(svk_last_error(), nowhere) && kind(nowhere) == S_IFLNK,
             "symlink into a missing directory: refused, link kept: %s", svk_last_error());
}

static void special_files(tu_tally *t, bool root)
{
    char fifo[400], fifo_link[400], sock_path[400], sub[400], dev[400];
    path_in(fifo, sizeof(fifo), dir_a, "fifo.safetensors");
    path_in(fifo_link, sizeof(fifo_link), dir_a, "to-fifo.safetensors");
    path_in(sock_path, sizeof(sock_path), dir_a, "sock.safetensors");
    path_in(sub, sizeof(sub), dir_a, "dir.safetensors");
    path_in(dev, sizeof(dev), dir_a, "null.safetensors");

    if (mkfifo(fifo, 0600) == 0 && symlink("fifo.safetensors", fifo_link) == 0) {
        expect_refused(t, "FIFO", fifo, "FIFO", S_IFIFO);
        /* Through a link: the message names the link given and the FIFO. */
        expect_refused(t, "symlink to a FIFO", fifo_link, "FIFO", S_IFLNK);
        tu_check(t, kind(fifo) == S_IFIFO, "symlink to a FIFO: the FIFO is still a FIFO");
    } else {
        tu_check(t, false, "mkfifo %s: %s", fifo, strerror(errno));
    }

    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    /* sun_path is 108 bytes: the temporary directory's names fit. */
    if (strlen(sock_path) < sizeof(sa.sun_path))
        memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
    if (sock >= 0 && bind(sock, (const struct sockaddr *)&sa, sizeof(sa)) == 0)
        expect_refused(t, "Unix socket", sock_path, "socket", S_IFSOCK);
    else
        tu_check(t, false, "binding a socket at %s: %s", sock_path, strerror(errno));
    if (sock >= 0)
        close(sock);

    if (mkdir(sub, 0700) == 0)
        expect_refused(t, "directory", sub, "directory", S_IFDIR);
    else
        tu_check(t, false, "mkdir %s: %s", sub, strerror(errno));

    /* A /dev/null twin (1, 3) in the test's directory: creating it needs
     * root, and opening it would be harmless, but nothing may replace it. */
    if (!root) {
        printf("note: the character-device sub-case needs root (mknod); not run\n");
    } else if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        expect_refused(t, "character device", dev, "character device", S_IFCHR);
        struct stat sb;
        tu_check(t, stat(dev, &sb) == 0 && sb.st_rdev == makedev(1, 3), "character device: still device 1:3");
    } else {
        tu_check(t, false, "mknod %s: %s", dev, strerror(errno));
    }
}

static mode_t mode_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (sb.st_mode & 07777) : (mode_t)-1;
}

static void modes(tu_tally *t)
{
    static const mode_t kept[] = {0600, 0755, 0640};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        char p[400];
        snprintf(p, sizeof(p), "%s/mode%o.safetensors", dir_a, (unsigned)kept[i]);
        bool made = save_value(p, 1.0f) == SVK_OK && chmod(p, kept[i]) == 0;
        svk_status st = made ? save_value(p, 2.0f) : SVK_ERROR_IO;
        tu_check(t, st == SVK_OK && read_value(p) == 2.0f && mode_of(p) == kept[i],
                 "a %04o file replaced stays %04o (is %04o): %s", (unsigned)kept[i], (unsigned)kept[i],
                 (unsigned)mode_of(p), st == SVK_OK ? "ok" : svk_last_error());
    }
    static const struct {
        mode_t umask, want;
    } fresh[] = {{022, 0644}, {077, 0600}, {002, 0664}};
    for (size_t i = 0; i < sizeof(fresh) / sizeof(fresh[0]); i++) {
        char p[400];
        snprintf(p, sizeof(p), "%s/new-umask%03o.safetensors", dir_a, (unsigned)fresh[i].umask);
        mode_t old = umask(fresh[i].umask);
        svk_status st = save_value(p, 1.0f);
        umask(old);
        tu_check(t, st == SVK_OK && mode_of(p) == fresh[i].want, "a new file under umask %03o is %04o (is %04o)",
                 (unsigned)fresh[i].umask, (unsigned)fresh[i].want, (unsigned)mode_of(p));
    }
}

static void hard_links(tu_tally *t)
{
    char p1[400], p2[400];
    path_in(p1, sizeof(p1), dir_a, "h1.safetensors");
    path_in(p2, sizeof(p2), dir_a, "h2.safetensors");
    bool made = save_value(p1, 1.0f) == SVK_OK && link(p1, p2) == 0;
    tu_check(t, made, "hard link: made %s and %s", p1, p2);
    if (!made)
        return;
    struct stat before, after1, after2;
    stat(p1, &before);
    svk_status st = save_value(p1, 2.0f);
    const char *msg = svk_last_error();
    tu_check(t, st != SVK_OK && strstr(msg, p1) && strstr(msg, "hard link"), "hard link: refused: %s", msg);
    bool same = stat(p1, &after1) == 0 && stat(p2, &after2) == 0 && after1.st_ino == before.st_ino &&
                after2.st_ino == before.st_ino && after1.st_nlink == 2;
    tu_check(t, same && read_value(p1) == 1.0f && read_value(p2) == 1.0f,
             "hard link: both names still one file (links %ju) holding the old contents",
             (uintmax_t)after1.st_nlink);
}

static void owner(tu_tally *t, bool root)
{
    if (!root) {
        printf("note: the owner sub-case needs root (chown to another uid); not run\n");
        return;
    }
    char p[400];
    path_in(p, sizeof(p), dir_a, "owned.safetensors");
    const uid_t uid = 12345;
    const gid_t gid = 12346;
    bool made = save_value(p, 1.0f) == SVK_OK && chown(p, uid, gid) == 0 && chmod(p, 0640) == 0;
    svk_status st = made ? save_value(p, 2.0f) : SVK_ERROR_IO;
    struct stat sb;
    bool ok = st == SVK_OK && stat(p, &sb) == 0 && sb.st_uid == uid && sb.st_gid == gid &&
              (sb.st_mode & 07777) == 0640 && read_value(p) == 2.0f;
    tu_check(t, ok, "as root: owner %u:%u and mode 0640 kept (is %u:%u %04o): %s", (unsigned)uid, (unsigned)gid,
             (unsigned)sb.st_uid, (unsigned)sb.st_gid, (unsigned)(sb.st_mode & 07777),
             st == SVK_OK ? "ok" : svk_last_error());
}

/* The public API: svk_model_save through a symlink onto a 0600 checkpoint,
 * and onto a FIFO. */
static void public_save(tu_tally *t)
{
    svk_model_config c = ckpt_tiny_config();
    svk_model *m = ckpt_model(&c, 3, 1);
    if (!m) {
        tu_check(t, false, "a CPU model to save");
        return;
    }
    char target[400], link1[400], fifo[400];
    path_in(target, sizeof(target), dir_b, "model.safetensors");
    path_in(link1, sizeof(link1), dir_a, "model-link.safetensors");
    path_in(fifo, sizeof(fifo), dir_a, "model-fifo.safetensors");
    bool made = svk_model_save(m, target, true) == SVK_OK && chmod(target, 0600) == 0 &&
                symlink(target, link1) == 0 && mkfifo(fifo, 0600) == 0;
    tu_check(t, made, "svk_model_save: made a 0600 checkpoint, an absolute link to it and a FIFO");
    if (made) {
        tu_watchdog(5, "svk_model_save to %s", link1);
        svk_status st = svk_model_save(m, link1, true);
        tu_watchdog_off();
        svk_model_config back;
        tu_check(t, st == SVK_OK && kind(link1) == S_IFLNK && mode_of(target) == 0600 &&
                        svk_checkpoint_config(link1, &back) == SVK_OK,
                 "svk_model_save through a link: link kept, target 0600 and loadable: %s",
                 st == SVK_OK ? "ok" : svk_last_error());
        tu_watchdog(5, "svk_model_save to %s", fifo);
        st = svk_model_save(m, fifo, true);
        tu_watchdog_off();
        tu_check(t, st != SVK_OK && strstr(svk_last_error(), fifo) && strstr(svk_last_error(), "FIFO") &&
                        kind(fifo) == S_IFIFO,
                 "svk_model_save onto a FIFO: refused, FIFO kept: %s", svk_last_error());
    }
    svk_model_destroy(&m);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_save_target", &args);
    tu_tally t = {0, 0};
    bool root = geteuid() == 0;

    char root_dir[] = "/tmp/svk-save-target-XXXXXX";
    if (!mkdtemp(root_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(dir_a, sizeof(dir_a), "%s/A", root_dir);
    snprintf(dir_b, sizeof(dir_b), "%s/B", root_dir);
    ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    bool ready = mkdir(dir_a, 0755) == 0 && mkdir(dir_b, 0755) == 0 && ino >= 0;
    if (ready) {
        wd_a = inotify_add_watch(ino, dir_a, IN_CREATE | IN_MOVED_TO);
        wd_b = inotify_add_watch(ino, dir_b, IN_CREATE | IN_MOVED_TO);
        ready = wd_a >= 0 && wd_b >= 0;
    }
    tu_check(&t, ready, "directories A and B under %s, watched with inotify", root_dir);
    if (ready) {
        symlinks(&t);
        special_files(&t, root);
        modes(&t);
        hard_links(&t);
        owner(&t, root);
        public_save(&t);
    }
    if (ino >= 0)
        close(ino);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root_dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", root_dir);
    return tu_finish(&t);
}
