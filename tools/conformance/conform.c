#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conform.h"

#define MAX_BUFFERS 24
#define MAX_ALLOCS 64

struct cf_case {
    cf_state *cf;
    char kernel[48], direction[24], shape[96];
    svk_buffer *inputs[MAX_BUFFERS];
    uint32_t n_inputs;
    cf_out outs[MAX_BUFFERS];
    uint32_t n_outs;
    void *allocs[MAX_ALLOCS];
    uint32_t n_allocs;
    svk_cmdlist *list;
    double worst_err, worst_tol;
    int compared;
    char worst_what[160];
    bool failed;
    char why[600];
    double ms;
};

void cf_fail(cf_case *c, const char *fmt, ...)
{
    if (c->failed)
        return; /* the first reason is the one worth reading */
    c->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
}

svk_ctx_tuning cf_tuning(const cf_state *cf)
{
    return *svk_ctx_tuning_get(cf->ctx);
}

void cf_tune(cf_state *cf, const svk_ctx_tuning *t)
{
    /* Only in-range values reach here (tuning.h's enums and bits). */
    (void)svk_ctx_tuning_set(cf->ctx, t);
}

void cf_tune_variant(cf_state *cf, const svk_ctx_tuning *base, const char *variant)
{
    svk_ctx_tuning t = *base;
    t.variant = !strcmp(variant, "cpu") ? SVK_TUNE_VARIANT_CPU : SVK_TUNE_VARIANT_PORTABLE;
    cf_tune(cf, &t);
}

void *cf_alloc(cf_case *c, size_t bytes)
{
    void *p = c->n_allocs < MAX_ALLOCS ? calloc(1, bytes ? bytes : 1) : NULL;
    if (!p) {
        cf_fail(c, "out of host memory (%zu bytes)", bytes);
        return NULL;
    }
    c->allocs[c->n_allocs++] = p;
    return p;
}

cf_case *cf_begin(cf_state *cf, const char *kernel, const char *direction, const char *shape)
{
    if (cf->shape && !strstr(shape, cf->shape))
        return NULL;
    cf_case *c = calloc(1, sizeof(*c));
    if (!c) {
        printf("%-18s %-10s %-34s FAIL out of host memory\n", kernel, direction, shape);
        cf->failed++;
        return NULL;
    }
    c->cf = cf;
    snprintf(c->kernel, sizeof(c->kernel), "%s", kernel);
    snprintf(c->direction, sizeof(c->direction), "%s", direction);
    snprintf(c->shape, sizeof(c->shape), "%s", shape);
    svk_cmdlist_params lp = {0};
    if (svk_ctx_device_info(cf->ctx)->timestamps)
        lp.timestamp_capacity = 256;
    svk_status st = svk_cmdlist_create(cf->ctx, &lp, &c->list);
    if (st == SVK_OK)
        st = svk_cmdlist_begin(c->list);
    cf_ok(c, st);
    return c;
}

bool cf_ok(cf_case *c, svk_status st)
{
    if (st != SVK_OK)
        cf_fail(c, "%s: %s", svk_status_string(st), svk_ctx_last_error(c->cf->ctx));
    return st == SVK_OK;
}

static svk_buffer *make_buffer(cf_case *c, const char *name, const void *data, size_t bytes)
{
    if (c->n_inputs >= MAX_BUFFERS) {
        cf_fail(c, "too many buffers in one case");
        return NULL;
    }
    svk_buffer_params p = svk_buffer_params_default();
    p.size = bytes;
    p.name = name;
    svk_buffer *b = NULL;
    if (!cf_ok(c, svk_buffer_create(c->cf->ctx, &p, &b)))
        return NULL;
    c->inputs[c->n_inputs++] = b;
    if (data && !cf_ok(c, svk_buffer_upload(b, 0, data, bytes)))
        return NULL;
    return b;
}

svk_tref cf_input(cf_case *c, const char *name, const float *data, size_t n)
{
    return (svk_tref){c->failed ? NULL : make_buffer(c, name, data, n * sizeof(float)), 0};
}

svk_tref cf_input_i32(cf_case *c, const char *name, const int32_t *data, size_t n)
{
    return (svk_tref){c->failed ? NULL : make_buffer(c, name, data, n * sizeof(int32_t)), 0};
}

static cf_out *output(cf_case *c, const char *name, size_t n, const float *init, size_t lead)
{
    if (c->failed)
        return NULL;
    if (c->n_outs >= MAX_BUFFERS) {
        cf_fail(c, "too many outputs in one case");
        return NULL;
    }
    cf_out *o = &c->outs[c->n_outs];
    size_t total = lead + n + CF_GUARD;
    o->name = name;
    o->n = n;
    o->lead = lead;
    o->init = cf_alloc(c, total * sizeof(float));
    o->host = cf_alloc(c, total * sizeof(float));
    if (!o->init || !o->host)
        return NULL;
    cf_fill_guard(o->init, lead);
    cf_fill_guard(o->init + lead + n, CF_GUARD);
    if (init)
        memcpy(o->init + lead, init, n * sizeof(float));
    else
        cf_fill_nan(o->init + lead, n);
    svk_buffer_params p = svk_buffer_params_default();
    p.size = total * sizeof(float);
    p.name = name;
    if (!cf_ok(c, svk_buffer_create(c->cf->ctx, &p, &o->buf)))
        return NULL;
    c->n_outs++; /* from here cf_end frees it */
    if (!cf_ok(c, svk_buffer_upload(o->buf, 0, o->init, p.size)))
        return NULL;
    return o;
}

cf_out *cf_output(cf_case *c, const char *name, size_t n, const float *init)
{
    return output(c, name, n, init, CF_GUARD);
}

cf_out *cf_output_at(cf_case *c, const char *name, size_t n, const float *init, bool vec4)
{
    return output(c, name, n, init, vec4 ? CF_GUARD_VEC4 : CF_GUARD);
}

svk_cmdlist *cf_list(cf_case *c)
{
    return c->list;
}

/* Downloads every output into dst[i] (total elements each); checks guards. */
static bool read_outputs(cf_case *c, float **dst)
{
    for (uint32_t i = 0; i < c->n_outs; i++) {
        cf_out *o = &c->outs[i];
        size_t total = o->lead + o->n + CF_GUARD;
        if (!cf_ok(c, svk_buffer_download(o->buf, 0, dst[i], total * sizeof(float))))
            return false;
        long g0 = cf_check_guard(dst[i], o->lead), g1 = cf_check_guard(dst[i] + o->lead + o->n, CF_GUARD);
        if (g0 >= 0 || g1 >= 0) {
            cf_fail(c, "%s: stray write %s the output (guard element %ld)", o->name, g0 >= 0 ? "before" : "after",
                 g0 >= 0 ? g0 : g1);
            return false;
        }
    }
    return true;
}

static bool submit(cf_case *c)
{
    return cf_ok(c, svk_cmdlist_submit(c->list)) && cf_ok(c, svk_cmdlist_wait(c->list));
}

bool cf_run(cf_case *c)
{
    if (c->failed || !cf_ok(c, svk_cmdlist_end(c->list)) || !submit(c))
        return false;
    /* GPU time of the first run, from timestamps when the device has them. */
    double ns[256];
    uint32_t count = 256;
    if (svk_ctx_device_info(c->cf->ctx)->timestamps && svk_cmdlist_timings(c->list, ns, NULL, NULL, &count) == SVK_OK)
        for (uint32_t i = 0; i < count; i++)
            c->ms += ns[i] * 1e-6;
    float *first[MAX_BUFFERS];
    for (uint32_t i = 0; i < c->n_outs; i++)
        first[i] = c->outs[i].host;
    if (!read_outputs(c, first))
        return false;
    /* Determinism: the same inputs again, through the same recorded list. */
    float *second[MAX_BUFFERS];
    for (uint32_t i = 0; i < c->n_outs; i++) {
        cf_out *o = &c->outs[i];
        second[i] = cf_alloc(c, (o->lead + o->n + CF_GUARD) * sizeof(float));
        if (!second[i] || !cf_ok(c, svk_buffer_upload(o->buf, 0, o->init, (o->lead + o->n + CF_GUARD) * sizeof(float))))
            return false;
    }
    if (!submit(c) || !read_outputs(c, second))
        return false;
    for (uint32_t i = 0; i < c->n_outs; i++) {
        cf_out *o = &c->outs[i];
        if (memcmp(first[i], second[i], (o->lead + o->n + CF_GUARD) * sizeof(float))) {
            cf_fail(c, "%s: a second run on the same inputs gave different bits (not deterministic)", o->name);
            return false;
        }
        /* From here on host points at the n results. */
        o->host = first[i] + o->lead;
    }
    return true;
}

static void note_error(cf_case *c, const char *what, double err, double tol, const char *detail)
{
    /* The row shows the output closest to (or furthest past) its tolerance
     * (an exact comparison, tol 0, ranks by its error alone). */
    double ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
    double worst = c->worst_tol > 0 ? c->worst_err / c->worst_tol : (c->worst_err > 0 ? INFINITY : 0);
    if (c->compared++ == 0 || ratio > worst) {
        c->worst_err = err;
        c->worst_tol = tol;
        snprintf(c->worst_what, sizeof(c->worst_what), "%s%s", what, detail);
    }
    if (!(err <= tol))
        cf_fail(c, "%s: rel err %.3e > tol %.1e%s", what, err, tol, detail);
}

static void compare(cf_case *c, const cf_out *out, const double *ref, const double *scale, double tol)
{
    if (c->failed || !out || !ref)
        return;
    double err = scale ? cf_rel_error_scaled(out->host, ref, scale, out->n) : cf_rel_error(out->host, ref, out->n);
    char detail[128] = "";
    if (!(err <= tol)) {
        size_t w = cf_worst_index(out->host, ref, out->n);
        snprintf(detail, sizeof(detail), " (worst [%zu]: got %.9g, want %.9g)", w, (double)out->host[w], ref[w]);
    }
    note_error(c, out->name, err, tol, detail);
}

void cf_compare(cf_case *c, const cf_out *out, const double *ref, double tol)
{
    compare(c, out, ref, NULL, tol);
}

void cf_compare_scaled(cf_case *c, const cf_out *out, const double *ref, const double *scale, double tol)
{
    if (scale)
        compare(c, out, ref, scale, tol);
}

void cf_compare_scalar(cf_case *c, const char *name, float got, double ref, double tol)
{
    if (c->failed)
        return;
    double err = isfinite(got) ? fabs((double)got - ref) / (ref != 0 ? fabs(ref) : 1.0) : INFINITY;
    char detail[96];
    snprintf(detail, sizeof(detail), " (got %.9g, want %.9g)", (double)got, ref);
    note_error(c, name, err, tol, err <= tol ? "" : detail);
}

double *cf_to_double(cf_case *c, const float *x, size_t n)
{
    double *d = cf_alloc(c, n * sizeof(double));
    if (d && x)
        for (size_t i = 0; i < n; i++)
            d[i] = x[i];
    return d;
}

float *cf_random(cf_case *c, size_t n, float lo, float hi)
{
    float *x = cf_alloc(c, n * sizeof(float));
    if (x)
        cf_fill_uniform(&c->cf->rng, x, n, lo, hi);
    return x;
}

void cf_end(cf_case *c)
{
    if (!c)
        return;
    if (!c->failed && c->compared == 0)
        cf_fail(c, "nothing was compared"); /* a case that checks nothing must not pass */
    cf_state *cf = c->cf;
    if (c->failed) {
        cf->failed++;
        printf("%-18s %-10s %-34s %10s %8s FAIL %8.2f ms  %s\n", c->kernel, c->direction, c->shape, "-", "-", c->ms,
               c->why);
    } else {
        cf->passed++;
        printf("%-18s %-10s %-34s %10.3e %8.0e PASS %8.2f ms%s%s\n", c->kernel, c->direction, c->shape, c->worst_err,
               c->worst_tol, c->ms, cf->verbose ? "  worst: " : "", cf->verbose ? c->worst_what : "");
    }
    fflush(stdout);
    svk_cmdlist_destroy(&c->list);
    for (uint32_t i = 0; i < c->n_inputs; i++)
        svk_buffer_destroy(&c->inputs[i]);
    for (uint32_t i = 0; i < c->n_outs; i++)
        svk_buffer_destroy(&c->outs[i].buf);
    for (uint32_t i = 0; i < c->n_allocs; i++)
        free(c->allocs[i]);
    free(c);
}
