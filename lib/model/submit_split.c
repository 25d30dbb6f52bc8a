/* Cutting an op range into submissions that fit a time budget
 * (submit_split.h). */
#include "submit_split.h"

size_t svk_submit_split(const double *op_ms, size_t n, double budget_ms, size_t *bounds, size_t *longest)
{
    size_t k = 0;
    double run = 0;
    *longest = n;
    bounds[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (op_ms[i] > budget_ms && (*longest == n || op_ms[i] > op_ms[*longest]))
            *longest = i;
        /* A run ends before the op that would take it past the budget;
         * a run is never empty, so an op over the budget stands alone. */
        if (i > bounds[k] && run + op_ms[i] > budget_ms) {
            bounds[++k] = i;
            run = 0;
        }
        run += op_ms[i];
    }
    if (n)
        bounds[++k] = n;
    return k;
}

size_t svk_submit_split_even(size_t n, size_t per, size_t *bounds)
{
    size_t k = 0;
    bounds[0] = 0;
    if (per == 0)
        per = 1;
    for (size_t i = per; i < n; i += per)
        bounds[++k] = i;
    if (n)
        bounds[++k] = n;
    return k;
}
