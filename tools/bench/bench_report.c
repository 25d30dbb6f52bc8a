/*
 * svk-bench's output: the table (stdout, or stderr with --json), printed as
 * rows are measured so that a long run shows progress, the targets of
 * issue 6 judged at the end, and the whole run as one JSON document
 * (cJSON, the library the checkpoints already use, so that names and
 * numbers are always escaped and formatted validly).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static FILE *out(const bench *b)
{
    return b->opt.json ? stderr : stdout;
}

static const char *device_type(svk_device_type t)
{
    switch (t) {
    case SVK_DEVICE_INTEGRATED_GPU: return "integrated GPU";
    case SVK_DEVICE_DISCRETE_GPU: return "discrete GPU";
    case SVK_DEVICE_VIRTUAL_GPU: return "virtual GPU";
    case SVK_DEVICE_CPU: return "CPU";
    default: return "other";
    }
}

static void loadavg(double la[3])
{
    la[0] = la[1] = la[2] = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
            la[0] = la[1] = la[2] = -1;
        fclose(f);
    }
}

/* The host CPU as /proc/cpuinfo names it (model name, then vendor, family
 * and model: virtual machines often hide the model name), or "unknown": on
 * a CPU device every ratio depends on it (an AMD Zen 5 host and an Intel
 * one give OpenBLAS very different rates against the same lavapipe code).
 * Read once: the header and the JSON document both name it. */
static const char *cpu_model(void)
{
    static char name[256];
    if (name[0])
        return name;
    snprintf(name, sizeof(name), "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return name;
    char line[4096], model[160] = "", vendor[32] = "", family[16] = "", num[16] = "";
    struct { const char *key; char *dst; size_t cap; } fields[] = {
        {"model name", model, sizeof(model)}, {"vendor_id", vendor, sizeof(vendor)},
        {"cpu family", family, sizeof(family)}, {"model", num, sizeof(num)},
    };
    while (fgets(line, sizeof(line), f) && strcmp(line, "\n")) {
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        const size_t key_len = strcspn(line, "\t:");
        const char *value = colon + 1 + (colon[1] == ' ');
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
            if (key_len == strlen(fields[i].key) && !strncmp(line, fields[i].key, key_len))
                snprintf(fields[i].dst, fields[i].cap, "%.*s", (int)strcspn(value, "\n"), value);
    }
    fclose(f);
    if (model[0] || vendor[0])
        snprintf(name, sizeof(name), "%s (%s family %s model %s)", model[0] ? model : "?", vendor[0] ? vendor : "?",
                 family[0] ? family : "?", num[0] ? num : "?");
    return name;
}

void bench_print_header(bench *b)
{
    FILE *f = out(b);
    double la[3];
    loadavg(la);
    fprintf(f, "svk-bench %s%s: %s (%s, %s %s), subgroup %u\n", svk_version(), b->opt.quick ? " --quick" : "",
            b->dev->name, device_type(b->dev->type), b->dev->driver_name, b->dev->driver_info, b->dev->subgroup_size);
    if (b->opt.tune)
        fprintf(f, "tuning: --tune %s\n", b->opt.tune);
    fprintf(f, "host CPU %s; threads %u (LP_NUM_THREADS=%s); load average %.2f %.2f %.2f at start\n", cpu_model(),
            b->threads, b->lp_threads ? b->lp_threads : "unset", la[0], la[1], la[2]);
    if (b->blas)
        fprintf(f, "OpenBLAS: core %s, OPENBLAS_CORETYPE=%s, %u threads (%s)\n", b->blas_core,
                b->blas_coretype_env ? b->blas_coretype_env : "unset", b->threads, b->blas_config);
    else
        fprintf(f, "OpenBLAS: not built in (install libopenblas-dev and reconfigure): no GEMM reference\n");
    fprintf(f, "times: GPU timestamps, median of up to %u runs after a warm-up, operands rotated over copies; "
               "GB/s counts the bytes each op must move\n\n", b->opt.reps);
    fprintf(f, "%-11s %-15s %-10s %-8s %-30s %10s %-7s %10s %12s  %s\n", "section", "kernel", "dir", "variant",
            "shape", "value", "unit", "median ms", "runs x sets", "vs limit");
}

void bench_print_row(bench *b, const bench_row *r)
{
    FILE *f = out(b);
    char shape[160];
    if (r->dims[0])
        snprintf(shape, sizeof(shape), "%s %s", r->shape, r->dims);
    else
        snprintf(shape, sizeof(shape), "%s", r->shape);
    if (r->skipped[0]) {
        fprintf(f, "%-11s %-15s %-10s %-8s %-30s %10s %-7s  skipped: %s\n", r->section, r->kernel, r->direction,
                r->variant, shape, "-", r->metric, r->skipped);
        return;
    }
    char runs[32], vs[96] = "";
    snprintf(runs, sizeof(runs), "%u x %u", r->reps, r->sets);
    if (r->of_copy >= 0)
        snprintf(vs, sizeof(vs), "%.2f of copy", r->of_copy);
    else if (r->blas_value > 0)
        snprintf(vs, sizeof(vs), "%.2f of OpenBLAS (%.1f)", r->value / r->blas_value, r->blas_value);
    /* GFLOP/s rows against the device's own multiply-add rate too. */
    if (!strcmp(r->metric, "GFLOP/s") && strcmp(r->section, "limit") && b->fma_gflops > 0) {
        const size_t used = strlen(vs);
        snprintf(vs + used, sizeof(vs) - used, "%s%.2f of fma_peak", used ? ", " : "", r->value / b->fma_gflops);
    }
    fprintf(f, "%-11s %-15s %-10s %-8s %-30s %10.2f %-7s %10.3f %12s  %s\n", r->section, r->kernel, r->direction,
            r->variant, shape, r->value, r->metric, r->median_ns * 1e-6, runs, vs);
    fflush(f);
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1 << 20);
}

void bench_print_reduce(bench *b, const bench_reduce_row *r)
{
    FILE *f = out(b);
    if (r->skipped[0]) {
        fprintf(f, "reduce %-10s %-9s failed: %s\n", r->name, r->mode, r->skipped);
        return;
    }
    char buckets[24] = "";
    if (r->buckets)
        snprintf(buckets, sizeof(buckets), ", %u bucket%s", r->buckets, r->buckets == 1 ? "" : "s");
    fprintf(f, "reduce %-10s %-9s %d rank%s, %.2f M params (%.2f MB a step)%s: step %8.2f ms, all-reduce %7.3f ms "
               "(%u steps)\n", r->name, r->mode, r->ranks, r->ranks == 1 ? "" : "s", (double)r->params * 1e-6,
            4e-6 * (double)r->params, buckets, r->step_ms, r->reduce_ms, r->steps);
    fflush(f);
}

void bench_print_step(bench *b, const bench_step_row *s)
{
    FILE *f = out(b);
    if (!s->tokens_per_s) {
        fprintf(f, "step %-12s skipped: %s\n", s->name, s->skipped);
        return;
    }
    fprintf(f, "step %-12s C=%u L=%u H=%u V=%u %s, B=%u T=%u, %.2f M params, kernels %s\n", s->name,
            s->config.width, s->config.layers, s->config.heads, s->config.vocab,
            s->config.placement == SVK_PLACEMENT_SIAMESE ? "siamese" : s->config.placement == SVK_PLACEMENT_PRE ? "pre" : "post",
            s->B, s->T, (double)s->params * 1e-6, s->variant);
    fprintf(f, "     %10.0f tokens/s  %9.2f ms/step wall (%u replayed)", s->tokens_per_s, s->wall_ms, s->steps);
    if (s->gpu_reps)
        fprintf(f, "  GPU %9.2f ms/step (median of %u, min %.2f)\n     host CPU %.3f ms/step = %.2f%% of GPU time",
                s->gpu_ms, s->gpu_reps, s->gpu_min_ms, s->host_cpu_ms, 100 * s->host_over_gpu);
    else
        fprintf(f, "\n     host CPU %.3f ms/step", s->host_cpu_ms);
    fprintf(f, "; loss %.4f\n", s->final_loss);
    fprintf(f, "     device memory %.1f MiB allocated; svk_model_memory %.1f MiB (params %.1f, grads %.1f, adam %.1f, "
               "activations %.1f, io %.2f)",
            mib(s->mem_used), mib(s->mem_total), mib(s->mem_params), mib(s->mem_grads), mib(s->mem_optimizer),
            mib(s->mem_activations), mib(s->mem_io));
    if (s->mem_min)
        fprintf(f, "; lower bound %.1f MiB (%.2fx)\n", mib(s->mem_min), (double)s->mem_used / (double)s->mem_min);
    else
        fprintf(f, "; no lower bound (recomputation or 16-bit activations)\n");
    if (s->skipped[0])
        fprintf(f, "     note: %s\n", s->skipped);
    fflush(f);
}

/* ---- the targets ---- */

typedef struct target {
    char what[96];
    char measured[224];
    double value, goal;
    int status;             /* 1 met, 0 missed, -1 not measured */
    /* Measured and shown, but not what the target is judged on: the GEMM
     * variant this device does not run (svk-bench times both). */
    bool info;
} target;

enum { MAX_TARGETS = 32 };

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return a < c ? -1 : a > c;
}

/* Median, min and max of v[0..n) (sorted in place). */
static void stats(double *v, size_t n, double *med, double *lo, double *hi)
{
    qsort(v, n, sizeof(*v), cmp_d);
    *lo = v[0];
    *hi = v[n - 1];
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void set_status(target *t, bool higher_is_better)
{
    t->status = higher_is_better ? t->value >= t->goal : t->value <= t->goal;
}

static const bench_step_row *find_step(const bench *b, const char *name)
{
    for (size_t i = 0; i < b->n_steps; i++)
        if (!strcmp(b->steps[i].name, name) && b->steps[i].gpu_ms > 0)
            return &b->steps[i];
    return NULL;
}

static size_t judge(const bench *b, target *t)
{
    memset(t, 0, MAX_TARGETS * sizeof(*t));
    size_t n = 0;
    double *v = malloc(2 * (b->n_rows + 1) * sizeof(*v)); /* values, then the copies beside them */
    if (!v)
        return 0;
    /* GEMM >= 40% of OpenBLAS at the transformer shapes (not the square),
     * judged on the variant the device's training step runs (a CPU
     * device's portable rows, 1-3 GFLOP/s there, are for comparison). */
    static const char *const variants[] = {"cpu", "portable"};
    const char *own = bench_gemm_step_variant(b);
    const bool own_judged = !strcmp(own, variants[0]) || !strcmp(own, variants[1]);
    for (int k = 0; k < 2; k++) {
        size_t m = 0;
        for (size_t i = 0; i < b->n_rows; i++) {
            const bench_row *r = &b->rows[i];
            if (!strcmp(r->section, "gemm") && strcmp(r->direction, "square") && !strcmp(r->variant, variants[k]) &&
                r->value > 0 && r->blas_value > 0)
                v[m++] = r->value / r->blas_value;
        }
        target *x = &t[n++];
        snprintf(x->what, sizeof(x->what), "GEMM (%s) >= 40%% of OpenBLAS at transformer shapes", variants[k]);
        x->goal = 0.40;
        x->info = own_judged && strcmp(own, variants[k]);
        if (!m) {
            x->status = -1;
            snprintf(x->measured, sizeof(x->measured), b->blas ? "no row measured" : "OpenBLAS not built in");
            continue;
        }
        double med, lo, hi;
        stats(v, m, &med, &lo, &hi);
        x->value = med;
        set_status(x, true);
        int used = snprintf(x->measured, sizeof(x->measured), "median %.2f (min %.2f, max %.2f) over %zu shapes",
                            med, lo, hi, m);
        /* What the device itself allows: the same rows against fma_peak,
         * and that limit against OpenBLAS. */
        if (b->fma_gflops > 0 && used > 0 && (size_t)used < sizeof(x->measured)) {
            size_t mf = 0;
            double blas_med = 0;
            for (size_t i = 0; i < b->n_rows; i++) {
                const bench_row *r = &b->rows[i];
                if (!strcmp(r->section, "gemm") && strcmp(r->direction, "square") &&
                    !strcmp(r->variant, variants[k]) && r->value > 0 && r->blas_value > 0)
                    v[mf++] = r->value / b->fma_gflops;
            }
            stats(v, mf, &med, &lo, &hi);
            for (size_t i = 0, q = 0; i < b->n_rows; i++) {
                const bench_row *r = &b->rows[i];
                if (!strcmp(r->section, "gemm") && strcmp(r->direction, "square") &&
                    !strcmp(r->variant, variants[k]) && r->value > 0 && r->blas_value > 0)
                    v[q++] = r->blas_value;
            }
            double blo, bhi;
            stats(v, mf, &blas_med, &blo, &bhi);
            snprintf(x->measured + used, sizeof(x->measured) - (size_t)used,
                     "; %.2f of fma_peak (%.0f GFLOP/s = %.2f of OpenBLAS's median %.0f)", med, b->fma_gflops,
                     b->fma_gflops / blas_med, blas_med);
        }
    }
    /* Fused norm, dual residual, AdamW >= 50% of the copy kernel's GB/s. */
    static const char *const bw[][2] = {{"siamese_norm", "fwd"}, {"siamese_norm", "bwd"}, {"siamese_out", "fwd"},
                                        {"siamese_out", "bwd"}, {"residual", "fwd"}, {"residual", "bwd"},
                                        {"adamw", "-"}};
    for (size_t k = 0; k < sizeof(bw) / sizeof(bw[0]); k++) {
        size_t m = 0, mc = 0;
        double *copies = v + b->n_rows + 1; /* the copies beside those rows */
        for (size_t i = 0; i < b->n_rows; i++) {
            const bench_row *r = &b->rows[i];
            if (!strcmp(r->kernel, bw[k][0]) && !strcmp(r->direction, bw[k][1]) && r->of_copy >= 0 && r->value > 0) {
                v[m++] = r->of_copy;
                if (r->copy_beside_gbps > 0)
                    copies[mc++] = r->copy_beside_gbps;
            }
        }
        target *x = &t[n++];
        snprintf(x->what, sizeof(x->what), "%s %s >= 50%% of copy GB/s", bw[k][0], bw[k][1]);
        x->goal = 0.50;
        if (!m) {
            x->status = -1;
            snprintf(x->measured, sizeof(x->measured), "no row measured");
            continue;
        }
        double med, lo, hi;
        stats(v, m, &med, &lo, &hi);
        x->value = med;
        set_status(x, true);
        if (mc == m) {
            double cmed, clo, chi;
            stats(copies, mc, &cmed, &clo, &chi);
            snprintf(x->measured, sizeof(x->measured),
                     "median %.2f (min %.2f, max %.2f) over %zu shapes, each of the copy run among its runs "
                     "(%.1f to %.1f GB/s)",
                     med, lo, hi, m, clo, chi);
        } else {
            snprintf(x->measured, sizeof(x->measured),
                     "median %.2f (min %.2f, max %.2f) over %zu shapes, copy %.1f GB/s", med, lo, hi, m,
                     b->copy_gbps);
        }
    }
    /* The step against PyTorch: a separate script. */
    {
        target *x = &t[n++];
        snprintf(x->what, sizeof(x->what), "step tokens/s >= PyTorch CPU");
        x->status = -1;
        snprintf(x->measured, sizeof(x->measured),
                 "not measured by svk-bench: tools/bench/step_vs_torch.py runs both (needs PyTorch)");
    }
    /* SiameseNorm's overhead. */
    {
        const char *sn = b->opt.quick ? "tiny" : "default", *pre = b->opt.quick ? "tiny/pre" : "default/pre";
        const bench_step_row *a = find_step(b, sn), *c = find_step(b, pre);
        target *x = &t[n++];
        snprintf(x->what, sizeof(x->what), "siamese step <= 1.10x the pre-norm step (GPU ms, %s)", sn);
        x->goal = 1.10;
        if (!a || !c) {
            x->status = -1;
            snprintf(x->measured, sizeof(x->measured), "not measured");
        } else if (b->overhead_pairs) {
            /* Alternated pairs (bench_step.c) rather than the two rows' medians. */
            x->value = b->overhead_ratio;
            set_status(x, false);
            snprintf(x->measured, sizeof(x->measured),
                     "%.3fx (median of %u alternated pairs; %.2f / %.2f ms; the rows: %.3fx, tokens/s %.3fx)",
                     x->value, b->overhead_pairs, b->overhead_siamese_ms, b->overhead_pre_ms, a->gpu_ms / c->gpu_ms,
                     c->tokens_per_s / a->tokens_per_s);
        } else {
            x->value = a->gpu_ms / c->gpu_ms;
            set_status(x, false);
            snprintf(x->measured, sizeof(x->measured), "%.3fx (%.2f / %.2f ms; tokens/s %.3fx)", x->value, a->gpu_ms,
                     c->gpu_ms, c->tokens_per_s / a->tokens_per_s);
        }
    }
    /* Host CPU per step. */
    for (size_t i = 0; i < b->n_steps; i++) {
        const bench_step_row *s = &b->steps[i];
        if (!(s->gpu_ms > 0) || n == MAX_TARGETS)
            continue;
        target *x = &t[n++];
        snprintf(x->what, sizeof(x->what), "host CPU per step <= 2%% of GPU time (%s)", s->name);
        x->goal = 0.02;
        x->value = s->host_over_gpu;
        set_status(x, false);
        snprintf(x->measured, sizeof(x->measured), "%.2f%% (%.3f of %.2f ms)", 100 * s->host_over_gpu, s->host_cpu_ms,
                 s->gpu_ms);
    }
    free(v);
    return n;
}

void bench_print_summary(bench *b)
{
    FILE *f = out(b);
    target t[MAX_TARGETS];
    size_t n = judge(b, t);
    fprintf(f, "\ntargets (issue 6):\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-9s %-62s %s\n",
                t[i].status < 0 ? "n/a"
                : t[i].info     ? "info"
                : t[i].status   ? "met"
                                : "MISSED",
                t[i].what,
                t[i].measured);
    for (size_t i = 0; i < n; i++)
        if (t[i].info) {
            fprintf(f, "note: info rows are measured for comparison and not judged: the device's training "
                       "step runs the other variant\n");
            break;
        }
    /* Say when the machine's speed moved during the kernel rows: the
     * ratios to copy are then only as good as the copy timed beside each
     * row, or, where there was none, uncertain by as much. */
    bool all_beside = true;
    for (size_t i = 0; i < b->n_rows; i++)
        if (b->rows[i].of_copy >= 0 && b->rows[i].copy_beside_gbps <= 0)
            all_beside = false;
    if (b->copy_gbps > 0 && b->copy_gbps_end > 0) {
        const double drift = b->copy_gbps_end / b->copy_gbps;
        if (drift < 0.8 || drift > 1.25)
            fprintf(f, "note: the copy shader ran at %.2f GB/s before the kernel rows and %.2f after them: the "
                       "machine's speed drifted by %+.0f%%%s\n",
                    b->copy_gbps, b->copy_gbps_end, 100 * (drift - 1),
                    all_beside ? "; each row's ratio is to the copy run among its own runs"
                               : ", and the ratios to copy are uncertain by as much");
    }
    if (b->errors)
        fprintf(f, "%d row(s) failed (not skipped for a stated limit): see 'skipped:' above\n", b->errors);
    if (b->validation_messages)
        fprintf(f, "%d validation message(s)\n", b->validation_messages);
}

/* ---- JSON ---- */

static void num(cJSON *o, const char *k, double v)
{
    /* JSON has no NaN or infinity: unknown figures are null. */
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *row_json(const bench *b, const bench_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "section", r->section);
    cJSON_AddStringToObject(o, "kernel", r->kernel);
    cJSON_AddStringToObject(o, "direction", r->direction);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddStringToObject(o, "shape", r->shape);
    if (r->dims[0])
        cJSON_AddStringToObject(o, "dims", r->dims);
    cJSON_AddStringToObject(o, "metric", r->metric);
    num(o, "work", r->work);
    if (r->skipped[0]) {
        cJSON_AddStringToObject(o, "skipped", r->skipped);
        return o;
    }
    num(o, "value", r->value);
    num(o, "median_ms", r->median_ns * 1e-6);
    num(o, "min_ms", r->min_ns * 1e-6);
    num(o, "max_ms", r->max_ns * 1e-6);
    num(o, "reps", r->reps);
    num(o, "sets", r->sets);
    num(o, "dispatches", r->dispatches);
    if (r->of_copy >= 0)
        num(o, "of_copy", r->of_copy);
    if (r->copy_beside_gbps > 0)
        num(o, "copy_gbps_beside", r->copy_beside_gbps);
    if (!strcmp(r->metric, "GFLOP/s") && strcmp(r->section, "limit") && b->fma_gflops > 0 && r->value > 0)
        num(o, "of_fma_peak", r->value / b->fma_gflops);
    if (r->blas_value > 0) {
        num(o, "openblas_gflops", r->blas_value);
        num(o, "openblas_median_ms", r->blas_median_ns * 1e-6);
        num(o, "of_openblas", r->value / r->blas_value);
    }
    return o;
}

static cJSON *reduce_json(const bench_reduce_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "mode", r->mode);
    num(o, "ranks", r->ranks);
    num(o, "params", (double)r->params);
    num(o, "bytes_per_step", 4.0 * (double)r->params);
    if (r->skipped[0]) {
        cJSON_AddStringToObject(o, "skipped", r->skipped);
        return o;
    }
    num(o, "buckets", r->buckets);
    num(o, "steps", r->steps);
    num(o, "step_ms", r->step_ms);
    num(o, "reduce_ms", r->reduce_ms);
    num(o, "loss", r->loss);
    return o;
}

static cJSON *step_json(const bench_step_row *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name);
    char cfg[1024];
    if (svk_model_config_to_json(&s->config, cfg, sizeof(cfg)) == SVK_OK) {
        cJSON *c = cJSON_Parse(cfg);
        if (c)
            cJSON_AddItemToObject(o, "config", c);
    }
    num(o, "B", s->B);
    num(o, "T", s->T);
    num(o, "params", (double)s->params);
    cJSON_AddStringToObject(o, "variant", s->variant);
    if (s->skipped[0])
        cJSON_AddStringToObject(o, s->tokens_per_s ? "note" : "skipped", s->skipped);
    if (!s->tokens_per_s)
        return o;
    num(o, "steps", s->steps);
    num(o, "tokens_per_s", s->tokens_per_s);
    num(o, "wall_ms", s->wall_ms);
    num(o, "gpu_ms", s->gpu_ms);
    num(o, "gpu_min_ms", s->gpu_min_ms);
    num(o, "gpu_reps", s->gpu_reps);
    num(o, "host_cpu_ms", s->host_cpu_ms);
    num(o, "host_over_gpu", s->host_over_gpu);
    num(o, "final_loss", s->final_loss);
    cJSON *m = cJSON_AddObjectToObject(o, "memory");
    num(m, "allocated", (double)s->mem_used);
    num(m, "model_total", (double)s->mem_total);
    num(m, "params", (double)s->mem_params);
    num(m, "grads", (double)s->mem_grads);
    num(m, "optimizer", (double)s->mem_optimizer);
    num(m, "activations", (double)s->mem_activations);
    num(m, "io", (double)s->mem_io);
    num(m, "lower_bound", (double)s->mem_min);
    num(m, "lower_bound_activations", (double)s->min_activations);
    return o;
}

bool bench_print_json(bench *b)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return false;
    cJSON_AddStringToObject(root, "tool", "svk-bench");
    cJSON_AddStringToObject(root, "version", svk_version());
    cJSON_AddBoolToObject(root, "quick", b->opt.quick);
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(root, "date", when);
    cJSON *d = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(d, "name", b->dev->name);
    cJSON_AddStringToObject(d, "type", device_type(b->dev->type));
    cJSON_AddStringToObject(d, "driver", b->dev->driver_name);
    cJSON_AddStringToObject(d, "driver_info", b->dev->driver_info);
    num(d, "subgroup_size", b->dev->subgroup_size);
    if (b->opt.tune)
        cJSON_AddStringToObject(root, "tune", b->opt.tune);
    cJSON *mach = cJSON_AddObjectToObject(root, "machine");
    cJSON_AddStringToObject(mach, "cpu", cpu_model());
    num(mach, "threads", b->threads);
    if (b->lp_threads)
        cJSON_AddStringToObject(mach, "lp_num_threads", b->lp_threads);
    else
        cJSON_AddNullToObject(mach, "lp_num_threads");
    double la[3];
    loadavg(la);
    cJSON *l = cJSON_AddArrayToObject(mach, "loadavg_end");
    for (int i = 0; i < 3; i++)
        cJSON_AddItemToArray(l, cJSON_CreateNumber(la[i]));
    cJSON *blas = cJSON_AddObjectToObject(root, "openblas");
    cJSON_AddBoolToObject(blas, "built", b->blas);
    if (b->blas) {
        cJSON_AddStringToObject(blas, "core", b->blas_core);
        cJSON_AddStringToObject(blas, "config", b->blas_config);
    }
    if (b->blas_coretype_env)
        cJSON_AddStringToObject(blas, "OPENBLAS_CORETYPE", b->blas_coretype_env);
    else
        cJSON_AddNullToObject(blas, "OPENBLAS_CORETYPE");
    cJSON *lim = cJSON_AddObjectToObject(root, "limits");
    num(lim, "copy_gbps", b->copy_gbps);
    if (b->fma_gflops > 0)
        num(lim, "fma_gflops", b->fma_gflops);
    else
        cJSON_AddNullToObject(lim, "fma_gflops");
    if (b->copy_gbps_end > 0)
        num(lim, "copy_gbps_end", b->copy_gbps_end);
    else
        cJSON_AddNullToObject(lim, "copy_gbps_end");
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t i = 0; i < b->n_rows; i++)
        cJSON_AddItemToArray(rows, row_json(b, &b->rows[i]));
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (size_t i = 0; i < b->n_steps; i++)
        cJSON_AddItemToArray(steps, step_json(&b->steps[i]));
    cJSON *reduces = cJSON_AddArrayToObject(root, "reduce");
    for (size_t i = 0; i < b->n_reduces; i++)
        cJSON_AddItemToArray(reduces, reduce_json(&b->reduces[i]));
    if (b->overhead_pairs) {
        cJSON *o = cJSON_AddObjectToObject(root, "siamese_overhead");
        num(o, "pairs", b->overhead_pairs);
        num(o, "ratio", b->overhead_ratio);
        num(o, "siamese_gpu_ms", b->overhead_siamese_ms);
        num(o, "pre_gpu_ms", b->overhead_pre_ms);
    } else {
        cJSON_AddNullToObject(root, "siamese_overhead");
    }
    target t[MAX_TARGETS];
    size_t n = judge(b, t);
    cJSON *ts = cJSON_AddArrayToObject(root, "targets");
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "target", t[i].what);
        cJSON_AddStringToObject(o, "status",
                                t[i].status < 0 ? "not measured"
                                : t[i].info     ? "informational"
                                : t[i].status   ? "met"
                                                : "missed");
        if (t[i].status >= 0) {
            num(o, "value", t[i].value);
            num(o, "goal", t[i].goal);
        }
        cJSON_AddStringToObject(o, "measured", t[i].measured);
        cJSON_AddItemToArray(ts, o);
    }
    num(root, "errors", b->errors);
    num(root, "validation_messages", b->validation_messages);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return false;
    fputs(text, stdout);
    fputc('\n', stdout);
    free(text);
    return fflush(stdout) == 0;
}
