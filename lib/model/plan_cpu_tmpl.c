/*
 * The CPU backend: each plan op is a call of the CPU reference. Written
 * once over svk_real and compiled twice (plan_cpu_f32.c, plan_cpu_f64.c):
 * the float build is the backend, the double build lets the tests check the
 * whole model's gradients against finite differences.
 * Included by those files only; SVK_REF_BITS selects the type.
 */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "real.h"

#if SVK_REF_BITS == 32
#define RUN svk_plan_cpu_run_f32
#else
#define RUN svk_plan_cpu_run_f64
#endif

/* Counts go into the output slab as int32 bits in the float build (as the
 * device writes them) and as values in the double build. */
static void set_count(svk_real *out, int idx, size_t v)
{
#if SVK_REF_BITS == 32
    int32_t i = (int32_t)v;
    memcpy(&out[idx], &i, sizeof(i));
#else
    out[idx] = (svk_real)v;
#endif
}

typedef struct cpu {
    const svk_plan *p;
    void *const *slabs;
} cpu;

/* The svk_real view of tensor id (NULL for SVK_NONE). */
static svk_real *F(const cpu *c, uint32_t id)
{
    if (id == SVK_NONE)
        return NULL;
    const svk_plan_tensor *t = &c->p->tensors[id];
    return (svk_real *)c->slabs[t->slab] + t->offset;
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

svk_status RUN(svk_log *log, const svk_plan *p, void *const slabs[SVK_SLAB_COUNT], size_t begin,
                            size_t end, const svk_step_hparams *h)
{
    cpu c = {p, slabs};
    const svk_real eps = p->eps;
    for (size_t i = begin; i < end && i < p->n_ops; i++) {
        const svk_plan_op *o = &p->ops[i];
        const uint32_t *t = o->t;
        const uint64_t *d = o->dims;
        svk_real *out = NULL;
        switch (o->code) {
        case SVK_OP_ZERO:
            memset(F(&c, t[0]), 0, d[0] * sizeof(svk_real));
            break;
        case SVK_OP_COPY:
            memcpy(F(&c, t[0]), F(&c, t[1]), d[0] * sizeof(svk_real));
            break;
        case SVK_OP_ADD: {
            svk_real *a = F(&c, t[0]);
            const svk_real *b = F(&c, t[1]);
            for (uint64_t k = 0; k < d[0]; k++)
                a[k] += b[k];
            break;
        }
        case SVK_OP_EMBED_FWD: {
            out = F(&c, t[4]);
            size_t bad = SVK_REF(embedding_fwd)(d[0], d[1], d[2], d[3], I(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                                                F(&c, t[0]));
            set_count(out, SVK_OUT_VALID_TOKENS, d[0] * d[1] - bad);
            set_count(out, SVK_OUT_BAD_TOKENS, bad);
            break;
        }
        case SVK_OP_EMBED_BWD:
            SVK_REF(embedding_bwd)(d[0], d[1], d[2], d[3], I(&c, t[2]), F(&c, t[3]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_NORM_FWD:
            if (kind_of(o) == SVK_REF_RMSNORM)
                SVK_REF(rmsnorm_fwd)(d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[0]), F(&c, t[2]));
            else
                SVK_REF(layernorm_fwd)(d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[5]), F(&c, t[0]),
                                          F(&c, t[1]), F(&c, t[2]));
            break;
        case SVK_OP_NORM_BWD:
            if (kind_of(o) == SVK_REF_RMSNORM)
                SVK_REF(rmsnorm_bwd)(d[0], d[1], F(&c, t[3]), F(&c, t[4]), F(&c, t[6]), F(&c, t[7]), F(&c, t[0]),
                                        F(&c, t[1]));
            else
                SVK_REF(layernorm_bwd)(d[0], d[1], F(&c, t[3]), F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                          F(&c, t[7]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]));
            break;
        case SVK_OP_SIAMESE_FWD:
            SVK_REF(siamese_norm_fwd)(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                         F(&c, t[7]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]));
            break;
        case SVK_OP_SIAMESE_BWD:
            SVK_REF(siamese_norm_bwd)(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                         F(&c, t[7]), F(&c, t[8]), F(&c, t[9]), F(&c, t[10]), F(&c, t[11]),
                                         F(&c, t[12]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                                         F(&c, t[13]));
            if (t[14] != SVK_NONE)
                SVK_REF(residual_bwd)(d[0] * d[1], o->f[0], F(&c, t[0]), F(&c, t[1]), F(&c, t[14]));
            break;
        case SVK_OP_SOUT_FWD:
            SVK_REF(siamese_out_fwd)(kind_of(o), d[0], d[1], eps, F(&c, t[3]), F(&c, t[4]), F(&c, t[5]),
                                        F(&c, t[6]), F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[7]));
            break;
        case SVK_OP_SOUT_BWD:
            SVK_REF(siamese_out_bwd)(kind_of(o), d[0], d[1], eps, F(&c, t[4]), F(&c, t[5]), F(&c, t[6]),
                                        F(&c, t[7]), F(&c, t[8]), F(&c, t[9]), F(&c, t[10]), F(&c, t[0]),
                                        F(&c, t[1]), F(&c, t[2]), F(&c, t[3]), F(&c, t[11]));
            if (t[12] != SVK_NONE)
                SVK_REF(residual_bwd)(d[0] * d[1], o->f[0], F(&c, t[0]), F(&c, t[1]), F(&c, t[12]));
            break;
        case SVK_OP_GEMM: {
            bool ta = o->flags & SVK_FLAG_TA, tb = o->flags & SVK_FLAG_TB;
            uint64_t M = d[0], N = d[1], K = d[2];
            const uint64_t lda = o->ld[0] ? o->ld[0] : ta ? M : K, ldb = o->ld[1] ? o->ld[1] : tb ? K : N;
            const uint64_t ldc = o->ld[2] ? o->ld[2] : N;
            if (ldc != N && (o->flags & (SVK_FLAG_RESIDUAL | SVK_FLAG_DUAL_RESIDUAL)))
                return svk_error(log, SVK_ERROR_INTERNAL, "plan op %zu (%s): a residual epilogue with ldc %llu != N",
                                 i, o->label, (unsigned long long)ldc);
            /* A dual residual's z goes to t5 first (C is the x stream it updates). */
            svk_real *dst = (o->flags & SVK_FLAG_DUAL_RESIDUAL) ? F(&c, t[5]) : F(&c, t[0]);
            SVK_REF(gemm)(ta, tb, M, N, K, o->f[0], F(&c, t[1]), lda, 0, F(&c, t[2]), ldb, 0, o->f[1], dst, ldc, 0,
                          F(&c, t[3]), 1);
            if (o->flags & SVK_FLAG_RESIDUAL) {
                svk_real *cz = F(&c, t[0]);
                const svk_real *in = F(&c, t[4]);
                for (uint64_t e = 0; e < M * N; e++)
                    cz[e] = in[e] + cz[e];
            }
            if (o->flags & SVK_FLAG_DUAL_RESIDUAL) {
                /* residual_fwd's formulas: x += z / c; y' = y + z. */
                svk_real *x = F(&c, t[0]), *z = F(&c, t[5]);
                const svk_real *y = F(&c, t[4]), rc = o->f[2];
                for (uint64_t e = 0; e < M * N; e++) {
                    x[e] += z[e] / rc;
                    z[e] = y[e] + z[e];
                }
            }
            /* The activation's aux is laid out as C: row by row. */
            for (uint64_t r = 0; r < M; r++) {
                svk_real *cr = F(&c, t[0]) + r * ldc;
                if (o->flags & SVK_FLAG_GELU)
                    SVK_REF(gelu_fwd)(N, cr, F(&c, t[4]) + r * ldc);
                if (o->flags & SVK_FLAG_GELU_BWD)
                    SVK_REF(gelu_bwd)(N, F(&c, t[4]) + r * ldc, cr, cr);
            }
            break;
        }
        case SVK_OP_ROPE_FWD:
            SVK_REF(rope_fwd)(d[0], d[1], d[2], d[3], o->f[0], F(&c, t[0]));
            break;
        case SVK_OP_ROPE_BWD:
            SVK_REF(rope_bwd)(d[0], d[1], d[2], d[3], o->f[0], F(&c, t[0]));
            break;
        case SVK_OP_ATTN_FWD:
            if (o->flags & SVK_FLAG_FLASH)
                return svk_error(log, SVK_ERROR_INTERNAL, "plan op %zu (%s): flash attention on the CPU reference",
                                 i, o->label);
            SVK_REF(attention_fwd)(d[0], d[1], d[2], d[3], F(&c, t[2]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_ATTN_BWD:
            SVK_REF(attention_bwd)(d[0], d[1], d[2], d[3], F(&c, t[1]), F(&c, t[2]), F(&c, t[3]), F(&c, t[0]));
            break;
        case SVK_OP_SWIGLU_FWD:
            SVK_REF(swiglu_fwd)(d[0], F(&c, t[1]), F(&c, t[2]), F(&c, t[0]));
            break;
        case SVK_OP_SWIGLU_BWD:
            SVK_REF(swiglu_bwd)(d[0], F(&c, t[2]), F(&c, t[3]), F(&c, t[4]), F(&c, t[0]), F(&c, t[1]));
            break;
        case SVK_OP_BIAS_BWD: {
            /* Row by row (dout's rows ld[0] apart), in row order: the sums
             * of one call over dense rows. */
            const uint64_t ld = o->ld[0] ? o->ld[0] : d[1];
            for (uint64_t r = 0; r < d[0]; r++)
                SVK_REF(bias_bwd)(1, d[1], F(&c, t[1]) + r * ld, F(&c, t[0]));
            break;
        }
        case SVK_OP_XENT: {
            out = F(&c, t[0]);
            size_t invalid = 0, valid = 0;
            const int32_t *tg = I(&c, t[3]);
            for (uint64_t r = 0; r < d[0]; r++)
                valid += tg[r] >= 0 && (uint64_t)tg[r] < d[1];
            out[SVK_OUT_LOSS] = SVK_REF(cross_entropy)(d[0], d[1], F(&c, t[2]), tg, F(&c, t[1]), NULL, &invalid);
            set_count(out, SVK_OUT_VALID_TARGETS, valid);
            set_count(out, SVK_OUT_BAD_TARGETS, invalid);
            break;
        }
        case SVK_OP_CLIP: {
            out = F(&c, t[0]);
            const svk_real *g = F(&c, t[1]);
            size_t n = d[0];
            svk_real norm = SVK_REF(global_norm)(1, &g, &n);
            out[SVK_OUT_GRAD_NORM] = norm;
            out[SVK_OUT_CLIP_SCALE] = SVK_REF(clip_scale)(norm, h ? h->max_norm : 0.0f);
            break;
        }
        case SVK_OP_ADAMW:
            if (!h)
                return svk_error(log, SVK_ERROR_INTERNAL, "plan op '%s' needs step hyperparameters", o->label);
            /* A non-finite step leaves p, m and v as they were, as the device does. */
            if (!svk_step_finite((float)F(&c, t[4])[SVK_OUT_LOSS], (float)F(&c, t[4])[SVK_OUT_GRAD_NORM]))
                break;
            SVK_REF(adamw)(d[0], F(&c, t[0]), F(&c, t[1]), F(&c, t[2]), F(&c, t[3]),
                              F(&c, t[4])[SVK_OUT_CLIP_SCALE], h->lr, h->beta1, h->beta2, h->adam_eps,
                              h->weight_decay, (o->flags & SVK_FLAG_DECAY) != 0, h->t);
            break;
        case SVK_OP_TRANSPOSE: {
            svk_real *dst = F(&c, t[0]);
            const svk_real *src = F(&c, t[1]);
            for (uint64_t r = 0; r < d[0]; r++)
                for (uint64_t k = 0; k < d[1]; k++)
                    dst[k * d[0] + r] = src[r * d[1] + k];
            break;
        }
        case SVK_OP_COUNT_:
            return svk_error(log, SVK_ERROR_INTERNAL, "plan op %zu has no code", i);
        }
    }
    return SVK_OK;
}
