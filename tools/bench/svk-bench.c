/*
 * svk-bench: the command line of the benchmark (bench.h). Exit status 0
 * when every row ran or was skipped for a stated limit, 1 when a row
 * failed or the validation layer reported anything, 2 for a usage error,
 * 77 when there is no Vulkan device (the test harness's skip code).
 * Times never decide the exit status.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli_exit.h"
#include "cli_parse.h"
#include "dist.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: svk-bench [options]\n"
"  every kernel family at training shapes, the machine's limits (a copy kernel,\n"
"  OpenBLAS sgemm when built with it), the whole training step, and the step with its\n"
"  gradients all-reduced (reduce rows; under mpirun -np N, those alone, N ranks:\n"
"  docs/DISTRIBUTED.md)\n"
"  --quick           tiny shapes, few runs (the test suite's smoke test)\n"
"  --json            the whole run as JSON on stdout (the table goes to stderr)\n"
"  --filter TEXT     only rows whose 'section kernel dir variant shape' contains TEXT;\n"
"                    A|B: rows containing A or B (e.g. --filter 'limit|siamese')\n"
"                    (steps: 'step NAME', e.g. --filter step or --filter 'step default';\n"
"                    reduce rows: 'reduce NAME')\n"
"  --reps N          most timed runs per row (default 20; quick 3)\n"
"  --budget S        GPU seconds per row after which no more runs are added (default 0.3)\n"
"  --max-run S       skip a row whose one run is estimated to take longer (default 0.5)\n"
"  --threads N       OpenBLAS threads, and LP_NUM_THREADS when unset (default: processors)\n"
"  --all-variants    row kernels in both forms (portable, cpu), not only the device's\n"
"  --steps N         training steps timed per configuration, replayed and on GPU\n"
"                    timestamps each (default 10; quick 2); the siamese overhead's\n"
"                    alternated pairs: as many, at least 9 outside --quick\n"
"  --max-step S      skip timing a configuration whose warm-up step took longer (default 30)\n"
"  --batch B --seq T the training step's batch shape (default: per configuration)\n"
"  --no-kernels      only the training step;  --no-step  only the kernels\n"
"  --tune LIST       steer kernel choices, to compare a default with its alternative,\n"
"                    e.g. --tune gemm_wide=0,vec4=0 (docs/ENVIRONMENT.md), from:\n"
"%s"
"  --device D        device index or name substring (default: SVK_DEVICE, else the best)\n"
"  --seed N          operand and model seed, 0..2^64-1 (default 1)\n"
"  N: a decimal integer >= 1 (--seed: >= 0); S: a finite decimal number of seconds\n"
SVK_EXIT_HELP ", 77 no Vulkan device (the test harness's skip)\n", svk_ctx_tuning_help);
}

/* The least --max-run and --max-step: 0 would read as "unset" (the
 * default), and a limit under a millisecond skips every row. */
#define MIN_LIMIT_S 1e-3
/* OpenBLAS's and lavapipe's threads: past this, a typo. */
#define THREADS_MAX 4096

/* The options into *o, and --device into *cp. */
static int parse_args(int argc, char **argv, bench_opts *o, svk_ctx_params *cp)
{
    *o = (bench_opts){.seed = 1};
    bool reps_set = false, budget_set = false, steps_set = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(SVK_EXIT_OK);
        } else if (!strcmp(a, "--quick")) {
            o->quick = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--all-variants")) {
            o->all_variants = true;
        } else if (!strcmp(a, "--no-kernels")) {
            o->no_kernels = true;
        } else if (!strcmp(a, "--no-step")) {
            o->no_step = true;
        } else if (i + 1 >= argc) {
            fprintf(stderr, "svk-bench: unknown option or missing value: '%s' (try --help)\n", a);
            return SVK_EXIT_USAGE;
        } else {
            const char *v = argv[++i];
            bool ok = true;
            svk_cli_error err;
            if (!strcmp(a, "--filter"))
                o->filter = v;
            else if (!strcmp(a, "--device"))
                ok = svk_cli_vulkan_device(a, v, &cp->device_index, &cp->device_name, &err), o->device = v;
            else if (!strcmp(a, "--reps"))
                ok = svk_cli_u32(a, v, 1, UINT32_MAX, &o->reps, &err), reps_set = true;
            else if (!strcmp(a, "--budget"))
                ok = svk_cli_f64(a, v, 0, INFINITY, &o->budget_s, &err), budget_set = true;
            else if (!strcmp(a, "--max-run"))
                ok = svk_cli_f64(a, v, MIN_LIMIT_S, INFINITY, &o->max_run_s, &err);
            else if (!strcmp(a, "--threads"))
                ok = svk_cli_u32(a, v, 1, THREADS_MAX, &o->threads, &err);
            else if (!strcmp(a, "--max-step"))
                ok = svk_cli_f64(a, v, MIN_LIMIT_S, INFINITY, &o->max_step_s, &err);
            else if (!strcmp(a, "--steps"))
                ok = svk_cli_u32(a, v, 1, UINT32_MAX, &o->steps, &err), steps_set = true;
            else if (!strcmp(a, "--batch"))
                ok = svk_cli_u32(a, v, 1, UINT32_MAX, &o->batch, &err);
            else if (!strcmp(a, "--seq"))
                ok = svk_cli_u32(a, v, 1, UINT32_MAX, &o->seq, &err);
            else if (!strcmp(a, "--seed"))
                ok = svk_cli_u64(a, v, 0, UINT64_MAX, &o->seed, &err);
            else if (!strcmp(a, "--tune")) {
                /* Checked here, applied to the context once it exists. */
                svk_ctx_tuning t = {0};
                char why[1024];
                if (!svk_ctx_tuning_parse(v, &t, why, sizeof(why))) {
                    fprintf(stderr, "svk-bench: --tune %s", why);
                    return SVK_EXIT_USAGE;
                }
                o->tune = v;
            }
            else {
                fprintf(stderr, "svk-bench: unknown option '%s' (try --help)\n", a);
                return SVK_EXIT_USAGE;
            }
            if (!ok) {
                fprintf(stderr, "svk-bench: %s (try --help)\n", err.text);
                return SVK_EXIT_USAGE;
            }
        }
    }
    if (!reps_set)
        o->reps = o->quick ? 3 : 20;
    if (!budget_set)
        o->budget_s = o->quick ? 0.05 : 0.3;
    if (!o->max_run_s)
        o->max_run_s = 0.5;
    /* 10, not fewer: a median of 3 steps let one slow minute of a noisy
     * host double a row (161 ms against its own alternated pairs' 128 in
     * a full run on a Zen 5 host, 2026-12-05); 7 more steps cost
     * about 10 s of a 4-7 minute run on lavapipe. */
    if (!steps_set)
        o->steps = o->quick ? 2 : 10;
    if (!o->max_step_s)
        o->max_step_s = 30;
    return 0;
}

int main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof(b));
    svk_ctx_params cp = svk_ctx_params_default();
    svk_train_dist dist;
    if (!svk_train_dist_init(&argc, &argv, &dist))
        return SVK_EXIT_FAILURE;
    b.dist = &dist;
    int rc = parse_args(argc, argv, &b.opt, &cp);
    if (rc)
        return svk_train_dist_end(&dist, rc);
    /* Rank 0 reports; the others run the same rows, silently. */
    if (dist.rank > 0 && !freopen("/dev/null", "w", stdout)) {
        fprintf(stderr, "svk-bench: rank %d: cannot silence its output\n", dist.rank);
        return svk_train_dist_end(&dist, SVK_EXIT_FAILURE);
    }
    cf_rng_seed(&b.rng, b.opt.seed);

    /* One thread count for everything: lavapipe's (read when its device
     * is created) and OpenBLAS's, so that the two compare on equal terms. */
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    const char *lp = getenv("LP_NUM_THREADS");
    uint32_t lp_n = 0;
    svk_cli_error lp_err;
    if (b.opt.threads)
        b.threads = b.opt.threads;
    else if (lp && svk_cli_u32("LP_NUM_THREADS", lp, 1, THREADS_MAX, &lp_n, &lp_err))
        b.threads = lp_n;
    else
        b.threads = nproc > 0 ? (uint32_t)nproc : 1;
    if (!lp) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%u", b.threads);
        setenv("LP_NUM_THREADS", buf, 1);
    }
    b.lp_threads = getenv("LP_NUM_THREADS");
    bench_blas_init(&b);

    svk_status st = svk_ctx_create(&cp, &b.ctx);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-bench: no device: %s\n", svk_last_error());
        /* A machine without Vulkan is a skip; a --device it lacks is the
         * command line's failure, which a skip would hide. */
        return (st == SVK_ERROR_NO_VULKAN || st == SVK_ERROR_NO_DEVICE) && !b.opt.device ? 77 : SVK_EXIT_FAILURE;
    }
    b.dev = svk_ctx_device_info(b.ctx);
    b.tuning = *svk_ctx_tuning_get(b.ctx);
    if (b.opt.tune) {
        char why[1024];
        (void)svk_ctx_tuning_parse(b.opt.tune, &b.tuning, why, sizeof(why));
        (void)svk_ctx_tuning_set(b.ctx, &b.tuning);
    }

    bench_print_header(&b);
    double t0 = bench_now();
    /* Under mpirun the ranks share the machine: the reduce rows alone. */
    if (!b.opt.no_kernels && dist.size == 1) {
        bench_run_copy_limit(&b);
        bench_run_fma_limit(&b);
        bench_run_gemm(&b);
        bench_run_kernels(&b);
        bench_recheck_copy_limit(&b);
    }
    if (!b.opt.no_step && dist.size == 1)
        bench_run_steps(&b);
    if (!b.opt.no_step)
        bench_run_reduce(&b);

    svk_validation_counts vc;
    if (svk_ctx_validation_counts(b.ctx, &vc) == SVK_OK && vc.errors + vc.warnings) {
        b.validation_messages = (int)(vc.errors + vc.warnings);
        fprintf(stderr, "svk-bench: validation: %llu error(s), %llu warning(s); last: %s\n",
                (unsigned long long)vc.errors, (unsigned long long)vc.warnings, vc.last_message);
    }
    bench_print_summary(&b);
    fprintf(b.opt.json ? stderr : stdout, "run took %.1f s\n", bench_now() - t0);
    if (b.opt.json && !bench_print_json(&b)) {
        fprintf(stderr, "svk-bench: could not write the JSON document\n");
        b.errors++;
    }
    free(b.rows);
    free(b.steps);
    free(b.reduces);
    svk_ctx_destroy(&b.ctx);
    return svk_train_dist_end(&dist, b.errors || b.validation_messages ? 1 : 0);
}
