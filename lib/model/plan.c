/*
 * Builds the step plan (plan.h): the shape checks, the parameters and the
 * inputs and outputs, then the model's ops (plan_model.c, with the pieces
 * of plan_builder.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "plan_builder.h"

uint32_t svk_plan_param_tensor(const svk_plan *p, size_t param, svk_slab slab)
{
    /* Parameters were registered first, four tensors each, in list order. */
    return (uint32_t)(param * 4 + (size_t)slab);
}

/* Where the parameters lie in their four slabs (the same layout in each):
 * every parameter with weight decay first, then the others, each group in
 * the list's order, back to back. AdamW then updates a whole slab in one
 * operation per group (two dispatches, not one per tensor, and on a GPU no
 * barrier between tensors), and parameters listed together without decay,
 * such as a group of norms that must stay one [3, C] array, stay together.
 * Checkpoints name every tensor, so the layout is not part of the format. */
static void layout_params(svk_plan *p)
{
    uint64_t decayed = 0;
    for (size_t i = 0; i < p->n_params; i++)
        if (p->params[i].decay)
            decayed += p->params[i].elems;
    uint64_t next[2] = {decayed, 0}; /* [decay]: where the group's next tensor starts */
    for (size_t i = 0; i < p->n_params; i++) {
        const bool decay = p->params[i].decay;
        for (int s = 0; s < 4; s++)
            p->tensors[svk_plan_param_tensor(p, i, (svk_slab)s)].offset = next[decay];
        next[decay] += p->params[i].elems;
    }
}

uint32_t svk_plan_param_group(const svk_plan *p, bool decay, svk_slab slab, uint64_t *elems)
{
    *elems = 0;
    uint32_t first = SVK_NONE;
    for (size_t i = 0; i < p->n_params; i++)
        if (p->params[i].decay == decay) {
            if (first == SVK_NONE)
                first = svk_plan_param_tensor(p, i, slab);
            *elems += p->params[i].elems;
        }
    return first;
}

uint32_t svk_plan_slab_start(const svk_plan *p, svk_slab slab)
{
    uint64_t n;
    const uint32_t t = svk_plan_param_group(p, true, slab, &n);
    return t != SVK_NONE ? t : svk_plan_param_group(p, false, slab, &n);
}

/* Every activation of the plan is one of these products of the batch shape
 * and the configuration (the others are smaller multiples of them). They
 * are checked once, in bytes, before the builder multiplies freely: a
 * wrapped product would give a tensor far smaller than its kernels touch. */
static svk_status check_sizes(svk_log *log, const svk_pb_dims *d)
{
    const struct {
        const char *what;
        uint64_t f[4];
    } sizes[] = {
        {"B*T*3*width (the qkv activations)", {d->N, 3 * d->C, 4, 1}},
        {"B*T*mlp_hidden (the MLP activations)", {d->N, d->FL, 4, 1}},
        {"B*T*vocab (the logits)", {d->N, d->V, 4, 1}},
        {"B*heads*T*T (the attention scores)", {d->B, d->H, d->T, 4 * d->T}},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint64_t bytes = 1;
        bool ok = true;
        for (int k = 0; k < 4 && ok; k++)
            ok = svk_mul_u64(bytes, sizes[i].f[k], &bytes);
        if (!ok)
            return svk_error(log, SVK_ERROR_TOO_LARGE,
                             "batch B=%llu T=%llu: %s, at 4 bytes each, overflows 64 bits (width=%llu, heads=%llu, "
                             "mlp_hidden=%llu, vocab=%llu)",
                             (unsigned long long)d->B, (unsigned long long)d->T, sizes[i].what,
                             (unsigned long long)d->C, (unsigned long long)d->H, (unsigned long long)d->F,
                             (unsigned long long)d->V);
    }
    return SVK_OK;
}

/* The configuration and options into p and b->d, checked; SVK_OK or the
 * error, with p holding nothing to free. */
static svk_status start(svk_pb *b, const svk_model_config *c, uint32_t B, uint32_t T, const svk_plan_options *opt)
{
    svk_plan *p = b->p;
    if (B == 0 || T == 0 || T > c->ctx)
        return svk_error(b->log, SVK_ERROR_INVALID_ARG, "batch shape B=%u T=%u: need B >= 1 and 1 <= T <= ctx=%u", B,
                         T, c->ctx);
    const uint32_t micro = opt->micro_batches ? opt->micro_batches : 1;
    if (B % micro != 0)
        return svk_error(b->log, SVK_ERROR_INVALID_ARG,
                         "batch B=%u: does not split into %u micro-batches of equal rows", B, micro);
    p->config = *c;
    p->B = B;
    p->T = T;
    p->micro = micro;
    p->eps = c->norm_eps;
    p->flash_attention = opt->flash_attention;
    p->linear_nn = opt->linear_nn;
    p->recompute = opt->recompute;
    p->train_state = !opt->frozen;
    if (opt->precision != 0 && opt->precision != SVK_FMT_FP16 && opt->precision != SVK_FMT_BF16)
        return svk_error(b->log, SVK_ERROR_INVALID_ARG, "plan option precision=%u: not 0, fp16 or bf16",
                         opt->precision);
    p->precision = opt->decode ? 0 : opt->precision;
    p->loss_scaling = opt->loss_scaling && p->precision == SVK_FMT_FP16;
    if (p->loss_scaling && opt->loss_scale_interval == 0)
        return svk_error(b->log, SVK_ERROR_INVALID_ARG, "plan option loss_scale_interval=0: must be >= 1");
    p->loss_scale_interval = opt->loss_scale_interval;
    svk_pb_dims *d = &b->d;
    /* The ops run on one micro-batch at a time. */
    *d = (svk_pb_dims){B / micro, T, (uint64_t)(B / micro) * T, c->width, c->heads, svk_model_config_hidden(c),
                       c->vocab, 0};
    if (opt->mlp_ld && opt->mlp_ld < d->F)
        return svk_error(b->log, SVK_ERROR_INVALID_ARG, "plan option mlp_ld=%llu: less than mlp_hidden=%llu",
                         (unsigned long long)opt->mlp_ld, (unsigned long long)d->F);
    /* Only the GELU MLP's products take a leading dimension. */
    d->FL = opt->mlp_ld && c->mlp == SVK_MLP_GELU ? opt->mlp_ld : d->F;
    p->mlp_ld = d->FL;
    svk_status st = check_sizes(b->log, d);
    if (st != SVK_OK)
        return st;
    /* Tensor ids are 32-bit and a layer has fewer than 64 tensors. */
    if (c->layers > UINT32_MAX / 64)
        return svk_error(b->log, SVK_ERROR_TOO_LARGE,
                         "config layers=%u: more layers than the plan can index (at most %u)", c->layers,
                         UINT32_MAX / 64);
    return SVK_OK;
}

/* The parameters, each with its gradient and moments, laid out; then the
 * inputs and the outputs. False when out of host memory. */
static bool register_params(svk_pb *b)
{
    svk_plan *p = b->p;
    p->n_params = svk_model_param_list(&p->config, NULL, 0);
    p->params = svk_calloc(p->n_params, sizeof(*p->params));
    if (!p->params)
        return false;
    svk_model_param_list(&p->config, p->params, p->n_params);
    for (size_t i = 0; i < p->n_params; i++) {
        svk_pb_tensor(b, SVK_SLAB_PARAM, p->params[i].elems, (int32_t)i, "%s", p->params[i].name);
        svk_pb_tensor(b, SVK_SLAB_GRAD, p->params[i].elems, (int32_t)i, "grad.%s", p->params[i].name);
        svk_pb_tensor(b, SVK_SLAB_ADAM_M, p->params[i].elems, (int32_t)i, "adam_m.%s", p->params[i].name);
        svk_pb_tensor(b, SVK_SLAB_ADAM_V, p->params[i].elems, (int32_t)i, "adam_v.%s", p->params[i].name);
    }
    if (!b->oom)
        layout_params(p);
    p->tokens = svk_pb_tensor(b, SVK_SLAB_INPUT, b->d.N * p->micro, -1, "tokens");
    p->targets = svk_pb_tensor(b, SVK_SLAB_INPUT, b->d.N * p->micro, -1, "targets");
    p->output = svk_pb_tensor(b, SVK_SLAB_OUTPUT, SVK_OUT_COUNT, -1, "output");
    p->loss_scaler = svk_pb_tensor(b, SVK_SLAB_STATE, SVK_LOSS_SCALER_COUNT, -1, "loss_scaler");
    return !b->oom && svk_pb_index_params(b);
}

svk_status svk_plan_build(svk_log *log, const svk_model_config *c, uint32_t B, uint32_t T, const svk_plan_options *opt,
                          svk_plan *p)
{
    const svk_plan_options none = {0};
    if (!opt)
        opt = &none;
    memset(p, 0, sizeof(*p));
    svk_pb b = {.p = p, .log = log, .wt = SVK_NONE, .bias_grad_apart = opt->bias_grad_apart};
    svk_status st = start(&b, c, B, T, opt);
    if (st != SVK_OK) {
        svk_plan_free(p);
        return st;
    }
    if (opt->decode && (B != 1 || T != c->ctx)) {
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_INTERNAL, "a decode plan is B=1 T=ctx=%u, not B=%u T=%u", c->ctx, B, T);
    }
    p->decode_step = p->decode_logits = SVK_NONE;
    if ((opt->decode && !(b.kv_cache = svk_calloc(c->layers, sizeof(*b.kv_cache)))) || !register_params(&b))
        b.oom = true;
    else if (opt->decode)
        svk_pb_prefill(&b);
    else
        svk_pb_model(&b);
    p->phases.decode = p->phases.decode_end = p->n_ops;
    if (opt->decode && !b.oom)
        svk_pb_decode(&b);
    free(b.kv_cache);
    free(b.slots);
    if (b.oom) {
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building the plan");
    }
    if (b.overflow) {
        static const char *const slab_names[SVK_SLAB_COUNT] = {"parameter", "gradient", "AdamW m", "AdamW v",
                                                               "state", "activation", "input", "output"};
        svk_plan_free(p);
        return svk_error(log, SVK_ERROR_TOO_LARGE,
                         "batch B=%u T=%u: the %s memory of %u layers overflows 64-bit byte sizes", B, T,
                         slab_names[b.overflow - 1], c->layers);
    }
    return SVK_OK;
}

void svk_plan_write_inputs(const svk_plan *p, int32_t *in, const int32_t *tokens, const int32_t *targets)
{
    if (!tokens)
        return;
    uint64_t n = (uint64_t)p->B * p->T;
    memcpy(in + p->tensors[p->tokens].offset, tokens, n * sizeof(int32_t));
    int32_t *tg = in + p->tensors[p->targets].offset;
    if (targets)
        memcpy(tg, targets, n * sizeof(int32_t));
    else
        for (uint64_t i = 0; i < n; i++)
            tg[i] = -1;
}

bool svk_plan_runnable(const svk_plan *p, size_t begin, size_t end)
{
    return p->train_state || begin >= end || end <= p->phases.backward || begin >= p->phases.end;
}

void svk_plan_free(svk_plan *p)
{
    free(p->params);
    free(p->tensors);
    free(p->ops);
    memset(p, 0, sizeof(*p));
}

const char *svk_plan_opcode_name(svk_plan_opcode code)
{
    static const char *const names[SVK_OP_COUNT_] = {SVK_PLAN_OPS(SVK_PLAN_OP_NAME)};
    return (unsigned)code < SVK_OP_COUNT_ ? names[code] : "?";
}
