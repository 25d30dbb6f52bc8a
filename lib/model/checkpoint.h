/* Checkpoints, inside the library: what svk_model_load does to a file once
 * it has been read and parsed. */
#ifndef SVK_MODEL_CHECKPOINT_H
#define SVK_MODEL_CHECKPOINT_H

#include "io/safetensors.h"
#include "model.h"

/* Checks parsed checkpoint f against model m (its configuration, then every
 * tensor's name, dtype, shape and, unless flags has
 * SVK_LOAD_ALLOW_NONFINITE, values) and only when all of it passes writes
 * it into m. path names the file in messages. On error m is unchanged.
 * Separate from svk_model_load_ex so the fuzzer can feed it files that
 * never touch the disk. */
svk_status svk_checkpoint_apply(svk_model *m, const svk_st_file *f, const char *path, uint32_t flags);

#endif
