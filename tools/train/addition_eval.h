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

#endif
