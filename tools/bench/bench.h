/*
 * svk-bench: how fast libsvk's kernels and whole training step run on a
 * device, next to the machine's own limits (a plain copy kernel, and
 * OpenBLAS's sgemm at the same shapes and thread count), printed as a table
 * and as one JSON document (--json) so that runs can be compared over time.
 *
 * Every kernel figure comes from GPU timestamps (svk_cmdlist_timings): one
 * warm-up run, then `reps` runs recorded into one command list, each on the
 * next of `sets` copies of its operands (rotated so that caches do not hold
 * the previous run's data), and the median of the runs' times. A run may
 * be several dispatches (a norm's backward and its parameter reduction,
 * attention); its time is the sum of theirs.
 *
 * Files: bench.c (this harness: options, buffers, measurement, results),
 * bench_gemm.c, bench_kernels.c (the kernel families), bench_blas.c
 * (OpenBLAS, when built with it), bench_step.c (the training step through
 * the public model API), bench_report.c (table and JSON), svk-bench.c (the
 * command line).
 */
#ifndef SVK_BENCH_H
#define SVK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "numeric.h"
#include "ops/ops.h"
#include "svk/svk.h"

/* Records one run of the row's operation on operand copy `set` into cl. */
typedef svk_status (*bench_record_fn)(svk_cmdlist *cl, void *user, uint32_t set);

/* What the user asked for. */
typedef struct bench_opts {
    bool quick;             /* tiny shapes, few runs: the test suite's smoke test */
    bool json;              /* the JSON document on stdout (the table then goes to stderr) */
    const char *filter;     /* only rows whose name contains one of its '|' alternatives; NULL: all */
    uint32_t reps;          /* most timed runs per row (default 20; quick 3) */
    double budget_s;        /* timed runs stop being added past this much GPU time per row */
    double max_run_s;       /* skip a row whose single run is estimated to take longer */
    uint32_t threads;       /* OpenBLAS threads, and LP_NUM_THREADS when not set; 0: nproc */
    const char *device;     /* index or name substring; NULL: SVK_DEVICE or the best device */
    uint64_t seed;
    uint32_t batch, seq;    /* the training step's B and T (0: per configuration defaults) */
    uint32_t steps;         /* replayed steps timed per configuration, and GPU-timed ones (default 3; quick 2) */
    double max_step_s;      /* skip a configuration whose warm-up step took longer (default 30) */
    bool all_variants;      /* row kernels in both forms, not only the device's own (GEMM always runs both) */
    bool no_kernels, no_step;
    const char *tune;       /* --tune: kernel choices steered for a comparison (lib/vk/tuning.h); NULL: none */
} bench_opts;

/* One result row. value = work / median time; work is FLOPs (metric
 * "GFLOP/s") or the bytes the operation must move at least (metric
 * "GB/s"): each input read once, each output written once. */
typedef struct bench_row {
    char section[16];       /* "limit", "gemm", "norm", "attention", "elementwise", ... */
    char kernel[32];        /* e.g. "siamese_norm", "gemm qkv" */
    char direction[16];     /* "fwd", "bwd", "dx", "dW", ... */
    char variant[12];       /* "portable", "cpu", or "-" for kernels with one form */
    char shape[80];         /* human-readable, e.g. "N=4096 C=512" */
    char dims[64];          /* GEMM: "NT 4096x1536x512" (M x N x K); "" otherwise */
    const char *metric;     /* "GFLOP/s" or "GB/s" */
    double work;            /* FLOPs or bytes of one run */
    double median_ns, min_ns, max_ns;
    uint32_t reps, sets, dispatches;
    double value;           /* GFLOP/s or GB/s; 0 when skipped */
    double of_copy;         /* GB/s rows: value / the copy kernel's GB/s (copy_beside_gbps where
                             * measured, else bench.copy_gbps); < 0 when unknown */
    double copy_beside_gbps; /* GB/s rows: the copy kernel run among this row's runs (median); 0 when not */
    double blas_value;      /* GEMM rows: OpenBLAS GFLOP/s at the same shape; < 0 when not run */
    double blas_median_ns;
    char skipped[200];      /* non-empty: why the row has no figure */
} bench_row;

/* The training step of one configuration (bench_step.c). */
typedef struct bench_step_row {
    char name[32];          /* e.g. "default", "w256-l6", "default/pre" */
    svk_model_config config;
    uint32_t B, T;
    uint64_t params;        /* trainable parameters */
    uint32_t steps;         /* replayed steps timed for tokens/s */
    double tokens_per_s;    /* B*T * steps / wall time of the replay loop (until the last step completes) */
    double wall_ms;         /* wall time per replayed step */
    double gpu_ms;          /* median GPU time of a step: timestamps around the whole recorded step */
    double gpu_min_ms;
    uint32_t gpu_reps;
    double host_cpu_ms;     /* CPU time of the calling thread per replayed step */
    double host_over_gpu;   /* host_cpu_ms / gpu_ms */
    double final_loss;
    uint64_t mem_used;      /* device memory the context allocated for the model (pools' bytes in use) */
    uint64_t mem_total, mem_params, mem_grads, mem_optimizer, mem_activations, mem_io;
    uint64_t mem_min;       /* params + grads + 2 moments + the activations the backward must keep */
    uint64_t min_activations;
    char variant[12];       /* the kernel variant the step records (svk_op_variant) */
    char skipped[200];
} bench_step_row;

/* A training step with its gradients reduced across ranks, one way
 * (bench_reduce.c). */
typedef struct bench_reduce_row {
    char name[32];          /* the configuration */
    char mode[16];          /* none, whole, buckets, buckets/8 */
    int ranks;              /* processes (mpirun -np), each running the row */
    uint64_t params;        /* gradients reduced a step: 4 params bytes */
    uint32_t buckets;       /* the step's buckets (whole: 1; none: 0) */
    uint32_t steps;         /* steps timed */
    double step_ms;         /* wall time a step, as a training loop runs them */
    double reduce_ms;       /* of which in the reducer's calls (the all-reduces, waits for the slower rank included) */
    float loss;             /* the last step's */
    char skipped[256];      /* why the row failed; empty otherwise */
} bench_reduce_row;

struct svk_train_dist;

typedef struct bench {
    bench_opts opt;
    svk_ctx *ctx;
    const svk_device_info *dev;
    svk_ctx_tuning tuning;  /* the run's own: the environment's with --tune's */
    cf_rng rng;
    /* The machine's limits, measured first. */
    double copy_gbps;       /* the copy kernel at a large size; 0 when unknown */
    double copy_gbps_end;   /* the same after the kernel rows; 0 when not measured */
    double fma_gflops;      /* the fma_peak kernel: multiply-adds in registers; 0 when unknown */
    /* The copy kernel at copy_gbps's size, run among the timed runs of
     * every GB/s row while fn is set (bench_run_kernels), in the same
     * command list, the row's of_copy taken against it: this host's speed
     * moves by half within seconds, so a ratio to a copy timed minutes
     * before says little (issue 6: "ratios measured side by side"). fn
     * NULL: rows are held to copy_gbps. */
    struct {
        bench_record_fn fn;
        void *user;
        uint32_t sets;
        double work;        /* bytes of one run */
    } beside;
    /* OpenBLAS (bench_blas.c). */
    bool blas;              /* built with OpenBLAS */
    char blas_core[64];     /* openblas_get_corename() */
    char blas_config[128];  /* openblas_get_config() */
    const char *blas_coretype_env; /* $OPENBLAS_CORETYPE, or NULL */
    uint32_t threads;       /* OpenBLAS's threads */
    const char *lp_threads; /* $LP_NUM_THREADS as lavapipe saw it, or NULL */
    /* Results. */
    bench_row *rows;
    size_t n_rows, cap_rows;
    bench_step_row *steps;
    size_t n_steps, cap_steps;
    bench_reduce_row *reduces;
    size_t n_reduces, cap_reduces;
    struct svk_train_dist *dist; /* this process's rank among those mpirun started (one, alone) */
    /* SiameseNorm's overhead measured in pairs (bench_step.c): the siamese
     * and the pre-norm step of the first two configurations timed
     * alternately, the median of the pairs' ratios; pairs 0 when not. */
    uint32_t overhead_pairs;
    double overhead_ratio, overhead_siamese_ms, overhead_pre_ms;
    int errors;             /* rows that failed (not skipped for a stated limit) */
    int validation_messages;
} bench;

/* The shapes of the kernel rows: tokens B*T, widths C, vocabularies V, the
 * head width D (H = C / D) and the sequence length T of attention and the
 * embedding (B = tokens / T). Full: tokens 1024, 4096; C 128, 256, 512,
 * 1024; V 256, 32768; D 64; T 256. --quick: one tiny shape of each. */
typedef struct bench_shapes {
    uint32_t tokens[2], n_tokens;
    uint32_t widths[4], n_widths;
    uint32_t vocabs[2], n_vocabs;
    uint32_t head_dim, seq;
} bench_shapes;

/* ---- bench.c: the harness ---- */

bench_shapes bench_shapes_for(const bench *b);

/* Whether name passes --filter: it contains one of the filter's
 * '|'-separated alternatives (all names pass without a filter). */
bool bench_filter_match(const bench *b, const char *name);
/* Starts a row (not yet added); false when --filter excludes its name
 * "section kernel direction variant shape dims". */
bool bench_row_init(bench *b, bench_row *r, const char *section, const char *kernel, const char *direction,
                    const char *variant, const char *shape, const char *metric, double work);
/* Adds the row to the results (copying it) and prints it. */
void bench_add_row(bench *b, const bench_row *r);

/* Operands of one row: device buffers it owns, `sets` copies of each. On
 * the first failure (too large for the device, out of memory) every later
 * call returns {NULL} and why says what failed. */
typedef struct bench_bufs {
    bench *b;
    svk_buffer *buf[160];
    uint32_t n;
    uint64_t bytes;         /* of all buffers made so far */
    bool failed;
    bool limit;             /* failed for a device limit (size, memory), not a bug */
    char why[200];
} bench_bufs;

void bench_bufs_init(bench_bufs *bb, bench *b);
/* n floats uniform in [lo, hi). */
svk_tref bench_rand(bench_bufs *bb, const char *name, uint64_t n, float lo, float hi);
/* n floats, all `value`. */
svk_tref bench_const(bench_bufs *bb, const char *name, uint64_t n, float value);
/* n int32 uniform in [0, V). */
svk_tref bench_index(bench_bufs *bb, const char *name, uint64_t n, uint32_t V);
/* A new buffer holding a copy of src's first n elements, copied on the
 * device: the second and later operand sets are made this way, since
 * uploading hundreds of MiB through staging would cost more than timing the
 * row. Equal contents do not matter: what defeats the caches is that each
 * set lives at other addresses. */
svk_tref bench_clone(bench_bufs *bb, const char *name, svk_tref src, uint64_t n);
void bench_bufs_free(bench_bufs *bb);

/* How many copies of a row's operands to rotate through: enough that they
 * span several times the last-level cache (at least 64 MiB), at most 8; 1
 * when one copy is already that large. */
uint32_t bench_sets(const bench *b, double bytes_per_set);


/* Measures one row: skips it when its single run is estimated (from the
 * best rate this kernel and variant reached so far) to exceed --max-run;
 * else one warm-up run, then up to opt.reps timed runs (at least 3, fewer
 * when they would exceed --budget) cycling through `sets` operand copies,
 * and fills the row's times and value. Adds the row either way. */
void bench_measure(bench *b, bench_row *r, uint32_t sets, bench_record_fn fn, void *user);
/* The same without adding the row (for rows that add more figures first);
 * false when skipped (r->skipped says why). */
bool bench_time_row(bench *b, bench_row *r, uint32_t sets, bench_record_fn fn, void *user);

/* Marks a row skipped with a reason and adds it. */
void bench_skip(bench *b, bench_row *r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Forces the kernel variant of the recordings that follow ("portable",
 * "cpu": the context's tuning, lib/vk/tuning.h), or gives back the run's
 * own tuning (NULL: b->tuning, the environment's with --tune's). */
void bench_set_variant(bench *b, const char *variant);

/* Median of n values (sorted in place). */
double bench_median(double *v, uint32_t n);
/* Seconds: wall clock, and the calling thread's CPU time. */
double bench_now(void);
double bench_thread_cpu(void);

/* ---- the sections ---- */
void bench_run_copy_limit(bench *b);
/* The copy shader again after the kernel rows (b->copy_gbps_end), so a
 * drift of the machine's speed during the run shows. */
void bench_recheck_copy_limit(bench *b);
/* The fma_peak kernel (b->fma_gflops): the device's multiply-add rate with
 * nothing loaded, what a GEMM's inner loop could reach at best. */
void bench_run_fma_limit(bench *b);
void bench_run_gemm(bench *b);
/* The name of the GEMM variant the device's training step runs ("cpu",
 * "portable" or "coopmat", as the gemm rows name them; "?" if it cannot be
 * chosen). */
const char *bench_gemm_step_variant(const bench *b);
void bench_run_kernels(bench *b);
void bench_run_steps(bench *b);
/* The step with its gradients reduced, whole and in buckets (bench_reduce.c). */
void bench_run_reduce(bench *b);

/* ---- bench_blas.c ---- */
/* Fills b->blas, blas_core, blas_config and sets OpenBLAS's thread count. */
void bench_blas_init(bench *b);
/* Median time in ns of cblas_sgemm over `reps` runs after a warm-up, on
 * `sets` rotated host copies of the operands (C = alpha op(A) op(B) + beta
 * C, row-major, packed). < 0 without OpenBLAS or out of memory. */
double bench_blas_sgemm(bench *b, bool ta, bool tb, uint32_t M, uint32_t N, uint32_t K, float beta, uint32_t sets,
                        uint32_t reps, double *min_ns);

/* ---- bench_vk.c: a command buffer of our own, with timestamps ---- */
typedef struct bench_vkcmd {
    svk_ctx *ctx;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkQueryPool queries;
    VkFence fence;
    uint32_t stamps;        /* timestamps, in begin/end pairs (at most 64 are read) */
    char why[160];          /* what failed */
} bench_vkcmd;
/* Creates the objects and begins recording. false on failure (why). */
bool bench_vkcmd_begin(bench_vkcmd *t, svk_ctx *ctx, uint32_t stamps);
/* Timestamp i: the start of a span (top of pipe) or its end (bottom). */
void bench_vkcmd_stamp(bench_vkcmd *t, uint32_t i, bool end);
/* vkCmdCopyBuffer of bytes from src to dst, after a barrier. */
void bench_vkcmd_copy(bench_vkcmd *t, svk_buffer *dst, svk_buffer *src, uint64_t bytes);
bool bench_vkcmd_end(bench_vkcmd *t);
/* Submits, waits, and writes the ns of each span (stamps / 2 values). */
bool bench_vkcmd_run(bench_vkcmd *t, double *ns);
void bench_vkcmd_destroy(bench_vkcmd *t);

/* ---- bench_report.c ---- */
void bench_print_header(bench *b);
void bench_print_row(bench *b, const bench_row *r);
void bench_print_step(bench *b, const bench_step_row *s);
void bench_print_reduce(bench *b, const bench_reduce_row *r);
void bench_print_summary(bench *b);
/* The JSON document of the whole run on stdout; false if it could not be built. */
bool bench_print_json(bench *b);

#endif
