/*
 * The fused AdamW update of one parameter tensor on the device
 * (shaders/adamw.comp), PyTorch semantics (docs/MODEL.md, "Optimiser"), as the CPU
 * reference svk_ref_adamw (lib/ref/adamw.c):
 *   g' = scale * g;  p -= lr wd p (decay only);
 *   m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2;
 *   p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
 * One pass: p, g, m, v are read once, p, m, v written once.
 *
 * The gradient scale is read from device memory (the clip op's output, see
 * lib/ops/clip.h), never from the host. lr and t go into the push constants
 * (t as the bias corrections 1 - beta^t, computed here in double and rounded
 * once, as the reference does); since push constants are recorded into the
 * list, a list recorded once and replayed every step passes `step` instead:
 * three floats in a buffer the host rewrites before each submission (mapped
 * memory), filled by svk_adamw_step_values().
 *
 * `guard` lets a replayed step skip itself when it went non-finite (an
 * overflowing loss or gradient), decided on the device so the host never
 * waits on the norm before submitting; the rule is svk_step_finite in
 * lib/model/plan.h. `prev_guard` does the same for the update count: a step
 * submitted while the previous one still runs takes t - 1 if that one
 * skipped itself.
 */
#ifndef SVK_OPS_ADAMW_H
#define SVK_OPS_ADAMW_H

#include <stdbool.h>
#include "ops.h"

typedef struct svk_adamw_args {
    uint64_t n;               /* elements, >= 1 */
    svk_tref p, m, v;         /* [n] each, updated in place; v >= 0 */
    svk_tref g;               /* [n], the gradient */
    svk_tref scale;           /* [1], the gradient multiplier in device memory
                               * (clip out + 1); or buf NULL: 1 */
    svk_tref step;            /* [3] = lr, 1 - beta1^t, 1 - beta2^t in device memory;
                               * or buf NULL: from lr and t below */
    svk_tref guard;           /* [2] = the step's loss, gradient norm in device memory:
                               * no update unless both (the norm squared) are finite;
                               * or buf NULL: always update */
    svk_tref prev_guard;      /* with step only: [2] = the previous step's loss, gradient
                               * norm; step is then [5] (svk_adamw_step_values_prev) and
                               * its bias corrections for t - 1 apply unless both are
                               * finite (that step was skipped); or buf NULL */
    float lr;                 /* learning rate of this update (ignored with step) */
    uint64_t t;               /* update number, from 1 (ignored with step) */
    float beta1, beta2;       /* in [0, 1); defaults 0.9, 0.95 */
    float eps;                /* >= 0; default 1e-8 */
    float weight_decay;       /* >= 0; default 0.1 */
    bool decay;               /* decoupled decay on this tensor (2-D weights only) */
    const char *label;        /* names the dispatch in messages and timings; may be NULL */
} svk_adamw_args;

/* The three floats of svk_adamw_args.step for update t (>= 1) at rate lr,
 * computed exactly as the push-constant path does. */
void svk_adamw_step_values(uint64_t t, float lr, float beta1, float beta2, float out[3]);

/* The five floats of a step buffer read with prev_guard: those of update t,
 * then the bias corrections of t - 1, for a step submitted while the one
 * before it still runs (t counts that one as applied). prev_unknown false:
 * the previous step's outcome is known and already in t, and both pairs
 * are t's. */
void svk_adamw_step_values_prev(uint64_t t, bool prev_unknown, float lr, float beta1, float beta2, float out[5]);

svk_status svk_adamw_record(svk_cmdlist *cl, const svk_adamw_args *a);

#endif
