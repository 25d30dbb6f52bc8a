/*
 * GELU and SwiGLU (shaders/gelu_*.comp, swiglu_*.comp; lib/ref/gelu.c,
 * swiglu.c), both directions: sizes 1, primes and non-multiples of the
 * 256-wide workgroup, a million elements, in-place operation, and inputs
 * where the math is delicate: |x| = 20, 50, 88, 1e4, 1e13, 1e20, 3e38 (where
 * a tanh built from exp, u^3 or u^2 overflows), and around the sigmoid's
 * saturation, each with its operands off and on a vec4 (the kernels' two
 * paths, lib/ops/elem_util.h). With large inputs the huge outputs carry
 * the norm of the whole array, so the elements of ordinary size are compared again on their own.
 */
#include <math.h>
#include <stdio.h>

#include "conform.h"
#include "ops/gelu.h"
#include "ops/swiglu.h"

/* ||out - ref|| / ||ref|| against the double reference. Each element is a
 * handful of correctly rounded operations plus one exp and one division.
 * Vulkan allows exp 3 + 2|x| ULP and division 2.5 ULP; the elements that
 * carry the norm have |exponent| below ~20 (beyond it s(1 - s) < 2e-9 and
 * the sigmoid is within an ULP of 0 or 1), so at most ~45 ULP, 3e-6. 1e-5
 * leaves room for that bound; lavapipe measures ~1e-7. */
static const double TOL_GELU_FWD = 1e-5;
static const double TOL_GELU_BWD = 1e-5;
static const double TOL_SWIGLU_FWD = 1e-5;
static const double TOL_SWIGLU_BWD = 1e-5;

typedef enum input_kind {
    IN_NORMAL,  /* uniform in [-6, 6]: the curved part of both activations */
    IN_LARGE,   /* the normal range mixed with +-50, +-88, +-1e4, +-1e13 */
} input_kind;

typedef struct elem_case {
    uint32_t n;
    input_kind in;
    int in_place;  /* out = x (fwd), dx = dout (bwd), out = gate, dgate = gate */
    int quick;
    int vec4;      /* outputs start on a vec4 (cf_output_at): with n % 4 == 0 the vec4 path */
} elem_case;

static const elem_case cases[] = {
    {1, IN_NORMAL, 0, 1, 0},
    {7, IN_NORMAL, 0, 1, 0},
    {255, IN_NORMAL, 0, 1, 0},
    {256, IN_NORMAL, 0, 1, 0},
    {257, IN_NORMAL, 1, 1, 0},
    {4099, IN_NORMAL, 0, 1, 0},
    {4099, IN_LARGE, 0, 1, 0},
    {100003, IN_NORMAL, 1, 0, 0},
    {100003, IN_LARGE, 0, 0, 0},
    {1000003, IN_NORMAL, 0, 0, 0},
    /* The vec4 path: n a multiple of 4 and every operand on a vec4. */
    {4, IN_NORMAL, 0, 1, 1},
    {256, IN_NORMAL, 1, 1, 1},
    {4100, IN_LARGE, 0, 1, 1},
    {4100, IN_NORMAL, 1, 1, 1},
    {100004, IN_NORMAL, 0, 0, 1},
    {1000004, IN_LARGE, 1, 0, 1},
};


/* 1e13: u^3 overflows float; 1e20: u^2 does too; 3e38: near FLT_MAX. */
static const float large_values[] = {50.0f, -50.0f, 88.0f, -88.0f, 1e4f, -1e4f, 1e13f, -1e13f,
                                     20.0f, -20.0f, 1e20f, -1e20f, 3e38f, -3e38f};

/* cap: large values beyond it become +-1e20 (silu(3e38) * up overflows
 * float, legitimately, where gelu(3e38) does not). */
static float *make_input(cf_case *c, size_t n, input_kind in, float lo, float hi, float cap)
{
    float *x = cf_random(c, n, lo, hi);
    if (x && in == IN_LARGE)
        for (size_t i = 0; i < n; i += 3) {
            float v = large_values[(i / 3) % (sizeof(large_values) / sizeof(large_values[0]))];
            x[i] = fabsf(v) > cap ? copysignf(1e20f, v) : v;
        }
    return x;
}

/* With large inputs: compares the elements whose input x[i] has |x| < 20
 * on their own as well, so that the huge ones do not hide their errors.
 * scale (NULL: none) as cf_compare_scaled's. */
static void compare_large(cf_case *c, const elem_case *e, const cf_out *out, const double *ref,
                          const double *scale, const float *x, double tol)
{
    if (scale)
        cf_compare_scaled(c, out, ref, scale, tol);
    else
        cf_compare(c, out, ref, tol);
    if (e->in != IN_LARGE || !out || !out->host)
        return;
    float *got = cf_alloc(c, e->n * sizeof(float));
    double *want = cf_alloc(c, e->n * sizeof(double)), *sub_scale = cf_alloc(c, e->n * sizeof(double));
    if (!got || !want || !sub_scale)
        return;
    size_t k = 0;
    for (size_t i = 0; i < e->n; i++)
        if (fabsf(x[i]) < 20) {
            got[k] = out->host[i];
            sub_scale[k] = scale ? scale[i] : 0;
            want[k++] = ref[i];
        }
    char name[64];
    snprintf(name, sizeof(name), "%s (|x| < 20)", out->name);
    cf_out sub = {.name = name, .n = k, .host = got};
    if (scale)
        cf_compare_scaled(c, &sub, want, sub_scale, tol);
    else
        cf_compare(c, &sub, want, tol);
}

/* The derivatives are sums of two terms that cancel where the derivative
 * crosses 0 (GELU's near u = -0.75, SiLU's near u = -1.28): there a few
 * ULP of error in each term are a large part of the result, and a case
 * of a few elements fails by chance. So the backward passes are measured
 * against the sum of the terms' magnitudes (cf_compare_scaled), with
 * each element's other factors (dout, up) as they are. */
static double *gelu_bwd_scale(cf_case *c, const double *x, const double *dout, size_t n)
{
    double *scale = cf_alloc(c, n * sizeof(double));
    for (size_t i = 0; scale && i < n; i++) {
        double u = x[i], th = tanh(0.79788456080286535588 * (u + 0.044715 * u * u * u));
        double da = 0.79788456080286535588 * (1 + 3 * 0.044715 * u * u);
        scale[i] = fabs(dout[i]) * (fabs(0.5 * (1 + th)) + fabs(0.5 * u * (1 - th * th) * da));
    }
    return scale;
}

static double *swiglu_dgate_scale(cf_case *c, const double *gate, const double *up, const double *dout, size_t n)
{
    double *scale = cf_alloc(c, n * sizeof(double));
    for (size_t i = 0; scale && i < n; i++) {
        double u = gate[i], sg = 1 / (1 + exp(-u));
        scale[i] = fabs(dout[i] * up[i]) * (sg + fabs(u * sg * (1 - sg)));
    }
    return scale;
}

static void shape_name(char *buf, size_t size, const elem_case *e)
{
    snprintf(buf, size, "n=%u%s%s%s", e->n, e->in == IN_LARGE ? " large |x|" : "", e->in_place ? " in place" : "",
             e->vec4 ? " vec4" : "");
}

static void gelu_fwd(cf_state *cf, const elem_case *e)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    cf_case *c = cf_begin(cf, "gelu", "fwd", shape);
    if (!c)
        return;
    float *x = make_input(c, e->n, e->in, -6, 6, 3e38f);
    if (!x)
        goto end;
    /* In place: the output buffer starts as x and is the input operand. */
    cf_out *out = cf_output_at(c, "out", e->n, e->in_place ? x : NULL, e->vec4);
    svk_tref tx = e->in_place ? cf_tref(out) : cf_input(c, "x", x, e->n);
    if (!out)
        goto end;
    svk_gelu_fwd_args a = {.n = e->n, .x = tx, .out = cf_tref(out)};
    if (!cf_ok(c, svk_gelu_fwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *dx = cf_to_double(c, x, e->n), *ref = cf_alloc(c, e->n * sizeof(double));
    if (!dx || !ref)
        goto end;
    svk_ref_gelu_fwd_f64(e->n, dx, ref);
    compare_large(c, e, out, ref, NULL, x, TOL_GELU_FWD);
end:
    cf_end(c);
}

static void gelu_bwd(cf_state *cf, const elem_case *e)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    cf_case *c = cf_begin(cf, "gelu", "bwd", shape);
    if (!c)
        return;
    float *x = make_input(c, e->n, e->in, -6, 6, 3e38f), *dout = cf_random(c, e->n, -1, 1);
    if (!x || !dout)
        goto end;
    svk_tref tx = cf_input(c, "x", x, e->n);
    cf_out *dx = cf_output_at(c, "dx", e->n, e->in_place ? dout : NULL, e->vec4);
    svk_tref tdout = e->in_place ? cf_tref(dx) : cf_input(c, "dout", dout, e->n);
    if (!dx)
        goto end;
    svk_gelu_bwd_args a = {.n = e->n, .x = tx, .dout = tdout, .dx = cf_tref(dx)};
    if (!cf_ok(c, svk_gelu_bwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *d_x = cf_to_double(c, x, e->n), *d_dout = cf_to_double(c, dout, e->n);
    double *ref = cf_alloc(c, e->n * sizeof(double));
    if (!d_x || !d_dout || !ref)
        goto end;
    svk_ref_gelu_bwd_f64(e->n, d_x, d_dout, ref);
    double *scale = gelu_bwd_scale(c, d_x, d_dout, e->n);
    if (!scale)
        goto end;
    compare_large(c, e, dx, ref, scale, x, TOL_GELU_BWD);
end:
    cf_end(c);
}

static void swiglu_fwd(cf_state *cf, const elem_case *e)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    cf_case *c = cf_begin(cf, "swiglu", "fwd", shape);
    if (!c)
        return;
    float *gate = make_input(c, e->n, e->in, -8, 8, 1e30f), *up = cf_random(c, e->n, -2, 2);
    if (!gate || !up)
        goto end;
    cf_out *out = cf_output_at(c, "out", e->n, e->in_place ? gate : NULL, e->vec4);
    svk_tref tgate = e->in_place ? cf_tref(out) : cf_input(c, "gate", gate, e->n);
    svk_tref tup = cf_input(c, "up", up, e->n);
    if (!out)
        goto end;
    svk_swiglu_fwd_args a = {.n = e->n, .gate = tgate, .up = tup, .out = cf_tref(out)};
    if (!cf_ok(c, svk_swiglu_fwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *dg = cf_to_double(c, gate, e->n), *du = cf_to_double(c, up, e->n);
    double *ref = cf_alloc(c, e->n * sizeof(double));
    if (!dg || !du || !ref)
        goto end;
    svk_ref_swiglu_fwd_f64(e->n, dg, du, ref);
    compare_large(c, e, out, ref, NULL, gate, TOL_SWIGLU_FWD);
end:
    cf_end(c);
}

static void swiglu_bwd(cf_state *cf, const elem_case *e)
{
    char shape[96];
    shape_name(shape, sizeof(shape), e);
    cf_case *c = cf_begin(cf, "swiglu", "bwd", shape);
    if (!c)
        return;
    float *gate = make_input(c, e->n, e->in, -8, 8, 1e30f), *up = cf_random(c, e->n, -2, 2);
    float *dout = cf_random(c, e->n, -1, 1);
    if (!gate || !up || !dout)
        goto end;
    /* In place: dgate overwrites gate, dup overwrites up. */
    cf_out *dgate = cf_output_at(c, "dgate", e->n, e->in_place ? gate : NULL, e->vec4);
    cf_out *dup = cf_output_at(c, "dup", e->n, e->in_place ? up : NULL, e->vec4);
    svk_tref tgate = e->in_place ? cf_tref(dgate) : cf_input(c, "gate", gate, e->n);
    svk_tref tup = e->in_place ? cf_tref(dup) : cf_input(c, "up", up, e->n);
    svk_tref tdout = cf_input(c, "dout", dout, e->n);
    if (!dgate || !dup)
        goto end;
    svk_swiglu_bwd_args a = {.n = e->n, .gate = tgate, .up = tup, .dout = tdout, .dgate = cf_tref(dgate),
                             .dup = cf_tref(dup)};
    if (!cf_ok(c, svk_swiglu_bwd_record(cf_list(c), &a)) || !cf_run(c))
        goto end;
    double *dg = cf_to_double(c, gate, e->n), *du = cf_to_double(c, up, e->n), *dd = cf_to_double(c, dout, e->n);
    double *rg = cf_alloc(c, e->n * sizeof(double)), *ru = cf_alloc(c, e->n * sizeof(double));
    if (!dg || !du || !dd || !rg || !ru)
        goto end;
    svk_ref_swiglu_bwd_f64(e->n, dg, du, dd, rg, ru);
    double *scale = swiglu_dgate_scale(c, dg, du, dd, e->n);
    if (!scale)
        goto end;
    compare_large(c, e, dgate, rg, scale, gate, TOL_SWIGLU_BWD);
    compare_large(c, e, dup, ru, NULL, gate, TOL_SWIGLU_BWD);
end:
    cf_end(c);
}

void cf_run_gelu(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cf->quick && !cases[i].quick)
            continue;
        gelu_fwd(cf, &cases[i]);
        gelu_bwd(cf, &cases[i]);
    }
}

void cf_run_swiglu(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cf->quick && !cases[i].quick)
            continue;
        swiglu_fwd(cf, &cases[i]);
        swiglu_bwd(cf, &cases[i]);
    }
}
