/*
 * Shared by the checkpoint tests and the fuzzer: a tiny model on the CPU
 * backend (fast to create, save and load), an exact copy of everything
 * a checkpoint holds (weights, AdamW moments, step) to tell whether a load
 * changed the model, and a checkpoint with chosen elements overwritten.
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

/* Reads m's state into s (zero moments where it has not trained); false
 * on failure. */
bool ckpt_state_get(svk_model *m, ckpt_state *s);
/* Bit for bit, so NaN equals the same NaN. */
bool ckpt_state_equal(const ckpt_state *a, const ckpt_state *b);
void ckpt_state_free(ckpt_state *s);

/* Bit patterns for ckpt_poison: a quiet NaN, +infinity. */
#define CKPT_NAN_BITS 0x7fc00000u
#define CKPT_INF_BITS 0x7f800000u

/* Copies the checkpoint `from` to `to` (which may be `from`) with the F32
 * elements [begin, end) of tensor `name` set to the float with bits `bits`
 * (NaN or infinity, typically: a file no plain load accepts). end
 * UINT64_MAX: to the tensor's end; otherwise the range must lie inside the
 * tensor. false, with `to` untouched, if `from` cannot be read or has no
 * such F32 tensor or range; false if `to` cannot be written. */
bool ckpt_poison(const char *from, const char *to, const char *name, uint64_t begin, uint64_t end, uint32_t bits);

#endif
