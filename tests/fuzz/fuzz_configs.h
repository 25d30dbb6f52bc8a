/*
 * The configurations of the checkpoint fuzzer: its seed corpus is saved from
 * models of these (fuzz_seeds.c), and each input is applied to a model of
 * each (fuzz_checkpoint.c), so that a file reaches the tensor checks of the
 * configuration it was saved from and the mismatch checks of the others.
 * Tiny, so that a load costs microseconds; different in every key that
 * changes the tensor list (norm, mlp, pos, bias, tie, layers).
 */
#ifndef SVK_FUZZ_CONFIGS_H
#define SVK_FUZZ_CONFIGS_H

#include "svk/config.h"

#define FUZZ_N_CONFIGS 3

/* Configuration i, 0 <= i < FUZZ_N_CONFIGS. */
svk_model_config fuzz_config(int i);

#endif
