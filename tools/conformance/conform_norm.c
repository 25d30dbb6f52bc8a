/*
 * Norm family (lib/ops/norm.c, siamese_norm.c, residual.c):
 * LayerNorm and RMSNorm forward and backward, SiameseNorm's fused block
 * input and model output, both directions, and the dual residual update,
 * against the double reference (lib/ref/layernorm.c, rmsnorm.c,
 * siamese_norm.c, residual.c) fed the same float inputs.
 *
 * Shapes: rows of width 1 up to 12289, row counts 1 to 4099 (the backward
 * pass puts 5 of 1031 rows in each lane, the last lane 1; 17 of 4099 rows
 * in each of 242 lanes; 4 of 1024 in each of 256, whole groups of the CPU
 * forms' RC_ROWS = 4 (shaders/common/row_cpu.glsl); 7 of 1790, a group and
 * 3 single rows, the last lane 5; 4 of 769, the last lane 1: at widths
 * 6143 (LayerNorm, RMSNorm) and 4095 (SiameseNorm) that puts the backward
 * CPU forms within 8 iterations of SVK_OP_CPU_LOOP_BUDGET, lib/ops/ops.h,
 * and at 3071 SiameseNorm's fused LayerNorm backward within 12).
 * Inputs:
 *   random  uniform in [-1, 1)
 *   offset  1e4 + uniform in [-0.1, 0.1): a float mean would already be off
 *           by up to 5e-4 = 0.9% of the standard deviation, and
 *           E[x^2] - mean^2 loses every digit; tests the shifted two-pass
 *           statistics
 *   mixed   sign * 10^u, u uniform in [-4, 4): huge and tiny in one row
 *   const   every element 3.25 (LayerNorm variance exactly 0: eps alone)
 *   small   uniform in [-3e-3, 3e-3), near sqrt(eps): RMSNorm of width 1
 *           backward only, see below
 *   small+  uniform in [1e-3, 3e-3): the same, one sign (a row of a single
 *           element: see below)
 * Backward passes take the statistics from the double reference's forward
 * pass, rounded to float, as the device's forward pass would save them; the
 * accumulated gradients start from random values, on both sides.
 *
 * Row-structured outputs are compared as a whole (the row's number) and row
 * by row (worst row against the same tolerance), so that a wrong row among
 * many right ones, or a row of small values next to one of large, fails.
 * Means are compared with the row's scale, max(|mean|, std).
 *
 * RMSNorm of width 1 backward: dx = rstd dout g (1 - xhat^2) with
 * 1 - xhat^2 = eps / (x^2 + eps); for x of size 1 that is 1 - 0.99996, and
 * the float rounding of xhat^2 alone leaves ~1e-3 relative error in dx (in
 * any float implementation, the reference's float build too). Those cases
 * take inputs near sqrt(eps), where the difference is well-conditioned (and
 * for SiameseNorm small gains too, so that u = P(x) + Q(y) is small as
 * well); width-1 LayerNorm is exact (xhat = 0) and keeps random inputs.
 * SiameseNorm's LayerNorm backward is not run at width 1: every norm
 * outputs its bias there and the only gradient beyond the biases', I's
 * gain gradient, is sum(dh (u - mean_I) rstd_I) with u - mean_I the rounding
 * of the saved float mean of u, which the reference (u recomputed in
 * double) amplifies by rstd_I = 1/sqrt(eps) into noise of ~1e-5.
 *
 * A tensor of one element has no norm-wise averaging: where it is a sum
 * whose terms cancel (u = P(x) + Q(y), dy_in + the gradient through Q) its
 * relative error is unbounded in any float implementation. The 1x1
 * SiameseNorm case therefore takes positive x and y (u's terms share a
 * sign) and no dxn or dy_in; the 1031x1 case covers the sums. The residual
 * update, a sum by definition, is compared with the size of its terms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "ops/layernorm.h"
#include "ops/residual.h"
#include "ops/rmsnorm.h"
#include "ops/siamese_norm.h"

/*
 * Tolerances, ||out - ref|| / ||ref|| (and the same per row; sums against
 * the size of their terms, see below). Measured worst cases in brackets:
 * 36 seeded runs, subgroup sizes 4, 8 and 16 (LP_NATIVE_VECTOR_WIDTH 128,
 * 256, 512).
 *
 * Forward, 2e-6 [7e-7]: each output is ((x - K) - m) * rstd * g + b, a few
 * float roundings (2^-24 = 6e-8 each) plus rstd, which carries the rounding
 * of the variance sum (a blocked sum: ~sqrt(log2 n) roundings of its own
 * size) and of inversesqrt (Vulkan allows 2 ulp): about 3e-7 worst for one
 * norm. SiameseNorm's I normalises u = P(x) + Q(y), which carries the
 * errors of P and Q, so h errs up to about twice as much. Statistics: rstd
 * errs as above; a mean against its row's scale (compare_mean).
 *
 * Backward dx, 2e-6 [4e-7]: dx = rstd (dxhat - mean(dxhat) - xhat
 * mean(dxhat xhat)) subtracts two row means from dxhat; the means are float
 * sums whose rounding is relative to their terms, but the means themselves
 * are smaller than dxhat by ~sqrt(width) (random signs), so what they add
 * to dx stays at a few roundings of dx. SiameseNorm chains three such
 * passes (I, then P and Q from du): ~5 roundings, 3e-7.
 *
 * Parameter gradients (dg, db), 5e-6 [8e-7]: sums over up to 4099 rows,
 * in lanes of up to 17 rows and then across up to 256 lanes in float: a
 * random walk of ~sqrt(rows) roundings, 4e-6 of the terms' size at 4099
 * rows (in practice less: the lane sums are short). LayerNorm's and RMSNorm's are measured against that size
 * (|initial value| + the sum of |contribution|: a narrow row makes dg a
 * handful of elements, any of which may cancel), SiameseNorm's norm-wise
 * over all 3C.
 *
 * The "-cpu" rows (the CPU forms: each row sum one compensated sequence,
 * shaders/common/row_cpu.glsl) are held to the same tolerances; measured
 * at most 4.7e-7 over all their outputs, the same as or below the portable
 * forms' (a plain sequential float sum would not do: 2.7e-5 for rows of
 * 8192 values near 1e4).
 *
 * Residual, 5e-7 [7e-8] of the size of the terms (|x| + |z / c|): one
 * division (2.5 ulp allowed) and one addition (0.5 ulp), at most 1.8e-7.
 */
static const double TOL_FWD = 2e-6;
static const double TOL_DX = 2e-6;
static const double TOL_PARAM = 5e-6;
static const double TOL_RESIDUAL = 5e-7;

static const float EPS = 1e-5f; /* the model's default norm_eps */

typedef enum fill { FILL_RANDOM, FILL_OFFSET, FILL_MIXED, FILL_CONST, FILL_SMALL, FILL_SMALL_POS } fill;
static const char *const fill_names[] = {"", " offset", " mixed", " const", " small", " small+"};

static void fill_values(cf_state *cf, float *x, size_t n, fill f)
{
    for (size_t i = 0; i < n; i++) {
        switch (f) {
        case FILL_RANDOM:
            x[i] = cf_rng_uniform(&cf->rng, -1, 1);
            break;
        case FILL_OFFSET:
            x[i] = 1e4f + cf_rng_uniform(&cf->rng, -0.1f, 0.1f);
            break;
        case FILL_MIXED: {
            float mag = powf(10.0f, cf_rng_uniform(&cf->rng, -4, 4));
            x[i] = cf_rng_next(&cf->rng) & 1 ? mag : -mag;
            break;
        }
        case FILL_CONST:
            x[i] = 3.25f;
            break;
        case FILL_SMALL:
            x[i] = cf_rng_uniform(&cf->rng, -3e-3f, 3e-3f);
            break;
        case FILL_SMALL_POS:
            x[i] = cf_rng_uniform(&cf->rng, 1e-3f, 3e-3f);
            break;
        }
    }
}

static float *make_values(cf_case *c, cf_state *cf, size_t n, fill f)
{
    float *x = cf_alloc(c, n * sizeof(float));
    if (x)
        fill_values(cf, x, n, f);
    return x;
}

static float *to_float(cf_case *c, const double *x, size_t n)
{
    float *f = cf_alloc(c, n * sizeof(float));
    if (f && x)
        for (size_t i = 0; i < n; i++)
            f[i] = (float)x[i];
    return f;
}

static double norm2(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* cf_compare over the whole output, then row by row: each row's error
 * relative to its own norm or, when smaller, to the root-mean-square row
 * norm must meet the same tolerance. A wrong row of ordinary size fails
 * however many right rows surround it, and so does a row of small values
 * wrong by more than tol of an ordinary row; a row that is small because its
 * terms cancel (u = P(x) + Q(y) near 0, a row of one element) is not held to
 * a relative accuracy no float sum has. */
static void compare_rows(cf_case *c, const cf_out *out, const double *ref, size_t rows, size_t width, double tol)
{
    cf_compare(c, out, ref, tol);
    if (!out || !ref)
        return;
    double rms = norm2(ref, rows * width) / sqrt((double)rows);
    double worst = 0;
    size_t worst_row = 0;
    for (size_t r = 0; r < rows; r++) {
        const float *o = out->host + r * width;
        const double *w = ref + r * width;
        double num = 0;
        for (size_t i = 0; i < width; i++)
            num += ((double)o[i] - w[i]) * ((double)o[i] - w[i]);
        double den = fmax(norm2(w, width), rms);
        double e = den > 0 ? sqrt(num) / den : sqrt(num);
        if (!(e <= worst)) {
            worst = e;
            worst_row = r;
        }
    }
    if (!(worst <= tol)) {
        size_t w = cf_worst_index(out->host + worst_row * width, ref + worst_row * width, width);
        cf_fail(c, "%s: row %zu has rel err %.3e > tol %.1e (worst [%zu]: got %.9g, want %.9g)", out->name,
                worst_row, worst, tol, worst_row * width + w, (double)out->host[worst_row * width + w],
                ref[worst_row * width + w]);
        return;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s (worst row)", out->name);
    cf_compare_scalar(c, name, (float)worst, 0.0, tol);
}

/* A mean against its row's scale: max(|mean|, std), std = 1 / rstd (eps
 * included). A mean near zero in a row of values of size 1 carries their
 * rounding, ~2^-24 of the values, which relative to the mean itself can be
 * anything; what the output depends on is x - mean next to the spread. */
static void compare_mean(cf_case *c, const cf_out *out, const double *mean, const double *rstd, size_t n,
                         double tol)
{
    if (!out || !mean || !rstd)
        return;
    double worst = 0;
    size_t wi = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)out->host[i] - mean[i]) / fmax(fabs(mean[i]), 1 / rstd[i]);
        if (!isfinite(e)) {
            worst = INFINITY;
            wi = i;
            break;
        }
        if (e > worst) {
            worst = e;
            wi = i;
        }
    }
    if (!(worst <= tol)) {
        cf_fail(c, "%s: [%zu] got %.9g, want %.9g: error %.3e of the row's scale max(|mean|, std) > tol %.1e",
                out->name, wi, (double)out->host[wi], mean[wi], worst, tol);
        return;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s (vs row scale)", out->name);
    cf_compare_scalar(c, name, (float)worst, 0.0, tol);
}

/* ||out - ref|| / ||terms||: the error of a sum against the size of what
 * it adds (terms[i] = |a_i| + |b_i| >= |ref[i]|), so that cancellation in
 * a few elements does not count against the kernel. */
static void compare_terms(cf_case *c, const cf_out *out, const double *ref, const double *terms, size_t n,
                          double tol)
{
    if (!out || !ref || !terms)
        return;
    double num = 0, den = 0;
    size_t wi = 0;
    double wd = -1;
    for (size_t i = 0; i < n; i++) {
        double d = (double)out->host[i] - ref[i];
        if (!isfinite(d)) {
            num = INFINITY;
            wi = i;
            break;
        }
        num += d * d;
        den += terms[i] * terms[i];
        if (fabs(d) > wd) {
            wd = fabs(d);
            wi = i;
        }
    }
    double err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!(err <= tol)) {
        cf_fail(c, "%s: error %.3e of the size of the terms > tol %.1e (worst [%zu]: got %.9g, want %.9g)",
                out->name, err, tol, wi, (double)out->host[wi], ref[wi]);
        return;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s (vs terms)", out->name);
    cf_compare_scalar(c, name, (float)err, 0.0, tol);
}

static enum svk_ref_norm ref_kind(svk_norm_kind k)
{
    return k == SVK_NORM_RMSNORM ? SVK_REF_RMSNORM : SVK_REF_LAYERNORM;
}

/* ---- Kernel variants --------------------------------------------------- */

/* Every LayerNorm, RMSNorm and SiameseNorm case runs in both forms of its
 * kernels (svk_kernel_variant, lib/ops/ops.h), forced through
 * the tuning: the rows "fwd" and "bwd" are the portable form,
 * "fwd-cpu" and "bwd-cpu" the CPU form. The CPU form steps 4 elements at a
 * time only when the width and every operand's offset are multiples of 4
 * (svk_op_vec4); inputs start at element 0, but the harness puts outputs
 * at element CF_GUARD (61). So the CPU rows give every output `pad` more
 * elements in front and start its operand at element 64: widths that are
 * multiples of 4 take the vec4 path, the others the scalar one. The pad
 * must come back untouched, as the guards do.
 * SiameseNorm's backward has two forms in each variant: "bwd" and
 * "bwd-cpu" are the fused ones (one dispatch, shaders/siamese_norm_bwd_fused.comp
 * and siamese_norm_bwd_fused_cpu.comp) where the device allows their 13
 * bindings (and the CPU form's loops fit the budget), else the staged ones;
 * "bwd-staged" and "bwd-cpu-staged" force the staged forms
 * (fused_siamese_bwd off), and run only the SiameseNorm backward cases.
 * Where the vec4 path applies, the CPU forms read their rows through texel
 * views (the <name>_texel kernels: the norms' forwards and backwards,
 * SiameseNorm's fused backward): "-cpu" tests those at the widths that are
 * multiples of 4, and "-cpu-ssbo" the storage-buffer forms there
 * (texel buffers off). SiameseNorm's texel forms are split forms at
 * widths from SVK_NORM_SPLIT_MIN_WIDTH or _WIDE_MIN_WIDTH on
 * (lib/ops/norm_rows.h; the <name>_split kernels, where the
 * device has subgroupAdd), and so are LayerNorm's and RMSNorm's:
 * the "-cpu" rows test those at the 516-, 1000-, 1028- and 8192-wide
 * shapes. */
typedef struct cf_variant {
    const char *env;    /* the variant forced: "portable" or "cpu" */
    const char *suffix; /* appended to the direction */
    size_t pad;
    bool staged_only;   /* fused_siamese_bwd off, SiameseNorm's backward only */
    bool ssbo;          /* texel buffers off */
} cf_variant;
static const cf_variant variants[] = {{"portable", "", 0, false, false},
                                      {"portable", "-staged", 0, true, false},
                                      {"cpu", "-cpu", 3, false, false},
                                      {"cpu", "-cpu-staged", 3, true, false},
                                      {"cpu", "-cpu-ssbo", 3, false, true}};

static const char *v_dir(char *buf, const cf_variant *v, const char *dir)
{
    snprintf(buf, 24, "%s%s", dir, v->suffix);
    return buf;
}

/* cf_output with v->pad elements (NaN) in front of the n. */
static cf_out *v_output(cf_case *c, const cf_variant *v, const char *name, size_t n, const float *init)
{
    if (!v->pad || !init)
        return cf_output(c, name, n + v->pad, init); /* NULL: all NaN, pad included */
    float *padded = cf_alloc(c, (n + v->pad) * sizeof(float));
    if (!padded)
        return NULL;
    for (size_t i = 0; i < v->pad; i++)
        padded[i] = NAN;
    memcpy(padded + v->pad, init, n * sizeof(float));
    return cf_output(c, name, n + v->pad, padded);
}

/* The operand of an output of v_output: its elements after the pad. */
static svk_tref v_tref(const cf_variant *v, const cf_out *o)
{
    svk_tref t = cf_tref(o);
    t.off += v->pad;
    return t;
}

/* After cf_run: o without its pad, in *view (o itself when there is none;
 * NULL stays NULL). Fails the case if the pad was written. */
static cf_out *v_view(cf_case *c, const cf_variant *v, cf_out *o, cf_out *view)
{
    if (!o || !v->pad)
        return o;
    for (size_t i = 0; i < v->pad; i++)
        if (!isnan(o->host[i]))
            cf_fail(c, "%s: stray write before the output (pad element %zu is %g)", o->name, i, (double)o->host[i]);
    *view = *o;
    view->n -= v->pad;
    view->host += v->pad;
    return view;
}

/* ---- LayerNorm and RMSNorm -------------------------------------------- */

typedef struct row_shape {
    uint32_t rows, width;
    fill f;
    int inplace; /* out = x (forward), dx = dout (backward) */
    int quick;
} row_shape;

static const row_shape norm_shapes[] = {
    {1, 1, FILL_RANDOM, 0, 1},
    {3, 1, FILL_RANDOM, 0, 1},
    {1031, 1, FILL_RANDOM, 0, 0},
    {61, 7, FILL_RANDOM, 0, 1},
    {1031, 33, FILL_RANDOM, 0, 1},
    {3, 128, FILL_RANDOM, 0, 1},
    {61, 128, FILL_RANDOM, 1, 1},
    {1, 257, FILL_RANDOM, 0, 1},
    {61, 257, FILL_RANDOM, 0, 0},
    {3, 1000, FILL_RANDOM, 0, 0},
    {1031, 128, FILL_RANDOM, 0, 0},
    {1, 8192, FILL_RANDOM, 0, 1},
    {3, 8192, FILL_RANDOM, 1, 0},
    {2, 12289, FILL_RANDOM, 0, 0},
    {4099, 64, FILL_RANDOM, 0, 0},
    {1024, 64, FILL_RANDOM, 0, 1},
    {1790, 36, FILL_RANDOM, 1, 0},
    {769, 6143, FILL_RANDOM, 0, 0},
    {61, 1000, FILL_OFFSET, 0, 1},
    {3, 8192, FILL_OFFSET, 0, 0},
    {1031, 33, FILL_OFFSET, 0, 0},
    {61, 257, FILL_MIXED, 0, 1},
    {3, 8192, FILL_MIXED, 0, 0},
    {7, 100, FILL_CONST, 0, 1},
};

static void shape_name(char *buf, size_t size, const row_shape *s, fill f)
{
    snprintf(buf, size, "%ux%u%s%s", s->rows, s->width, fill_names[f], s->inplace ? " in-place" : "");
}

static void norm_fwd_case(cf_state *cf, svk_norm_kind kind, const row_shape *s, const cf_variant *v)
{
    const bool ln = kind == SVK_NORM_LAYERNORM;
    char shape[96], dir[24];
    shape_name(shape, sizeof(shape), s, s->f);
    cf_case *c = cf_begin(cf, ln ? "layernorm" : "rmsnorm", v_dir(dir, v, "fwd"), shape);
    if (!c)
        return;
    size_t rows = s->rows, W = s->width, n = rows * W;
    float *x = make_values(c, cf, n, s->f), *g = cf_random(c, W, 0.5f, 1.5f), *b = cf_random(c, W, -0.5f, 0.5f);
    if (!x || !g || !b)
        goto end;
    svk_tref tg = cf_input(c, "g", g, W), tb = ln ? cf_input(c, "b", b, W) : (svk_tref){0};
    cf_out *out;
    svk_tref tx;
    if (s->inplace) {
        out = v_output(c, v, "out", n, x);
        tx = v_tref(v, out);
    } else {
        tx = cf_input(c, "x", x, n);
        out = v_output(c, v, "out", n, NULL);
    }
    cf_out *mean = ln ? v_output(c, v, "mean", rows, NULL) : NULL;
    cf_out *rstd = v_output(c, v, "rstd", rows, NULL);
    if (!out || !rstd || (ln && !mean))
        goto end;
    svk_status st;
    if (ln) {
        svk_layernorm_fwd_args a = {
            .rows = s->rows, .width = s->width, .eps = EPS, .x = tx, .g = tg, .b = tb,
            .out = v_tref(v, out), .mean = v_tref(v, mean), .rstd = v_tref(v, rstd),
        };
        st = svk_layernorm_fwd_record(cf_list(c), &a);
    } else {
        svk_rmsnorm_fwd_args a = {
            .rows = s->rows, .width = s->width, .eps = EPS, .x = tx, .g = tg,
            .out = v_tref(v, out), .rstd = v_tref(v, rstd),
        };
        st = svk_rmsnorm_fwd_record(cf_list(c), &a);
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    cf_out v_out, v_mean, v_rstd; /* the results behind the pad */
    out = v_view(c, v, out, &v_out);
    mean = v_view(c, v, mean, &v_mean);
    rstd = v_view(c, v, rstd, &v_rstd);

    double *dx = cf_to_double(c, x, n), *dg = cf_to_double(c, g, W), *db = cf_to_double(c, b, W);
    double *dout = cf_alloc(c, n * sizeof(double)), *dmean = cf_alloc(c, rows * sizeof(double));
    double *drstd = cf_alloc(c, rows * sizeof(double));
    if (!dx || !dg || !db || !dout || !dmean || !drstd)
        goto end;
    if (ln)
        svk_ref_layernorm_fwd_f64(rows, W, EPS, dx, dg, db, dout, dmean, drstd);
    else
        svk_ref_rmsnorm_fwd_f64(rows, W, EPS, dx, dg, dout, drstd);
    compare_rows(c, out, dout, rows, W, TOL_FWD);
    if (ln)
        compare_mean(c, mean, dmean, drstd, rows, TOL_FWD);
    cf_compare(c, rstd, drstd, TOL_FWD);
end:
    cf_end(c);
}

static void norm_bwd_case(cf_state *cf, svk_norm_kind kind, const row_shape *s, const cf_variant *v)
{
    const bool ln = kind == SVK_NORM_LAYERNORM;
    char shape[96], dir[24];
    /* Width-1 RMSNorm: inputs near sqrt(eps) (see the top of the file). */
    const fill f = !ln && s->width == 1 && s->f == FILL_RANDOM ? FILL_SMALL : s->f;
    shape_name(shape, sizeof(shape), s, f);
    cf_case *c = cf_begin(cf, ln ? "layernorm" : "rmsnorm", v_dir(dir, v, "bwd"), shape);
    if (!c)
        return;
    size_t rows = s->rows, W = s->width, n = rows * W;
    float *x = make_values(c, cf, n, f), *g = cf_random(c, W, 0.5f, 1.5f), *b = cf_random(c, W, -0.5f, 0.5f);
    float *dout = cf_random(c, n, -1, 1), *dg0 = cf_random(c, W, -1, 1), *db0 = cf_random(c, W, -1, 1);
    double *dx64 = cf_to_double(c, x, n), *g64 = cf_to_double(c, g, W), *b64 = cf_to_double(c, b, W);
    double *y64 = cf_alloc(c, n * sizeof(double)), *mean64 = cf_alloc(c, rows * sizeof(double));
    double *rstd64 = cf_alloc(c, rows * sizeof(double));
    if (!x || !g || !b || !dout || !dg0 || !db0 || !dx64 || !g64 || !b64 || !y64 || !mean64 || !rstd64)
        goto end;
    /* The statistics as a float forward pass saves them. */
    if (ln)
        svk_ref_layernorm_fwd_f64(rows, W, EPS, dx64, g64, b64, y64, mean64, rstd64);
    else
        svk_ref_rmsnorm_fwd_f64(rows, W, EPS, dx64, g64, y64, rstd64);
    float *mean = to_float(c, mean64, rows), *rstd = to_float(c, rstd64, rows);
    if (!mean || !rstd)
        goto end;

    svk_tref tx = cf_input(c, "x", x, n), tg = cf_input(c, "g", g, W);
    svk_tref tmean = ln ? cf_input(c, "mean", mean, rows) : (svk_tref){0}, trstd = cf_input(c, "rstd", rstd, rows);
    cf_out *dx;
    svk_tref tdout;
    if (s->inplace) {
        dx = v_output(c, v, "dx", n, dout);
        tdout = v_tref(v, dx);
    } else {
        tdout = cf_input(c, "dout", dout, n);
        dx = v_output(c, v, "dx", n, NULL);
    }
    cf_out *dg = v_output(c, v, "dg", W, dg0), *db = ln ? v_output(c, v, "db", W, db0) : NULL;
    size_t scratch_n = ln ? svk_layernorm_bwd_scratch_elems(s->rows, s->width)
                          : svk_rmsnorm_bwd_scratch_elems(s->rows, s->width);
    cf_out *scratch = v_output(c, v, "scratch", scratch_n, NULL);
    if (!dx || !dg || (ln && !db) || !scratch)
        goto end;
    svk_status st;
    if (ln) {
        svk_layernorm_bwd_args a = {
            .rows = s->rows, .width = s->width, .dout = tdout, .x = tx, .mean = tmean, .rstd = trstd,
            .g = tg, .dx = v_tref(v, dx), .dg = v_tref(v, dg), .db = v_tref(v, db), .scratch = v_tref(v, scratch),
        };
        st = svk_layernorm_bwd_record(cf_list(c), &a);
    } else {
        svk_rmsnorm_bwd_args a = {
            .rows = s->rows, .width = s->width, .dout = tdout, .x = tx, .rstd = trstd,
            .g = tg, .dx = v_tref(v, dx), .dg = v_tref(v, dg), .scratch = v_tref(v, scratch),
        };
        st = svk_rmsnorm_bwd_record(cf_list(c), &a);
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    cf_out v_dx, v_dg, v_db;
    dx = v_view(c, v, dx, &v_dx);
    dg = v_view(c, v, dg, &v_dg);
    db = v_view(c, v, db, &v_db);

    double *ddout = cf_to_double(c, dout, n), *dmean = cf_to_double(c, mean, rows);
    double *drstd = cf_to_double(c, rstd, rows), *ddx = cf_alloc(c, n * sizeof(double));
    double *ddg = cf_to_double(c, dg0, W), *ddb = cf_to_double(c, db0, W);
    if (!ddout || !dmean || !drstd || !ddx || !ddg || !ddb)
        goto end;
    /* dg and db are sums over rows (plus their initial values): compared
     * with the size of their terms, as a narrow row makes them a handful of
     * elements, each of which may cancel. */
    double *sg = cf_alloc(c, W * sizeof(double)), *sb = cf_alloc(c, W * sizeof(double));
    if (!sg || !sb)
        goto end;
    for (size_t i = 0; i < W; i++) {
        sg[i] = fabs(ddg[i]);
        sb[i] = fabs(ddb[i]);
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < W; i++) {
            double xhat = ((double)x[r * W + i] - (ln ? dmean[r] : 0)) * drstd[r];
            sg[i] += fabs(ddout[r * W + i] * xhat);
            sb[i] += fabs(ddout[r * W + i]);
        }
    if (ln)
        svk_ref_layernorm_bwd_f64(rows, W, ddout, dx64, dmean, drstd, g64, ddx, ddg, ddb);
    else
        svk_ref_rmsnorm_bwd_f64(rows, W, ddout, dx64, drstd, g64, ddx, ddg);
    compare_rows(c, dx, ddx, rows, W, TOL_DX);
    compare_terms(c, dg, ddg, sg, W, TOL_PARAM);
    if (ln)
        compare_terms(c, db, ddb, sb, W, TOL_PARAM);
end:
    cf_end(c);
}

/* ---- SiameseNorm ---------------------------------------------------------- */

typedef enum grads {
    GRADS_NONE,     /* dxn, dy_in absent (= 0) */
    GRADS_BOTH,     /* dxn and dy_in given */
    GRADS_INPLACE,  /* dxn and dy_in given, dx = dxn and dy = dy_in */
} grads;
static const char *const grads_names[] = {"", " dxn+dy_in", " dxn+dy_in in-place"};

typedef struct siamese_shape {
    uint32_t rows, C;
    fill fx, fy;
    grads gr;
    int small_g;  /* gains scaled by 3e-3 (width-1 RMSNorm, see the top) */
    int quick;
} siamese_shape;

/* Width-1 LayerNorm backward is noise (see the top of the file). */
static bool siamese_bwd_meaningful(const siamese_shape *s, svk_norm_kind kind)
{
    return s->C > 1 || kind == SVK_NORM_RMSNORM;
}

static const siamese_shape siamese_shapes[] = {
    {1, 1, FILL_SMALL_POS, FILL_SMALL_POS, GRADS_NONE, 1, 1},
    {1031, 1, FILL_SMALL, FILL_SMALL, GRADS_INPLACE, 1, 0},
    {3, 7, FILL_RANDOM, FILL_RANDOM, GRADS_NONE, 0, 1},
    {61, 33, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 1},
    {1031, 128, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 0},
    {4099, 48, FILL_RANDOM, FILL_RANDOM, GRADS_INPLACE, 0, 0},
    {61, 128, FILL_RANDOM, FILL_OFFSET, GRADS_INPLACE, 0, 1},
    {3, 257, FILL_RANDOM, FILL_RANDOM, GRADS_INPLACE, 0, 0},
    {2, 1000, FILL_MIXED, FILL_OFFSET, GRADS_BOTH, 0, 0},
    {3, 8192, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 1},
    {3, 8192, FILL_OFFSET, FILL_MIXED, GRADS_NONE, 0, 0},
    /* Beyond the LayerNorm CPU form's loop budget (5 passes of 12289): the
     * "-cpu" forward rows take the portable form. */
    {2, 12289, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 0},
    {5, 64, FILL_CONST, FILL_RANDOM, GRADS_BOTH, 0, 0},
    /* The backward CPU form's lanes of RC_ROWS (see the top); the model
     * output takes the even entries only, so the costly loop-budget shape
     * sits at an odd one. */
    {769, 4095, FILL_RANDOM, FILL_RANDOM, GRADS_NONE, 0, 0},
    {1024, 128, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 1},
    /* The fused backward's budget for LayerNorm (4 passes; RMSNorm's 3
     * passes reach it at 4095 above): within 12 iterations. */
    {769, 3071, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 0},
    {1790, 36, FILL_RANDOM, FILL_RANDOM, GRADS_INPLACE, 0, 0},
    /* The split forms (the siamese_norm_*_split kernels, rows of
     * SVK_NORM_SPLIT_MIN_WIDTH and more forward, _WIDE_ backward): 129
     * and 257 vec4s a row, not a multiple of any subgroup size; a last
     * group of 1 row; lanes of partials of several rows. */
    {37, 516, FILL_RANDOM, FILL_OFFSET, GRADS_BOTH, 0, 1},
    {70, 1028, FILL_RANDOM, FILL_RANDOM, GRADS_BOTH, 0, 0},
};

static void siamese_name(char *buf, size_t size, const siamese_shape *s, svk_norm_kind kind, bool bwd)
{
    snprintf(buf, size, "%s %ux%u%s%s%s%s%s%s", kind == SVK_NORM_RMSNORM ? "rms" : "ln", s->rows, s->C,
             s->fx != FILL_RANDOM ? " x" : "", fill_names[s->fx], s->fy != FILL_RANDOM ? " y" : "",
             fill_names[s->fy], s->small_g ? " small g" : "", bwd ? grads_names[s->gr] : "");
}

/* Inputs shared by the SiameseNorm cases: x, y [rows, C]; g, b [3, C]. */
typedef struct siamese_inputs {
    float *x, *y, *g, *b;
    double *x64, *y64, *g64, *b64;
} siamese_inputs;

static bool make_siamese_inputs(cf_case *c, cf_state *cf, const siamese_shape *s, siamese_inputs *in)
{
    size_t n = (size_t)s->rows * s->C, C3 = 3 * (size_t)s->C;
    in->x = make_values(c, cf, n, s->fx);
    in->y = make_values(c, cf, n, s->fy);
    float gs = s->small_g ? 3e-3f : 1.0f;
    in->g = cf_random(c, C3, 0.5f * gs, 1.5f * gs);
    in->b = cf_random(c, C3, -0.5f, 0.5f);
    in->x64 = cf_to_double(c, in->x, n);
    in->y64 = cf_to_double(c, in->y, n);
    in->g64 = cf_to_double(c, in->g, C3);
    in->b64 = cf_to_double(c, in->b, C3);
    return in->x && in->y && in->g && in->b && in->x64 && in->y64 && in->g64 && in->b64;
}

/* Rows 3 and 4 of the saved LayerNorm means (SVK_SIAMESE_MEAN_ROWS): P's and
 * Q's means less their row's first element, against the reference's, at the
 * scale of the row as the means. */
static void compare_shifted_means(cf_case *c, const cf_out *mean, const double *dmean, const double *drstd,
                                  const double *x, const double *y, size_t rows, size_t C)
{
    double *m = mean ? cf_alloc(c, 2 * rows * sizeof(double)) : NULL;
    if (!m)
        return;
    for (size_t r = 0; r < rows; r++) {
        m[r] = dmean[r] - x[r * C];
        m[rows + r] = dmean[rows + r] - y[r * C];
    }
    cf_out shifted = *mean;
    shifted.name = "mean m";
    shifted.host = mean->host + 3 * rows;
    compare_mean(c, &shifted, m, drstd, 2 * rows, TOL_FWD);
}

/* The saved means as a float forward pass leaves them for the backward:
 * [SVK_SIAMESE_MEAN_ROWS, rows] from the reference's [3, rows]. */
static float *device_means(cf_case *c, const double *mean64, const double *x, const double *y, size_t rows,
                           size_t C)
{
    float *m = cf_alloc(c, SVK_SIAMESE_MEAN_ROWS * rows * sizeof(float));
    if (!m)
        return NULL;
    for (size_t i = 0; i < 3 * rows; i++)
        m[i] = (float)mean64[i];
    for (size_t r = 0; r < rows; r++) {
        m[3 * rows + r] = (float)(mean64[r] - x[r * C]);
        m[4 * rows + r] = (float)(mean64[rows + r] - y[r * C]);
    }
    return m;
}

/* out_mode: false = block input (xn, h), true = model output (out). */
static void siamese_fwd_case(cf_state *cf, svk_norm_kind kind, const siamese_shape *s, bool out_mode,
                             const cf_variant *v)
{
    const bool ln = kind == SVK_NORM_LAYERNORM;
    char shape[96], dir[24];
    siamese_name(shape, sizeof(shape), s, kind, false);
    cf_case *c = cf_begin(cf, out_mode ? "siamese_out" : "siamese_norm", v_dir(dir, v, "fwd"), shape);
    if (!c)
        return;
    size_t rows = s->rows, C = s->C, n = rows * C, C3 = 3 * C, R3 = 3 * rows;
    siamese_inputs in;
    if (!make_siamese_inputs(c, cf, s, &in))
        goto end;
    svk_tref tx = cf_input(c, "x", in.x, n), ty = cf_input(c, "y", in.y, n), tg = cf_input(c, "g", in.g, C3);
    svk_tref tb = ln ? cf_input(c, "b", in.b, C3) : (svk_tref){0};
    cf_out *xn = out_mode ? NULL : v_output(c, v, "xn", n, NULL);
    cf_out *h = v_output(c, v, out_mode ? "out" : "h", n, NULL);
    cf_out *mean = ln ? v_output(c, v, "mean", SVK_SIAMESE_MEAN_ROWS * rows, NULL) : NULL;
    cf_out *rstd = v_output(c, v, "rstd", R3, NULL);
    if ((!out_mode && !xn) || !h || (ln && !mean) || !rstd)
        goto end;
    svk_status st;
    if (out_mode) {
        svk_siamese_out_fwd_args a = {
            .kind = kind, .rows = s->rows, .C = s->C, .eps = EPS, .x = tx, .y = ty, .g = tg, .b = tb,
            .out = v_tref(v, h), .mean = v_tref(v, mean), .rstd = v_tref(v, rstd),
        };
        st = svk_siamese_out_fwd_record(cf_list(c), &a);
    } else {
        svk_siamese_norm_fwd_args a = {
            .kind = kind, .rows = s->rows, .C = s->C, .eps = EPS, .x = tx, .y = ty, .g = tg, .b = tb,
            .xn = v_tref(v, xn), .h = v_tref(v, h), .mean = v_tref(v, mean), .rstd = v_tref(v, rstd),
        };
        st = svk_siamese_norm_fwd_record(cf_list(c), &a);
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    cf_out v_xn, v_h, v_mean, v_rstd;
    xn = v_view(c, v, xn, &v_xn);
    h = v_view(c, v, h, &v_h);
    mean = v_view(c, v, mean, &v_mean);
    rstd = v_view(c, v, rstd, &v_rstd);

    double *dxn = cf_alloc(c, n * sizeof(double)), *dh = cf_alloc(c, n * sizeof(double));
    double *dmean = cf_alloc(c, R3 * sizeof(double)), *drstd = cf_alloc(c, R3 * sizeof(double));
    if (!dxn || !dh || !dmean || !drstd)
        goto end;
    if (out_mode)
        svk_ref_siamese_out_fwd_f64(ref_kind(kind), rows, C, EPS, in.x64, in.y64, in.g64, in.b64, dh, dmean, drstd,
                                    dxn);
    else
        svk_ref_siamese_norm_fwd_f64(ref_kind(kind), rows, C, EPS, in.x64, in.y64, in.g64, in.b64, dxn, dh, dmean,
                                     drstd);
    if (!out_mode)
        compare_rows(c, xn, dxn, rows, C, TOL_FWD);
    compare_rows(c, h, dh, rows, C, TOL_FWD);
    if (ln) {
        compare_mean(c, mean, dmean, drstd, R3, TOL_FWD);
        compare_shifted_means(c, mean, dmean, drstd, in.x64, in.y64, rows, C);
    }
    cf_compare(c, rstd, drstd, TOL_FWD);
end:
    cf_end(c);
}

static void siamese_bwd_case(cf_state *cf, svk_norm_kind kind, const siamese_shape *s, bool out_mode,
                             const cf_variant *v)
{
    const bool ln = kind == SVK_NORM_LAYERNORM;
    const grads gr = out_mode ? GRADS_NONE : s->gr;
    /* dz = dx / c + dy as well (lib/ops/siamese_norm.h) in the shapes that
     * pass gradients in, with a c of layers 0 to 3. */
    const bool with_dz = s->gr != GRADS_NONE;
    const float cz = sqrtf(2.0f * (float)(1 + s->rows % 4));
    char shape[112], dir[24];
    siamese_name(shape, sizeof(shape) - 4, s, kind, !out_mode);
    if (with_dz)
        strcat(shape, " dz");
    cf_case *c = cf_begin(cf, out_mode ? "siamese_out" : "siamese_norm", v_dir(dir, v, "bwd"), shape);
    if (!c)
        return;
    size_t rows = s->rows, C = s->C, n = rows * C, C3 = 3 * C, R3 = 3 * rows;
    siamese_inputs in;
    if (!make_siamese_inputs(c, cf, s, &in))
        goto end;
    float *dh = cf_random(c, n, -1, 1), *dxn = cf_random(c, n, -1, 1), *dyi = cf_random(c, n, -1, 1);
    float *dg0 = cf_random(c, C3, -1, 1), *db0 = cf_random(c, C3, -1, 1);
    double *t0 = cf_alloc(c, n * sizeof(double)), *t1 = cf_alloc(c, n * sizeof(double));
    double *mean64 = cf_alloc(c, R3 * sizeof(double)), *rstd64 = cf_alloc(c, R3 * sizeof(double));
    if (!dh || !dxn || !dyi || !dg0 || !db0 || !t0 || !t1 || !mean64 || !rstd64)
        goto end;
    /* The statistics as a float forward pass saves them. */
    svk_ref_siamese_norm_fwd_f64(ref_kind(kind), rows, C, EPS, in.x64, in.y64, in.g64, in.b64, t0, t1, mean64,
                                 rstd64);
    float *mean = device_means(c, mean64, in.x64, in.y64, rows, C), *rstd = to_float(c, rstd64, R3);
    if (!mean || !rstd)
        goto end;

    svk_tref tx = cf_input(c, "x", in.x, n), ty = cf_input(c, "y", in.y, n), tg = cf_input(c, "g", in.g, C3);
    svk_tref tb = ln ? cf_input(c, "b", in.b, C3) : (svk_tref){0};
    svk_tref tmean = ln ? cf_input(c, "mean", mean, SVK_SIAMESE_MEAN_ROWS * rows) : (svk_tref){0};
    svk_tref trstd = cf_input(c, "rstd", rstd, R3);
    svk_tref tdh = cf_input(c, "dh", dh, n), tdxn = {0}, tdyi = {0};
    cf_out *dx, *dy;
    if (gr == GRADS_INPLACE) {
        dx = v_output(c, v, "dx", n, dxn);
        dy = v_output(c, v, "dy", n, dyi);
        tdxn = v_tref(v, dx);
        tdyi = v_tref(v, dy);
    } else {
        if (gr == GRADS_BOTH) {
            tdxn = cf_input(c, "dxn", dxn, n);
            tdyi = cf_input(c, "dy_in", dyi, n);
        }
        dx = v_output(c, v, "dx", n, NULL);
        dy = v_output(c, v, "dy", n, NULL);
    }
    cf_out *dg = v_output(c, v, "dg", C3, dg0), *db = ln ? v_output(c, v, "db", C3, db0) : NULL;
    cf_out *scratch = v_output(c, v, "scratch", svk_siamese_norm_bwd_scratch_elems(kind, s->rows, s->C), NULL);
    cf_out *dz = with_dz ? v_output(c, v, "dz", n, NULL) : NULL;
    if (!dx || !dy || !dg || (ln && !db) || !scratch || (with_dz && !dz))
        goto end;
    svk_status st;
    if (out_mode) {
        svk_siamese_out_bwd_args a = {
            .kind = kind, .rows = s->rows, .C = s->C, .dout = tdh, .x = tx, .y = ty, .mean = tmean,
            .rstd = trstd, .g = tg, .b = tb, .dx = v_tref(v, dx), .dy = v_tref(v, dy), .dg = v_tref(v, dg),
            .db = v_tref(v, db), .scratch = v_tref(v, scratch), .dz = with_dz ? v_tref(v, dz) : (svk_tref){0},
            .dz_c = cz,
        };
        st = svk_siamese_out_bwd_record(cf_list(c), &a);
    } else {
        svk_siamese_norm_bwd_args a = {
            .kind = kind, .rows = s->rows, .C = s->C, .dh = tdh, .dxn = tdxn, .dy_in = tdyi, .x = tx, .y = ty,
            .mean = tmean, .rstd = trstd, .g = tg, .b = tb, .dx = v_tref(v, dx), .dy = v_tref(v, dy),
            .dg = v_tref(v, dg), .db = v_tref(v, db), .scratch = v_tref(v, scratch),
            .dz = with_dz ? v_tref(v, dz) : (svk_tref){0}, .dz_c = cz,
        };
        st = svk_siamese_norm_bwd_record(cf_list(c), &a);
    }
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    cf_out v_dx, v_dy, v_dg, v_db, v_dz;
    dx = v_view(c, v, dx, &v_dx);
    dy = v_view(c, v, dy, &v_dy);
    dg = v_view(c, v, dg, &v_dg);
    db = v_view(c, v, db, &v_db);
    dz = v_view(c, v, dz, &v_dz);

    double *ddh = cf_to_double(c, dh, n), *ddxn = cf_to_double(c, dxn, n), *ddyi = cf_to_double(c, dyi, n);
    double *dmean = cf_to_double(c, mean, R3), *drstd = cf_to_double(c, rstd, R3);
    double *ddx = cf_alloc(c, n * sizeof(double)), *ddy = cf_alloc(c, n * sizeof(double));
    double *ddg = cf_to_double(c, dg0, C3), *ddb = cf_to_double(c, db0, C3);
    double *work = cf_alloc(c, 2 * n * sizeof(double));
    if (!ddh || !ddxn || !ddyi || !dmean || !drstd || !ddx || !ddy || !ddg || !ddb || !work)
        goto end;
    if (out_mode)
        svk_ref_siamese_out_bwd_f64(ref_kind(kind), rows, C, EPS, ddh, in.x64, in.y64, dmean, drstd, in.g64, in.b64,
                                    ddx, ddy, ddg, ddb, work);
    else
        svk_ref_siamese_norm_bwd_f64(ref_kind(kind), rows, C, EPS, ddh, gr == GRADS_NONE ? NULL : ddxn,
                                     gr == GRADS_NONE ? NULL : ddyi, in.x64, in.y64, dmean, drstd, in.g64, in.b64,
                                     ddx, ddy, ddg, ddb, work);
    compare_rows(c, dx, ddx, rows, C, TOL_DX);
    compare_rows(c, dy, ddy, rows, C, TOL_DX);
    cf_compare(c, dg, ddg, TOL_PARAM);
    if (ln)
        cf_compare(c, db, ddb, TOL_PARAM);
    if (with_dz) {
        /* The reference's dz from its own dx and dy (t0 is free again). */
        svk_ref_residual_bwd_f64(n, cz, ddx, ddy, t0);
        compare_rows(c, dz, t0, rows, C, TOL_DX);
    }
end:
    cf_end(c);
}

/* ---- Dual residual update ------------------------------------------------ */

typedef struct residual_shape {
    uint32_t n;
    uint32_t layer;  /* c = sqrt(2 (layer + 1)) */
    int inplace;     /* backward: dz = dy */
    int quick;
    int vec4;        /* outputs on a vec4 (cf_output_at): with n % 4 == 0 the kernels' vec4 path */
} residual_shape;

static const residual_shape residual_shapes[] = {
    {1, 0, 0, 1, 0},
    {7, 3, 1, 1, 0},
    {1000, 1, 0, 1, 0},
    {1031 * 33, 5, 0, 0, 0},
    {3 * 8192 + 5, 11, 1, 0, 0},
    {4, 2, 1, 1, 1},
    {1000, 1, 0, 1, 1},
    {1000, 4, 1, 1, 1},
    {1031 * 36, 5, 0, 0, 1},
};


static void residual_fwd_case(cf_state *cf, const residual_shape *s)
{
    char shape[96];
    snprintf(shape, sizeof(shape), "n=%u layer %u%s", s->n, s->layer, s->vec4 ? " vec4" : "");
    cf_case *c = cf_begin(cf, "residual", "fwd", shape);
    if (!c)
        return;
    size_t n = s->n;
    float cl = (float)sqrt(2.0 * (s->layer + 1));
    float *x = cf_random(c, n, -1, 1), *y = cf_random(c, n, -4, 4), *z = cf_random(c, n, -1, 1);
    if (!x || !y || !z)
        goto end;
    cf_out *ox = cf_output_at(c, "x", n, x, s->vec4), *oy = cf_output_at(c, "y", n, y, s->vec4);
    svk_tref tz = cf_input(c, "z", z, n);
    if (!ox || !oy)
        goto end;
    svk_residual_fwd_args a = {.n = n, .c = cl, .x = cf_tref(ox), .y = cf_tref(oy), .z = tz};
    if (!cf_ok(c, svk_residual_fwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *dx = cf_to_double(c, x, n), *dy = cf_to_double(c, y, n), *dz = cf_to_double(c, z, n);
    double *tx = cf_alloc(c, n * sizeof(double)), *ty = cf_alloc(c, n * sizeof(double));
    if (!dx || !dy || !dz || !tx || !ty)
        goto end;
    for (size_t i = 0; i < n; i++) {
        tx[i] = fabs(dx[i]) + fabs(dz[i] / cl);
        ty[i] = fabs(dy[i]) + fabs(dz[i]);
    }
    svk_ref_residual_fwd_f64(n, cl, dx, dy, dz);
    compare_terms(c, ox, dx, tx, n, TOL_RESIDUAL);
    compare_terms(c, oy, dy, ty, n, TOL_RESIDUAL);
end:
    cf_end(c);
}

static void residual_bwd_case(cf_state *cf, const residual_shape *s)
{
    char shape[96];
    snprintf(shape, sizeof(shape), "n=%u layer %u%s%s", s->n, s->layer, s->inplace ? " in-place" : "",
             s->vec4 ? " vec4" : "");
    cf_case *c = cf_begin(cf, "residual", "bwd", shape);
    if (!c)
        return;
    size_t n = s->n;
    float cl = (float)sqrt(2.0 * (s->layer + 1));
    float *dx = cf_random(c, n, -1, 1), *dy = cf_random(c, n, -1, 1);
    if (!dx || !dy)
        goto end;
    svk_tref tdx = cf_input(c, "dx", dx, n), tdy;
    cf_out *dz;
    if (s->inplace) {
        dz = cf_output_at(c, "dz", n, dy, s->vec4);
        tdy = cf_tref(dz);
    } else {
        tdy = cf_input(c, "dy", dy, n);
        dz = cf_output_at(c, "dz", n, NULL, s->vec4);
    }
    if (!dz)
        goto end;
    svk_residual_bwd_args a = {.n = n, .c = cl, .dx = tdx, .dy = tdy, .dz = cf_tref(dz)};
    if (!cf_ok(c, svk_residual_bwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *ddx = cf_to_double(c, dx, n), *ddy = cf_to_double(c, dy, n), *ddz = cf_alloc(c, n * sizeof(double));
    double *tz = cf_alloc(c, n * sizeof(double));
    if (!ddx || !ddy || !ddz || !tz)
        goto end;
    for (size_t i = 0; i < n; i++)
        tz[i] = fabs(ddx[i] / cl) + fabs(ddy[i]);
    svk_ref_residual_bwd_f64(n, cl, ddx, ddy, ddz);
    compare_terms(c, dz, ddz, tz, n, TOL_RESIDUAL);
end:
    cf_end(c);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void cf_run_norm(cf_state *cf)
{
    static const svk_norm_kind kinds[] = {SVK_NORM_LAYERNORM, SVK_NORM_RMSNORM};
    /* The caller's tuning, restored at the end. The fused backward is on
     * in every variant but the staged ones, whatever the caller said. */
    const svk_ctx_tuning saved = cf_tuning(cf);
    for (size_t vi = 0; vi < COUNT(variants); vi++) {
        const cf_variant *v = &variants[vi];
        const bool all = !v->staged_only;
        svk_ctx_tuning t = saved;
        t.off = v->staged_only ? t.off | SVK_TUNE_OFF_FUSED_SIAMESE_BWD : t.off & ~SVK_TUNE_OFF_FUSED_SIAMESE_BWD;
        if (v->ssbo)
            t.texel = SVK_TUNE_TEXEL_OFF;
        cf_tune_variant(cf, &t, v->env);
        for (size_t k = 0; k < COUNT(kinds) && all; k++)
            for (size_t i = 0; i < COUNT(norm_shapes); i++)
                if (!cf->quick || norm_shapes[i].quick) {
                    norm_fwd_case(cf, kinds[k], &norm_shapes[i], v);
                    norm_bwd_case(cf, kinds[k], &norm_shapes[i], v);
                }
        for (size_t k = 0; k < COUNT(kinds); k++)
            for (size_t i = 0; i < COUNT(siamese_shapes); i++)
                if (!cf->quick || siamese_shapes[i].quick) {
                    if (all)
                        siamese_fwd_case(cf, kinds[k], &siamese_shapes[i], false, v);
                    if (siamese_bwd_meaningful(&siamese_shapes[i], kinds[k]))
                        siamese_bwd_case(cf, kinds[k], &siamese_shapes[i], false, v);
                }
        /* The model output shares the block input's kernels: fewer shapes. */
        for (size_t k = 0; k < COUNT(kinds); k++)
            for (size_t i = 0; i < COUNT(siamese_shapes); i += 2)
                if (!cf->quick || siamese_shapes[i].quick) {
                    if (all)
                        siamese_fwd_case(cf, kinds[k], &siamese_shapes[i], true, v);
                    if (siamese_bwd_meaningful(&siamese_shapes[i], kinds[k]))
                        siamese_bwd_case(cf, kinds[k], &siamese_shapes[i], true, v);
                }
    }
    cf_tune(cf, &saved);
    /* The residual update is elementwise: one form. */
    for (size_t i = 0; i < COUNT(residual_shapes); i++)
        if (!cf->quick || residual_shapes[i].quick) {
            residual_fwd_case(cf, &residual_shapes[i]);
            residual_bwd_case(cf, &residual_shapes[i]);
        }
}
