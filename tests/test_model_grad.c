/*
 * The whole model's gradients against finite differences: the step plan
 * (lib/model/plan_model.c) run in double precision with the CPU reference, for
 * every placement, norm, MLP and position kind. This is what proves the
 * plan's backward pass is the derivative of its forward pass; the kernels'
 * own derivatives are checked one by one in tests/ref/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/plan.h"
#include "test_util.h"

typedef struct run {
    svk_plan p;
    void *slabs[SVK_SLAB_COUNT];
} run;

static double loss_of(run *r)
{
    svk_plan_cpu_run_f64(NULL, &r->p, r->slabs, r->p.phases.forward, r->p.phases.backward, NULL);
    return ((double *)r->slabs[SVK_SLAB_OUTPUT])[r->p.tensors[r->p.output].offset + SVK_OUT_LOSS];
}

static bool check(tu_tally *t, const char *name, const svk_model_config *c, const svk_plan_options *opt,
                  cf_rng *rng)
{
    run r;
    enum { B = 2, T = 5 };
    if (svk_plan_build(NULL, c, B, T, opt, &r.p) != SVK_OK) {
        tu_check(t, false, "%s: plan: %s", name, svk_last_error());
        return false;
    }
    for (int k = 0; k < SVK_SLAB_COUNT; k++)
        r.slabs[k] = calloc(r.p.slab_elems[k] + 1, 8);
    /* Weights of order 1, so every path carries a visible gradient. */
    double *w = r.slabs[SVK_SLAB_PARAM];
    for (uint64_t i = 0; i < r.p.slab_elems[SVK_SLAB_PARAM]; i++)
        w[i] = cf_rng_uniform(rng, -0.6f, 0.6f);
    for (size_t i = 0; i < r.p.n_params; i++)
        if (r.p.params[i].init_value == 1.0f) { /* gains around 1 */
            const svk_plan_tensor *pt = &r.p.tensors[svk_plan_param_tensor(&r.p, i, SVK_SLAB_PARAM)];
            for (uint64_t k = 0; k < pt->elems; k++)
                w[pt->offset + k] += 1.0;
        }
    int32_t *in = r.slabs[SVK_SLAB_INPUT];
    for (int i = 0; i < B * T; i++) {
        in[r.p.tensors[r.p.tokens].offset + i] = (int32_t)(cf_rng_next(rng) % c->vocab);
        in[r.p.tensors[r.p.targets].offset + i] = i % 4 == 3 ? -1 : (int32_t)(cf_rng_next(rng) % c->vocab);
    }
    /* Analytic: forward, loss, backward. */
    svk_plan_cpu_run_f64(NULL, &r.p, r.slabs, r.p.phases.forward, r.p.phases.clip, NULL);
    /* A copy: every forward pass starts by zeroing the gradient slab. */
    size_t gbytes = r.p.slab_elems[SVK_SLAB_GRAD] * sizeof(double);
    double *grad = malloc(gbytes + 8);
    memcpy(grad, r.slabs[SVK_SLAB_GRAD], gbytes);
    /* Finite differences on a sample: a few elements of every tensor. */
    double num = 0, den = 0, worst = 0;
    const char *worst_name = "";
    int n = 0;
    for (size_t i = 0; i < r.p.n_params; i++) {
        const svk_plan_tensor *pt = &r.p.tensors[svk_plan_param_tensor(&r.p, i, SVK_SLAB_PARAM)];
        for (int s = 0; s < 3; s++) {
            uint64_t k = pt->offset + cf_rng_next(rng) % pt->elems;
            double x0 = w[k], h = 1e-4 * (fabs(x0) > 0.1 ? fabs(x0) : 0.1);
            /* Fourth-order central difference. */
            w[k] = x0 + h;
            double p1 = loss_of(&r);
            w[k] = x0 - h;
            double m1 = loss_of(&r);
            w[k] = x0 + 2 * h;
            double p2 = loss_of(&r);
            w[k] = x0 - 2 * h;
            double m2 = loss_of(&r);
            w[k] = x0;
            double fd = (8 * (p1 - m1) - (p2 - m2)) / (12 * h);
            double an = grad[k], e = fabs(an - fd) / (fabs(fd) + 1e-6);
            num += (an - fd) * (an - fd);
            den += fd * fd;
            if (e > worst) {
                worst = e;
                worst_name = pt->name;
            }
            n++;
        }
    }
    double rel = sqrt(num / den);
    tu_check(t, rel < 1e-6, "%-36s %d sampled gradients: rel err %.2e (worst element %.1e in %s)", name, n, rel, worst,
             worst_name);
    free(grad);
    for (int k = 0; k < SVK_SLAB_COUNT; k++)
        free(r.slabs[k]);
    svk_plan_free(&r.p);
    return rel < 1e-6;
}

/* A Linear's bias gradient fused into its weight gradient's GEMM
 * (SVK_FUSE_BIAS_GRAD, the plans' default) or as a BIAS_BWD op of its own
 * (svk_plan_options.bias_grad_apart): the float CPU backend gives the same
 * gradients bit for bit, and the fused plan has one op fewer per bias. */
static void bias_grad_fusion(tu_tally *t, cf_rng *rng)
{
    enum { B = 2, T = 5 };
    svk_model_config c = svk_model_config_default();
    c.vocab = 11, c.ctx = 8, c.width = 8, c.layers = 2, c.heads = 2, c.mlp_hidden = 12;
    const svk_plan_options opt[2] = {{.bias_grad_apart = false}, {.bias_grad_apart = true}};
    run r[2];
    float *grads[2] = {NULL, NULL};
    bool built = true;
    for (int k = 0; k < 2; k++)
        built = svk_plan_build(NULL, &c, B, T, &opt[k], &r[k].p) == SVK_OK && built;
    if (!built) {
        tu_check(t, false, "bias_grad_fusion: plans: %s", svk_last_error());
        return;
    }
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < SVK_SLAB_COUNT; s++)
            r[k].slabs[s] = calloc(r[k].p.slab_elems[s] + 1, 4);
    float *w = r[0].slabs[SVK_SLAB_PARAM];
    for (uint64_t i = 0; i < r[0].p.slab_elems[SVK_SLAB_PARAM]; i++)
        w[i] = cf_rng_uniform(rng, -0.6f, 0.6f);
    int32_t tokens[B * T], targets[B * T];
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (int32_t)(cf_rng_next(rng) % c.vocab);
        targets[i] = (int32_t)(cf_rng_next(rng) % c.vocab);
    }
    /* The Linears' biases: blocks.l.attn.qkv.bias, ... (not the norms',
     * blocks.l.attn_norm.*.bias). */
    size_t biases = 0;
    for (size_t i = 0; i < r[0].p.n_params; i++) {
        const char *name = r[0].p.params[i].name;
        biases += (strstr(name, ".attn.") || strstr(name, ".mlp.")) && !strcmp(strrchr(name, '.'), ".bias");
    }
    for (int k = 0; k < 2; k++) {
        memcpy(r[k].slabs[SVK_SLAB_PARAM], w, r[0].p.slab_elems[SVK_SLAB_PARAM] * 4);
        svk_plan_write_inputs(&r[k].p, r[k].slabs[SVK_SLAB_INPUT], tokens, targets);
        svk_plan_cpu_run_f32(NULL, &r[k].p, r[k].slabs, r[k].p.phases.forward, r[k].p.phases.clip, NULL);
        grads[k] = r[k].slabs[SVK_SLAB_GRAD];
    }
    const uint64_t n = r[0].p.slab_elems[SVK_SLAB_GRAD];
    tu_check(t, n == r[1].p.slab_elems[SVK_SLAB_GRAD] && !memcmp(grads[0], grads[1], n * 4) && biases > 0 &&
                    r[1].p.n_ops - r[0].p.n_ops == biases,
             "bias_grad_fusion: fused and apart bias gradients agree bit for bit over %llu gradients (%zu and %zu "
             "ops, %zu Linear biases)",
             (unsigned long long)n, r[0].p.n_ops, r[1].p.n_ops, biases);
    for (int k = 0; k < 2; k++) {
        for (int s = 0; s < SVK_SLAB_COUNT; s++)
            free(r[k].slabs[s]);
        svk_plan_free(&r[k].p);
    }
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_model_grad", &args);
    tu_tally t = {0, 0};
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);
    static const char *const placements[] = {"pre", "post", "siamese"};
    static const char *const norms[] = {"layernorm", "rmsnorm"};
    static const char *const mlps[] = {"gelu", "swiglu"};
    static const char *const pos[] = {"learned", "rope"};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int m = 0; m < 2; m++)
                for (int q = 0; q < 2; q++) {
                    svk_model_config c = svk_model_config_default();
                    c.vocab = 11, c.ctx = 8, c.width = 8, c.layers = 2, c.heads = 2, c.mlp_hidden = 12;
                    svk_model_config_set(&c, "placement", placements[a]);
                    svk_model_config_set(&c, "norm", norms[b]);
                    svk_model_config_set(&c, "mlp", mlps[m]);
                    svk_model_config_set(&c, "pos", pos[q]);
                    /* Untied and bias-free variants on alternate combinations,
                     * and the Linears' forwards on transposed weights
                     * and the GELU MLP's activations in padded rows (the plan
                     * CPU devices get) on others. */
                    c.tie_embeddings = (a + b + m + q) % 2 == 0;
                    c.bias = (a + m) % 2 == 0;
                    const svk_plan_options opt = {.linear_nn = (b + q) % 2 == 1,
                                                  .mlp_ld = m == 0 && (a + b) % 2 == 0 ? c.mlp_hidden + 5 : 0};
                    char name[96];
                    snprintf(name, sizeof(name), "%s %s %s %s%s%s%s%s", placements[a], norms[b], mlps[m], pos[q],
                             c.tie_embeddings ? "" : " untied", c.bias ? "" : " nobias",
                             opt.linear_nn ? " linear-nn" : "", opt.mlp_ld ? " padded" : "");
                    check(&t, name, &c, &opt, &rng);
                }
    bias_grad_fusion(&t, &rng);
    {
        /* A leading dimension under the MLP's width is refused, by name. */
        svk_model_config c = svk_model_config_default();
        const svk_plan_options opt = {.mlp_ld = svk_model_config_hidden(&c) - 1};
        svk_plan p;
        const svk_status st = svk_plan_build(NULL, &c, 2, 5, &opt, &p);
        if (st == SVK_OK)
            svk_plan_free(&p);
        tu_check(&t, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "mlp_ld"),
                 "plan option mlp_ld < mlp_hidden refused: status %d, '%s'", (int)st, svk_last_error());
    }
    return tu_finish(&t);
}
