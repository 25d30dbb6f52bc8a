#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "model/model_internal.h"

svk_model_config ckpt_tiny_config(void)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = 16, c.ctx = 8, c.width = 8, c.layers = 1, c.heads = 2, c.mlp_hidden = 16;
    return c;
}

svk_model *ckpt_model(const svk_model_config *c, uint64_t seed, int steps)
{
    svk_model_params p = svk_model_params_default();
    p.config = *c;
    p.seed = seed;
    p.backend = SVK_BACKEND_CPU;
    svk_model *m = NULL;
    if (svk_model_create(&p, &m) != SVK_OK) {
        printf("     model: %s\n", svk_last_error());
        return NULL;
    }
    enum { B = 2, T = 8 };
    int32_t tok[B * T], tgt[B * T];
    for (int i = 0; i < B * T; i++) {
        tok[i] = (int32_t)((i * 7 + (int)seed) % (int)c->vocab);
        tgt[i] = (tok[i] + 1) % (int32_t)c->vocab;
    }
    for (int s = 0; s < steps; s++)
        if (svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL) != SVK_OK) {
            printf("     step %d: %s\n", s, svk_last_error());
            svk_model_destroy(&m);
            return NULL;
        }
    return m;
}

bool ckpt_state_get(svk_model *m, ckpt_state *s)
{
    static const svk_slab slabs[3] = {SVK_SLAB_PARAM, SVK_SLAB_ADAM_M, SVK_SLAB_ADAM_V};
    s->n = (size_t)m->n_elems * 3;
    s->bits = malloc(s->n * sizeof(*s->bits) + 1);
    s->step = svk_model_step(m);
    if (!s->bits)
        return false;
    uint32_t *at = s->bits;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < m->n_params; i++) {
            const svk_plan_tensor *t = &m->plan.tensors[svk_plan_param_tensor(&m->plan, i, slabs[k])];
            /* A model that has not trained holds no moments: zero. */
            if (k > 0 && !m->plan.train_state)
                memset(at, 0, t->elems * sizeof(*at));
            else if (m->impl->read(m, slabs[k], t->offset, t->elems, at) != SVK_OK) {
                printf("     reading the model: %s\n", svk_last_error());
                return false;
            }
            at += t->elems;
        }
    return true;
}

bool ckpt_state_equal(const ckpt_state *a, const ckpt_state *b)
{
    return a->n == b->n && a->step == b->step && !memcmp(a->bits, b->bits, a->n * sizeof(*a->bits));
}

void ckpt_state_free(ckpt_state *s)
{
    free(s->bits);
    s->bits = NULL;
}

bool ckpt_poison(const char *from, const char *to, const char *name, uint64_t begin, uint64_t end, uint32_t bits)
{
    svk_st_file f;
    if (svk_st_read(NULL, from, &f) != SVK_OK)
        return false;
    const svk_st_tensor *t = svk_st_find(&f, name);
    bool ok = t && t->dtype == SVK_ST_F32 && begin < t->elems && (end == UINT64_MAX || end <= t->elems);
    if (ok) {
        /* The tensor's data, reached through the blob the file owns (the
         * tensor's own pointer is const). */
        unsigned char *at = (unsigned char *)f.blob + ((const unsigned char *)t->data - (const unsigned char *)f.blob);
        for (uint64_t k = begin; k < end && k < t->elems; k++)
            memcpy(at + 4 * k, &bits, 4);
        FILE *out = fopen(to, "wb");
        ok = out && fwrite(f.blob, 1, f.blob_size, out) == f.blob_size;
        ok = out ? fclose(out) == 0 && ok : false;
    }
    svk_st_free(&f);
    return ok;
}
