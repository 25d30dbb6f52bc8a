/*
 * The harness of svk-bench (bench.h): operand buffers, the measurement of a
 * row from GPU timestamps, and the result list.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ops/copy.h"
#include "vk/cmd.h"

bench_shapes bench_shapes_for(const bench *b)
{
    if (b->opt.quick)
        return (bench_shapes){.tokens = {64}, .n_tokens = 1, .widths = {64}, .n_widths = 1, .vocabs = {256},
                              .n_vocabs = 1, .head_dim = 32, .seq = 32};
    return (bench_shapes){.tokens = {1024, 4096}, .n_tokens = 2, .widths = {128, 256, 512, 1024}, .n_widths = 4,
                          .vocabs = {256, 32768}, .n_vocabs = 2, .head_dim = 64, .seq = 256};
}

/* ---- rows ---- */

bool bench_row_init(bench *b, bench_row *r, const char *section, const char *kernel, const char *direction,
                    const char *variant, const char *shape, const char *metric, double work)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->section, sizeof(r->section), "%s", section);
    snprintf(r->kernel, sizeof(r->kernel), "%s", kernel);
    snprintf(r->direction, sizeof(r->direction), "%s", direction);
    snprintf(r->variant, sizeof(r->variant), "%s", variant);
    snprintf(r->shape, sizeof(r->shape), "%s", shape);
    r->metric = metric;
    r->work = work;
    r->of_copy = -1;
    r->blas_value = -1;
    r->blas_median_ns = -1;
    char name[256];
    snprintf(name, sizeof(name), "%s %s %s %s %s", section, kernel, direction, variant, shape);
    return bench_filter_match(b, name);
}

bool bench_filter_match(const bench *b, const char *name)
{
    const char *f = b->opt.filter;
    if (!f)
        return true;
    /* "limit|siamese": the machine's limits and the norms in one run, so
     * that their ratios come from the same minutes. */
    for (;;) {
        const char *bar = strchr(f, '|');
        size_t n = bar ? (size_t)(bar - f) : strlen(f);
        if (n == 0)
            return true; /* an empty alternative is in every name */
        for (const char *s = name; *s; s++)
            if (!strncmp(s, f, n))
                return true;
        if (!bar)
            return false;
        f = bar + 1;
    }
}

void bench_add_row(bench *b, const bench_row *r)
{
    if (b->n_rows == b->cap_rows) {
        size_t cap = b->cap_rows ? 2 * b->cap_rows : 64;
        bench_row *p = realloc(b->rows, cap * sizeof(*p));
        if (!p) {
            fprintf(stderr, "svk-bench: out of host memory\n");
            b->errors++;
            return;
        }
        b->rows = p;
        b->cap_rows = cap;
    }
    b->rows[b->n_rows++] = *r;
    bench_print_row(b, r);
}

static void vset_skip(bench_row *r, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vset_skip(bench_row *r, const char *fmt, va_list ap)
{
    vsnprintf(r->skipped, sizeof(r->skipped), fmt, ap);
    r->value = 0;
}

static void set_skip(bench_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_skip(bench_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset_skip(r, fmt, ap);
    va_end(ap);
}

void bench_skip(bench *b, bench_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset_skip(r, fmt, ap);
    va_end(ap);
    bench_add_row(b, r);
}

/* ---- buffers ---- */

void bench_bufs_init(bench_bufs *bb, bench *b)
{
    memset(bb, 0, sizeof(*bb));
    bb->b = b;
}

static void bufs_fail(bench_bufs *bb, svk_status st, const char *name, uint64_t bytes)
{
    if (bb->failed)
        return;
    bb->failed = true;
    bb->limit = st == SVK_ERROR_TOO_LARGE || st == SVK_ERROR_OUT_OF_DEVICE_MEMORY;
    snprintf(bb->why, sizeof(bb->why), "%s (%.1f MiB): %s", name, (double)bytes / (1 << 20),
             st == SVK_ERROR_TOO_LARGE ? "larger than the device's storage-buffer range" : svk_ctx_last_error(bb->b->ctx));
}

/* A device buffer of bytes, owned by bb; NULL (bb failed, saying why) if
 * bb is full or the device refuses it. */
static svk_buffer *new_buffer(bench_bufs *bb, const char *name, uint64_t bytes)
{
    if (bb->n == sizeof(bb->buf) / sizeof(bb->buf[0])) {
        snprintf(bb->why, sizeof(bb->why), "too many buffers in one row");
        bb->failed = true;
        return NULL;
    }
    svk_buffer_params p = svk_buffer_params_default();
    p.size = bytes;
    p.name = name;
    svk_buffer *buf = NULL;
    svk_status st = svk_buffer_create(bb->b->ctx, &p, &buf);
    if (st != SVK_OK) {
        bufs_fail(bb, st, name, bytes);
        return NULL;
    }
    bb->buf[bb->n++] = buf;
    bb->bytes += bytes;
    return buf;
}

/* A device buffer of n 4-byte elements filled by fill(host chunk). The
 * contents repeat every CHUNK elements: the kernels timed here have no
 * data-dependent paths worth more realism, and generating a few hundred
 * MiB of random numbers per row would cost more than the row. */
#define CHUNK (1u << 20)

static svk_tref make(bench_bufs *bb, const char *name, uint64_t n, void (*fill)(bench *, void *, size_t, const float *),
                     const float *arg)
{
    if (bb->failed)
        return (svk_tref){NULL, 0};
    const uint64_t bytes = (n ? n : 1) * 4;
    svk_buffer *buf = new_buffer(bb, name, bytes);
    if (!buf)
        return (svk_tref){NULL, 0};
    svk_status st = SVK_OK;
    size_t chunk = n < CHUNK ? (size_t)(n ? n : 1) : CHUNK;
    uint32_t *host = malloc(chunk * 4);
    if (!host) {
        snprintf(bb->why, sizeof(bb->why), "out of host memory");
        bb->failed = true;
        return (svk_tref){NULL, 0};
    }
    fill(bb->b, host, chunk, arg);
    for (uint64_t off = 0; off < n && st == SVK_OK; off += chunk) {
        uint64_t m = n - off < chunk ? n - off : chunk;
        st = svk_buffer_upload(buf, off * 4, host, m * 4);
    }
    free(host);
    if (st != SVK_OK) {
        bufs_fail(bb, st, name, bytes);
        return (svk_tref){NULL, 0};
    }
    return (svk_tref){buf, 0};
}

static void fill_uniform(bench *b, void *host, size_t n, const float *arg)
{
    cf_fill_uniform(&b->rng, host, n, arg[0], arg[1]);
}

static void fill_const(bench *b, void *host, size_t n, const float *arg)
{
    (void)b;
    float *x = host;
    for (size_t i = 0; i < n; i++)
        x[i] = arg[0];
}

static void fill_index(bench *b, void *host, size_t n, const float *arg)
{
    int32_t *x = host;
    uint64_t V = (uint64_t)arg[0];
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)(cf_rng_next(&b->rng) % V);
}

svk_tref bench_rand(bench_bufs *bb, const char *name, uint64_t n, float lo, float hi)
{
    const float arg[2] = {lo, hi};
    return make(bb, name, n, fill_uniform, arg);
}

svk_tref bench_const(bench_bufs *bb, const char *name, uint64_t n, float value)
{
    return make(bb, name, n, fill_const, &value);
}

svk_tref bench_index(bench_bufs *bb, const char *name, uint64_t n, uint32_t V)
{
    const float arg = (float)V; /* exact: V <= 2^24 here */
    return make(bb, name, n, fill_index, &arg);
}

svk_tref bench_clone(bench_bufs *bb, const char *name, svk_tref src, uint64_t n)
{
    if (bb->failed || !src.buf)
        return (svk_tref){NULL, 0};
    const uint64_t bytes = (n ? n : 1) * 4;
    svk_buffer *buf = new_buffer(bb, name, bytes);
    if (!buf)
        return (svk_tref){NULL, 0};
    svk_status st = SVK_OK;
    svk_cmdlist *cl = NULL;
    st = svk_cmdlist_create(bb->b->ctx, NULL, &cl);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(cl);
    if (st == SVK_OK)
        st = svk_copy_record(cl, (svk_tref){buf, 0}, src, n ? n : 1, "bench clone");
    if (st == SVK_OK)
        st = svk_cmdlist_end(cl);
    if (st == SVK_OK)
        st = svk_cmdlist_submit(cl);
    if (st == SVK_OK)
        st = svk_cmdlist_wait(cl);
    svk_cmdlist_destroy(&cl);
    if (st != SVK_OK) {
        bufs_fail(bb, st, name, bytes);
        return (svk_tref){NULL, 0};
    }
    return (svk_tref){buf, 0};
}

void bench_bufs_free(bench_bufs *bb)
{
    for (uint32_t i = 0; i < bb->n; i++)
        svk_buffer_destroy(&bb->buf[i]);
    bb->n = 0;
}

uint32_t bench_sets(const bench *b, double bytes_per_set)
{
    (void)b;
    /* Four times the last-level cache, within [64, 256] MiB. The upper
     * bound matters in virtual machines, which report the host's whole L3
     * (320 MiB on the 2-vCPU guest this was written on, whose share of a
     * Zen 4 L3 is 32 MiB), and keeps a row well inside lavapipe's 2 GiB of
     * device memory. */
    double target = 64.0 * (1 << 20);
#ifdef _SC_LEVEL3_CACHE_SIZE
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc > 0 && 4.0 * (double)llc > target)
        target = 4.0 * (double)llc;
#endif
    const double cap = 256.0 * (1 << 20);
    if (target > cap)
        target = cap;
    uint32_t sets = bytes_per_set > 0 ? (uint32_t)ceil(target / bytes_per_set) : 1;
    if (sets > 8)
        sets = 8;
    if (sets < 1)
        sets = 1;
    return sets;
}

/* ---- the variant switch ---- */

void bench_set_variant(bench *b, const char *variant)
{
    svk_ctx_tuning t = b->tuning;
    if (variant)
        t.variant = !strcmp(variant, "cpu") ? SVK_TUNE_VARIANT_CPU : SVK_TUNE_VARIANT_PORTABLE;
    /* In range by construction: tuning.h's values, checked by --tune's parser. */
    (void)svk_ctx_tuning_set(b->ctx, &t);
}

/* ---- time ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, uint32_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- measuring ---- */

/* Rates (work per ns) reached so far, for the --max-run estimate: the
 * latest of each "kernel/direction/variant", whose shapes grow in the order
 * the sections run them (so the latest is the nearest), and the best of
 * each "kernel/variant" for a direction not yet seen. A kernel's rate
 * differs between shapes by small factors (GEMM's long-K shapes run at a
 * third of its best), a variant's by orders of magnitude. */
#define MAX_RATES 256
static struct {
    char key[64];
    double rate;
} rates[MAX_RATES];
static uint32_t n_rates;

static double *rate_slot(const char *key, bool create)
{
    for (uint32_t i = 0; i < n_rates; i++)
        if (!strcmp(rates[i].key, key))
            return &rates[i].rate;
    if (!create || n_rates == MAX_RATES)
        return NULL;
    snprintf(rates[n_rates].key, sizeof(rates[n_rates].key), "%s", key);
    rates[n_rates].rate = 0;
    return &rates[n_rates++].rate;
}

static void rate_keys(const bench_row *r, char near[64], char best[64])
{
    snprintf(near, 64, "%s/%s/%s", r->kernel, r->direction, r->variant);
    snprintf(best, 64, "%s/%s", r->kernel, r->variant);
}

/* The copy runs interleaved with a row's timed runs (bench.beside). */
typedef struct beside_runs {
    uint32_t every;         /* one copy run after every `every` runs of the row; 0: none */
    double *ns;             /* each copy run's GPU time */
    uint32_t n;             /* copy runs recorded (out) */
} beside_runs;

/* Records runs [first, first + runs) into a new list, with a run of
 * b->beside's copy after every bs->every of them where bs is given,
 * submits it and returns each run's GPU time (the sum of its dispatches')
 * in ns[] (the copies' in bs->ns). */
static svk_status timed_list(bench *b, bench_record_fn fn, void *user, uint32_t sets, uint32_t first, uint32_t runs,
                             uint32_t capacity, double *ns, uint32_t *dispatches, beside_runs *bs)
{
    const uint32_t copies = bs && bs->every ? runs / bs->every : 0;
    const uint32_t items = runs + copies;
    svk_cmdlist_params lp = {.timestamp_capacity = capacity + copies};
    svk_cmdlist *cl = NULL;
    double *t = NULL;
    uint32_t *ends = calloc(items, sizeof(*ends));
    svk_status st = ends ? svk_cmdlist_create(b->ctx, &lp, &cl) : SVK_ERROR_OUT_OF_HOST_MEMORY;
    if (st == SVK_OK)
        st = svk_cmdlist_begin(cl);
    for (uint32_t i = 0, item = 0, c = 0; i < runs && st == SVK_OK; i++) {
        st = fn(cl, user, (first + i) % sets);
        svk_cmdlist_stats(cl, &ends[item++], NULL);
        if (st == SVK_OK && copies && (i + 1) % bs->every == 0) {
            st = b->beside.fn(cl, b->beside.user, c++ % b->beside.sets);
            svk_cmdlist_stats(cl, &ends[item++], NULL);
        }
    }
    if (st == SVK_OK)
        st = svk_cmdlist_end(cl);
    if (st == SVK_OK)
        st = svk_cmdlist_submit(cl);
    if (st == SVK_OK)
        st = svk_cmdlist_wait(cl);
    uint32_t n = capacity + copies;
    if (st == SVK_OK && !(t = malloc(n * sizeof(*t))))
        st = SVK_ERROR_OUT_OF_HOST_MEMORY;
    if (st == SVK_OK)
        st = svk_cmdlist_timings(cl, t, NULL, NULL, &n);
    if (st == SVK_OK) {
        uint32_t d = 0, r = 0, c = 0;
        for (uint32_t k = 0; k < items; k++) {
            double sum = 0;
            for (; d < ends[k] && d < n; d++)
                sum += t[d];
            /* Item k is a copy where a copy followed `every` runs. */
            const bool is_copy = copies && k % (bs->every + 1) == bs->every;
            if (is_copy)
                bs->ns[c++] = sum;
            else
                ns[r++] = sum;
        }
        if (bs)
            bs->n = c;
        *dispatches = runs ? ends[0] : 0;
    }
    free(t);
    free(ends);
    svk_cmdlist_destroy(&cl);
    return st;
}

bool bench_time_row(bench *b, bench_row *r, uint32_t sets, bench_record_fn fn, void *user)
{
    if (!b->dev->timestamps) {
        set_skip(r, "the device's compute queue has no timestamps");
        return false;
    }
    char near_key[64], best_key[64];
    rate_keys(r, near_key, best_key);
    double *near = rate_slot(near_key, true), *best = rate_slot(best_key, true);
    double rate = near && *near > 0 ? *near : best ? *best : 0;
    if (rate > 0 && r->work / rate > b->opt.max_run_s * 1e9) {
        set_skip(r, "estimated %.1f s per run at the %.3g %s this kernel reached at %s shapes (--max-run %g)",
                 r->work / rate * 1e-9, rate, r->metric, near && *near > 0 ? "the nearest smaller" : "other",
                 b->opt.max_run_s);
        return false;
    }
    r->sets = sets;
    /* Warm-up: creates the pipelines (lavapipe compiles each for up to a
     * second on first use) and gives the time of one run (of a second
     * warm-up where the first ran past --max-run). */
    enum { WARM_CAPACITY = 4096 };
    double t0 = 0;
    uint32_t disp = 0;
    svk_status st = timed_list(b, fn, user, sets, 0, 1, WARM_CAPACITY, &t0, &disp, NULL);
    if (st != SVK_OK) {
        if (st != SVK_ERROR_TOO_LARGE)
            b->errors++;
        set_skip(r, "%s: %s", svk_status_string(st), svk_ctx_last_error(b->ctx));
        return false;
    }
    if (t0 > b->opt.max_run_s * 1e9) {
        /* lavapipe compiles a shader variant when it first runs, inside
         * the timestamps (up to 1.6 s for a large one, where Mesa's disk
         * cache has not seen it): warm up once more before judging. */
        st = timed_list(b, fn, user, sets, 0, 1, WARM_CAPACITY, &t0, &disp, NULL);
        if (st != SVK_OK) {
            if (st != SVK_ERROR_TOO_LARGE)
                b->errors++;
            set_skip(r, "%s: %s", svk_status_string(st), svk_ctx_last_error(b->ctx));
            return false;
        }
    }
    if (t0 > b->opt.max_run_s * 1e9) {
        /* The estimate was too kind: the warm-up alone says so. */
        if (near)
            *near = r->work / t0;
        set_skip(r, "the warm-up run took %.1f s (--max-run %g)", t0 * 1e-9, b->opt.max_run_s);
        return false;
    }
    uint32_t reps = b->opt.reps ? b->opt.reps : 1;
    if (t0 > 0) {
        double fit = floor(b->opt.budget_s * 1e9 / t0);
        uint32_t min_reps = reps < 3 ? reps : 3;
        if (fit < reps)
            reps = fit < min_reps ? min_reps : (uint32_t)fit;
    }
    /* GB/s rows: about five runs of the copy they are held to, spread
     * among their own (bench.beside). */
    const bool beside = !strcmp(r->metric, "GB/s") && b->beside.fn && b->beside.work > 0;
    beside_runs bs = {.every = beside ? (reps >= 5 ? reps / 5 : 1) : 0};
    double *ns = calloc(reps, sizeof(*ns));
    if (ns && beside)
        bs.ns = calloc(reps, sizeof(*bs.ns));
    if (!ns || (beside && !bs.ns)) {
        free(ns);
        b->errors++;
        set_skip(r, "out of host memory");
        return false;
    }
    /* Timed runs start on the next copy: the warm-up just touched copy 0. */
    st = timed_list(b, fn, user, sets, 1, reps, reps * (disp ? disp : 1) + 16, ns, &r->dispatches, &bs);
    if (st != SVK_OK) {
        free(ns);
        free(bs.ns);
        b->errors++;
        set_skip(r, "%s: %s", svk_status_string(st), svk_ctx_last_error(b->ctx));
        return false;
    }
    r->reps = reps;
    r->min_ns = r->max_ns = ns[0];
    for (uint32_t i = 1; i < reps; i++) {
        r->min_ns = ns[i] < r->min_ns ? ns[i] : r->min_ns;
        r->max_ns = ns[i] > r->max_ns ? ns[i] : r->max_ns;
    }
    r->median_ns = bench_median(ns, reps);
    free(ns);
    if (bs.n) {
        const double copy_ns = bench_median(bs.ns, bs.n);
        if (copy_ns > 0)
            r->copy_beside_gbps = b->beside.work / copy_ns;
    }
    free(bs.ns);
    r->value = r->median_ns > 0 ? r->work / r->median_ns : 0; /* per ns = G per s */
    if (near && r->median_ns > 0)
        *near = r->work / r->median_ns;
    if (best && r->median_ns > 0 && r->work / r->median_ns > *best)
        *best = r->work / r->median_ns;
    if (!strcmp(r->metric, "GB/s")) {
        const double copy = r->copy_beside_gbps > 0 ? r->copy_beside_gbps : b->copy_gbps;
        if (copy > 0)
            r->of_copy = r->value / copy;
    }
    return true;
}

void bench_measure(bench *b, bench_row *r, uint32_t sets, bench_record_fn fn, void *user)
{
    bench_time_row(b, r, sets, fn, user);
    bench_add_row(b, r);
}
