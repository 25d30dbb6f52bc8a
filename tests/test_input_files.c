/*
 * Inputs that are not regular files are refused, promptly, by every loader:
 * a FIFO (opening one for reading blocks until a writer comes, so a loader
 * that opens before it checks hangs for ever), a directory, a Unix socket,
 * a character device (/dev/null, which reading cannot harm) and a symlink
 * to a FIFO, each given to svk_st_read, to the public svk_checkpoint_config,
 * svk_model_load and svk_model_open, and to the data readers
 * svk_text_data_open, svk_token_data_open (a pattern that names the one
 * file) and svk_token_file_read. Each must fail within a second
 * with a message that names the path and says what it is; a regular file
 * must still load (the control). A watchdog (tu_watchdog) turns a hang
 * into a failure that names the case, instead of a suite that never ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "test_util.h"

typedef struct input {
    const char *label;
    char path[256];
    const char *kind; /* what the message must call it */
} input;

enum {
    LOADER_ST_READ, LOADER_CONFIG, LOADER_MODEL_LOAD, LOADER_MODEL_OPEN, LOADER_TEXT, LOADER_SHARDS, LOADER_TOKENS,
    LOADER_COUNT
};
static const char *const loader_names[LOADER_COUNT] = {
    "svk_st_read", "svk_checkpoint_config", "svk_model_load", "svk_model_open", "svk_text_data_open",
    "svk_token_data_open", "svk_token_file_read",
};
/* The control text file's bytes, read as int32 values by the token reader
 * and as a raw uint16 shard by the shards' loader. */
static const char control_text[] = "the quick brown fox jumps over the lazy dog\n";
enum { CONTROL_TOKENS = (sizeof(control_text) - 1) / 4 };

/* Runs one loader on path; returns its status, the message in svk_last_error(). */
static svk_status run_loader(int loader, const char *path, svk_model *m)
{
    switch (loader) {
    case LOADER_ST_READ: {
        svk_st_file f;
        svk_status st = svk_st_read(NULL, path, &f);
        if (st == SVK_OK)
            svk_st_free(&f);
        return st;
    }
    case LOADER_CONFIG: {
        svk_model_config c;
        return svk_checkpoint_config(path, &c);
    }
    case LOADER_MODEL_LOAD:
        return svk_model_load(m, path, false);
    case LOADER_MODEL_OPEN: {
        svk_model *opened = NULL;
        svk_status st = svk_model_open(NULL, path, 0, &opened);
        svk_model_destroy(&opened);
        return st;
    }
    case LOADER_TEXT: {
        svk_text_data *text = NULL;
        svk_status st = svk_text_data_open(path, NULL, &text);
        svk_text_data_destroy(&text);
        return st;
    }
    case LOADER_SHARDS: {
        svk_token_data_params p = svk_token_data_params_default();
        p.format = SVK_TOKENS_U16;
        svk_token_data *shards = NULL;
        svk_status st = svk_token_data_open(path, &p, &shards);
        svk_token_data_destroy(&shards);
        return st;
    }
    default: {
        int32_t v[CONTROL_TOKENS];
        return svk_token_file_read(path, v, CONTROL_TOKENS);
    }
    }
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_input_files", &args);
    tu_tally t = {0, 0};

    char dir[] = "/tmp/svk-input-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    svk_model_config c = ckpt_tiny_config();
    svk_model *m = ckpt_model(&c, 1, 0);
    if (!m)
        return 1;

    input in[] = {
        {"FIFO", "", "FIFO"},
        {"directory", "", "directory"},
        {"Unix socket", "", "socket"},
        {"character device /dev/null", "/dev/null", "character device"},
        {"symlink to a FIFO", "", "FIFO"},
    };
    enum { N_INPUTS = sizeof(in) / sizeof(in[0]) };
    snprintf(in[0].path, sizeof(in[0].path), "%s/fifo.safetensors", dir);
    snprintf(in[1].path, sizeof(in[1].path), "%s/dir.safetensors", dir);
    snprintf(in[2].path, sizeof(in[2].path), "%s/sock.safetensors", dir);
    snprintf(in[4].path, sizeof(in[4].path), "%s/link-to-fifo.safetensors", dir);
    bool made = mkfifo(in[0].path, 0600) == 0 && mkdir(in[1].path, 0700) == 0 &&
                symlink("fifo.safetensors", in[4].path) == 0;
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    /* sun_path is 108 bytes: the temporary directory's names fit. */
    if (strlen(in[2].path) < sizeof(sa.sun_path))
        memcpy(sa.sun_path, in[2].path, strlen(in[2].path) + 1);
    made = made && sock >= 0 && bind(sock, (const struct sockaddr *)&sa, sizeof(sa)) == 0;
    tu_check(&t, made, "made a FIFO, a directory, a socket and a symlink in %s%s%s", dir, made ? "" : ": ",
             made ? "" : strerror(errno));

    char current[512]; /* the case in progress, for the watchdog and the verdict */
    for (int i = 0; made && i < N_INPUTS; i++)
        for (int l = 0; l < LOADER_COUNT; l++) {
            snprintf(current, sizeof(current), "%s on a %s (%s)", loader_names[l], in[i].label, in[i].path);
            tu_watchdog(5, "%s", current);
            double t0 = tu_now();
            svk_status st = run_loader(l, in[i].path, m);
            double dt = tu_now() - t0;
            tu_watchdog_off();
            const char *msg = svk_last_error();
            bool ok = st != SVK_OK && dt < 1.0 && strstr(msg, in[i].path) && strstr(msg, in[i].kind);
            tu_check(&t, ok, "%s refused in %.3f s (%s): %s", current, dt, svk_status_string(st), msg);
        }

    /* The controls: a regular checkpoint and a regular text file load. */
    char ckpt[256], text_path[256];
    snprintf(ckpt, sizeof(ckpt), "%s/good.safetensors", dir);
    snprintf(text_path, sizeof(text_path), "%s/good.txt", dir);
    svk_status st = svk_model_save(m, ckpt, false);
    FILE *f = fopen(text_path, "wb");
    if (f) {
        fputs(control_text, f);
        fclose(f);
    }
    for (int l = 0; st == SVK_OK && l < LOADER_COUNT; l++) {
        const char *p = l == LOADER_TEXT || l == LOADER_SHARDS || l == LOADER_TOKENS ? text_path : ckpt;
        snprintf(current, sizeof(current), "%s on a regular file (%s)", loader_names[l], p);
        tu_watchdog(5, "%s", current);
        svk_status r = run_loader(l, p, m);
        tu_watchdog_off();
        tu_check(&t, r == SVK_OK, "%s loads: %s", current, r == SVK_OK ? "ok" : svk_last_error());
    }
    tu_check(&t, st == SVK_OK, "control checkpoint saved: %s", st == SVK_OK ? "ok" : svk_last_error());

    /* A regular file that is too short is still refused as before, by the
     * parser (the reader hands it over). */
    FILE *e = fopen(ckpt, "wb");
    if (e)
        fclose(e);
    st = run_loader(LOADER_ST_READ, ckpt, m);
    tu_check(&t, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), ckpt),
             "an empty regular file reaches the parser and is refused: %s", svk_last_error());

    if (sock >= 0)
        close(sock);
    svk_model_destroy(&m);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return tu_finish(&t);
}
