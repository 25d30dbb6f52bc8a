/*
 * Generation (svk_model_generate, _ex): the window's forward or, with the
 * key-value cache, one token's (plan_decode.c), and sampling from the
 * logits: greedy, temperature with top-k and top-p, and the stops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "core/rng.h"
#include "model_internal.h"

svk_sample_params svk_sample_params_default(void)
{
    return (svk_sample_params){.temperature = 0.0f, .top_k = 0, .seed = 1, .stop_token = -1};
}

svk_generate_params svk_generate_params_default(void)
{
    return (svk_generate_params){.temperature = 0.0f, .top_k = 0, .top_p = 1.0f, .seed = 1, .stop_token = -1};
}

/* Every setting alone, so that the message names the one that is wrong. */
static svk_status check_params(svk_log *log, const char *func, const svk_generate_params *s)
{
    for (size_t i = 0; i < sizeof(s->reserved) / sizeof(s->reserved[0]); i++)
        if (s->reserved[i])
            return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: params->reserved[%zu] is %llu; reserved fields must be zero",
                             func, i, (unsigned long long)s->reserved[i]);
    if (!(s->temperature >= 0) || !isfinite(s->temperature))
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: temperature=%g must be finite and >= 0", func,
                         (double)s->temperature);
    if (!(s->top_p > 0 && s->top_p <= 1))
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: top_p=%g must be in (0, 1] (1: every token)", func,
                         (double)s->top_p);
    if (s->n_stop > SVK_GENERATE_STOPS_MAX)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: n_stop=%u stop strings, more than SVK_GENERATE_STOPS_MAX=%u",
                         func, s->n_stop, SVK_GENERATE_STOPS_MAX);
    if (s->n_stop && !s->stop)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: stop is NULL with n_stop=%u", func, s->n_stop);
    for (uint32_t i = 0; i < s->n_stop; i++) {
        const size_t len = s->stop[i] ? strlen(s->stop[i]) : 0;
        if (len == 0 || len > SVK_GENERATE_STOP_MAX)
            return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: stop[%u] is %s; stop strings hold 1..%u bytes", func, i,
                             !s->stop[i] ? "NULL" : len == 0 ? "empty" : "too long", SVK_GENERATE_STOP_MAX);
    }
    return SVK_OK;
}

/* A candidate of top-p: its logit and its token. */
typedef struct cand {
    float logit;
    uint32_t v;
} cand;

/* Likeliest first, ties by token: the order greedy's argmax picks in. */
static int by_logit(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->logit != b->logit)
        return a->logit > b->logit ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

/* Top-p over the tokens at or above threshold: the likeliest whose weights
 * (exp((l - best) / temperature)) first reach top_p of their total, then a
 * draw among them in that order. */
static int32_t sample_top_p(const float *logits, uint32_t V, const svk_generate_params *s, float threshold,
                            float best, uint64_t *rng, cand *work)
{
    uint32_t n = 0;
    double total = 0;
    for (uint32_t v = 0; v < V; v++)
        if (logits[v] >= threshold) {
            work[n++] = (cand){logits[v], v};
            total += exp(((double)logits[v] - best) / s->temperature);
        }
    qsort(work, n, sizeof(*work), by_logit);
    uint32_t keep = 0;
    double kept = 0;
    while (keep < n && (keep == 0 || kept < (double)s->top_p * total))
        kept += exp(((double)work[keep++].logit - best) / s->temperature);
    const double u = svk_uniform_open(rng) * kept;
    double acc = 0;
    for (uint32_t i = 0; i < keep; i++) {
        acc += exp(((double)work[i].logit - best) / s->temperature);
        if (acc >= u)
            return (int32_t)work[i].v;
    }
    return (int32_t)work[0].v;
}

/* Picks the next token from one row of logits. */
static int32_t sample(const float *logits, uint32_t V, const svk_generate_params *s, uint64_t *rng, cand *work)
{
    uint32_t best = 0;
    for (uint32_t v = 1; v < V; v++)
        if (logits[v] > logits[best])
            best = v;
    if (s->temperature <= 0)
        return (int32_t)best;
    /* Top-k: keep the k largest (ties broken by index), then sample from
     * softmax(logits / temperature) over them. */
    uint32_t k = s->top_k && s->top_k < V ? s->top_k : V;
    float threshold = -INFINITY;
    if (k < V) {
        for (uint32_t v = 0; v < V; v++)
            work[v].logit = logits[v];
        for (uint32_t i = 0; i < k; i++) { /* k passes of selection: V is small */
            uint32_t arg = 0;
            for (uint32_t v = 1; v < V; v++)
                if (work[v].logit > work[arg].logit)
                    arg = v;
            threshold = work[arg].logit;
            work[arg].logit = -INFINITY;
        }
    }
    if (s->top_p < 1)
        return sample_top_p(logits, V, s, threshold, logits[best], rng, work);
    double total = 0;
    for (uint32_t v = 0; v < V; v++)
        if (logits[v] >= threshold)
            total += exp(((double)logits[v] - logits[best]) / s->temperature);
    double u = svk_uniform_open(rng) * total, acc = 0;
    for (uint32_t v = 0; v < V; v++) {
        if (logits[v] < threshold)
            continue;
        acc += exp(((double)logits[v] - logits[best]) / s->temperature);
        if (acc >= u)
            return (int32_t)v;
    }
    return (int32_t)best;
}

/* Whether out[0 .. n) ends generation: its last token is the stop token,
 * or it ends with a stop string's bytes. */
static bool stopped(const svk_generate_params *s, const int32_t *out, uint32_t n)
{
    if (n && out[n - 1] == s->stop_token)
        return true;
    for (uint32_t i = 0; i < s->n_stop; i++) {
        const size_t len = strlen(s->stop[i]);
        bool match = len <= n;
        for (size_t j = 0; j < len && match; j++)
            match = out[n - len + j] == (int32_t)(unsigned char)s->stop[i][j];
        if (match)
            return true;
    }
    return false;
}

/* A generation's buffers and where the cache stands. */
typedef struct gen {
    svk_model *m;
    uint32_t ctx, V;
    int32_t *seq;     /* the prompt and what follows it */
    int32_t *window;  /* [ctx]: the forward's tokens */
    float *logits;    /* [ctx, V]: the forward's logits */
    float *row;       /* the next token's logits: a row of logits, or the decode's */
    cand *work;       /* [V] */
    uint64_t cached;  /* the cache holds positions 0 .. cached - 1 of seq (0: none) */
} gen;

/* The window's forward (the prefill): the last ctx tokens of seq[0 .. len),
 * padded with token 0 after the text (causal attention keeps the padding
 * from affecting earlier positions); the cache then holds the window when
 * it starts at seq[0]. */
static svk_status window_forward(gen *g, uint64_t len)
{
    svk_model *m = g->m;
    const svk_plan *p = &m->plan;
    const uint64_t start = len > g->ctx ? len - g->ctx : 0, n = len - start;
    memset(g->window, 0, g->ctx * sizeof(int32_t));
    memcpy(g->window, g->seq + start, n * sizeof(int32_t));
    svk_status st = m->impl->run(m, p->phases.forward, p->phases.loss, g->window, NULL, NULL, true);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_ACT, p->tensors[p->logits].offset, p->tensors[p->logits].elems, g->logits);
    g->row = g->logits + (n - 1) * g->V;
    g->cached = st == SVK_OK && start == 0 ? len : 0;
    return st;
}

svk_status svk_model_decode(svk_model *m, int32_t token, uint32_t pos, float *logits)
{
    const svk_plan *p = &m->plan;
    const int32_t step[2] = {token, (int32_t)pos};
    if (p->decode_step == SVK_NONE || pos >= p->config.ctx)
        return svk_error(svk_model_log(m), SVK_ERROR_INTERNAL, "decode at position %u: no decode plan, or past ctx=%u",
                         pos, p->config.ctx);
    svk_status st = m->impl->write(m, SVK_SLAB_INPUT, p->tensors[p->decode_step].offset, 2, step);
    /* The decode ops read decode.step alone: the batch is not written. */
    if (st == SVK_OK)
        st = m->impl->run(m, p->phases.decode, p->phases.decode_end, NULL, NULL, NULL, true);
    if (st == SVK_OK)
        st = m->impl->read(m, SVK_SLAB_ACT, p->tensors[p->decode_logits].offset, p->config.vocab, logits);
    return st;
}

/* One token's forward over the cache: seq[len - 1] at position len - 1. */
static svk_status decode_forward(gen *g, uint64_t len)
{
    svk_status st = svk_model_decode(g->m, g->seq[len - 1], (uint32_t)(len - 1), g->logits);
    g->row = g->logits;
    g->cached = st == SVK_OK ? len : 0;
    return st;
}

static svk_status run_loop(gen *g, uint64_t len, uint32_t max_new, const svk_generate_params *s, int32_t *out,
                           uint32_t *n_out)
{
    svk_status st = SVK_OK;
    uint64_t rng = s->seed;
    while (*n_out < max_new) {
        /* The cache serves while the window starts at seq[0] and holds all
         * but the last token; a window that slid moves every position. */
        const bool cached = !s->no_cache && len <= g->ctx && g->cached == len - 1;
        if ((st = cached ? decode_forward(g, len) : window_forward(g, len)) != SVK_OK)
            break;
        const int32_t next = sample(g->row, g->V, s, &rng, g->work);
        g->seq[len++] = next;
        out[(*n_out)++] = next;
        if (stopped(s, out, *n_out))
            break;
    }
    return st;
}

static svk_status generate(svk_model *m, const int32_t *prompt, uint32_t n_prompt, uint32_t max_new,
                           const svk_generate_params *s, int32_t *out, uint32_t *n_out, const char *func)
{
    svk_log *log = svk_model_log(m);
    SVK_CHECK_PTR(log, n_out);
    *n_out = 0;
    SVK_CHECK_PTR(log, prompt);
    if (n_prompt == 0)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: n_prompt is 0 (generation needs a prompt)", func);
    if (!out && max_new > 0)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: out is NULL with max_new=%u", func, max_new);
    svk_status st = check_params(log, func, s);
    if (st != SVK_OK)
        return st;
    const uint32_t ctx = m->params.config.ctx, V = m->params.config.vocab;
    for (uint32_t i = 0; i < n_prompt; i++)
        if (prompt[i] < 0 || (uint32_t)prompt[i] >= V)
            return svk_error(log, SVK_ERROR_INVALID_ARG, "%s: prompt[%u]=%d is outside [0, %u)", func, i, prompt[i],
                             V);
    uint64_t logit_bytes;
    if (!svk_mul_u64((uint64_t)ctx * V, sizeof(float), &logit_bytes) || logit_bytes > SIZE_MAX)
        return svk_error(log, SVK_ERROR_TOO_LARGE, "%s: the logits of a ctx=%u window, ctx*vocab=%u*%u floats, overflow",
                         func, ctx, ctx, V);
    if ((st = svk_model_begin_generation(m, func)) != SVK_OK)
        return st;
    gen g = {.m = m, .ctx = ctx, .V = V};
    g.seq = svk_malloc(((uint64_t)n_prompt + max_new) * sizeof(int32_t));
    g.window = svk_malloc(ctx * sizeof(int32_t));
    g.logits = svk_malloc((size_t)logit_bytes);
    g.work = svk_malloc(V * sizeof(cand));
    if (!g.seq || !g.window || !g.logits || !g.work) {
        st = svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory generating");
    } else {
        memcpy(g.seq, prompt, n_prompt * sizeof(int32_t));
        st = run_loop(&g, n_prompt, max_new, s, out, n_out);
    }
    free(g.seq);
    free(g.window);
    free(g.logits);
    free(g.work);
    return st;
}

/* "model is NULL", in the words of the public header. */
#define CHECK_MODEL(m)                                                                            \
    do {                                                                                          \
        if (!(m))                                                                                 \
            return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: model is NULL", __func__);         \
    } while (0)

svk_status svk_model_generate(svk_model *m, const int32_t *prompt, uint32_t n_prompt, uint32_t max_new,
                              const svk_sample_params *sp, int32_t *out, uint32_t *n_out)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    const svk_sample_params s = sp ? *sp : svk_sample_params_default();
    svk_generate_params g = svk_generate_params_default();
    g.temperature = s.temperature;
    g.top_k = s.top_k;
    g.seed = s.seed;
    g.stop_token = s.stop_token;
    return generate(m, prompt, n_prompt, max_new, &g, out, n_out, __func__);
}

svk_status svk_model_generate_ex(svk_model *m, const int32_t *prompt, uint32_t n_prompt, uint32_t max_new,
                                 const svk_generate_params *params, int32_t *out, uint32_t *n_out)
{
    svk_error_clear_thread();
    CHECK_MODEL(m);
    const svk_generate_params g = params ? *params : svk_generate_params_default();
    return generate(m, prompt, n_prompt, max_new, &g, out, n_out, __func__);
}
