#include "heldout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool svk_train_heldout_split(uint64_t size, double fraction, uint32_t T, uint64_t *split)
{
    const uint64_t held = (uint64_t)floor((double)size * fraction);
    if (held < (uint64_t)T + 1 || size - held < (uint64_t)T + 1)
        return false;
    *split = size - held;
    return true;
}

svk_status svk_train_heldout_make(svk_train_heldout *h, const svk_text_data *text, uint64_t split, uint32_t B,
                                  uint32_t T)
{
    *h = (svk_train_heldout){.split = split, .B = B, .T = T};
    uint64_t size;
    svk_status st = svk_text_data_size(text, &size);
    if (st != SVK_OK)
        return st;
    /* Sequential windows T bytes apart start below size - T: (held - 1) / T
     * of them before the range starts again. */
    const uint64_t windows = (size - split - 1) / T, whole = windows / B;
    h->batches = whole < 1 ? 1 : whole > SVK_TRAIN_HELDOUT_BATCHES_MAX ? SVK_TRAIN_HELDOUT_BATCHES_MAX : (uint32_t)whole;
    const size_t n = (size_t)h->batches * B * T;
    h->tokens = malloc(n * sizeof(*h->tokens));
    h->targets = malloc(n * sizeof(*h->targets));
    svk_text_data_params p = svk_text_data_params_default();
    p.order = SVK_TEXT_SEQUENTIAL;
    p.begin = split;
    svk_text_data *view = NULL;
    if (!h->tokens || !h->targets)
        st = SVK_ERROR_OUT_OF_HOST_MEMORY;
    else
        st = svk_text_data_view(text, &p, &view);
    for (uint32_t k = 0; st == SVK_OK && k < h->batches; k++)
        st = svk_text_data_batch(view, B, T, h->tokens + (size_t)k * B * T, h->targets + (size_t)k * B * T);
    svk_text_data_destroy(&view);
    if (st != SVK_OK)
        svk_train_heldout_free(h);
    return st;
}

svk_status svk_train_heldout_loss(const svk_train_heldout *h, svk_model *m, float *loss)
{
    /* Every target of a text window counts, so the mean over the batches'
     * means is the mean over their tokens; summed in double. */
    double sum = 0;
    for (uint32_t k = 0; k < h->batches; k++) {
        const size_t at = (size_t)k * h->B * h->T;
        float l;
        svk_status st = svk_model_eval_loss(m, h->tokens + at, h->targets + at, h->B, h->T, &l);
        if (st != SVK_OK)
            return st;
        sum += l;
    }
    *loss = (float)(sum / h->batches);
    return SVK_OK;
}

void svk_train_heldout_free(svk_train_heldout *h)
{
    free(h->tokens);
    free(h->targets);
    *h = (svk_train_heldout){0};
}

bool svk_train_heldout_setup(svk_train_heldout *h, svk_text_data **text, svk_text_data **file, const char *path,
                             float *fraction, bool given, uint64_t seed, uint32_t B, uint32_t T)
{
    uint64_t size, split;
    if (svk_text_data_size(*text, &size) != SVK_OK) {
        fprintf(stderr, "svk-train: --data %s: %s\n", path, svk_last_error());
        return false;
    }
    if (!svk_train_heldout_split(size, *fraction, T, &split)) {
        const uint64_t held = (uint64_t)floor((double)size * *fraction);
        fprintf(stderr, "svk-train: %s--data %s holds %" PRIu64 " bytes: --holdout %g would hold out %" PRIu64 " and "
                        "train on %" PRIu64 ", but each needs at least one sequence + 1 (--seq %u + 1)%s\n",
                given ? "" : "note: ", path, size, (double)*fraction, held, size - held, T,
                given ? " (--holdout 0 trains on all of it)" : ": training on all of it, with no held-out loss");
        if (given)
            return false;
        *fraction = 0;
        return true;
    }
    svk_text_data_params p = svk_text_data_params_default();
    p.seed = seed;
    p.end = split;
    svk_text_data *train = NULL;
    svk_status st = svk_text_data_view(*text, &p, &train);
    if (st == SVK_OK && (st = svk_train_heldout_make(h, *text, split, B, T)) != SVK_OK)
        svk_text_data_destroy(&train);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-train: --holdout: %s\n",
                st == SVK_ERROR_OUT_OF_HOST_MEMORY && !*svk_last_error() ? "out of memory" : svk_last_error());
        return false;
    }
    *file = *text;
    *text = train;
    return true;
}
