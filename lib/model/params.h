/*
 * The model's parameters: the one list of every tensor a configuration has,
 * in a fixed order, with the names and shapes of docs/MODEL.md's
 * checkpoint table and how each is initialised and decayed.
 */
#ifndef SVK_MODEL_PARAMS_H
#define SVK_MODEL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "svk/config.h"

#define SVK_PARAM_NAME_MAX 64

typedef struct svk_param_info {
    char name[SVK_PARAM_NAME_MAX];  /* e.g. "blocks.0.attn.qkv.weight" */
    uint32_t ndim;                  /* 1 or 2 */
    uint32_t shape[2];              /* [out, in] for weights, [n] for vectors */
    uint64_t elems;
    float init_std;                 /* > 0: N(0, init_std); 0: constant init_value */
    float init_value;
    bool decay;                     /* AdamW weight decay applies (2-D weights only) */
} svk_param_info;

/* Fills out[0 .. min(n, cap)) with the parameters of a valid configuration
 * and returns n, their number (call with cap 0 to count). */
size_t svk_model_param_list(const svk_model_config *c, svk_param_info *out, size_t cap);

/* The number of parameters of a valid configuration and, in *elems (may be
 * NULL), their elements in all, without building the list: the same walk
 * with nothing stored or formatted, a few operations per tensor (about 1.3
 * million tensors at SVK_MAX_LAYERS, a few milliseconds), so a checkpoint's
 * configuration can be weighed against its tensor table before anything is
 * allocated for it. Every element count of a valid configuration is below
 * 2^32 and there are fewer than 2^32 tensors, so *elems cannot wrap. */
size_t svk_model_param_totals(const svk_model_config *c, uint64_t *elems);

/* Draws every parameter's initial values, in list order, from one generator
 * seeded with seed: the same seed gives the same weights on every backend,
 * machine and run. data[i] has params[i].elems floats. */
void svk_model_init_params(const svk_param_info *params, size_t n, uint64_t seed, float *const *data);

#endif
