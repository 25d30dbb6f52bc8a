/*
 * Shared by the reference tests (tests/ref): seeded random inputs, norms, a
 * finite-difference gradient driver and a tally of named checks. Test
 * programs may exit; the reference library never does.
 */
#ifndef SVK_REF_TEST_UTIL_H
#define SVK_REF_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* One test run: its generator, seed and the running results. */
typedef struct rt {
    uint64_t seed;  /* --seed N; default from the clock */
    uint64_t state; /* generator state (splitmix64) */
    int checks, failed;
    int fd_checks;  /* calls of rt_check_grad */
    double max_fd;  /* largest FD relative error seen by rt_check_grad */
} rt;

/* Parses --seed N (or --seed=N) and prints "seed: N". Exits with 2 on an
 * unknown argument. */
void rt_init(rt *t, int argc, char **argv);

uint64_t rt_next(rt *t);
/* Uniform in [lo, hi). */
double rt_uniform(rt *t, double lo, double hi);
/* Standard normal (Box-Muller). */
double rt_normal(rt *t);
/* Uniform integer in [0, n). */
uint32_t rt_below(rt *t, uint32_t n);
/* Normal values, rounded to float (exactly representable in both builds). */
void rt_fill_normal(rt *t, double *x, size_t n, double mean, double std);

/* calloc that exits on failure. */
void *rt_alloc(size_t n, size_t size);
double *rt_zeros(size_t n);
/* n NaNs: an output that must be written, not accumulated. */
double *rt_nans(size_t n);
double *rt_copy(const double *x, size_t n);
/* The same values rounded to float, for running the _f32 build. */
float *rt_to_f32(const double *x, size_t n);

/* a -= b: turns an accumulated (+=) output back into the contribution. */
void rt_sub(double *a, const double *b, size_t n);
double rt_dot(const double *a, const double *b, size_t n);
double rt_norm(const double *a, size_t n);
/* ||a - b|| / ||b||, or ||a - b|| when b is all zero; +inf if a has a
 * non-finite value. */
double rt_rel_err(const double *a, const double *b, size_t n);

/* The scalar objective of a gradient check, evaluated at the current inputs. */
typedef double (*rt_objective)(void *ctx);

/*
 * Finite-difference gradient of f with respect to x[0..n), written to g; x
 * is perturbed in place and restored exactly. Fourth-order central
 * differences, (8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h, with
 * h = 1e-4 * rms(x) (1e-4 when x is all zero): truncation error ~h^4 f^(5)
 * ~1e-16 relative and rounding error ~1e-16 |f| / h ~1e-12 relative, where a
 * two-point difference would trade them at ~1e-10 only with a step tuned to
 * each kernel's curvature.
 */
void rt_fd_grad(rt_objective f, void *ctx, double *x, size_t n, double *g);

/* Records a named check and prints one line "PASS|FAIL  name: detail". */
int rt_check(rt *t, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Compares an analytic gradient with a finite-difference one:
 * rel = ||an - fd|| / ||fd|| <= tol (absolute when fd is all zero); prints
 * rel and the worst index. Returns ok. */
int rt_check_grad(rt *t, const char *name, const double *an, const double *fd,
                  size_t n, double tol);
/* Compares the float build's result with the double build's on the same
 * inputs: ||got - ref|| / max(||ref||, 0.01 sqrt(n)) <= tol. The floor (an
 * rms of 0.01, for test data of unit scale) keeps a result that happens to
 * cancel to near zero, where float rounding is legitimately amplified, from
 * failing the check: it is a check that the float instantiation computes
 * the same function, not a precision bound (that is the conformance tests'
 * job, against the GPU). */
int rt_check_f32(rt *t, const char *name, const float *got, const double *ref,
                 size_t n, double tol);
/* Prints the summary (checks, failures, max FD error if any); returns the
 * exit code: 1 if any check failed or none ran. */
int rt_finish(const rt *t, const char *prog);

#endif
