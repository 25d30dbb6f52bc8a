#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

void tu_parse_args(int argc, char **argv, const char *prog, tu_args *out)
{
    memset(out, 0, sizeof(*out));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    out->seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec;
    out->seed %= 1000000000u;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            out->seed = strtoull(argv[++i], NULL, 10);
        else if (!strncmp(argv[i], "--seed=", 7))
            out->seed = strtoull(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--test=", 7))
            out->filter = argv[i] + 7;
        else if (!strcmp(argv[i], "-v"))
            out->verbose = true;
        else {
            fprintf(stderr, "%s: unknown argument '%s' (accepted: --seed N, --test=NAME, -v)\n", prog, argv[i]);
            exit(2);
        }
    }
    printf("%s: seed: %llu (repeat with --seed %llu)\n", prog, (unsigned long long)out->seed,
           (unsigned long long)out->seed);
}

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x9e3779b97f4a7c15ull;
}

uint64_t tu_rng_next(tu_rng *r)
{
    /* splitmix64: small, well-mixed, and identical on every platform. */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float tu_rng_uniform(tu_rng *r, float lo, float hi)
{
    double u = (double)(tu_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * u);
}

void tu_fill_uniform(tu_rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = tu_rng_uniform(r, lo, hi);
}

float tu_nan(void)
{
    uint32_t bits = 0x7fc0dead;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

void tu_fill_nan(float *x, size_t n)
{
    float v = tu_nan();
    for (size_t i = 0; i < n; i++)
        x[i] = v;
}

float tu_guard_value(size_t i)
{
    return 1234.5f + (float)(i % 97);
}

void tu_fill_guard(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = tu_guard_value(i);
}

long tu_check_guard(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float g = tu_guard_value(i);
        if (memcmp(&x[i], &g, sizeof(g)) != 0)
            return (long)i;
    }
    return -1;
}

double tu_rel_error(const float *out, const double *ref, size_t n)
{
    double num = 0, den = 0, outn = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return INFINITY;
        double d = (double)out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
        outn += (double)out[i] * out[i];
    }
    if (den == 0)
        return sqrt(outn);
    return sqrt(num / den);
}

size_t tu_worst_index(const float *out, const double *ref, size_t n)
{
    size_t worst = 0;
    double wd = -1;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return i;
        double d = fabs((double)out[i] - ref[i]);
        if (d > wd) {
            wd = d;
            worst = i;
        }
    }
    return worst;
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

int tu_validation_messages(void)
{
    return validation_messages;
}

void tu_validation_forgive(int n)
{
    validation_messages -= n;
}
