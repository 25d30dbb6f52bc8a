/*
 * svk_model_find_nonfinite names where a skipped step turned non-finite.
 * On both backends, with one weight element poisoned (NaN in
 * blocks.1.mlp.fc.weight, +inf in wpe.weight), a training step is skipped,
 * and the replay of that step must name an operation of that Linear (its
 * GEMM, or on devices that transpose weights first, the transpose) or the
 * embedding, in the forward pass, with the poisoned weight among its
 * inputs holding exactly one NaN (or infinity) at the poisoned element.
 * The replay changes no weight, moment or step count; a finite model's
 * replay finds nothing; and training goes on normally afterwards.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "model/model_internal.h"
#include "svk/model.h"
#include "test_util.h"

enum { B = 2, T = TU_SMALL_T, V = TU_SMALL_V };

static tu_tally tally;

/* The weights and both moments, as the backend holds them. */
static float *state(svk_model *m)
{
    const uint64_t n = m->plan.slab_elems[SVK_SLAB_PARAM];
    float *s = malloc(3 * n * sizeof(float));
    static const svk_slab slabs[3] = {SVK_SLAB_PARAM, SVK_SLAB_ADAM_M, SVK_SLAB_ADAM_V};
    for (int k = 0; k < 3 && s; k++)
        if (m->impl->read(m, slabs[k], 0, n, s + k * n) != SVK_OK) {
            free(s);
            return NULL;
        }
    return s;
}

static void print_report(const char *name, const svk_nonfinite_report *r)
{
    printf("  %s: op %u '%s' (%s, %s, layer %d): output %s '%s' %llu NaN %llu inf, first %lld\n", name, r->op_index,
           r->op, r->kind, r->phase, r->layer, r->output.role, r->output.tensor, (unsigned long long)r->output.nan,
           (unsigned long long)r->output.inf, (long long)r->output.first);
    for (uint32_t i = 0; i < r->n_inputs; i++)
        printf("      input %-6s %-36s %6llu NaN %6llu inf  first %lld  max |x| %g\n", r->inputs[i].role,
               r->inputs[i].tensor, (unsigned long long)r->inputs[i].nan, (unsigned long long)r->inputs[i].inf,
               (long long)r->inputs[i].first, (double)r->inputs[i].max_abs);
}

typedef struct poison_case {
    const char *tensor;    /* the weight poisoned */
    uint64_t element;
    uint32_t bits;
    const char *op_prefix; /* the operation the replay must name starts with this */
    int layer;
} poison_case;

static const poison_case cases[] = {
    {"blocks.1.mlp.fc.weight", 37, CKPT_NAN_BITS, "blocks.1.mlp.fc", 1},
    {"wpe.weight", 3, CKPT_INF_BITS, "embed", -1},
};

static void run_backend(svk_ctx *ctx, svk_backend backend, const char *dir)
{
    const char *name = backend == SVK_BACKEND_CPU ? "cpu" : "vulkan";
    char good[256], bad[256];
    snprintf(good, sizeof(good), "%s/good_%s.safetensors", dir, name);
    snprintf(bad, sizeof(bad), "%s/bad_%s.safetensors", dir, name);
    svk_model *m = tu_small_model(&tally, name, ctx, backend, 2, true);
    if (!m)
        return;
    int32_t tokens[B * T], targets[B * T];
    tu_fixed_batch(tokens, targets, B * T, V);
    float loss = 0;
    svk_status st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    if (st == SVK_OK)
        st = svk_model_save(m, good, true);
    tu_check(&tally, st == SVK_OK && isfinite(loss), "%s: a finite step and a save: %s", name, svk_last_error());

    svk_nonfinite_report r;
    st = svk_model_find_nonfinite(m, tokens, targets, B, T, &r);
    tu_check(&tally, st == SVK_OK && !r.found, "%s: a finite model's replay finds nothing (found %d): %s", name,
             (int)r.found, svk_last_error());

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const poison_case *e = &cases[c];
        st = ckpt_poison(good, bad, e->tensor, e->element, e->element + 1, e->bits) ? SVK_OK : SVK_ERROR_IO;
        if (st == SVK_OK)
            st = svk_model_load_ex(m, bad, SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE);
        svk_step_info info = {0};
        if (st == SVK_OK)
            st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        if (st == SVK_OK)
            st = svk_model_last_step(m, &info);
        tu_check(&tally, st == SVK_OK && info.skipped, "%s: %s[%llu] poisoned: the step is skipped (%d): %s", name,
                 e->tensor, (unsigned long long)e->element, (int)info.skipped, svk_last_error());
        float *before = state(m);
        const uint64_t step = svk_model_step(m);
        memset(&r, 0, sizeof(r));
        st = svk_model_find_nonfinite(m, tokens, targets, B, T, &r);
        tu_check(&tally, st == SVK_OK && r.found, "%s: %s: the replay finds it: %s", name, e->tensor,
                 svk_last_error());
        if (st != SVK_OK || !r.found) {
            free(before);
            continue;
        }
        print_report(name, &r);
        const svk_nonfinite_operand *in = NULL;
        for (uint32_t i = 0; i < r.n_inputs; i++)
            if (!strcmp(r.inputs[i].tensor, e->tensor))
                in = &r.inputs[i];
        const bool bad_in = in && in->nan + in->inf == 1 && in->first == e->element &&
                            (e->bits == CKPT_NAN_BITS ? in->nan == 1 : in->inf == 1);
        tu_check(&tally, !strncmp(r.op, e->op_prefix, strlen(e->op_prefix)) && !strcmp(r.phase, "forward") &&
                              r.layer == e->layer && r.output.nan + r.output.inf > 0,
                 "%s: %s: the op named is '%s' (%s, layer %d; want '%s...', forward, layer %d)", name, e->tensor,
                 r.op, r.phase, r.layer, e->op_prefix, e->layer);
        tu_check(&tally, bad_in, "%s: %s: its inputs show the one poisoned element %llu", name, e->tensor,
                 (unsigned long long)e->element);
        float *after = state(m);
        const size_t bytes = 3 * m->plan.slab_elems[SVK_SLAB_PARAM] * sizeof(float);
        tu_check(&tally, before && after && !memcmp(before, after, bytes) && svk_model_step(m) == step,
                 "%s: %s: the replay leaves weights, moments and step as they were", name, e->tensor);
        free(before);
        free(after);
    }

    /* Back to finite weights, training goes on. */
    svk_step_info info = {0};
    st = svk_model_load(m, good, true);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    if (st == SVK_OK)
        st = svk_model_last_step(m, &info);
    tu_check(&tally, st == SVK_OK && isfinite(loss) && !info.skipped && info.step == 2,
             "%s: training goes on after the replays (loss %g, step %llu): %s", name, (double)loss,
             (unsigned long long)info.step, svk_last_error());
    svk_model_destroy(&m);
    unlink(good);
    unlink(bad);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_find_nonfinite", &args);
    return tu_each_backend(&tally, "svk_find_nonfinite", run_backend);
}
