/* The CPU backend: each plan op is a call of the float CPU reference. */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "ref.h"

typedef struct cpu {
    const svk_plan *p;
    void *const *slabs;
} cpu;

/* The float view of tensor id (NULL for SVK_NONE). */
static float *F(const cpu *c, uint32_t id)
{
    if (id == SVK_NONE)
        return NULL;
    const svk_plan_tensor *t = &c->p->tensors[id];
    return (float *)c->slabs[t->slab] + t->offset;
}

static const int32_t *I(const cpu *c, uint32_t id)
{
    const svk_plan_tensor *t = &c->p->tensors[id];
    return (const int32_t *)c->slabs[t->slab] + t->offset;
}

static enum svk_ref_norm kind_of(const svk_plan_op *o)
{
    return (o->flags & SVK_FLAG_RMS) ? SVK_REF_RMSNORM : SVK_REF_LAYERNORM;
}

svk_status svk_plan_cpu_run(svk_log *log, const svk_plan *p, void *const slabs[SVK_SLAB_COUNT], size_t begin,
                            size_t end, const svk_step_hparams *h)
{
    cpu c = {p, slabs};
    const float eps = p->eps;
    for (size_t i = begin; i < end && i < p->n_ops; i++) {
        const svk_plan_op *o = &p->ops[i];
        const uint32_t *t = o->t;
        const uint64_t *d = o->dims;
        float *out = NULL;
        switch (o->code) {
        case SVK_OP_ZERO:
            memset(F(&c, t[0]), 0, d[0] * sizeof(float));
            break;
        case SVK_OP_COPY:
            memcpy(F(&c, t[0]), F(&c, t[1]), d[0] * sizeof(float));
            break;
        case SVK_OP_ADD: {
            float *a = F(&c, t[0]);
            const float *b = F(&c, t[1]);
            for (uint64_t k = 0; k < d[0]; k++)
                a[k] += b[k];
            break;
        }
        case SVK_OP_EMBED_FWD: {
            int32_t *counts = (int32_t *)F(&c, t[4]);
            size_t bad = svk_ref_embedding_fwd_f32(d[0], d[1], d[2], d[3], I(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                                                   F(&c, t[0]));
            counts[SVK_OUT_VALID_TOKENS] = (int32_t)(d[0] * d[1] - bad);
            counts[SVK_OUT_BAD_TOKENS] = (int32_t)bad;
            break;
        }
        case SVK_OP_EMBED_BWD:
            svk_ref_embedding_bwd_f32(d[0], d[1], d[2], d[3], I(&c, t[2]), F(&c, t[3]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_NORM_FWD:
            if (kind_of(o) == SVK_REF_RMSNORM)
                svk_ref_rmsnorm_fwd_f32(d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[0]), F(&c, t[2]));
            else
                svk_ref_layernorm_fwd_f32(d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[5]), F(&c, t[0]),
                                          F(&c, t[1]), F(&c, t[2]));
            break;
        case SVK_OP_NORM_BWD:
            if (kind_of(o) == SVK_REF_RMSNORM)
                svk_ref_rmsnorm_bwd_f32(d[0], d[1], F(&c, t[3]), F(&c, t[4]), F(&c, t[6]), F(&c, t[7]), F(&c, t[0]),
                                        F(&c, t[1]));
            else
                svk_ref_layernorm_bwd_f32(d[0], d[1], F(&c, t[3]), F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                          F(&c, t[7]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]));
            break;
        case SVK_OP_SIAMESE_FWD:
            svk_ref_siamese_norm_fwd_f32(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                         F(&c, t[7]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]));
            break;
        case SVK_OP_SIAMESE_BWD:
            svk_ref_siamese_norm_bwd_f32(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                         F(&c, t[7]), F(&c, t[8]), F(&c, t[9]), F(&c, t[10]), F(&c, t[11]),
                                         F(&c, t[12]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                                         F(&c, t[13]));
            break;
        case SVK_OP_SOUT_FWD:
            svk_ref_siamese_out_fwd_f32(kind_of(o), d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[5]),
                                        F(&c, t[6]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[7]));
            break;
        case SVK_OP_SOUT_BWD:
            svk_ref_siamese_out_bwd_f32(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                        F(&c, t[7]), F(&c, t[8]), F(&c, t[9]), F(&c, t[10]), F(&c, t[0]),
                                        F(&c, t[1]), F(&c, t[2]), F(&c, t[3]), F(&c, t[11]));
            break;
        case SVK_OP_RESIDUAL_FWD:
            svk_ref_residual_fwd_f32(d[0], o->f[0], F(&c, t[0]), F(&c, t[1]), F(&c, t[2]));
            break;
        case SVK_OP_RESIDUAL_BWD:
            svk_ref_residual_bwd_f32(d[0], o->f[0], F(&c, t[1]), F(&c, t[2]), F(&c, t[0]));
            break;
        case SVK_OP_GEMM: {
            bool ta = o->flags & SVK_FLAG_TA, tb = o->flags & SVK_FLAG_TB;
            uint64_t M = d[0], N = d[1], K = d[2];
            svk_ref_gemm_f32(ta, tb, M, N, K, o->f[0], F(&c, t[1]), ta ? M : K, 0, F(&c, t[2]), tb ? K : N, 0,
                             o->f[1], F(&c, t[0]), N, 0, F(&c, t[3]), 1);
            break;
        }
        case SVK_OP_ROPE_FWD:
            svk_ref_rope_fwd_f32(d[0], d[1], d[2], d[3], o->f[0], F(&c, t[0]));
            break;
        case SVK_OP_ROPE_BWD:
            svk_ref_rope_bwd_f32(d[0], d[1], d[2], d[3], o->f[0], F(&c, t[0]));
            break;
        case SVK_OP_ATTN_FWD:
            svk_ref_attention_fwd_f32(d[0], d[1], d[2], d[3], F(&c, t[2]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_ATTN_BWD:
            svk_ref_attention_bwd_f32(d[0], d[1], d[2], d[3], F(&c, t[1]), F(&c, t[2]), F(&c, t[3]), F(&c, t[0]));
            break;
        case SVK_OP_GELU_FWD:
            svk_ref_gelu_fwd_f32(d[0], F(&c, t[1]), F(&c, t[0]));
            break;
        case SVK_OP_GELU_BWD:
            svk_ref_gelu_bwd_f32(d[0], F(&c, t[1]), F(&c, t[2]), F(&c, t[0]));
            break;
        case SVK_OP_SWIGLU_FWD:
            svk_ref_swiglu_fwd_f32(d[0], F(&c, t[1]), F(&c, t[2]), F(&c, t[0]));
            break;
        case SVK_OP_SWIGLU_BWD:
            svk_ref_swiglu_bwd_f32(d[0], F(&c, t[2]), F(&c, t[3]), F(&c, t[4]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_BIAS_BWD:
            svk_ref_bias_bwd_f32(d[0], d[1], F(&c, t[1]), F(&c, t[0]));
            break;
        case SVK_OP_XENT: {
            out = F(&c, t[0]);
            size_t invalid = 0, valid = 0;
            const int32_t *tg = I(&c, t[3]);
            for (uint64_t r = 0; r < d[0]; r++)
                valid += tg[r] >= 0 && (uint64_t)tg[r] < d[1];
            out[SVK_OUT_LOSS] = svk_ref_cross_entropy_f32(d[0], d[1], F(&c, t[2]), tg, F(&c, t[1]), NULL, &invalid);
            ((int32_t *)out)[SVK_OUT_VALID_TARGETS] = (int32_t)valid;
            ((int32_t *)out)[SVK_OUT_BAD_TARGETS] = (int32_t)invalid;
            break;
        }
        case SVK_OP_CLIP: {
            out = F(&c, t[0]);
            const float *g = F(&c, t[1]);
            size_t n = d[0];
            float norm = svk_ref_global_norm_f32(1, &g, &n);
            out[SVK_OUT_GRAD_NORM] = norm;
            out[SVK_OUT_CLIP_SCALE] = svk_ref_clip_scale_f32(norm, h ? h->max_norm : 0.0f);
            break;
        }
        case SVK_OP_ADAMW:
            if (!h)
                return svk_error(log, SVK_ERROR_INTERNAL, "plan op '%s' needs step hyperparameters", o->label);
            svk_ref_adamw_f32(d[0], F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                              F(&c, t[4])[SVK_OUT_CLIP_SCALE], h->lr, h->beta1, h->beta2, h->adam_eps,
                              h->weight_decay, (o->flags & SVK_FLAG_DECAY) != 0, h->t);
            break;
        case SVK_OP_COUNT_:
            return svk_error(log, SVK_ERROR_INTERNAL, "plan op %zu has no code", i);
        }
    }
    return SVK_OK;
}
