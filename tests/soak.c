/*
 * The soak test (scripts/soak.sh; not part of `meson test`, since it runs
 * for minutes): thousands of replayed training steps on a tiny Vulkan model,
 * with an evaluation, a save and a load every so often, checking that the
 * host's memory stays flat (resident set size from /proc/self/statm), that
 * the model's device memory does not change, that every step's loss is
 * finite and that the step count is exact. Leaks that a short test cannot
 * see (a few bytes per step, a descriptor or command buffer per submit)
 * show up here as growth.
 *
 *   soak [--steps N] [--seed S] [--growth-kib K]
 *
 * Growth is measured from after the warm-up (the first tenth of the steps
 * and the first save and load, when pipelines, caches and the driver's
 * pools fill) to the end; more than K KiB (default 1024) fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/svk.h"
#include "test_util.h"

enum { B = 4, T = 16, V = 64 };

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = -1, resident = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
    uint64_t steps = 5000, seed = 1;
    long growth_limit = 1024;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--growth-kib") && i + 1 < argc)
            growth_limit = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: soak [--steps N] [--seed S] [--growth-kib K]\n");
            return 2;
        }
    }
    if (steps < 100)
        steps = 100;
    printf("soak: %llu steps, seed %llu, growth limit %ld KiB\n", (unsigned long long)steps,
           (unsigned long long)seed, growth_limit);
    tu_tally t = {0, 0};
    svk_ctx *ctx = tu_ctx_create();
    if (!ctx)
        return 1;
    svk_model_params p = svk_model_params_default();
    p.config = svk_model_config_default();
    p.config.vocab = V;
    p.config.ctx = T;
    p.config.width = 32;
    p.config.layers = 2;
    p.config.heads = 2;
    p.ctx = ctx;
    p.seed = seed;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    if (st != SVK_OK) {
        printf("FAIL model: %s\n", svk_last_error());
        return 1;
    }
    svk_memory_report mem0 = {0}, mem1 = {0};

    char dir[] = "/tmp/svk-soak-XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof(path), "%s/soak.safetensors", dir);

    /* A fixed pattern the model can learn (next token = token + 1), so the
     * loss falls and a broken update would show. */
    int32_t tokens[B * T], targets[B * T];
    const uint64_t every = steps / 10;
    long rss_start = -1, rss_max = 0;
    float first = NAN, last = NAN;
    uint64_t bad = 0;
    const double t0 = tu_now();
    for (uint64_t s = 0; s < steps && st == SVK_OK; s++) {
        for (int i = 0; i < B * T; i++) {
            tokens[i] = (int32_t)((s * 7 + (uint64_t)i) % V);
            targets[i] = (tokens[i] + 1) % V;
        }
        const bool report = s % 50 == 0 || s + 1 == steps;
        float loss = NAN;
        st = svk_model_train_step(m, tokens, targets, B, T, 3e-3f, report ? &loss : NULL);
        if (st != SVK_OK)
            break;
        if (s == 0)
            svk_model_memory(m, &mem0); /* the batch shape's activations now exist */
        if (report) {
            if (!isfinite(loss))
                bad++;
            if (isnan(first))
                first = loss;
            last = loss;
        }
        if (s > 0 && s % every == 0) {
            /* Other calls in between: evaluation, and a save and load,
             * which must each leave the replayed step working. */
            float eval = NAN;
            if ((st = svk_model_eval_loss(m, tokens, targets, B, T, &eval)) != SVK_OK ||
                (st = svk_model_save(m, path, true)) != SVK_OK || (st = svk_model_load(m, path, true)) != SVK_OK)
                break;
            long r = rss_kib();
            if (s == every)
                rss_start = r;
            rss_max = r > rss_max ? r : rss_max;
            printf("  step %6llu: loss %.4f, eval %.4f, rss %ld KiB, %.1f steps/s\n", (unsigned long long)s,
                   (double)last, (double)eval, r, (double)s / (tu_now() - t0));
            fflush(stdout);
        }
    }
    tu_check(&t, st == SVK_OK, "every call succeeded: %s", st == SVK_OK ? "ok" : svk_last_error());
    const long rss_end = rss_kib();
    tu_check(&t, svk_model_step(m) == steps, "step count %llu of %llu", (unsigned long long)svk_model_step(m),
             (unsigned long long)steps);
    tu_check(&t, bad == 0 && isfinite(last) && last < first, "losses finite and falling: %.4f -> %.4f (%llu bad)",
             (double)first, (double)last, (unsigned long long)bad);
    svk_model_memory(m, &mem1);
    tu_check(&t, !memcmp(&mem0, &mem1, sizeof(mem0)), "model memory unchanged: %llu -> %llu bytes",
             (unsigned long long)mem0.total, (unsigned long long)mem1.total);
    tu_check(&t, rss_start > 0 && rss_end - rss_start <= growth_limit,
             "host memory flat: %ld KiB after warm-up (step %llu), %ld KiB at the end (+%ld KiB, peak %ld)",
             rss_start, (unsigned long long)every, rss_end, rss_end - rss_start, rss_max);
    printf("soak: %.1f s, %.1f steps/s\n", tu_now() - t0, (double)steps / (tu_now() - t0));
    svk_model_destroy(&m);
    tu_ctx_finish(&ctx, &t);
    unlink(path);
    rmdir(dir);
    return tu_finish(&t);
}
