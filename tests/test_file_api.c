/*
 * svk/file.h, the public face of lib/io/file.c for an application's own
 * files (svk-train's CSV and SVG): a write replaces the file atomically and
 * keeps the rules of row 6a (a symlink followed and kept, a FIFO, directory
 * or hard-linked file refused and left as it was, the mode kept, no
 * temporary left); a read takes a regular file whole with a NUL after it
 * and refuses a FIFO at once, and a file over its limit. test_save_target
 * walks every kind of name through the writer itself; this test checks
 * that the public calls carry its rules.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svk/file.h"
#include "test_util.h"

/* The file at path holds exactly text. */
static bool holds(const char *path, const char *text)
{
    unsigned char *data;
    size_t size;
    if (!tu_read_file(path, &data, &size))
        return false;
    bool same = size == strlen(text) && !memcmp(data, text, size);
    free(data);
    return same;
}

/* Files in dir whose name holds ".tmp.": temporaries left behind. */
static int temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void writes(tu_tally *t, const char *dir)
{
    char path[256], slink[256], fifo[256], hard[256];
    snprintf(path, sizeof(path), "%s/log.csv", dir);
    snprintf(slink, sizeof(slink), "%s/link.csv", dir);
    snprintf(fifo, sizeof(fifo), "%s/fifo.csv", dir);
    snprintf(hard, sizeof(hard), "%s/hard.csv", dir);

    const mode_t mask = umask(022);
    svk_status st = svk_file_write_atomic(path, "a,b\n1,2\n", 8);
    struct stat sb;
    tu_check(t, st == SVK_OK && holds(path, "a,b\n1,2\n") && stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0644,
             "a new file: its bytes, mode 0644 under umask 022: %s", svk_last_error());
    chmod(path, 0600);
    st = svk_file_write_atomic(path, "a,b\n", 4);
    tu_check(t, st == SVK_OK && holds(path, "a,b\n") && stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600,
             "a replaced file: the new bytes, its mode 0600 kept: %s", svk_last_error());
    st = svk_file_write_atomic(path, NULL, 0);
    tu_check(t, st == SVK_OK && holds(path, ""), "no bytes (data NULL): an empty file: %s", svk_last_error());

    /* A symlink: the file it points to is replaced, the link stays. */
    if (symlink("log.csv", slink) == 0) {
        st = svk_file_write_atomic(slink, "x\n", 2);
        struct stat lb;
        tu_check(t, st == SVK_OK && holds(path, "x\n") && lstat(slink, &lb) == 0 && S_ISLNK(lb.st_mode),
                 "through a symlink: its target replaced, the link kept: %s", svk_last_error());
    }
    /* A FIFO: refused by name without being opened (an open would wait
     * for a reader), and still a FIFO. */
    if (mkfifo(fifo, 0600) == 0) {
        tu_watchdog(20, "svk_file_write_atomic on a FIFO");
        st = svk_file_write_atomic(fifo, "x\n", 2);
        tu_watchdog_off();
        tu_check(t, st == SVK_ERROR_IO && strstr(svk_last_error(), fifo) && strstr(svk_last_error(), "FIFO") &&
                        lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode),
                 "a FIFO refused and left as it was: %s", svk_last_error());
    }
    st = svk_file_write_atomic(dir, "x\n", 2);
    tu_check(t, st == SVK_ERROR_IO && strstr(svk_last_error(), "directory"), "a directory refused: %s",
             svk_last_error());
    /* A second hard link: the rename would split the two names. */
    if (link(path, hard) == 0) {
        st = svk_file_write_atomic(path, "y\n", 2);
        tu_check(t, st == SVK_ERROR_IO && strstr(svk_last_error(), "hard link") && holds(path, "x\n") &&
                        holds(hard, "x\n"),
                 "a file with two hard links refused, both names as they were: %s", svk_last_error());
    }
    st = svk_file_write_atomic("", "x", 1);
    tu_check(t, st == SVK_ERROR_INVALID_ARG, "an empty path: %s", svk_last_error());
    st = svk_file_write_atomic(path, NULL, 1);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "data is NULL"), "bytes without data: %s",
             svk_last_error());
    umask(mask);
    tu_check(t, temporaries(dir) == 0, "no temporary left in %s", dir);
    unlink(slink);
    unlink(fifo);
    unlink(hard);
    unlink(path);
}

static void reads(tu_tally *t, const char *dir)
{
    char path[256], fifo[256];
    snprintf(path, sizeof(path), "%s/in.csv", dir);
    snprintf(fifo, sizeof(fifo), "%s/in.fifo", dir);
    void *data = (void *)1;
    size_t size = 7;
    svk_status st = svk_file_write_atomic(path, "step,loss\n1,2.5\n", 16);
    st = st == SVK_OK ? svk_file_read_whole(path, 1000, &data, &size) : st;
    tu_check(t, st == SVK_OK && size == 16 && !memcmp(data, "step,loss\n1,2.5\n", 16) && ((char *)data)[16] == 0,
             "a file read whole, a NUL after it: %s", svk_last_error());
    svk_file_data_free(&data);
    tu_check(t, !data, "svk_file_data_free sets the pointer to NULL");
    svk_file_data_free(&data);
    svk_file_data_free(NULL);

    st = svk_file_read_whole(path, 15, &data, &size);
    tu_check(t, st == SVK_ERROR_IO && !data && size == 0 && strstr(svk_last_error(), "over the limit"),
             "a file over the limit: %s", svk_last_error());
    if (mkfifo(fifo, 0600) == 0) {
        tu_watchdog(20, "svk_file_read_whole on a FIFO");
        st = svk_file_read_whole(fifo, 1000, &data, &size);
        tu_watchdog_off();
        tu_check(t, st == SVK_ERROR_IO && !data && strstr(svk_last_error(), "FIFO"),
                 "a FIFO refused, not waited on: %s", svk_last_error());
        unlink(fifo);
    }
    unlink(path);
    st = svk_file_read_whole(path, 1000, &data, &size);
    tu_check(t, st == SVK_ERROR_IO && !data && strstr(svk_last_error(), path), "a missing file: %s",
             svk_last_error());
    st = svk_file_read_whole(path, 1000, NULL, &size);
    tu_check(t, st == SVK_ERROR_INVALID_ARG, "data NULL: %s", svk_last_error());
    st = svk_file_read_whole(path, 1000, &data, NULL);
    tu_check(t, st == SVK_ERROR_INVALID_ARG && !data, "size NULL: %s", svk_last_error());
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_file_api", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-file-api-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    writes(&t, dir);
    reads(&t, dir);
    rmdir(dir);
    return tu_finish(&t);
}
