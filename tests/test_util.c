#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

void tu_parse_args(int argc, char **argv, const char *prog, tu_args *out)
{
    memset(out, 0, sizeof(*out));
    out->seed = cf_seed_from_clock();
    out->parts = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            out->seed = strtoull(argv[++i], NULL, 10);
        else if (!strncmp(argv[i], "--seed=", 7))
            out->seed = strtoull(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--test=", 7))
            out->filter = argv[i] + 7;
        else if (!strncmp(argv[i], "--part=", 7)) {
            unsigned part, parts;
            if (sscanf(argv[i] + 7, "%u/%u", &part, &parts) != 2 || parts == 0 || part >= parts) {
                fprintf(stderr, "%s: --part=I/N needs 0 <= I < N, not '%s'\n", prog, argv[i] + 7);
                exit(2);
            }
            out->part = part, out->parts = parts;
        } else if (!strcmp(argv[i], "-v"))
            out->verbose = true;
        else {
            fprintf(stderr, "%s: unknown argument '%s' (accepted: --seed N, --test=NAME, --part=I/N, -v)\n", prog, argv[i]);
            exit(2);
        }
    }
    printf("%s: seed: %llu (repeat with --seed %llu)\n", prog, (unsigned long long)out->seed,
           (unsigned long long)out->seed);
}

void tu_check(tu_tally *t, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (ok)
        t->passed++;
    else
        t->failed++;
}

int tu_finish(const tu_tally *t)
{
    printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed || t->passed == 0 ? 1 : 0;
}

/* Validation messages seen through the log callback: counted here rather
 * than read from the context, so that messages emitted while the context is
 * destroyed (leaked objects, say) fail the test too. */
static int validation_messages;

void tu_log_fn(void *user, svk_log_level level, const char *msg)
{
    (void)user;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    if (!strncmp(msg, "validation ", 11))
        validation_messages++;
    fprintf(stderr, "libsvk %s: %s\n", names[level], msg);
}

svk_ctx *tu_ctx_create(void)
{
    svk_ctx_params p = svk_ctx_params_default();
    p.flags = SVK_CTX_NO_PIPELINE_CACHE;
    p.log_fn = tu_log_fn;
    svk_ctx *ctx = NULL;
    svk_status st = svk_ctx_create(&p, &ctx);
    if (st != SVK_OK) {
        printf("FAIL context creation: %s: %s\n", svk_status_string(st), svk_last_error());
        return NULL;
    }
    const svk_device_info *di = svk_ctx_device_info(ctx);
    printf("device: %s, subgroup size %u, validation %s\n", di->name, di->subgroup_size,
           svk_ctx_validation_enabled(ctx) ? "on" : "off");
    return ctx;
}

void tu_ctx_finish(svk_ctx **ctx, tu_tally *t)
{
    if (!*ctx)
        return;
    const char *env = getenv("SVK_VALIDATION");
    bool wanted = env && strcmp(env, "0") != 0 && *env;
    bool on = svk_ctx_validation_enabled(*ctx);
    svk_ctx_destroy(ctx);
    if (wanted)
        tu_check(t, on, "validation layer active (SVK_VALIDATION=%s)", env);
    if (on)
        tu_check(t, validation_messages == 0, "validation layer reported %d message(s)", validation_messages);
}

bool tu_read_file(const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    unsigned char *p = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    bool ok = p && fread(p, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok) {
        free(p);
        return false;
    }
    *data = p;
    *size = (size_t)n;
    return true;
}

int tu_validation_messages(void)
{
    return validation_messages;
}

void tu_validation_forgive(int n)
{
    validation_messages -= n;
}

int tu_each_backend(tu_tally *t, const char *name, tu_backend_fn *fn)
{
    char dir[256];
    snprintf(dir, sizeof(dir), "/tmp/%s_XXXXXX", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    fn(NULL, SVK_BACKEND_CPU, dir);
    svk_ctx *ctx = tu_ctx_create();
    tu_check(t, ctx != NULL, "a Vulkan context");
    if (ctx)
        fn(ctx, SVK_BACKEND_VULKAN, dir);
    tu_ctx_finish(&ctx, t);
    rmdir(dir);
    return tu_finish(t);
}

svk_model *tu_small_model(tu_tally *t, const char *name, svk_ctx *ctx, svk_backend backend, uint32_t layers,
                          bool tied)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = TU_SMALL_V, p.config.ctx = TU_SMALL_T, p.config.width = TU_SMALL_C, p.config.layers = layers;
    p.config.heads = 2;
    p.config.tie_embeddings = tied;
    p.backend = backend;
    p.ctx = ctx;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(t, st == SVK_OK, "%s: create%s: %s", name, tied ? "" : " (untied embeddings)", svk_last_error());
    return st == SVK_OK ? m : NULL;
}

void tu_fixed_batch(int32_t *tokens, int32_t *targets, int n, int v)
{
    for (int i = 0; i < n; i++)
        tokens[i] = (i * 7 + 3) % v, targets[i] = (i * 5 + 1) % v;
}

void tu_random_batch(uint64_t seed, uint32_t k, int32_t *tokens, int32_t *targets, int n, int v, int ignore)
{
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (k + 1));
    for (int i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        tokens[i] = (int32_t)((s >> 33) % (uint64_t)v);
        targets[i] = ignore && (s >> 20) % (uint64_t)ignore == 0 ? -1 : (int32_t)((s >> 40) % (uint64_t)v);
    }
}

bool tu_same_files(const char *a, const char *b)
{
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    bool ok = tu_read_file(a, &x, &nx) && tu_read_file(b, &y, &ny) && nx == ny && !memcmp(x, y, nx);
    free(x);
    free(y);
    return ok;
}

double tu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The whole line the handler writes, formatted when the watchdog is armed:
 * the handler may only call async-signal-safe functions (write, _exit),
 * so it formats nothing itself. */
static char watchdog_line[640];
static size_t watchdog_len;

static void watchdog_fired(int sig)
{
    (void)sig;
    ssize_t r = write(1, watchdog_line, watchdog_len);
    (void)r;
    _exit(1);
}

void tu_watchdog_off(void)
{
    alarm(0);
}

void tu_watchdog(unsigned seconds, const char *fmt, ...)
{
    static bool installed;
    /* Disarmed first, so that an earlier case's alarm cannot fire while
     * the line is being rewritten and print half of each. */
    alarm(0);
    if (!seconds)
        return;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = watchdog_fired;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        installed = true;
    }
    int n = snprintf(watchdog_line, sizeof(watchdog_line), "FAIL hung (no answer within %u s): ", seconds);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(watchdog_line + n, sizeof(watchdog_line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    n += w > 0 ? w : 0;
    if ((size_t)n > sizeof(watchdog_line) - 2)
        n = (int)sizeof(watchdog_line) - 2;
    watchdog_line[n++] = '\n';
    watchdog_len = (size_t)n;
    alarm(seconds);
}
