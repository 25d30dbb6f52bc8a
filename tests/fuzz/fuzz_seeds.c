/*
 * Writes the checkpoint fuzzer's seed corpus into a directory: for each
 * configuration of fuzz_configs.c, a checkpoint of a briefly trained model
 * with its optimiser state (non-zero moments and step) and one of the
 * weights alone. Generated at test time by the library itself, so the seeds
 * always follow the current writer and no binary file is committed.
 *   fuzz_seeds DIR
 */
#include <stdio.h>

#include "ckpt_util.h"
#include "fuzz_configs.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    int written = 0;
    for (int i = 0; i < FUZZ_N_CONFIGS; i++) {
        svk_model_config c = fuzz_config(i);
        svk_model *m = ckpt_model(&c, 1 + (uint64_t)i, 2);
        if (!m)
            return 1;
        for (int optimizer = 0; optimizer < 2; optimizer++) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/config%d-%s.safetensors", argv[1], i, optimizer ? "optimizer" : "weights");
            if (svk_model_save(m, path, optimizer) != SVK_OK) {
                fprintf(stderr, "fuzz_seeds: %s\n", svk_last_error());
                svk_model_destroy(&m);
                return 1;
            }
            written++;
        }
        svk_model_destroy(&m);
    }
    printf("fuzz_seeds: %d checkpoints in %s\n", written, argv[1]);
    return 0;
}
