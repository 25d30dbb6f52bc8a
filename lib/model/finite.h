/* Looking for NaN and infinity in a model's tensors: what a backend offers
 * (svk_backend_impl.check) and what the model does with it
 * (lib/model/finite.c: the save's check of the state, and
 * svk_model_find_nonfinite). */
#ifndef SVK_MODEL_FINITE_H
#define SVK_MODEL_FINITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ref.h"

/* Elements [rows, cols] with stride ld from element offset of a plan
 * tensor (which may run on into its slab), looked at just before op `at`
 * of a checked run; at == end: after the last op. rows * cols < 2^31. */
typedef struct svk_finite_probe {
    size_t at;
    uint32_t tensor;
    uint64_t offset, rows, cols, ld;
} svk_finite_probe;

/* The most elements one probe takes: svk_model_probe_chunks splits an
 * operand into probes of at most this many. */
#define SVK_FINITE_PROBE_MAX (1ull << 30)

struct svk_model;

/* Fails with SVK_ERROR_NONFINITE, naming the first tensor (of the weights,
 * and with optimizer also of the AdamW moments) that holds NaN or infinity,
 * the element and the count; what names the caller (a save's path). The
 * check runs where the state lives: on a device nothing is downloaded. */
svk_status svk_model_check_state_finite(struct svk_model *m, bool optimizer, const char *what);

#endif
