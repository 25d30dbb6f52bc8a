/*
 * A model's training state (its gradients and AdamW moments) is made at
 * its first need, on both backends: a new model, and one that only
 * evaluates, takes logits or generates, holds none (svk_model_memory:
 * gradients and optimizer 0) and has none to dump; its save with the
 * optimizer state writes zero moments; a training step, or loading an
 * optimizer state, makes it. Made late, the moments start at zero: after
 * one step on memory a trained model left behind, m = (1 - beta1) g and
 * v = (1 - beta2) g^2; a model that evaluated and generated first trains
 * to the same losses, bit for bit, as one that trained at once, and so
 * does one given a fresh model's saved optimizer state; a step at the new
 * model's own batch shape makes the state as well.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/safetensors.h"
#include "svk/model.h"
#include "test_util.h"

enum { V = 64, CTX = 32, B = 2, T = 16, STEPS = 3 };

static tu_tally tally;
static uint64_t seed;

static svk_model *make(svk_ctx *ctx, svk_backend backend, uint64_t init_seed)
{
    svk_model_params p = svk_model_params_default();
    p.config.vocab = V, p.config.ctx = CTX, p.config.width = 32, p.config.heads = 2, p.config.layers = 2;
    p.optimizer.max_norm = 0; /* no clipping: the moments are the raw gradient's */
    p.backend = backend;
    p.ctx = ctx;
    p.seed = init_seed;
    svk_model *m = NULL;
    if (svk_model_create(&p, &m) != SVK_OK)
        tu_check(&tally, false, "create: %s", svk_last_error());
    return m;
}

static void batch(uint32_t k, int32_t *tokens, int32_t *targets)
{
    tu_random_batch(seed, k, tokens, targets, B * T, V, 0);
}

/* Whether the model's report holds gradients and moments. */
static bool holds_state(const svk_model *m, svk_memory_report *r)
{
    svk_model_memory(m, r);
    return r->grads == r->params && r->optimizer == 2 * r->params;
}

static bool holds_none(const svk_model *m, svk_memory_report *r)
{
    svk_model_memory(m, r);
    return r->params > 0 && r->grads == 0 && r->optimizer == 0 &&
           r->total == r->params + r->activations + r->io;
}

/* STEPS training steps on the seed's batches; false on an error. */
static bool train(svk_model *m, float *losses)
{
    int32_t tokens[B * T], targets[B * T];
    for (uint32_t s = 0; s < STEPS; s++) {
        batch(s, tokens, targets);
        if (svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &losses[s]) != SVK_OK)
            return false;
    }
    return true;
}

/* Everything but training: an evaluation, logits, generation with the
 * key-value cache and without. */
static bool use_untrained(svk_model *m)
{
    int32_t tokens[B * T], targets[B * T], out[4];
    static float logits[B * T * V];
    float loss;
    uint32_t n;
    batch(100, tokens, targets);
    svk_generate_params g = svk_generate_params_default();
    bool ok = svk_model_eval_loss(m, tokens, targets, B, T, &loss) == SVK_OK &&
              svk_model_forward_logits(m, tokens, B, T, logits) == SVK_OK &&
              svk_model_generate_ex(m, tokens, 5, 4, &g, out, &n) == SVK_OK;
    g.no_cache = true;
    return ok && svk_model_generate_ex(m, tokens, 5, 4, &g, out, &n) == SVK_OK;
}

/* Every tensor named prefix<name> in f is all zero. */
static bool all_zero(const svk_st_file *f, const char *prefix, size_t *count)
{
    *count = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const svk_st_tensor *t = &f->tensors[i];
        if (strncmp(t->name, prefix, strlen(prefix)) != 0)
            continue;
        (*count)++;
        const float *x = t->data;
        for (uint64_t j = 0; j < t->elems; j++)
            if (x[j] != 0.0f)
                return false;
    }
    return *count > 0;
}

/* The moments after one step from zero: m = (1 - beta1) g and
 * v = (1 - beta2) g^2, each tensor within 1e-6 of its norm. */
static void first_moments(const char *be, const char *state_path, const char *grads_path)
{
    svk_st_file s, g;
    if (svk_st_read(NULL, state_path, &s) != SVK_OK) {
        tu_check(&tally, false, "%s: read %s: %s", be, state_path, svk_last_error());
        return;
    }
    if (svk_st_read(NULL, grads_path, &g) != SVK_OK) {
        tu_check(&tally, false, "%s: read %s: %s", be, grads_path, svk_last_error());
        svk_st_free(&s);
        return;
    }
    const svk_model_params d = svk_model_params_default();
    double worst = 0;
    size_t n = 0;
    bool found = true;
    for (size_t i = 0; i < g.n_tensors && found; i++) {
        const svk_st_tensor *gt = &g.tensors[i];
        char name[160];
        const float *gx = gt->data;
        for (int k = 0; k < 2 && found; k++) {
            snprintf(name, sizeof(name), "optimizer.%s.%s", k ? "v" : "m", gt->name + strlen("grad."));
            const svk_st_tensor *t = svk_st_find(&s, name);
            if (!t || t->elems != gt->elems) {
                found = false;
                break;
            }
            const float *x = t->data;
            double diff = 0, ref = 0;
            for (uint64_t j = 0; j < t->elems; j++) {
                const double want = k ? (1.0 - (double)d.optimizer.beta2) * (double)gx[j] * gx[j]
                                      : (1.0 - (double)d.optimizer.beta1) * (double)gx[j];
                diff += (x[j] - want) * (x[j] - want);
                ref += want * want;
            }
            const double rel = ref > 0 ? sqrt(diff / ref) : sqrt(diff);
            worst = rel > worst ? rel : worst;
            n++;
        }
    }
    tu_check(&tally, found && n > 0 && worst <= 1e-6,
             "%s: after one step from late-made moments, m = (1 - beta1) g and v = (1 - beta2) g^2 over %zu tensors "
             "(worst relative error %.2e)", be, n, worst);
    svk_st_free(&s);
    svk_st_free(&g);
}

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *be = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char fresh[512], state[512], grads[512];
    snprintf(fresh, sizeof(fresh), "%s/fresh.safetensors", dir);
    snprintf(state, sizeof(state), "%s/state.safetensors", dir);
    snprintf(grads, sizeof(grads), "%s/grads.safetensors", dir);
    float dirty[STEPS], direct[STEPS], late[STEPS], loaded[STEPS];
    svk_memory_report r;

    /* Memory a trained model leaves behind, moments and all, for the
     * next models' buffers to be made from. */
    svk_model *m = make(ctx, backend, 99);
    tu_check(&tally, m && train(m, dirty), "%s: a model trains and is destroyed: %s", be, svk_last_error());
    svk_model_destroy(&m);

    /* Untrained: no state, none to dump, zero moments saved. */
    m = make(ctx, backend, 7);
    if (!m)
        return;
    bool none = holds_none(m, &r);
    tu_check(&tally, none, "%s: a new model holds no gradients or moments (params %llu, grads %llu, "
             "optimizer %llu bytes)", be, (unsigned long long)r.params, (unsigned long long)r.grads,
             (unsigned long long)r.optimizer);
    none = use_untrained(m) && holds_none(m, &r);
    tu_check(&tally, none,
             "%s: nor after evaluating, logits and generating (%s; grads %llu, optimizer %llu bytes)", be,
             svk_last_error(), (unsigned long long)r.grads, (unsigned long long)r.optimizer);
    svk_status st = svk_model_save_grads(m, grads);
    tu_check(&tally, st == SVK_ERROR_INVALID_STATE && strstr(svk_last_error(), "no training step"),
             "%s: no gradients to dump before a step: %s", be, svk_last_error());
    st = svk_model_save(m, fresh, true);
    svk_st_file f;
    size_t count = 0;
    bool zero = false;
    if (st == SVK_OK && svk_st_read(NULL, fresh, &f) == SVK_OK) {
        zero = all_zero(&f, "optimizer.m.", &count) && all_zero(&f, "optimizer.v.", &count);
        svk_st_free(&f);
    }
    tu_check(&tally, st == SVK_OK && zero && holds_none(m, &r),
             "%s: its save with the optimizer state holds zero moments (%zu tensors each) and makes none (%s)", be,
             count, svk_last_error());

    /* One step at lr 0 from moments made now, on the dirty memory. */
    int32_t tokens[B * T], targets[B * T];
    batch(0, tokens, targets);
    st = svk_model_train_step(m, tokens, targets, B, T, 0.0f, NULL);
    bool held = st == SVK_OK && holds_state(m, &r);
    tu_check(&tally, held,
             "%s: a training step makes the state (grads %llu, optimizer %llu of params %llu bytes) (%s)", be,
             (unsigned long long)r.grads, (unsigned long long)r.optimizer, (unsigned long long)r.params,
             svk_last_error());
    if (st == SVK_OK && svk_model_save_grads(m, grads) == SVK_OK && svk_model_save(m, state, true) == SVK_OK)
        first_moments(be, state, grads);
    else
        tu_check(&tally, false, "%s: dump the step's gradients and state: %s", be, svk_last_error());
    svk_model_destroy(&m);

    /* Late or at once, from a saved fresh state or not: the same losses. */
    m = make(ctx, backend, 7);
    bool ok = m && train(m, direct);
    svk_model_destroy(&m);
    m = make(ctx, backend, 7);
    ok = ok && m && use_untrained(m) && train(m, late);
    svk_model_destroy(&m);
    tu_check(&tally, ok && !memcmp(direct, late, sizeof(direct)),
             "%s: a model that evaluated and generated first trains as one that trained at once: %.9g %.9g %.9g vs "
             "%.9g %.9g %.9g (%s)", be, direct[0], direct[1], direct[2], late[0], late[1], late[2],
             ok ? "" : svk_last_error());
    m = make(ctx, backend, 7);
    st = m ? svk_model_load(m, fresh, true) : SVK_ERROR_INVALID_STATE;
    tu_check(&tally, st == SVK_OK && holds_state(m, &r), "%s: loading an optimizer state makes the state (%s)", be,
             svk_last_error());
    ok = st == SVK_OK && train(m, loaded);
    tu_check(&tally, ok && !memcmp(direct, loaded, sizeof(direct)),
             "%s: from the fresh model's saved state, the same losses: %.9g %.9g %.9g (%s)", be, loaded[0], loaded[1],
             loaded[2], ok ? "" : svk_last_error());
    svk_model_destroy(&m);

    /* A step at the shape the model was made with. */
    m = make(ctx, backend, 7);
    float loss = NAN;
    st = m ? svk_model_train_step(m, tokens, targets, 1, 1, 1e-2f, &loss) : SVK_ERROR_INVALID_STATE;
    tu_check(&tally, st == SVK_OK && isfinite(loss) && holds_state(m, &r) && svk_model_step(m) == 1,
             "%s: a step of one token makes the state too (loss %g) (%s)", be, (double)loss, svk_last_error());
    svk_model_destroy(&m);
    remove(fresh);
    remove(state);
    remove(grads);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_train_state", &args);
    seed = args.seed;
    return tu_each_backend(&tally, "test_train_state", run_backend);
}
