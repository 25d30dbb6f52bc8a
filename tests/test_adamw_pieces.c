/*
 * AdamW over a parameter group larger than one op takes (SLAB_PIECE in
 * lib/model/plan_model.c, 2^24 elements) runs as several ops, which the
 * watchdog's cut may put in different submissions, and so does the
 * zeroing of the gradients at the step's start. On both backends: the
 * AdamW ops tile the group and the zeroing ops the gradient slab, back to
 * back; every weight of the group takes its update (held to the update
 * computed in double from its gradient); and the two backends' updated
 * weights agree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/model_internal.h"
#include "test_util.h"

enum { B = 2, T = 16 };

static tu_tally tally;
static uint64_t seed;
static float *after[2]; /* the decay group after the step, by backend */
static uint64_t group_n;

/* Worst distance of a weight from its AdamW update at t = 1 from zero
 * moments, in double (shaders/adamw.comp's formula), over the tolerance
 * 1e-6 (|p| + lr): a weight its piece missed is about lr off. */
static double worst_update(const float *before, const float *after_, const float *g, uint64_t n, double lr,
                           const svk_optimizer *o, uint64_t *at)
{
    double worst = 0;
    for (uint64_t i = 0; i < n; i++) {
        double p = before[i];
        p -= lr * o->weight_decay * p;
        const double m = (1.0 - o->beta1) * g[i], v = (1.0 - o->beta2) * (double)g[i] * g[i];
        p -= lr * (m / (1.0 - o->beta1)) / (sqrt(v / (1.0 - o->beta2)) + o->eps);
        const double d = fabs(after_[i] - p) / (1e-6 * (fabs((double)before[i]) + lr));
        if (d > worst) {
            worst = d;
            *at = i;
        }
    }
    return worst;
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    (void)dir;
    const int be_i = backend == SVK_BACKEND_VULKAN;
    const char *be = be_i ? "vulkan" : "cpu";
    svk_model_params p = svk_model_params_default();
    /* wte alone is 50257 x 352 = 17.7 M weights, all decayed. */
    p.config.vocab = 50257, p.config.ctx = T, p.config.width = 352, p.config.heads = 2, p.config.layers = 1;
    p.optimizer.max_norm = 0; /* the raw gradient */
    p.backend = backend;
    p.ctx = ctx;
    p.seed = 3;
    const float lr = 1e-3f;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    int32_t tokens[B * T], targets[B * T];
    tu_random_batch(seed, 0, tokens, targets, B * T, (int)p.config.vocab, 0);
    uint64_t n = 0;
    const uint32_t first = st == SVK_OK ? svk_plan_param_group(&m->plan, true, SVK_SLAB_PARAM, &n) : SVK_NONE;
    const uint64_t offset = first != SVK_NONE ? m->plan.tensors[first].offset : 0;
    float *before = n ? malloc(n * sizeof(float)) : NULL, *g = n ? malloc(n * sizeof(float)) : NULL;
    after[be_i] = n ? malloc(n * sizeof(float)) : NULL;
    if (!before || !g || !after[be_i]) {
        tu_check(&tally, false, "%s: a model with its decay group (%s)", be, svk_last_error());
        free(before);
        free(g);
        svk_model_destroy(&m);
        return;
    }
    group_n = n;
    /* The parameters lie where every plan of the model puts them. */
    st = m->impl->read(m, SVK_SLAB_PARAM, offset, n, before);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, lr, NULL);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_PARAM, offset, n, after[be_i]);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_GRAD, offset, n, g);

    /* The ops tile the group, back to back. */
    uint64_t covered = 0, ops = 0;
    bool tiled = st == SVK_OK;
    for (size_t k = m->plan.phases.optimizer; k < m->plan.phases.end && tiled; k++) {
        const svk_plan_op *o = &m->plan.ops[k];
        if (o->code != SVK_OP_ADAMW || !o->adamw.decay)
            continue;
        tiled = m->plan.tensors[o->adamw.p].offset == offset + covered;
        covered += o->adamw.n;
        ops++;
    }
    tu_check(&tally, tiled && covered == n && ops == (n + (1u << 24) - 1) / (1u << 24) && ops > 1,
             "%s: AdamW over the %llu weights with decay is %llu ops, back to back", be, (unsigned long long)n,
             (unsigned long long)ops);
    /* So is the zeroing of the whole gradient slab, at the step's start. */
    const uint64_t grads = m->plan.slab_elems[SVK_SLAB_GRAD];
    const uint64_t slab0 = m->plan.tensors[svk_plan_slab_start(&m->plan, SVK_SLAB_GRAD)].offset;
    uint64_t zeroed = 0, zeros = 0;
    tiled = st == SVK_OK;
    for (size_t k = m->plan.phases.forward; k < m->plan.phases.loss && tiled; k++) {
        const svk_plan_op *o = &m->plan.ops[k];
        if (o->code != SVK_OP_ZERO)
            continue;
        tiled = m->plan.tensors[o->zero.dst].slab == SVK_SLAB_GRAD &&
                m->plan.tensors[o->zero.dst].offset == slab0 + zeroed;
        zeroed += o->zero.n;
        zeros++;
    }
    tu_check(&tally, tiled && zeroed == grads && zeros == (grads + (1u << 24) - 1) / (1u << 24),
             "%s: the %llu gradients are zeroed by %llu ops, back to back", be, (unsigned long long)grads,
             (unsigned long long)zeros);
    uint64_t at = 0;
    const double worst = st == SVK_OK ? worst_update(before, after[be_i], g, n, lr, &p.optimizer, &at) : INFINITY;
    tu_check(&tally, worst <= 1.0,
             "%s: every weight with decay took its update: the worst off by %.3g of the tolerance, at %llu (%s)", be,
             worst, (unsigned long long)at, st == SVK_OK ? "" : svk_last_error());
    free(before);
    free(g);
    svk_model_destroy(&m);
    /* The CPU backend ran first. */
    if (be_i && after[0]) {
        double diff = 0, ref = 0;
        for (uint64_t i = 0; i < group_n; i++) {
            diff += ((double)after[1][i] - after[0][i]) * ((double)after[1][i] - after[0][i]);
            ref += (double)after[0][i] * after[0][i];
        }
        const double rel = ref > 0 ? sqrt(diff / ref) : sqrt(diff);
        /* test_big_tensors' tolerance: AdamW's first update is about lr
         * wherever |g| is well above eps, its sign and size the gradient's
         * rounding near eps. */
        tu_check(&tally, rel <= 1e-4, "the two backends' updated weights agree: relative %.2e <= 1e-4", rel);
    }
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_adamw_pieces", &args);
    seed = args.seed;
    const int rc = tu_each_backend(&tally, "test_adamw_pieces", run_backend);
    free(after[0]);
    free(after[1]);
    return rc;
}
