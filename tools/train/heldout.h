/*
 * --data's held-out split: the last --holdout share of the file's bytes is
 * never trained on (the training windows come from the range before it,
 * svk/data.h's svk_text_data_params.begin/end), and a fixed set of batches
 * from it measures the held-out loss every --eval-every steps and at the
 * end of the run. Fixed, so that two measurements differ only by the
 * model, and a resumed run measures what the straight run would have.
 */
#ifndef SVK_TRAIN_HELDOUT_H
#define SVK_TRAIN_HELDOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/data.h"
#include "svk/model.h"

/* At most this many held-out batches: 8 forward passes, a few steps' time,
 * every --eval-every steps. */
#define SVK_TRAIN_HELDOUT_BATCHES_MAX 8u

typedef struct svk_train_heldout {
    uint64_t split;             /* training bytes [0, split), held out [split, size) */
    uint32_t batches, B, T;
    int32_t *tokens, *targets;  /* [batches, B, T] */
} svk_train_heldout;

/* Where a file of size bytes splits with the share `fraction` held out:
 * its last floor(size * fraction) bytes. false when either part would be
 * shorter than one window of T + 1 bytes. */
bool svk_train_heldout_split(uint64_t size, double fraction, uint32_t T, uint64_t *split);

/* The fixed batches: consecutive windows from the start of the held-out
 * range of text's bytes (a view of them: the file is not read again), as
 * many whole batches of B as the range holds, 1 to
 * SVK_TRAIN_HELDOUT_BATCHES_MAX. On failure h holds nothing. */
svk_status svk_train_heldout_make(svk_train_heldout *h, const svk_text_data *text, uint64_t split, uint32_t B,
                                  uint32_t T);

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
                             float *fraction, bool given, uint64_t seed, uint32_t B, uint32_t T);

#endif
