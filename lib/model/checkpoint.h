/* Checkpoints, inside the library: what svk_model_load does to a file once
 * it has been read and parsed. */
#ifndef SVK_MODEL_CHECKPOINT_H
#define SVK_MODEL_CHECKPOINT_H

#include "io/safetensors.h"
#include "model_internal.h"

/* Checks parsed checkpoint f against model m (its configuration, then every
 * tensor's name, dtype, shape and, unless flags has
 * SVK_LOAD_ALLOW_NONFINITE, values) and only when all of it passes writes
 * it into m. path names the file in messages. On error m is unchanged.
 * Separate from svk_model_load_ex so the fuzzer can feed it files that
 * never touch the disk. */
svk_status svk_checkpoint_apply(svk_model *m, const svk_st_file *f, const char *path, uint32_t flags);

/* What svk_checkpoint_config does once the file is parsed: the
 * configuration of f, refused unless f holds every weight of it (F32, in
 * its shape) and no foreign tensor, in time linear in f's tensors (with
 * svk_st_find's lookups) whatever the configuration claims. Every file
 * svk_checkpoint_apply accepts passes, with the model's configuration. */
svk_status svk_checkpoint_file_config(svk_log *log, const svk_st_file *f, const char *path, svk_model_config *config);

#endif
