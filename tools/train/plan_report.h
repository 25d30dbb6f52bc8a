/*
 * svk-train --plan, and the check before every run: what the model would
 * hold at the run's batch, on its device, and whether it fits
 * (svk_model_plan_memory).
 */
#ifndef SVK_TRAIN_PLAN_REPORT_H
#define SVK_TRAIN_PLAN_REPORT_H

#include <stdio.h>

#include "svk/model.h"

/* Prints plan, for a run of params on batches B x T (accum micro-batches)
 * on the device named dev, as a table to f. */
void svk_train_plan_print(FILE *f, const svk_model_params *params, const char *dev, uint32_t B, uint32_t T,
                          uint32_t accum, const svk_memory_plan *plan);

/* The refusal of a run that does not fit, with the batch that would: one
 * message to f. */
void svk_train_plan_refuse(FILE *f, uint32_t B, uint32_t T, uint32_t accum, const svk_memory_plan *plan);

#endif
