/*
 * A 64-bit hash of a model's parameters, which data-parallel ranks compare
 * (--check-every, dist.h): equal replicas give equal hashes.
 */
#ifndef SVK_TRAIN_PARAM_HASH_H
#define SVK_TRAIN_PARAM_HASH_H

#include <stdint.h>

#include "svk/model.h"

/* FNV-1a over the bytes of m's export (svk_model_save without the
 * optimiser: its weights and configuration), written to a temporary file
 * under dir and removed. */
svk_status svk_train_param_hash(svk_model *m, const char *dir, int rank, uint64_t *out);

#endif
