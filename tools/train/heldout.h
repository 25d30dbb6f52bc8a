/*
 * The held-out loss svk-train measures every --eval-every steps and at the
 * end of the run, over a fixed set of batches, so that two measurements
 * differ only by the model, and a resumed run measures what the straight
 * run would have.
 *
 * --data's held-out split: the last --holdout share of the file's bytes is
 * never trained on (the training windows come from the range before it,
 * svk/data.h's svk_text_data_params.begin/end), and the batches are the
 * first windows of that tail, kept in memory.
 *
 * --val-data's token shards: the batches are the shards' first sequential
 * windows (svk_token_data, SVK_TEXT_SEQUENTIAL), read again from the
 * mapped files at each measurement, so --eval-tokens is not bounded by
 * memory.
 */
#ifndef SVK_TRAIN_HELDOUT_H
#define SVK_TRAIN_HELDOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/data.h"
#include "svk/model.h"

/* At most this many held-out batches by default (without --eval-tokens): 8
 * forward passes, a few steps' time, every --eval-every steps. */
#define SVK_TRAIN_HELDOUT_BATCHES_MAX 8u

typedef struct svk_train_heldout {
    uint64_t split;             /* --data: training bytes [0, split), held out [split, size) */
    uint32_t batches, B, T;
    int32_t *tokens, *targets;  /* --data: [batches, B, T]; --val-data: one batch, [B, T] */
    svk_token_data *val;        /* --val-data's shards, sequential; NULL for --data */
} svk_train_heldout;

/* The batches --eval-tokens asks for at B x T: ceil(tokens / (B T)), at
 * least 1; 0 (not given): SVK_TRAIN_HELDOUT_BATCHES_MAX. Capped where a
 * batch count stops being plausible (2^24). */
uint32_t svk_train_heldout_batches(uint64_t eval_tokens, uint32_t B, uint32_t T);

/* Where a file of size bytes splits with the share `fraction` held out:
 * its last floor(size * fraction) bytes. false when either part would be
 * shorter than one window of T + 1 bytes. */
bool svk_train_heldout_split(uint64_t size, double fraction, uint32_t T, uint64_t *split);

/* The fixed batches: consecutive windows from the start of the held-out
 * range of text's bytes (a view of them: the file is not read again), as
 * many whole batches of B as the range holds, 1 to max_batches. On failure
 * h holds nothing. */
svk_status svk_train_heldout_make(svk_train_heldout *h, const svk_text_data *text, uint64_t split, uint32_t B,
                                  uint32_t T, uint32_t max_batches);

/* --val-data: opens the shards of pattern (format, the model's vocab) in
 * sequential order and checks the batches a measurement reads: as many
 * whole batches of B windows as the shards hold, 1 to max_batches, read
 * once here so that a short shard or a token >= vocab is refused (naming
 * the file and the token's offset) before the run trains. false, with a
 * message on stderr; h then holds nothing. */
bool svk_train_heldout_tokens(svk_train_heldout *h, const char *pattern, svk_token_format format, uint32_t vocab,
                              uint32_t B, uint32_t T, uint32_t max_batches);

/* The model's mean loss over the batches (svk_model_eval_loss, which
 * changes nothing in the model: the run goes on bit for bit as without). */
svk_status svk_train_heldout_loss(const svk_train_heldout *h, svk_model *m, float *loss);

void svk_train_heldout_free(svk_train_heldout *h);

/* svk-train --data with --holdout: splits the text read from path (*text,
 * the file read whole) with the share *fraction held out. On success *text
 * is a view of the training range (svk_text_data_view with the seed) and
 * *file the file read whole, which owns the bytes and must outlive it, and
 * h holds the held-out batches. Where the file is too short for both parts
 * (each needs T + 1 bytes): with the share given on the command line
 * (given) an error, else a note, and the run trains on all of it
 * (*fraction 0, *text as it was). false, with a message on stderr, for an
 * error. */
bool svk_train_heldout_setup(svk_train_heldout *h, svk_text_data **text, svk_text_data **file, const char *path,
                             float *fraction, bool given, uint64_t seed, uint32_t B, uint32_t T,
                             uint32_t max_batches);

#endif
