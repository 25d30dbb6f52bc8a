/*
 * Where a recorded op range is cut into submissions, so that no submission
 * runs longer than a budget (svk_model_params.max_submit_ms): desktop
 * drivers reset a GPU whose work runs too long, and the device is lost.
 * The cuts change nothing but the submission boundaries, so the results
 * are the same to the bit.
 */
#ifndef SVK_MODEL_SUBMIT_SPLIT_H
#define SVK_MODEL_SUBMIT_SPLIT_H

#include <stddef.h>

/* Ops of a submission while their times are not known yet (the first
 * replay measures them, in submissions this long), and for good where the
 * device has no timestamps. */
#define SVK_SUBMIT_UNMEASURED_OPS 32

/* Cuts n ops whose measured times are op_ms[0 .. n) into runs of
 * consecutive ops whose sum fits budget_ms, greedily, each run as long as
 * it can be: bounds[0] = 0 < bounds[1] < ... < bounds[k] = n, k returned
 * (bounds has room for n + 1). An op longer than the budget alone is a
 * run of its own; *longest receives the index of the longest such op
 * (n if none). */
size_t svk_submit_split(const double *op_ms, size_t n, double budget_ms, size_t *bounds, size_t *longest);

/* Cuts n ops into runs of at most per ops (the split without times). */
size_t svk_submit_split_even(size_t n, size_t per, size_t *bounds);

#endif
