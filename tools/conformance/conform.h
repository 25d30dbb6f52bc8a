/*
 * The conformance harness: every kernel and direction run on a device and
 * compared with the CPU reference (the double build, fed the same float
 * inputs), one table row per case.
 *
 * A case owns its device buffers. Outputs are created poisoned with NaN (or
 * with given initial values, for kernels that accumulate) and surrounded by
 * guard zones; after the run every output is read back and its guards
 * checked; then every output is reset to its initial contents and the
 * recorded list is submitted again, and the second results must be
 * bit-identical to the first (determinism). The case's row reports the worst
 * relative error over the outputs compared with cf_compare().
 *
 * Adding a kernel family: tools/conformance/conform_<kernel>.c defining
 * cf_run_<kernel>(cf_state *), with its tolerance table at the top, listed in
 * cf_families (svk-conformance.c) and in meson.build.
 */
#ifndef SVK_CF_CONFORM_H
#define SVK_CF_CONFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "numeric.h"
#include "ops/ops.h"
#include "ref.h"
#include "svk/svk.h"

typedef struct cf_state {
    svk_ctx *ctx;
    cf_rng rng;
    uint64_t seed;
    bool quick;            /* fewer, smaller shapes */
    const char *shape;     /* run only cases whose shape contains this */
    bool verbose;
    int passed, failed;
} cf_state;

/* Guard elements on each side of every output: an odd count, so that an
 * output's operand starts off every vector alignment. */
#define CF_GUARD 61u
/* The guard in front of a cf_output_at(..., vec4) output: its operand
 * starts on a vec4 (element 64). */
#define CF_GUARD_VEC4 64u

typedef struct cf_case cf_case;

/* A device output: elements [lead, lead + n) of its buffer, with guards
 * before and after. */
typedef struct cf_out {
    const char *name;
    svk_buffer *buf;
    size_t n;
    size_t lead;    /* guard elements in front: CF_GUARD or CF_GUARD_VEC4 */
    float *init;    /* [lead + n + CF_GUARD]: what the buffer starts as */
    float *host;    /* [n]: the result, after cf_run */
} cf_out;

/* Starts a case; returns NULL (and counts a failure) when out of memory.
 * The case is skipped (returns NULL, counts nothing) when cf->shape is set
 * and shape does not contain it. */
cf_case *cf_begin(cf_state *cf, const char *kernel, const char *direction, const char *shape);

/* An input holding data[0..n): a device buffer owned by the case. */
svk_tref cf_input(cf_case *c, const char *name, const float *data, size_t n);
svk_tref cf_input_i32(cf_case *c, const char *name, const int32_t *data, size_t n);
/* An output of n elements; init NULL: poisoned with NaN, else starts as
 * init[0..n) (for accumulating kernels). Its operand is cf_tref(out). */
cf_out *cf_output(cf_case *c, const char *name, size_t n, const float *init);
/* The same with, when vec4, the operand at element CF_GUARD_VEC4, so that
 * kernels with a vec4 path (taken when every operand's offset is a multiple
 * of 4) can be tested on it; inputs start at element 0. */
cf_out *cf_output_at(cf_case *c, const char *name, size_t n, const float *init, bool vec4);
static inline svk_tref cf_tref(const cf_out *o)
{
    return (svk_tref){o ? o->buf : NULL, o ? o->lead : 0};
}

/* The command list to record the case's dispatches into. */
svk_cmdlist *cf_list(cf_case *c);
/* Records a failed svk_* call (status and message); returns false so that
 * callers can write `if (!cf_ok(c, op(...))) goto end;`. */
bool cf_ok(cf_case *c, svk_status st);

/* Fails the case with a reason (the first reason given is kept). */
void cf_fail(cf_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Submits the list, reads back every output and checks guards, then resets
 * and replays for the determinism check. False on any failure (recorded). */
bool cf_run(cf_case *c);

/* Compares out->host with ref[0..out->n) against tol. */
void cf_compare(cf_case *c, const cf_out *out, const double *ref, double tol);
/* The same with the error measured against scale (cf_rel_error_scaled). */
void cf_compare_scaled(cf_case *c, const cf_out *out, const double *ref, const double *scale, double tol);
/* Compares a host value (e.g. a loss read back) with its reference. */
void cf_compare_scalar(cf_case *c, const char *name, float got, double ref, double tol);

/* Prints the case's row, counts it, frees everything. */
void cf_end(cf_case *c);

/* Host helpers: float -> double copies for the reference, allocation that
 * records failure in the case. */
double *cf_to_double(cf_case *c, const float *x, size_t n);
void *cf_alloc(cf_case *c, size_t bytes); /* freed by cf_end */
float *cf_random(cf_case *c, size_t n, float lo, float hi); /* freed by cf_end */

/* Families that force a kernel form change the context's tuning
 * (lib/vk/tuning.h: the variant, texel buffers, the fused SiameseNorm
 * backward, ...) and give the caller's back (the environment's with
 * --tune's): cf_tuning copies the current one, cf_tune sets one,
 * cf_tune_variant sets base with the variant forced ("portable" or "cpu"). */
svk_ctx_tuning cf_tuning(const cf_state *cf);
void cf_tune(cf_state *cf, const svk_ctx_tuning *t);
void cf_tune_variant(cf_state *cf, const svk_ctx_tuning *base, const char *variant);

/* The families. */
void cf_run_gemm(cf_state *cf);
void cf_run_copy(cf_state *cf);
void cf_run_fma_peak(cf_state *cf);
void cf_run_norm(cf_state *cf);
/* @norm-families@ */
void cf_run_attention(cf_state *cf);
void cf_run_rope(cf_state *cf);
void cf_run_decode(cf_state *cf);
/* @attention-families@ */
void cf_run_gelu(cf_state *cf);
void cf_run_swiglu(cf_state *cf);
void cf_run_bias(cf_state *cf);
void cf_run_embedding(cf_state *cf);
void cf_run_cross_entropy(cf_state *cf);
void cf_run_clip(cf_state *cf);
void cf_run_adamw(cf_state *cf);
void cf_run_finite_check(cf_state *cf);
void cf_run_transpose(cf_state *cf);
void cf_run_pack16(cf_state *cf);
/* @elementwise-families@ */

#endif
