#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "params.h"

typedef struct list {
    svk_param_info *out;
    size_t cap, n;
    uint64_t elems;   /* of all n, stored or not */
} list;

static void add(list *l, uint32_t ndim, uint32_t d0, uint32_t d1, float std, float value, bool decay,
                const char *fmt, ...) SVK_PRINTF(8, 9);

static void add(list *l, uint32_t ndim, uint32_t d0, uint32_t d1, float std, float value, bool decay,
                const char *fmt, ...)
{
    l->elems += (uint64_t)d0 * (ndim > 1 ? d1 : 1);
    if (l->n < l->cap) {
        svk_param_info *p = &l->out[l->n];
        memset(p, 0, sizeof(*p));
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->name, sizeof(p->name), fmt, ap);
        va_end(ap);
        p->ndim = ndim;
        p->shape[0] = d0;
        p->shape[1] = ndim > 1 ? d1 : 0;
        p->elems = (uint64_t)d0 * (ndim > 1 ? d1 : 1);
        p->init_std = std;
        p->init_value = value;
        p->decay = decay;
    }
    l->n++;
}

/* Norms: "<prefix>[.<sub>].weight" (gain, 1) and, for layernorm, ".bias" (0).
 * A group of norms lists all gains first, then all biases: the fused
 * SiameseNorm kernels take the gains of P, Q, I (or N_x, N_y, N_out) as one
 * [3, C] array, and parameters are laid out in list order. */
static void norms(list *l, const svk_model_config *c, const char *prefix, const char *const *subs, int n)
{
    for (int pass = 0; pass < (c->norm == SVK_NORM_LAYERNORM ? 2 : 1); pass++)
        for (int i = 0; i < n; i++)
            add(l, 1, c->width, 0, 0, pass ? 0.0f : 1.0f, false, "%s%s%s.%s", prefix, subs[i] ? "." : "",
                subs[i] ? subs[i] : "", pass ? "bias" : "weight");
}

static const char *const siamese_subs[3] = {"post", "pre", "input"};
static const char *const final_subs[3] = {"x", "y", "out"};
static const char *const no_sub[1] = {NULL};

/* The norms in front of a sublayer ("attn_norm" or "mlp_norm"). */
static void sublayer_norms(list *l, const svk_model_config *c, uint32_t i, const char *which)
{
    char prefix[SVK_PARAM_NAME_MAX];
    snprintf(prefix, sizeof(prefix), "blocks.%u.%s", i, which);
    if (c->placement == SVK_PLACEMENT_SIAMESE)
        norms(l, c, prefix, siamese_subs, 3);
    else
        norms(l, c, prefix, no_sub, 1);
}

/* A Linear layer: weight [out, in] ~ N(0, std), bias [out] = 0 when present. */
static void linear(list *l, const svk_model_config *c, uint32_t i, const char *name, uint32_t out, uint32_t in,
                   float std, bool has_bias)
{
    add(l, 2, out, in, std, 0, true, "blocks.%u.%s.weight", i, name);
    if (has_bias && c->bias)
        add(l, 1, out, 0, 0, 0.0f, false, "blocks.%u.%s.bias", i, name);
}

/* The walk behind both entry points: one definition of the list, so the
 * count cannot disagree with the names. */
static list walk(const svk_model_config *c, svk_param_info *out, size_t cap)
{
    list l = {out, out ? cap : 0, 0, 0};
    const uint32_t C = c->width, F = svk_model_config_hidden(c), V = c->vocab;
    const float std = 0.02f;
    /* Residual projections are scaled down with depth (docs/MODEL.md, "Initialisation"). */
    const float proj_std = 0.02f / sqrtf(2.0f * (float)c->layers);

    add(&l, 2, V, C, std, 0, true, "wte.weight");
    if (c->pos == SVK_POS_LEARNED)
        add(&l, 2, c->ctx, C, std, 0, true, "wpe.weight");
    for (uint32_t i = 0; i < c->layers; i++) {
        sublayer_norms(&l, c, i, "attn_norm");
        linear(&l, c, i, "attn.qkv", 3 * C, C, std, true);
        linear(&l, c, i, "attn.proj", C, C, proj_std, true);
        sublayer_norms(&l, c, i, "mlp_norm");
        if (c->mlp == SVK_MLP_GELU) {
            linear(&l, c, i, "mlp.fc", F, C, std, true);
            linear(&l, c, i, "mlp.proj", C, F, proj_std, true);
        } else { /* swiglu layers have no bias even when bias = true */
            linear(&l, c, i, "mlp.gate", F, C, std, false);
            linear(&l, c, i, "mlp.up", F, C, std, false);
            linear(&l, c, i, "mlp.proj", C, F, proj_std, false);
        }
    }
    if (c->placement == SVK_PLACEMENT_PRE)
        norms(&l, c, "norm_f", no_sub, 1);
    else if (c->placement == SVK_PLACEMENT_SIAMESE)
        norms(&l, c, "norm_f", final_subs, 3);
    if (!c->tie_embeddings)
        add(&l, 2, V, C, std, 0, true, "lm_head.weight");
    return l;
}

size_t svk_model_param_list(const svk_model_config *c, svk_param_info *out, size_t cap)
{
    return walk(c, out, cap).n;
}

size_t svk_model_param_totals(const svk_model_config *c, uint64_t *elems)
{
    const list l = walk(c, NULL, 0);
    if (elems)
        *elems = l.elems;
    return l.n;
}

/* Box-Muller in double over splitmix64, on the host: both backends start
 * from the same drawn values, whatever the device. (libm's log, sin and cos
 * may differ in the last bit between C libraries, not between runs.) */

void svk_model_init_params(const svk_param_info *params, size_t n, uint64_t seed, float *const *data)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        const svk_param_info *p = &params[i];
        float *d = data[i];
        if (p->init_std <= 0) {
            for (uint64_t k = 0; k < p->elems; k++)
                d[k] = p->init_value;
            continue;
        }
        for (uint64_t k = 0; k < p->elems; k += 2) {
            double r = sqrt(-2.0 * log(svk_uniform_open(&s)));
            double a = 2.0 * 3.14159265358979323846 * svk_uniform_open(&s);
            d[k] = (float)(p->init_std * r * cos(a));
            if (k + 1 < p->elems)
                d[k + 1] = (float)(p->init_std * r * sin(a));
        }
    }
}
