/*
 * Shared by the checkpoint tests and the fuzzer: a tiny model on the CPU
 * backend (fast to create, save and load), and an exact copy of everything
 * a checkpoint holds (weights, AdamW moments, step) to tell whether a load
 * changed the model.
 */
#ifndef SVK_TEST_CKPT_UTIL_H
#define SVK_TEST_CKPT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "svk/model.h"

/* vocab 16, ctx 8, width 8, 1 layer, 2 heads, mlp_hidden 16; the rest the
 * defaults (siamese, layernorm, gelu, learned positions, tied). */
svk_model_config ckpt_tiny_config(void);

/* A CPU model of config c initialised with seed, then trained for steps
 * steps on a fixed batch (so its moments and step are not zero). NULL, after
 * printing why, on failure. */
svk_model *ckpt_model(const svk_model_config *c, uint64_t seed, int steps);

typedef struct ckpt_state {
    uint32_t *bits;   /* weights, then first and second moments, as stored */
    size_t n;
    uint64_t step;
} ckpt_state;

/* Reads m's state into s; false on failure. */
bool ckpt_state_get(svk_model *m, ckpt_state *s);
/* Bit for bit, so NaN equals the same NaN. */
bool ckpt_state_equal(const ckpt_state *a, const ckpt_state *b);
void ckpt_state_free(ckpt_state *s);

#endif
