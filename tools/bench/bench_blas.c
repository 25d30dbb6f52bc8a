/*
 * OpenBLAS, the machine's own GEMM speed, measured in the same run as
 * libsvk's (an optional build dependency of svk-bench only: meson option
 * 'openblas'). Its thread count is set to the benchmark's (--threads,
 * default the number of processors), which is also what lavapipe uses
 * unless LP_NUM_THREADS says otherwise. OpenBLAS picks its kernel from the
 * CPU, or from $OPENBLAS_CORETYPE when set (e.g. Haswell: 256-bit FMA on a
 * machine that has AVX-512): every figure is printed with
 * openblas_get_corename() and that variable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef SVK_BENCH_OPENBLAS
#include <cblas.h>

void bench_blas_init(bench *b)
{
    b->blas = true;
    openblas_set_num_threads((int)b->threads);
    snprintf(b->blas_core, sizeof(b->blas_core), "%s", openblas_get_corename());
    snprintf(b->blas_config, sizeof(b->blas_config), "%s", openblas_get_config());
    b->blas_coretype_env = getenv("OPENBLAS_CORETYPE");
}

double bench_blas_sgemm(bench *b, bool ta, bool tb, uint32_t M, uint32_t N, uint32_t K, float beta, uint32_t sets,
                        uint32_t reps, double *min_ns)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *mem[3 * 8] = {0};
    if (sets > 8)
        sets = 8;
    bool ok = true;
    for (uint32_t s = 0; s < sets && ok; s++) {
        size_t n[3] = {na, nb, nc};
        for (int k = 0; k < 3 && ok; k++) {
            mem[3 * s + k] = malloc(n[k] * sizeof(float));
            ok = mem[3 * s + k] != NULL;
            if (ok)
                cf_fill_uniform(&b->rng, mem[3 * s + k], n[k], -1, 1);
        }
    }
    double median = -1;
    double *ns = ok ? calloc(reps ? reps : 1, sizeof(*ns)) : NULL;
    if (ns) {
        /* Row-major: op(A) [M, K] is A [M, K] or, transposed, [K, M]. */
        const int lda = ta ? (int)M : (int)K, ldb = tb ? (int)K : (int)N, ldc = (int)N;
        const enum CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
        double t0 = 0;
        uint32_t runs = 0;
        /* Run 0 is the warm-up (thread start-up, first touch of the pages). */
        for (uint32_t i = 0; i <= reps; i++) {
            uint32_t s = i % sets;
            double t = bench_now();
            cblas_sgemm(CblasRowMajor, opa, opb, (int)M, (int)N, (int)K, 1.0f, mem[3 * s], lda, mem[3 * s + 1], ldb,
                        beta, mem[3 * s + 2], ldc);
            t = (bench_now() - t) * 1e9;
            if (i == 0) {
                t0 = t;
                /* The same rule as libsvk's rows: at least 3 runs, fewer
                 * than reps when they would exceed the budget. */
                double fit = t0 > 0 ? b->opt.budget_s * 1e9 / t0 : reps;
                if (fit < reps)
                    reps = fit < 3 ? (reps < 3 ? reps : 3) : (uint32_t)fit;
                continue;
            }
            ns[runs++] = t;
        }
        if (runs) {
            *min_ns = ns[0];
            for (uint32_t i = 1; i < runs; i++)
                *min_ns = ns[i] < *min_ns ? ns[i] : *min_ns;
            median = bench_median(ns, runs);
        }
    }
    free(ns);
    for (uint32_t i = 0; i < 3 * 8; i++)
        free(mem[i]);
    return median;
}

#else

void bench_blas_init(bench *b)
{
    b->blas = false;
    b->blas_coretype_env = getenv("OPENBLAS_CORETYPE");
}

double bench_blas_sgemm(bench *b, bool ta, bool tb, uint32_t M, uint32_t N, uint32_t K, float beta, uint32_t sets,
                        uint32_t reps, double *min_ns)
{
    (void)b; (void)ta; (void)tb; (void)M; (void)N; (void)K; (void)beta; (void)sets; (void)reps; (void)min_ns;
    return -1;
}

#endif
