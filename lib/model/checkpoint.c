/*
 * Checkpoints: safetensors with the tensor names of docs/MODEL.md, the
 * configuration in __metadata__["svk.config"], and optionally the AdamW
 * moments ("optimizer.m.<name>", "optimizer.v.<name>") and step
 * (__metadata__["svk.step"]) in the same file.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "checkpoint.h"
#include "io/safetensors.h"
#include "model_internal.h"
#include "vk/vk_context.h"

#define CONFIG_KEY "svk.config"
#define STEP_KEY "svk.step"
/* fp16's loss scaler, with the optimiser state: its scale and the steps in
 * a row without overflow (svk_model_params.loss_scale). */
#define LOSS_SCALE_KEY "svk.loss_scale"
#define LOSS_SCALE_GOOD_KEY "svk.loss_scale_good"

static const svk_slab state_slabs[3] = {SVK_SLAB_PARAM, SVK_SLAB_ADAM_M, SVK_SLAB_ADAM_V};
static const char *const state_prefix[3] = {"", "optimizer.m.", "optimizer.v."};

svk_save_params svk_save_params_default(void)
{
    return (svk_save_params){0};
}

/* An application's metadata entry, checked before a save does anything. */
static svk_status check_metadata(svk_log *log, const svk_save_params *p, const char *path)
{
    if (p->n_metadata > SVK_METADATA_MAX || (p->n_metadata && !p->metadata))
        return svk_error(log, SVK_ERROR_INVALID_ARG, "saving %s: %u metadata entries%s (at most %u)", path,
                         p->n_metadata, p->metadata ? "" : " but metadata is NULL", SVK_METADATA_MAX);
    for (uint32_t i = 0; i < p->n_metadata; i++) {
        const char *k = p->metadata[i].key, *v = p->metadata[i].value;
        if (!k || !v)
            return svk_error(log, SVK_ERROR_INVALID_ARG, "saving %s: metadata[%u] has a NULL %s", path, i,
                             k ? "value" : "key");
        const size_t kl = strlen(k);
        bool printable = kl >= 1 && kl <= SVK_METADATA_KEY_MAX;
        for (size_t j = 0; j < kl && printable; j++)
            printable = k[j] > ' ' && k[j] < 0x7f && k[j] != '"' && k[j] != '\\';
        if (!printable)
            return svk_error(log, SVK_ERROR_INVALID_ARG,
                             "saving %s: metadata key '%.*s' must be 1 to %u bytes of printable ASCII without "
                             "spaces, '\"' or '\\'", path, 160, k, SVK_METADATA_KEY_MAX);
        if (!strcmp(k, "format") || !strncmp(k, "svk.", 4))
            return svk_error(log, SVK_ERROR_INVALID_ARG, "saving %s: metadata key '%s' is libsvk's own", path, k);
        if (strlen(v) > SVK_METADATA_VALUE_MAX)
            return svk_error(log, SVK_ERROR_INVALID_ARG, "saving %s: metadata '%s' is %zu bytes (at most %u)", path,
                             k, strlen(v), SVK_METADATA_VALUE_MAX);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(p->metadata[j].key, k))
                return svk_error(log, SVK_ERROR_INVALID_ARG, "saving %s: metadata key '%s' given twice", path, k);
    }
    return SVK_OK;
}

svk_status svk_model_save_ex(svk_model *m, const char *path, const svk_save_params *params)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PATH(log, path);
    SVK_CHECK_PTR(log, params);
    SVK_CHECK_RESERVED(log, params->reserved);
    const bool optimizer = params->optimizer;
    /* The file's step count must be the one its weights belong to. */
    svk_status ust = check_metadata(log, params, path);
    if (ust == SVK_OK)
        ust = svk_model_check_usable(m, __func__);
    if (ust == SVK_OK)
        ust = svk_model_settle(m);
    /* Checked where the state lives, before anything is downloaded or the
     * file touched: a diverged model must not replace a good checkpoint. */
    if (ust == SVK_OK && !params->allow_nonfinite)
        ust = svk_model_check_state_finite(m, optimizer, path);
    if (ust != SVK_OK)
        return ust;
    const int kinds = optimizer ? 3 : 1;
    const size_t n = m->n_params * (size_t)kinds;
    svk_st_entry *e = svk_calloc(n, sizeof(*e));
    char (*names)[SVK_PARAM_NAME_MAX + 16] = svk_calloc(n, sizeof(*names));
    svk_st_meta *meta = svk_calloc(5 + (size_t)params->n_metadata, sizeof(*meta));
    /* The moments share the parameters' layout, so one slab size fits all. */
    const uint64_t slab = m->plan.slab_elems[SVK_SLAB_PARAM];
    float *host = svk_malloc((slab ? slab : 1) * sizeof(float) * (size_t)kinds);
    svk_status st = SVK_OK;
    if (!e || !names || !meta || !host) {
        st = svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory saving %s", path);
        goto done;
    }
    /* One read per slab, not one per tensor: each read is a round trip to
     * the device (a submission and a wait). */
    for (int k = 0; k < kinds && st == SVK_OK; k++) {
        /* A model that has not trained holds no moments: they are zero. */
        if (k > 0 && !m->plan.train_state)
            memset(host + (size_t)k * slab, 0, slab * sizeof(float));
        else
            st = m->impl->read(m, state_slabs[k], 0, slab, host + (size_t)k * slab);
    }
    for (int k = 0; k < kinds && st == SVK_OK; k++)
        for (size_t i = 0; i < m->n_params; i++) {
            const svk_param_info *p = &m->info[i];
            const svk_plan_tensor *t = &m->plan.tensors[svk_plan_param_tensor(&m->plan, i, state_slabs[k])];
            svk_st_entry *x = &e[(size_t)k * m->n_params + i];
            snprintf(names[(size_t)k * m->n_params + i], sizeof(names[0]), "%s%s", state_prefix[k], p->name);
            x->name = names[(size_t)k * m->n_params + i];
            x->dtype = SVK_ST_F32;
            x->ndim = p->ndim;
            x->shape[0] = p->shape[0];
            x->shape[1] = p->shape[1];
            x->data = host + (size_t)k * slab + t->offset;
        }
    if (st != SVK_OK)
        goto done;
    char config[1024], step[32], scale_text[32], good_text[32];
    if ((st = svk_model_config_to_json(&m->params.config, config, sizeof(config))) != SVK_OK)
        goto done;
    snprintf(step, sizeof(step), "%" PRIu64, m->step);
    size_t n_meta = 0;
    meta[n_meta++] = (svk_st_meta){CONFIG_KEY, config};
    meta[n_meta++] = (svk_st_meta){"format", "pt"};
    if (optimizer)
        meta[n_meta++] = (svk_st_meta){STEP_KEY, step};
    if (optimizer && m->params.precision == SVK_PRECISION_FP16) {
        float scale;
        uint32_t good;
        if ((st = svk_model_get_loss_scaler(m, &scale, &good)) != SVK_OK)
            goto done;
        snprintf(scale_text, sizeof(scale_text), "%.9g", (double)scale);
        snprintf(good_text, sizeof(good_text), "%u", good);
        meta[n_meta++] = (svk_st_meta){LOSS_SCALE_KEY, scale_text};
        meta[n_meta++] = (svk_st_meta){LOSS_SCALE_GOOD_KEY, good_text};
    }
    for (uint32_t i = 0; i < params->n_metadata; i++)
        meta[n_meta++] = (svk_st_meta){(char *)params->metadata[i].key, (char *)params->metadata[i].value};
    st = svk_st_write(log, path, e, n, meta, n_meta);
done:
    free(e);
    free(names);
    free(meta);
    free(host);
    return st;
}

svk_status svk_model_save(svk_model *m, const char *path, bool optimizer)
{
    svk_save_params p = svk_save_params_default();
    p.optimizer = optimizer;
    return svk_model_save_ex(m, path, &p);
}

svk_status svk_checkpoint_metadata(const char *path, const char *key, char *value, size_t size, bool *found)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, path);
    SVK_CHECK_PTR(NULL, key);
    SVK_CHECK_PTR(NULL, value);
    SVK_CHECK_PTR(NULL, found);
    if (size == 0)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: size is 0", __func__);
    value[0] = '\0';
    *found = false;
    svk_st_file f;
    svk_status st = svk_st_read_header(NULL, path, &f);
    if (st != SVK_OK)
        return st;
    if (!svk_st_meta_get(&f, CONFIG_KEY))
        st = svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: no \"%s\" in __metadata__ (not an svk checkpoint?)",
                       path, CONFIG_KEY);
    const char *v = st == SVK_OK ? svk_st_meta_get(&f, key) : NULL;
    if (v && strlen(v) >= size)
        st = svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: metadata '%.64s' of %s needs %zu bytes, got %zu", __func__,
                       key, path, strlen(v) + 1, size);
    else if (v) {
        memcpy(value, v, strlen(v) + 1);
        *found = true;
    }
    svk_st_free(&f);
    return st;
}

/* The configuration in a parsed file. */
static svk_status file_config(svk_log *log, const char *path, const svk_st_file *f, svk_model_config *c)
{
    const char *json = svk_st_meta_get(f, CONFIG_KEY);
    if (!json)
        return svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: no \"%s\" in __metadata__ (not an svk checkpoint?)", path,
                         CONFIG_KEY);
    svk_status st = svk_model_config_from_json(json, c);
    if (st == SVK_OK)
        st = svk_model_config_validate(c);
    if (st != SVK_OK) {
        /* A copy: svk_error overwrites the thread's message it would read. */
        char why[512];
        snprintf(why, sizeof(why), "%s", svk_last_error());
        return svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: its configuration is invalid: %s", path, why);
    }
    return SVK_OK;
}

/* The optimiser step as written by svk_model_save: decimal digits only
 * (strtoull would take a sign, spaces and wrap around). */
static bool parse_step(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static const char *shape_text(char buf[96], uint32_t ndim, const uint64_t *shape)
{
    size_t used = (size_t)snprintf(buf, 96, "[");
    for (uint32_t d = 0; d < ndim && used < 96; d++)
        used += (size_t)snprintf(buf + used, 96 - used, "%s%llu", d ? ", " : "", (unsigned long long)shape[d]);
    if (used < 96)
        snprintf(buf + used, 96 - used, "]");
    return buf;
}

/* The cheap test of a file against a configuration, arithmetic only: a
 * configuration of n parameters holding elems elements in all needs at
 * least n tensors and 4 elems bytes of data. Weighed before any list of
 * names is built, so that a few hundred bytes claiming 65536 layers cost
 * nothing; once it passes, the file's own table is at least as long as
 * the list, and every later check is linear (with lookups) in the bytes
 * read. */
static svk_status check_counts(svk_log *log, const char *path, const svk_st_file *f, const svk_model_config *c,
                               size_t n, uint64_t elems)
{
    uint64_t bytes = 0; /* the tensors lie in the file, back to back: no wrap */
    for (size_t i = 0; i < f->n_tensors; i++)
        bytes += f->tensors[i].bytes;
    if (f->n_tensors >= n && bytes / 4 >= elems)
        return SVK_OK;
    return svk_error(log, SVK_ERROR_BAD_CHECKPOINT,
                     "%s: its configuration (layers=%u, width=%u, vocab=%u) needs %zu tensors of %llu bytes of "
                     "weights, but the file holds %zu tensors of %llu bytes",
                     path, c->layers, c->width, c->vocab, n, (unsigned long long)elems * 4, f->n_tensors,
                     (unsigned long long)bytes);
}

/* Matches the file's tensors with the parameters params[0 .. n): for each
 * kind k < kinds (weights, then m, then v), "<prefix k><name>" must be
 * there, F32, in the parameter's shape; found[k n + i] (found may be NULL)
 * receives it. Then every tensor of the file must be one of the 3 n names
 * (moments the load does not ask for are ignored, but not foreign names).
 * Linear in n and the file's tensors, apart from svk_st_find: each file
 * tensor is marked when matched, rather than looked for among the names. */
static svk_status match_tensors(svk_log *log, const char *path, const svk_st_file *f, const svk_param_info *params,
                                size_t n, int kinds, const svk_st_tensor **found)
{
    bool *claimed = svk_calloc(f->n_tensors ? f->n_tensors : 1, sizeof(*claimed));
    if (!claimed)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory loading %s", path);
    svk_status st = SVK_OK;
    for (int k = 0; k < 3 && st == SVK_OK; k++)
        for (size_t i = 0; i < n && st == SVK_OK; i++) {
            const svk_param_info *p = &params[i];
            char name[SVK_PARAM_NAME_MAX + 16];
            snprintf(name, sizeof(name), "%s%s", state_prefix[k], p->name);
            const svk_st_tensor *t = svk_st_find(f, name);
            if (t)
                claimed[t - f->tensors] = true;
            if (k >= kinds)
                continue;
            if (!t) {
                st = svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' is missing%s", path, name,
                               k ? " (saved without optimiser state?)" : "");
                break;
            }
            uint64_t want[2] = {p->shape[0], p->shape[1]};
            bool shape_ok = t->ndim == p->ndim && t->shape[0] == want[0] && (p->ndim < 2 || t->shape[1] == want[1]);
            if (t->dtype != SVK_ST_F32 || !shape_ok) {
                /* The file's configuration is the one checked against, so
                 * here the file disagrees with itself. */
                char got_s[96], want_s[96];
                st = svk_error(log, SVK_ERROR_BAD_CHECKPOINT,
                               "%s: tensor '%s' is %s %s, but the configuration needs F32 %s", path, name,
                               svk_st_dtype_name(t->dtype), shape_text(got_s, t->ndim, t->shape),
                               shape_text(want_s, p->ndim, want));
                break;
            }
            if (found)
                found[(size_t)k * n + i] = t;
        }
    for (size_t j = 0; j < f->n_tensors && st == SVK_OK; j++)
        if (!claimed[j])
            st = svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: unexpected tensor '%s' for this configuration", path,
                           f->tensors[j].name);
    free(claimed);
    return st;
}

/* The values of t, a tensor of kind k (0 weights, 1 m, 2 v). Weights must
 * be finite unless flags has SVK_LOAD_ALLOW_NONFINITE. The moments are
 * checked whatever the flags: every later update reads them, and the
 * device's guard against a bad step looks only at that step's loss and
 * gradient norm, so a NaN or infinite m or v, or a negative v (whose
 * square root is NaN), writes NaN into every weight it touches at the
 * next step without that step being skipped, and no later step undoes it
 * (the saved file is then refused). The flag is for inspecting a diverged
 * run's weights, which need no moments: load those without
 * SVK_LOAD_OPTIMIZER. -0.0 is accepted in v, as it compares equal to 0:
 * the update's sqrt(-0 / bc2) + eps is eps, and beta2 (-0) + (1 - beta2)
 * g^2 is +0 or positive, as from +0 (lib/ref/adamw.c, shaders/adamw.comp). */
static svk_status check_values(svk_log *log, const char *path, const svk_st_tensor *t, int k, uint32_t flags)
{
    static const char *const why[3] = {
        "non-finite values are refused unless loaded with SVK_LOAD_ALLOW_NONFINITE",
        "optimiser moments must be finite, whatever the flags",
        "the second moment must be finite and >= 0, whatever the flags",
    };
    if (k == 0 && (flags & SVK_LOAD_ALLOW_NONFINITE))
        return SVK_OK;
    for (uint64_t j = 0; j < t->elems; j++) {
        float x;
        memcpy(&x, (const float *)t->data + j, sizeof(x)); /* data need not be aligned */
        if (!isfinite(x) || (k == 2 && !(x >= 0)))
            return svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' holds %g at element %llu (%s)", path,
                             t->name, (double)x, (unsigned long long)j, why[k]);
    }
    return SVK_OK;
}

svk_status svk_checkpoint_file_config(svk_log *log, const svk_st_file *f, const char *path, svk_model_config *config)
{
    svk_model_config c;
    uint64_t elems = 0;
    size_t n = 0;
    svk_param_info *params = NULL;
    svk_status st = file_config(log, path, f, &c);
    /* Callers build a model of this configuration next: the file must be
     * able to fill it (the weights' names and shapes), checked here while
     * that costs no more than the file's own size. */
    if (st == SVK_OK) {
        n = svk_model_param_totals(&c, &elems);
        st = check_counts(log, path, f, &c, n, elems);
    }
    if (st == SVK_OK && !(params = svk_calloc(n, sizeof(*params))))
        st = svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading %s", path);
    if (st == SVK_OK) {
        svk_model_param_list(&c, params, n);
        st = match_tensors(log, path, f, params, n, 1, NULL);
    }
    if (st == SVK_OK)
        *config = c;
    free(params);
    return st;
}

svk_status svk_checkpoint_config(const char *path, svk_model_config *config)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, path);
    SVK_CHECK_PTR(NULL, config);
    /* The header alone: the names and shapes are what is checked, and a
     * checkpoint's tensors may be gigabytes. */
    svk_st_file f;
    svk_status st = svk_st_read_header(NULL, path, &f);
    if (st != SVK_OK)
        return st;
    st = svk_checkpoint_file_config(NULL, &f, path, config);
    svk_st_free(&f);
    return st;
}

/* The loss scaler a file's optimiser state carries (LOSS_SCALE_KEY), or
 * the model's first one where it has none (a run saved in another
 * precision, or before libsvk kept it). */
static svk_status file_loss_scaler(svk_model *m, const svk_st_file *f, const char *path, float *scale, uint32_t *good)
{
    const char *s = svk_st_meta_get(f, LOSS_SCALE_KEY), *g = svk_st_meta_get(f, LOSS_SCALE_GOOD_KEY);
    *scale = m->params.loss_scale;
    *good = 0;
    if (!s && !g)
        return SVK_OK;
    char *end = NULL;
    const double v = s ? strtod(s, &end) : 0;
    int e2 = 0;
    uint64_t n = 0;
    if (!s || !*s || *end || !(v > 0) || frexp(v, &e2) != 0.5 || e2 - 1 < -SVK_LOSS_SCALE_MAX_EXP ||
        e2 - 1 > SVK_LOSS_SCALE_MAX_EXP || !parse_step(g, &n) || n > (1u << 24))
        return svk_error(svk_model_log(m), SVK_ERROR_BAD_CHECKPOINT,
                         "%s: loss scaler \"%s\"=\"%.32s\", \"%s\"=\"%.32s\": need a power of two in [2^-%d, 2^%d] "
                         "and a count of at most 2^24",
                         path, LOSS_SCALE_KEY, s ? s : "(missing)", LOSS_SCALE_GOOD_KEY, g ? g : "(missing)",
                         SVK_LOSS_SCALE_MAX_EXP, SVK_LOSS_SCALE_MAX_EXP);
    *scale = (float)v;
    *good = (uint32_t)n;
    return SVK_OK;
}

/* f's configuration, which must be the model's, and with the optimiser
 * state its step (*step; 0 otherwise). */
static svk_status check_file_fits(svk_model *m, const svk_st_file *f, const char *path, bool optimizer,
                                  svk_model_config *c, uint64_t *step)
{
    svk_log *log = svk_model_log(m);
    svk_status st = file_config(log, path, f, c);
    if (st != SVK_OK)
        return st;
    if (!svk_model_config_equal(c, &m->params.config)) {
        char want[1024], got[1024];
        svk_model_config_to_json(&m->params.config, want, sizeof(want));
        svk_model_config_to_json(c, got, sizeof(got));
        return svk_error(log, SVK_ERROR_BAD_CHECKPOINT, "%s: configuration %s differs from the model's %s", path, got,
                         want);
    }
    *step = 0;
    if (optimizer && !parse_step(svk_st_meta_get(f, STEP_KEY), step))
        return svk_error(log, SVK_ERROR_BAD_CHECKPOINT,
                         "%s: no valid optimiser step (__metadata__ \"%s\" must be a decimal count) to resume from",
                         path, STEP_KEY);
    if (*step > SVK_MAX_STEP)
        return svk_error(log, SVK_ERROR_BAD_CHECKPOINT,
                         "%s: optimiser step %llu is beyond the most libsvk counts to (SVK_MAX_STEP = %llu)", path,
                         (unsigned long long)*step, (unsigned long long)SVK_MAX_STEP);
    return SVK_OK;
}

/* Every tensor the model needs, with its shape, dtype and values; then
 * nothing else. Checked in full before anything is written, so a refused
 * file leaves the model as it was. *found (malloc'd, NULL on failure):
 * entry k * n_params + i is parameter i's tensor of state kind k. */
static svk_status find_state(svk_model *m, const svk_st_file *f, const char *path, const svk_model_config *c,
                             int kinds, uint32_t flags, const svk_st_tensor ***found)
{
    svk_log *log = svk_model_log(m);
    *found = NULL;
    svk_status st = check_counts(log, path, f, c, m->n_params, m->n_elems);
    if (st != SVK_OK)
        return st;
    const svk_st_tensor **t = svk_calloc(m->n_params * (size_t)kinds, sizeof(*t));
    if (!t)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory loading %s", path);
    st = match_tensors(log, path, f, m->info, m->n_params, kinds, t);
    for (int k = 0; k < kinds && st == SVK_OK; k++)
        for (size_t i = 0; i < m->n_params && st == SVK_OK; i++)
            st = check_values(log, path, t[(size_t)k * m->n_params + i], k, flags);
    if (st != SVK_OK)
        free(t);
    else
        *found = t;
    return st;
}

/* Each slab assembled on the host (aligned copies of the file's data),
 * then one write per slab rather than a round trip per tensor. *written:
 * whether a write was attempted (one that fails may have replaced part of
 * the slab already, since uploads go in pieces). */
static svk_status write_state(svk_model *m, const char *path, const svk_st_tensor **found, int kinds, bool *written)
{
    const uint64_t slab = m->plan.slab_elems[SVK_SLAB_PARAM]; /* the moments share its layout */
    *written = false;
    float *buf = svk_calloc(slab ? slab : 1, sizeof(float));
    if (!buf)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory loading %s", path);
    svk_status st = SVK_OK;
    for (int k = 0; k < kinds && st == SVK_OK; k++) {
        for (size_t i = 0; i < m->n_params; i++) {
            const svk_st_tensor *t = found[(size_t)k * m->n_params + i];
            const svk_plan_tensor *pt = &m->plan.tensors[svk_plan_param_tensor(&m->plan, i, state_slabs[k])];
            memcpy(buf + pt->offset, t->data, t->bytes);
        }
        *written = true;
        st = m->impl->write(m, state_slabs[k], 0, slab, buf);
    }
    free(buf);
    return st;
}

svk_status svk_checkpoint_apply(svk_model *m, const svk_st_file *f, const char *path, uint32_t flags)
{
    const bool optimizer = flags & SVK_LOAD_OPTIMIZER;
    const int kinds = optimizer ? 3 : 1;
    svk_model_config c;
    uint64_t step = 0;
    /* A step in flight settles first, or its outcome would later count
     * against the loaded step. An unusable model is not settled (that is
     * what failed): the load replaces all of its state. */
    svk_status st = m->unusable[0] ? SVK_OK : svk_model_settle(m);
    float scale = m->params.loss_scale;
    uint32_t good = 0;
    if (st == SVK_OK)
        st = check_file_fits(m, f, path, optimizer, &c, &step);
    if (st == SVK_OK && optimizer)
        st = file_loss_scaler(m, f, path, &scale, &good);
    if (st != SVK_OK)
        return st;
    const svk_st_tensor **found;
    if ((st = find_state(m, f, path, &c, kinds, flags, &found)) != SVK_OK)
        return st;
    /* The moments go where the training state keeps them. */
    if (optimizer && (st = svk_model_need_train_state(m)) != SVK_OK) {
        free(found);
        return st;
    }
    bool written = false;
    st = write_state(m, path, found, kinds, &written);
    free(found);
    if (st == SVK_OK) {
        if (optimizer) {
            m->step = step;
            st = svk_model_set_loss_scaler(m, scale, good);
        } else {
            st = svk_model_reset_optimizer(m);
        }
    }
    if (st == SVK_OK) {
        /* Every slab of the state was rewritten and any step in flight
         * waited for (the writes wait), so nothing stale is left. */
        m->step_pending = m->older_pending = false;
        m->last_skipped = false;
        m->unusable[0] = '\0';
    } else if (written) {
        snprintf(m->unusable, sizeof(m->unusable), "loading %s failed part way, after some weights were replaced (%s)",
                 path, svk_last_error());
    }
    return st;
}

static svk_status check_load_flags(svk_log *log, uint32_t flags, const char *func)
{
    const uint32_t known = SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE;
    if (flags & ~known)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: flags 0x%x has bits that are not SVK_LOAD_* flags (0x%x)",
                         func, flags, flags & ~known);
    return SVK_OK;
}

svk_status svk_model_load_ex(svk_model *m, const char *path, uint32_t flags)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PATH(log, path);
    svk_status st = check_load_flags(log, flags, __func__);
    if (st != SVK_OK)
        return st;
    svk_st_file f;
    if ((st = svk_st_read(log, path, &f)) != SVK_OK)
        return st;
    st = svk_checkpoint_apply(m, &f, path, flags);
    svk_st_free(&f);
    return st;
}

svk_status svk_model_load(svk_model *m, const char *path, bool optimizer)
{
    return svk_model_load_ex(m, path, optimizer ? SVK_LOAD_OPTIMIZER : 0);
}

svk_status svk_model_open(svk_ctx *ctx, const char *path, uint32_t flags, svk_model **model)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, model);
    *model = NULL;
    svk_log *log = ctx ? &ctx->log : NULL;
    SVK_CHECK_PATH(log, path);
    svk_status st = check_load_flags(log, flags, __func__);
    if (st != SVK_OK)
        return st;
    /* Read once: the configuration and the tensors come from the same
     * bytes, where a second open could find another file. */
    svk_st_file f;
    if ((st = svk_st_read(log, path, &f)) != SVK_OK)
        return st;
    svk_model_params mp = svk_model_params_default();
    mp.backend = ctx ? SVK_BACKEND_VULKAN : SVK_BACKEND_CPU;
    mp.ctx = ctx;
    svk_model *m = NULL;
    /* The configuration, weighed against the file before a model of it is
     * built (svk_checkpoint_config's promise: linear in the file's size). */
    st = svk_checkpoint_file_config(log, &f, path, &mp.config);
    if (st == SVK_OK)
        st = svk_model_create(&mp, &m);
    if (st == SVK_OK)
        st = svk_checkpoint_apply(m, &f, path, flags);
    svk_st_free(&f);
    if (st != SVK_OK) {
        svk_model_destroy(&m);
        return st;
    }
    *model = m;
    return SVK_OK;
}

/* The entry of the diagnostic writers: a usable model whose step in
 * flight has finished, so the tensors read are that step's. */
static svk_status begin_dump(svk_model *m, const char *path, const char *func)
{
    svk_log *log = svk_model_log(m);
    if (!path || !*path)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: path is %s", func, path ? "empty" : "NULL");
    svk_status st = svk_model_check_usable(m, func);
    return st == SVK_OK ? svk_model_settle(m) : st;
}

svk_status svk_model_save_grads(svk_model *model, const char *path)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, model);
    svk_model *m = model;
    svk_status st = begin_dump(m, path, __func__);
    if (st != SVK_OK)
        return st;
    svk_log *log = svk_model_log(m);
    if (!m->plan.train_state)
        return svk_error(log, SVK_ERROR_INVALID_STATE, "%s: the model has taken no training step: it holds no gradients",
                         __func__);
    svk_st_entry *e = svk_calloc(m->n_params, sizeof(*e));
    char (*names)[SVK_PARAM_NAME_MAX + 8] = svk_calloc(m->n_params, sizeof(*names));
    float *host = svk_malloc((m->n_elems ? m->n_elems : 1) * sizeof(float));
    if (!e || !names || !host)
        st = svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory writing %s", path);
    float *at = host;
    for (size_t i = 0; i < m->n_params && st == SVK_OK; i++) {
        const svk_param_info *p = &m->info[i];
        const svk_plan_tensor *t = &m->plan.tensors[svk_plan_param_tensor(&m->plan, i, SVK_SLAB_GRAD)];
        st = m->impl->read(m, SVK_SLAB_GRAD, t->offset, t->elems, at);
        snprintf(names[i], sizeof(names[0]), "grad.%s", p->name);
        e[i] = (svk_st_entry){names[i], SVK_ST_F32, p->ndim, {p->shape[0], p->shape[1]}, at};
        at += p->elems;
    }
    /* Under loss scaling the slab holds the gradients times the step's
     * scale, a power of two: its inverse gives them back exactly. */
    if (st == SVK_OK && m->plan.loss_scaling) {
        float out[SVK_OUT_COUNT];
        const svk_plan_tensor *t = &m->plan.tensors[m->plan.output];
        if ((st = m->impl->read(m, SVK_SLAB_OUTPUT, t->offset, SVK_OUT_COUNT, out)) == SVK_OK) {
            const float inv = 1.0f / out[SVK_OUT_LOSS_SCALE];
            for (uint64_t i = 0; i < m->n_elems; i++)
                host[i] *= inv;
        }
    }
    if (st == SVK_OK)
        st = svk_st_write(log, path, e, m->n_params, NULL, 0);
    free(e);
    free(names);
    free(host);
    return st;
}

svk_status svk_model_save_logits(svk_model *model, const char *path)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, model);
    svk_model *m = model;
    svk_status st = begin_dump(m, path, __func__);
    if (st != SVK_OK)
        return st;
    svk_log *log = svk_model_log(m);
    const svk_plan *p = &m->plan;
    if (!m->logits_kept)
        return svk_error(log, SVK_ERROR_INVALID_STATE,
                         "%s: the model holds no logits: the last batch it ran was a training step, whose backward "
                         "pass replaced them with their gradient, or none was run; run svk_model_eval_loss or "
                         "svk_model_forward_logits on the batch first", __func__);
    const svk_plan_tensor *t = &p->tensors[p->logits];
    float *host = svk_malloc(t->elems * sizeof(float));
    if (!host)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory writing %s", path);
    st = m->impl->read(m, SVK_SLAB_ACT, t->offset, t->elems, host);
    svk_st_entry e = {"logits", SVK_ST_F32, 3, {p->B, p->T, p->config.vocab}, host};
    if (st == SVK_OK)
        st = svk_st_write(log, path, &e, 1, NULL, 0);
    free(host);
    return st;
}
