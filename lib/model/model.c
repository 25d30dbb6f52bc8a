/* The model API over a backend (backend_cpu.c, backend_vk.c). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "svk/vulkan.h"
#include "core/rng.h"
#include "model_internal.h"
#include "vk/vk_context.h"

svk_log *svk_model_log(svk_model *m)
{
    return m->ctx ? &m->ctx->log : &m->log;
}

svk_model_params svk_model_params_default(void)
{
    return (svk_model_params){
        .config = svk_model_config_default(),
        .seed = 1,
        .backend = SVK_BACKEND_VULKAN,
        .optimizer = {.beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f, .weight_decay = 0.1f, .max_norm = 1.0f},
        .max_submit_ms = SVK_MAX_SUBMIT_MS_DEFAULT,
        .loss_scale = SVK_LOSS_SCALE_DEFAULT,
        .loss_scale_interval = SVK_LOSS_SCALE_INTERVAL_DEFAULT,
    };
}

/* Whether the current plan is for batches [B, T] in micro micro-batches. */
static bool has_shape(const svk_model *m, uint32_t B, uint32_t T, uint32_t micro)
{
    return m->has_plan && m->plan.B == B && m->plan.T == T && m->plan.micro == micro;
}

/* What a plan is wanted for: a training step, an evaluation step (the
 * step's forward and loss), a forward alone (the logits), or generation. */
typedef enum { PLAN_STEP, PLAN_EVAL, PLAN_FORWARD, PLAN_DECODE } plan_use;

/* Whether the model holds its training state: the gradient and AdamW
 * moment slabs (plan.h, svk_plan.train_state), made at the first training
 * step or optimizer state loaded and kept from then on. Until then the
 * moments are zero wherever they are read (a save, a check). */
static bool has_train_state(const svk_model *m)
{
    return m->has_plan && m->plan.train_state;
}

/* Whether the current plan is generation's, with the decode range. */
static bool has_decode(const svk_model *m)
{
    return m->has_plan && m->plan.phases.decode_end > m->plan.phases.decode;
}

/* Zeroes the AdamW moments, in pieces: a host image of the whole slab
 * would take the memory of the moments again. */
static svk_status zero_moments(svk_model *m)
{
    const uint64_t n = m->plan.slab_elems[SVK_SLAB_ADAM_M], piece = n < (1u << 22) ? n : (1u << 22);
    float *zero = svk_calloc(piece ? piece : 1, sizeof(float));
    if (!zero)
        return svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory zeroing the moments");
    svk_status st = SVK_OK;
    for (uint64_t at = 0; at < n && st == SVK_OK; at += piece) {
        const uint64_t k = n - at < piece ? n - at : piece;
        st = m->impl->write(m, SVK_SLAB_ADAM_M, at, k, zero);
        if (st == SVK_OK)
            st = m->impl->write(m, SVK_SLAB_ADAM_V, at, k, zero);
    }
    free(zero);
    return st;
}

/* Builds and installs the plan for batches [B, T] in micro micro-batches:
 * generation's (decode: the window's forward alone and the key-value
 * cache's ops, plan_decode.c) or a step's, with the training state or
 * without (train). On failure the model keeps its plan. */
static svk_status install_plan(svk_model *m, uint32_t B, uint32_t T, uint32_t micro, bool decode, bool train)
{
    svk_plan p;
    svk_plan_options opt = {0};
    svk_status st = m->impl->plan_options ? m->impl->plan_options(m->ctx, &m->params.config, &opt) : SVK_OK;
    if (st != SVK_OK)
        return st;
    opt.micro_batches = micro;
    opt.recompute = m->params.recompute && !decode;
    opt.precision = (uint32_t)m->params.precision;
    opt.loss_scaling = m->params.precision == SVK_PRECISION_FP16;
    opt.loss_scale_interval = m->params.loss_scale_interval;
    opt.decode = decode;
    opt.frozen = !train;
    if ((st = svk_plan_build(svk_model_log(m), &m->params.config, B, T, &opt, &p)) != SVK_OK)
        return st;
    const bool fresh = train && !has_train_state(m);
    if ((st = m->impl->set_plan(m, &p)) != SVK_OK) {
        svk_plan_free(&p);
        return st;
    }
    if (m->has_plan)
        svk_plan_free(&m->plan);
    m->plan = p;
    m->has_plan = true;
    m->logits_kept = false;
    /* The buckets are the plan's: cut again for the new one on use. */
    svk_grad_layout_free(&m->layout);
    /* New moment slabs hold what the device left there. Until they are
     * zeroed the state counts as not made: the plan runs no step, and the
     * next call that needs the state makes it again. */
    if (fresh && (st = zero_moments(m)) != SVK_OK)
        m->plan.train_state = false;
    return st;
}

/* Makes the plan for batches [B, T] in micro micro-batches current, for
 * use. Generation's (PLAN_DECODE) keeps the key-value cache in the
 * forward's own per-layer qkv tensors, so a decode plan recomputes
 * nothing; its step, a forward alone, serves the logits, not a training
 * or evaluation step. Only a training step needs the training state; once
 * made, every plan keeps it. */
static svk_status use_plan(svk_model *m, uint32_t B, uint32_t T, uint32_t micro, plan_use use)
{
    const bool decode = use == PLAN_DECODE;
    const bool train = use == PLAN_STEP || has_train_state(m);
    if (has_shape(m, B, T, micro) && (decode ? has_decode(m) : use == PLAN_FORWARD || !has_decode(m)) &&
        (!train || has_train_state(m)))
        return SVK_OK;
    return install_plan(m, B, T, micro, decode, train);
}

svk_status svk_model_need_train_state(svk_model *m)
{
    if (has_train_state(m))
        return SVK_OK;
    return install_plan(m, m->plan.B, m->plan.T, m->plan.micro, has_decode(m), true);
}

static svk_status write_initial_weights(svk_model *m)
{
    /* Drawn straight into a host image of the parameter slab, then written
     * in one transfer rather than a round trip to the device per tensor. */
    const uint64_t slab = m->plan.slab_elems[SVK_SLAB_PARAM];
    float **data = svk_calloc(m->n_params ? m->n_params : 1, sizeof(*data));
    float *host = svk_calloc(slab ? slab : 1, sizeof(float));
    svk_status st = SVK_OK;
    if (!data || !host) {
        st = svk_error(svk_model_log(m), SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory initialising weights");
    } else {
        for (size_t i = 0; i < m->n_params; i++)
            data[i] = host + m->plan.tensors[svk_plan_param_tensor(&m->plan, i, SVK_SLAB_PARAM)].offset;
        svk_model_init_params(m->info, m->n_params, m->params.seed, data);
        st = m->impl->write(m, SVK_SLAB_PARAM, 0, slab, host);
    }
    free(data);
    free(host);
    return st;
}

svk_status svk_model_set_loss_scaler(svk_model *m, float scale, uint32_t good)
{
    float state[SVK_LOSS_SCALER_COUNT];
    state[SVK_LOSS_SCALER_S] = scale;
    state[SVK_LOSS_SCALER_INV] = 1.0f / scale; /* a power of two: exact */
    state[SVK_LOSS_SCALER_GOOD] = (float)good;
    const svk_plan_tensor *t = &m->plan.tensors[m->plan.loss_scaler];
    return m->impl->write(m, SVK_SLAB_STATE, t->offset, SVK_LOSS_SCALER_COUNT, state);
}

svk_status svk_model_get_loss_scaler(svk_model *m, float *scale, uint32_t *good)
{
    float state[SVK_LOSS_SCALER_COUNT];
    const svk_plan_tensor *t = &m->plan.tensors[m->plan.loss_scaler];
    svk_status st = m->impl->read(m, SVK_SLAB_STATE, t->offset, SVK_LOSS_SCALER_COUNT, state);
    if (st == SVK_OK) {
        *scale = state[SVK_LOSS_SCALER_S];
        *good = (uint32_t)state[SVK_LOSS_SCALER_GOOD];
    }
    return st;
}

svk_status svk_model_reset_optimizer(svk_model *m)
{
    /* Without the training state the moments are zero already. */
    svk_status st = has_train_state(m) ? zero_moments(m) : SVK_OK;
    if (st == SVK_OK)
        st = svk_model_set_loss_scaler(m, m->params.loss_scale, 0);
    /* The writes waited for any step in flight; its count no longer matters. */
    m->step = 0;
    m->step_pending = m->older_pending = false;
    m->last_skipped = false;
    return st;
}

svk_status svk_model_create(const svk_model_params *params, svk_model **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_RESERVED(NULL, params->reserved);
    if (params->backend != SVK_BACKEND_CPU && params->backend != SVK_BACKEND_VULKAN)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->backend=%d is neither SVK_BACKEND_VULKAN nor _CPU",
                         __func__, (int)params->backend);
    if (params->backend == SVK_BACKEND_VULKAN && !params->ctx)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->ctx is NULL, and the Vulkan backend needs a context",
                         __func__);
    svk_status st = svk_model_config_validate(&params->config);
    if (st != SVK_OK)
        return st;
    /* Each setting alone, so the message names the one out of range. */
    const svk_optimizer *o = &params->optimizer;
    const struct {
        const char *name;
        float value;
        bool ok;
        const char *range;
    } opt[] = {
        {"beta1", o->beta1, o->beta1 >= 0 && o->beta1 < 1, "in [0, 1)"},
        {"beta2", o->beta2, o->beta2 >= 0 && o->beta2 < 1, "in [0, 1)"},
        {"eps", o->eps, o->eps > 0 && isfinite(o->eps), "finite and > 0"},
        {"weight_decay", o->weight_decay, o->weight_decay >= 0 && isfinite(o->weight_decay), "finite and >= 0"},
        {"max_norm", o->max_norm, o->max_norm >= 0 && isfinite(o->max_norm), "finite and >= 0 (0 = no clipping)"},
    };
    for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
        if (!opt[i].ok)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->optimizer.%s=%g must be %s", __func__,
                             opt[i].name, (double)opt[i].value, opt[i].range);
    if (!(params->max_submit_ms >= 0) || !isfinite(params->max_submit_ms))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->max_submit_ms=%g must be finite and >= 0 (0 = one "
                         "submission per step)", __func__, params->max_submit_ms);
    if (!svk_precision_name(params->precision))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->precision=%d is not SVK_PRECISION_FP32, _FP16 or _BF16", __func__,
                         (int)params->precision);
    int exp2;
    if (params->loss_scale != 0 &&
        (!isfinite(params->loss_scale) || frexpf(params->loss_scale, &exp2) != 0.5f ||
         exp2 - 1 < -SVK_LOSS_SCALE_MAX_EXP || exp2 - 1 > SVK_LOSS_SCALE_MAX_EXP))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->loss_scale=%g must be a power of two in [2^-%d, 2^%d] (or 0: %g)", __func__,
                         (double)params->loss_scale, SVK_LOSS_SCALE_MAX_EXP, SVK_LOSS_SCALE_MAX_EXP,
                         (double)SVK_LOSS_SCALE_DEFAULT);
    if (params->loss_scale_interval > (1u << 24))
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->loss_scale_interval=%u exceeds 2^24", __func__,
                         params->loss_scale_interval);
    svk_model *m = svk_calloc(1, sizeof(*m));
    if (!m)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a model");
    m->params = *params;
    if (m->params.loss_scale == 0)
        m->params.loss_scale = SVK_LOSS_SCALE_DEFAULT;
    if (m->params.loss_scale_interval == 0)
        m->params.loss_scale_interval = SVK_LOSS_SCALE_INTERVAL_DEFAULT;
    m->ctx = params->backend == SVK_BACKEND_VULKAN ? params->ctx : NULL;
    m->impl = params->backend == SVK_BACKEND_VULKAN ? &svk_backend_vulkan : &svk_backend_cpu;
    m->n_params = svk_model_param_list(&params->config, NULL, 0);
    m->info = svk_calloc(m->n_params, sizeof(*m->info));
    if (!m->info) {
        free(m);
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a model");
    }
    svk_model_param_list(&params->config, m->info, m->n_params);
    for (size_t i = 0; i < m->n_params; i++)
        m->n_elems += m->info[i].elems;
    /* No training state yet: a model that only generates or evaluates
     * never holds its gradients and moments. */
    if ((st = use_plan(m, 1, 1, 1, PLAN_EVAL)) != SVK_OK || (st = write_initial_weights(m)) != SVK_OK ||
        (st = svk_model_reset_optimizer(m)) != SVK_OK) {
        svk_model_destroy(&m);
        return st;
    }
    *out = m;
    return SVK_OK;
}

void svk_model_destroy(svk_model **pm)
{
    if (!pm || !*pm)
        return;
    svk_model *m = *pm;
    if (m->impl && m->impl->destroy)
        m->impl->destroy(m);
    if (m->has_plan)
        svk_plan_free(&m->plan);
    free(m->info);
    free(m->reduce_grads);
    svk_grad_layout_free(&m->layout);
    free(m);
    *pm = NULL;
}

const svk_model_config *svk_model_get_config(const svk_model *m)
{
    return m ? &m->params.config : NULL;
}

uint64_t svk_model_param_count(const svk_model *m)
{
    return m ? m->n_elems : 0;
}

static svk_status read_output(svk_model *m, float out[SVK_OUT_COUNT])
{
    const svk_plan_tensor *t = &m->plan.tensors[m->plan.output];
    return m->impl->read(m, SVK_SLAB_OUTPUT, t->offset, SVK_OUT_COUNT, out);
}

svk_status svk_model_check_usable(svk_model *m, const char *func)
{
    if (!m->unusable[0])
        return SVK_OK;
    return svk_error(svk_model_log(m), SVK_ERROR_INVALID_STATE,
                     "%s: the model is unusable: %s; load a checkpoint (svk_model_load) to go on", func, m->unusable);
}

/* Reads the outcome of one submitted step: the one before the latest
 * (older) or the latest. */
static svk_status settle_one(svk_model *m, bool older)
{
    float out[SVK_OUT_COUNT];
    /* The step was submitted: it runs whether or not this wait succeeds.
     * A wait may fail for want of memory and succeed when tried again (the
     * backend keeps the step pending), so it is retried; if it keeps
     * failing, the model's state cannot be known and the model says so
     * from then on rather than go on from a guess. */
    svk_status st = SVK_OK;
    for (int attempt = 0; attempt < 3; attempt++) {
        st = older ? m->impl->read_prev_output(m, out) : read_output(m, out);
        if (st == SVK_OK || st == SVK_ERROR_DEVICE_LOST)
            break;
    }
    if (st != SVK_OK) {
        if (st != SVK_ERROR_DEVICE_LOST)
            snprintf(m->unusable, sizeof(m->unusable), "the outcome of a submitted training step could not be read (%s)",
                     svk_last_error());
        return st;
    }
    if (older)
        m->older_pending = false;
    else
        m->step_pending = false;
    m->last_skipped = !svk_step_finite(out[SVK_OUT_LOSS], out[SVK_OUT_GRAD_NORM]);
    if (!m->last_skipped)
        m->step++;
    return SVK_OK;
}

svk_status svk_model_settle(svk_model *m)
{
    svk_status st = m->older_pending ? settle_one(m, true) : SVK_OK;
    if (st == SVK_OK && m->step_pending)
        st = settle_one(m, false);
    return st;
}

uint64_t svk_model_step(const svk_model *cm)
{
    if (!cm)
        return 0;
    /* The count of a step in flight depends on whether it was finite, so
     * the step is waited for. Models are only ever made by svk_model_create
     * (never const objects), so settling through this pointer is defined. */
    svk_model *m = (svk_model *)cm;
    svk_model_settle(m); /* on failure (a lost device) the settled count stands */
    return m->step;
}

/* "model is NULL", in the words of the public header. */
#define CHECK_MODEL(m)                                                                            \
    do {                                                                                          \
        if (!(m))                                                                                 \
            return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);         \
    } while (0)

/* B and T of a batch, before anything is allocated for it. */
static svk_status check_shape(svk_model *m, uint32_t B, uint32_t T, const char *func)
{
    const svk_model_config *c = &m->params.config;
    if (B == 0 || T == 0)
        return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: empty batch: B=%u, T=%u (each must be >= 1)",
                         func, B, T);
    if (T > c->ctx)
        return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: T=%u exceeds the model's ctx=%u", func, T, c->ctx);
    /* Kernels index tokens with 32-bit signed arithmetic. */
    if ((uint64_t)B * T > (1ull << 31))
        return svk_error(svk_model_log(m), SVK_ERROR_TOO_LARGE,
                         "%s: batch B=%u x T=%u = %llu tokens exceeds 2^31", func, B, T,
                         (unsigned long long)B * T);
    return SVK_OK;
}

/* Tokens in [0, V), targets in [-1, V): anything else is the caller's bug,
 * reported with its position rather than clamped. Checked on the host,
 * before anything runs, so a refused batch leaves the model as it was (the
 * device kernels count bad indices too, and skip them, as a second line). */
static svk_status check_tokens(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                               const char *func)
{
    const svk_model_config *c = &m->params.config;
    for (uint64_t i = 0; i < (uint64_t)B * T; i++) {
        if (tokens[i] < 0 || (uint32_t)tokens[i] >= c->vocab)
            return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: token %d at [%llu, %llu] is outside [0, %u)",
                             func, tokens[i], (unsigned long long)(i / T), (unsigned long long)(i % T), c->vocab);
        if (targets && (targets[i] < -1 || targets[i] >= (int32_t)c->vocab))
            return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG,
                             "%s: target %d at [%llu, %llu] is outside [-1, %u)", func, targets[i],
                             (unsigned long long)(i / T), (unsigned long long)(i % T), c->vocab);
    }
    return SVK_OK;
}

static svk_status check_lr(svk_model *m, float lr, const char *func)
{
    if (!isfinite(lr) || lr < 0)
        return svk_error(svk_model_log(m), SVK_ERROR_INVALID_ARG, "%s: lr=%g must be finite and >= 0", func,
                         (double)lr);
    return SVK_OK;
}

/* The checks and preparation every batch goes through, in this order: the
 * shape, the steps in flight settled (a new plan would drop their outputs),
 * the plan for the shape (its sizes are checked there, before any
 * allocation), then the values. overlap: a training step that may go in
 * behind the one in flight (at the same shape, on a backend that keeps
 * both steps' outputs), which then stays pending; the one before it is
 * settled, so that its parity is free and the update count is known up to
 * the step in flight. */
static svk_status begin_shape(svk_model *m, uint32_t B, uint32_t T, uint32_t micro, bool overlap, plan_use use,
                              const char *func)
{
    svk_status st = svk_model_check_usable(m, func);
    if (st == SVK_OK)
        st = check_shape(m, B, T, func);
    overlap = overlap && m->impl->read_prev_output && has_shape(m, B, T, micro);
    if (st == SVK_OK)
        st = overlap ? (m->older_pending ? settle_one(m, true) : SVK_OK) : svk_model_settle(m);
    if (st == SVK_OK)
        st = use_plan(m, B, T, micro, use);
    return st;
}

static svk_status begin_batch(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                              bool overlap, plan_use use, const char *func)
{
    svk_status st = begin_shape(m, B, T, 1, overlap, use, func);
    return st == SVK_OK ? check_tokens(m, tokens, targets, B, T, func) : st;
}

svk_status svk_model_begin_generation(svk_model *m, const char *func)
{
    svk_status st = svk_model_check_usable(m, func);
    if (st == SVK_OK)
        st = svk_model_settle(m);
    return st == SVK_OK ? use_plan(m, 1, m->params.config.ctx, 1, PLAN_DECODE) : st;
}

svk_status svk_model_begin_batch(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                                 const char *func)
{
    return begin_batch(m, tokens, targets, B, T, false, PLAN_STEP, func);
}

/* The update count ends at SVK_MAX_STEP (svk/model.h) instead of
 * wrapping: a step that might make it pass is refused. Steps in flight
 * count as applied until their outcome is read, so only near the end are
 * they waited for, to learn whether one was skipped and one more fits. */
static svk_status check_step_room(svk_model *m, const char *func)
{
    if (m->step + (m->older_pending ? 1 : 0) + (m->step_pending ? 1 : 0) < SVK_MAX_STEP)
        return SVK_OK;
    svk_status st = svk_model_settle(m);
    if (st != SVK_OK || m->step < SVK_MAX_STEP)
        return st;
    return svk_error(svk_model_log(m), SVK_ERROR_INVALID_STATE,
                     "%s: the model has made %llu updates, SVK_MAX_STEP, the most a model counts; no more steps "
                     "(load a checkpoint with a lower step to go on)",
                     func, (unsigned long long)m->step);
}

/* A training step on B rows in micro micro-batches (checked: 1 <= micro,
 * dividing B); func names the public caller in messages. */
static svk_status train_step(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                             uint32_t micro, float lr, float *loss, const char *func)
{
    svk_status st = check_lr(m, lr, func);
    /* A reduced step waits for its backward anyway: no overlap. */
    if (st != SVK_OK || (st = begin_shape(m, B, T, micro, !m->reduce_fn, PLAN_STEP, func)) != SVK_OK ||
        (st = check_tokens(m, tokens, targets, B, T, func)) != SVK_OK || (st = check_step_room(m, func)) != SVK_OK)
        return st;
    const svk_optimizer *o = &m->params.optimizer;
    /* A step still in flight is counted as applied; the device corrects
     * the count if it was not (svk_step_hparams.prev_in_flight). */
    svk_step_hparams h = {
        .lr = lr, .t = m->step + 1 + (m->step_pending ? 1 : 0), .beta1 = o->beta1, .beta2 = o->beta2,
        .adam_eps = o->eps, .weight_decay = o->weight_decay, .max_norm = o->max_norm,
        .prev_in_flight = m->step_pending,
    };
    const svk_plan *p = &m->plan;
    m->logits_kept = false;
    /* Not waited for here: once submitted the step counts as pending, so a
     * failed wait below still leaves the count to be settled. */
    st = m->reduce_fn ? svk_model_reduced_step(m, tokens, targets, &h, func)
                      : m->impl->run(m, p->phases.forward, p->phases.end, tokens, targets, &h, false);
    if (st != SVK_OK)
        return st;
    m->older_pending = m->step_pending;
    m->step_pending = true;
    if (loss) {
        float out[SVK_OUT_COUNT];
        if ((st = svk_model_settle(m)) != SVK_OK || (st = read_output(m, out)) != SVK_OK)
            return st;
        *loss = out[SVK_OUT_LOSS];
    }
    return SVK_OK;
}

svk_status svk_model_train_step(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                                float lr, float *loss)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, targets);
    return train_step(m, tokens, targets, B, T, 1, lr, loss, __func__);
}

svk_status svk_model_train_step_accum(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B,
                                      uint32_t T, uint32_t accum, float lr, float *loss)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, targets);
    if (accum == 0 || (B && B % accum != 0))
        return svk_error(log, SVK_ERROR_INVALID_ARG,
                         "%s: accum=%u must be >= 1 and divide the batch's B=%u rows into equal micro-batches",
                         __func__, accum, B);
    return train_step(m, tokens, targets, B, T, accum, lr, loss, __func__);
}

svk_status svk_model_last_step(svk_model *m, svk_step_info *info)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    SVK_CHECK_PTR(svk_model_log(m), info);
    float out[SVK_OUT_COUNT];
    svk_status st = svk_model_check_usable(m, __func__);
    if (st == SVK_OK)
        st = svk_model_settle(m);
    if (st == SVK_OK)
        st = read_output(m, out);
    if (st == SVK_OK) {
        int32_t valid;
        memcpy(&valid, &out[SVK_OUT_VALID_TARGETS], sizeof(valid));
        const bool scaled = m->params.precision == SVK_PRECISION_FP16;
        const float s = scaled ? out[SVK_OUT_LOSS_SCALE] : 1.0f;
        /* The device's clip scale multiplies the scaled gradients: times S
         * (a power of two: exactly) it is the unscaled ones'. */
        *info = (svk_step_info){.loss = out[SVK_OUT_LOSS], .grad_norm = out[SVK_OUT_GRAD_NORM],
                                .clip_scale = scaled ? out[SVK_OUT_CLIP_SCALE] * s : out[SVK_OUT_CLIP_SCALE],
                                .valid_targets = (uint32_t)valid, .skipped = m->last_skipped, .step = m->step,
                                .loss_scale = s};
    }
    return st;
}

svk_status svk_model_eval_loss(svk_model *m, const int32_t *tokens, const int32_t *targets, uint32_t B, uint32_t T,
                               float *loss)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, targets);
    SVK_CHECK_PTR(log, loss);
    svk_status st = begin_batch(m, tokens, targets, B, T, false, PLAN_EVAL, __func__);
    if (st != SVK_OK)
        return st;
    const svk_plan *p = &m->plan;
    /* The forward, then the loss alone: the step's loss op would write the
     * logits' gradient over them. */
    if ((st = m->impl->run(m, p->phases.forward, p->phases.loss, tokens, targets, NULL, false)) != SVK_OK ||
        (st = m->impl->run(m, p->phases.eval, p->phases.eval_end, NULL, NULL, NULL, true)) != SVK_OK)
        return st;
    m->logits_kept = true;
    float out[SVK_OUT_COUNT];
    if ((st = read_output(m, out)) == SVK_OK)
        *loss = out[SVK_OUT_LOSS];
    return st;
}

svk_status svk_model_forward_logits(svk_model *m, const int32_t *tokens, uint32_t B, uint32_t T, float *logits)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, logits);
    svk_status st = begin_batch(m, tokens, NULL, B, T, false, PLAN_FORWARD, __func__);
    if (st != SVK_OK)
        return st;
    const svk_plan *p = &m->plan;
    if ((st = m->impl->run(m, p->phases.forward, p->phases.loss, tokens, NULL, NULL, true)) != SVK_OK)
        return st;
    m->logits_kept = true;
    const svk_plan_tensor *t = &p->tensors[p->logits];
    return m->impl->read(m, SVK_SLAB_ACT, t->offset, t->elems, logits);
}

svk_status svk_model_record_train_step(svk_model *m, VkCommandBuffer cmd, uint32_t B, uint32_t T)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    if (cmd == VK_NULL_HANDLE)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: cmd is VK_NULL_HANDLE", __func__);
    if (!m->impl->record_external)
        return svk_error(log, SVK_ERROR_UNSUPPORTED, "%s: the %s backend records no command buffers", __func__,
                         m->impl->name);
    svk_status st = begin_shape(m, B, T, 1, false, PLAN_STEP, __func__);
    return st == SVK_OK ? m->impl->record_external(m, (void *)cmd) : st;
}

svk_status svk_model_prepare_train_step(svk_model *m, const int32_t *tokens, const int32_t *targets, float lr)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, tokens);
    SVK_CHECK_PTR(log, targets);
    if (!m->impl->prepare)
        return svk_error(log, SVK_ERROR_UNSUPPORTED, "%s: the %s backend records no command buffers", __func__,
                         m->impl->name);
    svk_status st = svk_model_check_usable(m, __func__);
    if (st == SVK_OK)
        st = check_lr(m, lr, __func__);
    /* The previous prepared step has completed (the contract of
     * svk/vulkan.h): its outputs say whether it counted. */
    if (st == SVK_OK)
        st = svk_model_settle(m);
    if (st == SVK_OK)
        st = check_step_room(m, __func__);
    if (st == SVK_OK)
        st = check_tokens(m, tokens, targets, m->plan.B, m->plan.T, __func__);
    if (st != SVK_OK)
        return st;
    const svk_optimizer *o = &m->params.optimizer;
    svk_step_hparams h = {
        .lr = lr, .t = m->step + 1, .beta1 = o->beta1, .beta2 = o->beta2, .adam_eps = o->eps,
        .weight_decay = o->weight_decay, .max_norm = o->max_norm,
    };
    m->logits_kept = false;
    if ((st = m->impl->prepare(m, tokens, targets, &h)) == SVK_OK)
        m->step_pending = true;
    return st;
}

void svk_model_forget_recordings(svk_model *m)
{
    if (m && m->impl->forget_recordings)
        m->impl->forget_recordings(m);
}

svk_status svk_model_memory(const svk_model *m, svk_memory_report *report)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    SVK_CHECK_PTR(NULL, report);
    *report = svk_plan_memory_report(&m->plan);
    return SVK_OK;
}

svk_memory_report svk_plan_memory_report(const svk_plan *p)
{
    const uint64_t *e = p->slab_elems;
    svk_memory_report r = {
        .params = e[SVK_SLAB_PARAM] * 4,
        .grads = p->train_state ? e[SVK_SLAB_GRAD] * 4 : 0,
        .optimizer = p->train_state ? (e[SVK_SLAB_ADAM_M] + e[SVK_SLAB_ADAM_V]) * 4 : 0,
        .activations = e[SVK_SLAB_ACT] * 4,
        .io = (e[SVK_SLAB_INPUT] + e[SVK_SLAB_OUTPUT]) * 4,
    };
    r.total = r.params + r.grads + r.optimizer + r.activations + r.io;
    return r;
}
