/*
 * The spec's degenerate cases of SiameseNorm: with the x stream's terms
 * removed (P's and N_x's gains and biases zero), siamese computes Pre-Norm
 * with the same sublayer weights, up to the double normalisation of each
 * block input (I(Q(y)) for N(y)), which vanishes as eps -> 0: so the test
 * uses a tiny eps. Removing the y terms does not give back this library's
 * Post-Norm exactly (the residual scale 1/c_l and the normalisation of the
 * embedding before the first block remain), so that direction has no exact
 * test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"
#include "test_util.h"

static const svk_plan_tensor *find(const svk_model *m, const char *name)
{
    for (size_t i = 0; i < m->plan.n_tensors; i++)
        if (m->plan.tensors[i].slab == SVK_SLAB_PARAM && !strcmp(m->plan.tensors[i].name, name))
            return &m->plan.tensors[i];
    return NULL;
}

static bool set_const(svk_model *m, const char *name, float v)
{
    const svk_plan_tensor *t = find(m, name);
    if (!t)
        return false;
    float *d = malloc(t->elems * sizeof(float));
    for (uint64_t i = 0; i < t->elems; i++)
        d[i] = v;
    svk_status st = m->impl->write(m, SVK_SLAB_PARAM, t->offset, t->elems, d);
    free(d);
    return st == SVK_OK;
}

/* Copies a tensor of the same name from one model to the other. */
static bool copy_param(svk_model *dst, svk_model *src, const char *name)
{
    const svk_plan_tensor *a = find(src, name), *b = find(dst, name);
    if (!a || !b || a->elems != b->elems)
        return false;
    float *d = malloc(a->elems * sizeof(float));
    bool ok = src->impl->read(src, SVK_SLAB_PARAM, a->offset, a->elems, d) == SVK_OK &&
              dst->impl->write(dst, SVK_SLAB_PARAM, b->offset, b->elems, d) == SVK_OK;
    free(d);
    return ok;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_degenerate", &args);
    tu_tally t = {0, 0};
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);
    static const char *const norms[] = {"layernorm", "rmsnorm"};
    for (int nk = 0; nk < 2; nk++) {
        svk_model_params p = svk_model_params_default();
        p.backend = SVK_BACKEND_CPU;
        p.seed = args.seed;
        p.config.vocab = 50, p.config.ctx = 16, p.config.width = 24, p.config.layers = 3, p.config.heads = 3;
        p.config.norm_eps = 1e-12f;
        svk_model_config_set(&p.config, "norm", norms[nk]);
        svk_model *s = NULL, *pre = NULL;
        svk_model_create(&p, &s);
        p.config.placement = SVK_PLACEMENT_PRE;
        svk_model_create(&p, &pre);
        bool ok = s && pre;
        const bool ln = nk == 0;
        /* The shared sublayer weights, from the siamese model into the pre one. */
        for (size_t i = 0; ok && i < s->n_params; i++) {
            const char *n = s->info[i].name;
            if (!strstr(n, "_norm") && strncmp(n, "norm_f", 6))
                ok = copy_param(pre, s, n);
        }
        /* Remove the x stream: P and N_x output zero. */
        char name[96];
        for (uint32_t l = 0; ok && l < p.config.layers; l++)
            for (int k = 0; k < 2 && ok; k++) {
                const char *which = k ? "mlp_norm" : "attn_norm";
                snprintf(name, sizeof(name), "blocks.%u.%s.post.weight", l, which);
                ok = set_const(s, name, 0.0f);
                snprintf(name, sizeof(name), "blocks.%u.%s.post.bias", l, which);
                ok = ok && (!ln || set_const(s, name, 0.0f));
            }
        ok = ok && set_const(s, "norm_f.x.weight", 0.0f) && (!ln || set_const(s, "norm_f.x.bias", 0.0f));
        enum { B = 2, T = 11 };
        int32_t tok[B * T];
        for (int i = 0; i < B * T; i++)
            tok[i] = (int32_t)(cf_rng_next(&rng) % p.config.vocab);
        float *ls = malloc(B * T * p.config.vocab * sizeof(float)), *lp = malloc(B * T * p.config.vocab * sizeof(float));
        ok = ok && svk_model_forward_logits(s, tok, B, T, ls) == SVK_OK &&
             svk_model_forward_logits(pre, tok, B, T, lp) == SVK_OK;
        double num = 0, den = 0;
        for (int i = 0; ok && i < B * T * (int)p.config.vocab; i++) {
            num += ((double)ls[i] - lp[i]) * ((double)ls[i] - lp[i]);
            den += (double)lp[i] * lp[i];
        }
        double rel = ok ? sqrt(num / den) : INFINITY;
        tu_check(&t, rel < 1e-5, "%s: siamese without the x stream = pre-norm, logits rel diff %.2e", norms[nk], rel);

        svk_model_destroy(&s);
        svk_model_destroy(&pre);
        free(ls);
        free(lp);
    }
    return tu_finish(&t);
}
