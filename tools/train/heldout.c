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

uint32_t svk_train_heldout_batches(uint64_t eval_tokens, uint32_t B, uint32_t T)
{
    if (!eval_tokens)
        return SVK_TRAIN_HELDOUT_BATCHES_MAX;
    const uint64_t per = (uint64_t)B * T, n = eval_tokens / per + (eval_tokens % per != 0);
    return n > (1u << 24) ? 1u << 24 : (uint32_t)n;
}

svk_status svk_train_heldout_make(svk_train_heldout *h, const svk_text_data *text, uint64_t split, uint32_t B,
                                  uint32_t T, uint32_t max_batches)
{
    *h = (svk_train_heldout){.split = split, .B = B, .T = T};
    uint64_t size;
    svk_status st = svk_text_data_size(text, &size);
    if (st != SVK_OK)
        return st;
    /* Sequential windows T bytes apart start below size - T: (held - 1) / T
     * of them before the range starts again. */
    const uint64_t windows = (size - split - 1) / T, whole = windows / B;
    h->batches = whole < 1 ? 1 : whole > max_batches ? max_batches : (uint32_t)whole;
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

bool svk_train_heldout_tokens(svk_train_heldout *h, const char *pattern, svk_token_format format, uint32_t vocab,
                              uint32_t B, uint32_t T, uint32_t max_batches)
{
    *h = (svk_train_heldout){.B = B, .T = T};
    svk_token_data_params p = svk_token_data_params_default();
    p.format = format;
    p.vocab = vocab;
    p.order = SVK_TEXT_SEQUENTIAL;
    uint32_t shards = 0;
    svk_status st = svk_token_data_open(pattern, &p, &h->val);
    if (st == SVK_OK)
        st = svk_token_data_shards(h->val, &shards);
    /* Sequential windows T tokens apart within a shard of n tokens start at
     * 0, T, ... up to n - T - 1: (n - 1) / T of them. */
    uint64_t windows = 0;
    for (uint32_t i = 0; st == SVK_OK && i < shards; i++) {
        uint64_t n;
        if ((st = svk_token_data_shard(h->val, i, NULL, &n)) == SVK_OK && n > 0)
            windows += (n - 1) / T;
    }
    const uint64_t whole = windows / B;
    h->batches = whole < 1 ? 1 : whole > max_batches ? max_batches : (uint32_t)whole;
    if (st == SVK_OK) {
        h->tokens = malloc((size_t)B * T * sizeof(*h->tokens));
        h->targets = malloc((size_t)B * T * sizeof(*h->targets));
        if (!h->tokens || !h->targets)
            st = SVK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t k = 0; st == SVK_OK && k < h->batches; k++)
        st = svk_token_data_batch(h->val, B, T, h->tokens, h->targets);
    if (st != SVK_OK) {
        fprintf(stderr, "svk-train: --val-data %s: %s%s\n", pattern,
                st == SVK_ERROR_OUT_OF_HOST_MEMORY && !*svk_last_error() ? "out of memory" : svk_last_error(),
                st == SVK_ERROR_INVALID_ARG && !h->val ? " (--token-format llmc|u16|u32 names the shards' format)"
                                                       : "");
        svk_train_heldout_free(h);
        return false;
    }
    return true;
}

svk_status svk_train_heldout_loss(const svk_train_heldout *h, svk_model *m, float *loss)
{
    /* Every target of a text or token window counts, so the mean over the
     * batches' means is the mean over their tokens; summed in double. */
    double sum = 0;
    svk_status st = h->val ? svk_token_data_seek(h->val, 0) : SVK_OK;
    for (uint32_t k = 0; st == SVK_OK && k < h->batches; k++) {
        size_t at = 0;
        if (h->val)
            st = svk_token_data_batch(h->val, h->B, h->T, h->tokens, h->targets);
        else
            at = (size_t)k * h->B * h->T;
        float l = 0;
        if (st == SVK_OK)
            st = svk_model_eval_loss(m, h->tokens + at, h->targets + at, h->B, h->T, &l);
        sum += l;
    }
    if (st != SVK_OK)
        return st;
    *loss = (float)(sum / h->batches);
    return SVK_OK;
}

void svk_train_heldout_free(svk_train_heldout *h)
{
    free(h->tokens);
    free(h->targets);
    svk_token_data_destroy(&h->val);
    *h = (svk_train_heldout){0};
}

bool svk_train_heldout_setup(svk_train_heldout *h, svk_text_data **text, svk_text_data **file, const char *path,
                             float *fraction, bool given, uint64_t seed, uint32_t B, uint32_t T,
                             uint32_t max_batches)
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
    if (st == SVK_OK && (st = svk_train_heldout_make(h, *text, split, B, T, max_batches)) != SVK_OK)
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
