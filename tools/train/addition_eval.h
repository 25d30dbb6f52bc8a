/* Exact-match accuracy of a model on the addition task's held-out problems. */
#ifndef SVK_TRAIN_ADDITION_EVAL_H
#define SVK_TRAIN_ADDITION_EVAL_H

#include "svk/data.h"
#include "svk/model.h"

/* Greedy-decodes the answer of the first n held-out problems of a task of
 * `digits`-digit operands (all at once, one batch row each) and counts
 * those whose answer, newline included, is exact. Prints the first `show`
 * problems with the model's answers. */
svk_status svk_addition_accuracy(svk_model *m, const svk_addition *task, uint32_t digits, size_t n, size_t show,
                                 size_t *correct);

/* The same count without generating: each of the first n held-out
 * problems, prompt and answer, at the start of a row of a [B, T] batch
 * (then '\n' padding), B problems per forward pass, and a problem counts
 * when the logits' greedy choice at every answer position is the answer's
 * next token. Greedy decoding writes the whole answer exactly when it
 * does (up to its first wrong token it sees the prefix a row here sees),
 * so this is the same accuracy from one pass per B problems instead of
 * one per answer token, and at a training run's batch shape, whose step
 * the model keeps ready, rather than at a shape of its own (a change of
 * shape makes the model build its step again, twice per evaluation).
 * Logits of another shape may round differently, so a near tie can go
 * the other way. T must exceed the longest problem. */
svk_status svk_addition_accuracy_forced(svk_model *m, const svk_addition *task, size_t n, uint32_t B, uint32_t T,
                                        size_t *correct);

#endif
