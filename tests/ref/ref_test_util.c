#include "ref_test_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void rt_init(rt *t, int argc, char **argv)
{
    memset(t, 0, sizeof(*t));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    t->seed = (uint64_t)ts.tv_sec * 1000003u + (uint64_t)ts.tv_nsec;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            v = argv[++i];
        else if (!strncmp(argv[i], "--seed=", 7))
            v = argv[i] + 7;
        if (!v) {
            fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            exit(2);
        }
        char *end;
        t->seed = strtoull(v, &end, 0);
        if (*end) {
            fprintf(stderr, "%s: bad seed '%s'\n", argv[0], v);
            exit(2);
        }
    }
    t->state = t->seed;
    printf("seed: %llu\n", (unsigned long long)t->seed);
}

/* splitmix64: a full-period 64-bit generator, good enough for test data. */
uint64_t rt_next(rt *t)
{
    uint64_t z = (t->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double rt_uniform(rt *t, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rt_next(t) >> 11) * 0x1p-53);
}

double rt_normal(rt *t)
{
    /* 1 - u is in (0, 1], so the log is finite. */
    double u = 1 - rt_uniform(t, 0, 1), w = rt_uniform(t, 0, 1);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * w);
}

uint32_t rt_below(rt *t, uint32_t n)
{
    return (uint32_t)(rt_next(t) % n);
}

/* Rounded to float: the _f32 build then sees exactly the inputs of the _f64
 * one, and the two differ only by the float build's own arithmetic. */
void rt_fill_normal(rt *t, double *x, size_t n, double mean, double std)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(mean + std * rt_normal(t));
}

void *rt_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of memory (%zu x %zu bytes)\n", n, size);
        exit(1);
    }
    return p;
}

double *rt_zeros(size_t n)
{
    return rt_alloc(n, sizeof(double));
}

double *rt_nans(size_t n)
{
    double *x = rt_zeros(n);
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
    return x;
}

double *rt_copy(const double *x, size_t n)
{
    double *y = rt_zeros(n);
    if (n)
        memcpy(y, x, n * sizeof(double));
    return y;
}

float *rt_to_f32(const double *x, size_t n)
{
    float *y = rt_alloc(n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        y[i] = (float)x[i];
    return y;
}

void rt_sub(double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] -= b[i];
}

double rt_dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

double rt_norm(const double *a, size_t n)
{
    return sqrt(rt_dot(a, a, n));
}

double rt_rel_err(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]))
            return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

void rt_fd_grad(rt_objective f, void *ctx, double *x, size_t n, double *g)
{
    double h = 1e-4 * (n ? rt_norm(x, n) / sqrt((double)n) : 0);
    if (h == 0)
        h = 1e-4;
    for (size_t i = 0; i < n; i++) {
        double x0 = x[i];
        x[i] = x0 + h;
        double p1 = f(ctx);
        x[i] = x0 - h;
        double m1 = f(ctx);
        x[i] = x0 + 2 * h;
        double p2 = f(ctx);
        x[i] = x0 - 2 * h;
        double m2 = f(ctx);
        x[i] = x0;
        g[i] = (8 * (p1 - m1) - (p2 - m2)) / (12 * h);
    }
}

int rt_check(rt *t, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s  ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    t->checks++;
    if (!ok)
        t->failed++;
    return ok;
}

static size_t worst(const double *a, const double *b, size_t n)
{
    size_t w = 0;
    double e = -1;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= e)) { /* also picks the first NaN */
            e = d;
            w = i;
            if (isnan(d))
                break;
        }
    }
    return w;
}

int rt_check_grad(rt *t, const char *name, const double *an, const double *fd,
                  size_t n, double tol)
{
    double rel = rt_rel_err(an, fd, n);
    t->fd_checks++;
    if (rel > t->max_fd || isnan(rel))
        t->max_fd = isnan(rel) ? INFINITY : rel;
    size_t w = worst(an, fd, n);
    return rt_check(t, rel <= tol,
                    "%s: FD rel err %.3g (tol %.0e; n %zu, worst [%zu] %.10g vs fd %.10g)",
                    name, rel, tol, n, w, n ? an[w] : 0.0, n ? fd[w] : 0.0);
}

int rt_check_f32(rt *t, const char *name, const float *got, const double *ref,
                 size_t n, double tol)
{
    double *g = rt_zeros(n);
    for (size_t i = 0; i < n; i++)
        g[i] = got[i];
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (g[i] - ref[i]) * (g[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    double den_min = 1e-2 * 1e-2 * (double)n;
    double rel = sqrt(num / (den > den_min ? den : den_min));
    size_t w = worst(g, ref, n);
    int ok = rt_check(t, rel <= tol,
                      "%s: f32 vs f64 err %.3g (tol %.0e; worst [%zu] %.8g vs %.8g)", name, rel,
                      tol, w, n ? g[w] : 0.0, n ? ref[w] : 0.0);
    free(g);
    return ok;
}

int rt_finish(const rt *t, const char *prog)
{
    printf("%s: %d checks, %d failed", prog, t->checks, t->failed);
    if (t->fd_checks)
        printf("; max FD rel err %.3g over %d gradients", t->max_fd, t->fd_checks);
    printf(" (seed %llu)\n", (unsigned long long)t->seed);
    return t->failed || !t->checks ? 1 : 0;
}
