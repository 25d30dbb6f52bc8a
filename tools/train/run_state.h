/*
 * Where an svk-train run stands, kept in its checkpoints (application
 * metadata "svk-train.run", svk_save_params.metadata) so that --resume
 * continues the same run: N steps straight and k steps, then a resume for
 * the rest, give the same bits. It holds the schedule, the optimiser
 * settings the checkpoint does not (clipping, weight decay), the batch
 * shape, and the data stream's position (its generator's state).
 *
 * Text form: space-separated key=value pairs, "version=1 position=12
 * steps=300 ...", every number in the form the tools' parsers read back
 * exactly (floats with 9 significant digits).
 */
#ifndef SVK_TRAIN_RUN_STATE_H
#define SVK_TRAIN_RUN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "svk/data.h"
#include "svk/model.h"

#define SVK_TRAIN_RUN_KEY "svk-train.run"
#define SVK_TRAIN_RUN_TEXT_MAX 1024
/* svk-train --eval's default: the addition task's held-out problems. */
#define SVK_TRAIN_EVAL_DEFAULT 500

/* The data sources, by the name the text form gives them. */
typedef enum svk_train_data {
    SVK_TRAIN_DATA_ADDITION = 0,
    SVK_TRAIN_DATA_TEXT,
    SVK_TRAIN_DATA_FIXED,
    SVK_TRAIN_DATA_TOKENS,  /* --train-data: token shards (svk_token_data) */
    SVK_TRAIN_DATA_COUNT
} svk_train_data;

typedef struct svk_train_run {
    uint64_t position;    /* training steps taken (submitted, skipped ones included) */
    uint32_t steps;       /* the run's length: the schedule's total */
    uint32_t warmup;
    float lr;             /* peak learning rate */
    svk_lr_shape schedule; /* "schedule=cosine|constant|wsd" */
    float decay_frac;     /* wsd: the share of the run that decays; left out of the text form otherwise */
    float clip, wd;
    uint32_t batch, seq;
    uint32_t accum;       /* micro-batches of `batch` rows a step; 1 (left out of the text form, as runs
                             before --accum wrote it) or more */
    svk_precision precision; /* how activations are kept; fp32 left out of the text form */
    uint32_t eval_n;      /* addition: the held-out problems, which training never draws (so they shape its
                             stream); 500 (left out of the text form, as runs before the key wrote it) or other */
    uint64_t seed;
    svk_train_data data;
    uint32_t digits;      /* addition: operand digits */
    svk_addition_answer answer; /* addition: the answer format; plain in a text without the key (older runs) */
    svk_addition_operands operands; /* addition: the operands' format; likewise */
    uint64_t data_size;   /* text: the file's bytes; tokens: the training shards' tokens */
    uint64_t data_state;  /* the data generator's state after `position` batches */
    float holdout;        /* text: the share of the file held out from training, its tail (heldout.h); 0
                             (none) is left out of the text form, as runs before the split wrote it */
    bool has_best;        /* --save-best: the lowest held-out loss so far is best_loss, measured after step
                             best_step; left out of the text form where there is none */
    float best_loss;
    uint64_t best_step;
} svk_train_run;

const char *svk_train_data_name(svk_train_data d);

/* The addition task's answer formats by name, "plain" and "reversed" (the
 * text form's and --answer's): the name, and false for any other text. */
const char *svk_train_answer_name(svk_addition_answer a);
bool svk_train_answer_parse(const char *text, svk_addition_answer *a);
/* Its operand formats likewise, "plain" and "padded" (--operands). */
const char *svk_train_operands_name(svk_addition_operands o);
bool svk_train_operands_parse(const char *text, svk_addition_operands *o);
/* The learning-rate schedules, "cosine", "constant" and "wsd" (--schedule). */
const char *svk_train_schedule_name(svk_lr_shape s);
bool svk_train_schedule_parse(const char *text, svk_lr_shape *s);

/* r as text (SVK_TRAIN_RUN_TEXT_MAX bytes suffice). */
void svk_train_run_format(const svk_train_run *r, char *buf, size_t size);

/* Parses the text form; false with the reason in why (a line naming the
 * key) for anything it does not know or cannot read. Every key must be
 * there but answer and operands, which svk-train before them did not
 * write, and holdout, decay_frac (wsd alone: 0.2 when missing), best_loss and
 * best_step (together or neither), which it writes only where they apply. */
bool svk_train_run_parse(const char *text, svk_train_run *r, char *why, size_t why_size);

#endif
