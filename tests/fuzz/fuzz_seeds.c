/*
 * Writes the checkpoint fuzzer's seed corpus into a directory: for each
 * configuration of fuzz_configs.c, a checkpoint of a briefly trained model
 * with its optimiser state (non-zero moments and step) and one of the
 * weights alone; then two edits of the first at the limits the loader
 * enforces: the step at SVK_MAX_STEP, and a configuration claiming
 * SVK_MAX_LAYERS layers over the same few tensors. Generated at test time
 * by the library itself, so the seeds always follow the current writer and
 * no binary file is committed.
 *   fuzz_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"
#include "fuzz_configs.h"
#include "io/safetensors.h"

/* Copies checkpoint src to dst with metadata key set to value. */
static int with_meta(const char *src, const char *dst, const char *key, const char *value)
{
    svk_st_file f;
    if (svk_st_read(NULL, src, &f) != SVK_OK) {
        fprintf(stderr, "fuzz_seeds: %s\n", svk_last_error());
        return 1;
    }
    svk_st_entry *e = calloc(f.n_tensors + 1, sizeof(*e));
    svk_st_meta *meta = calloc(f.n_meta + 1, sizeof(*meta));
    int rc = !e || !meta;
    for (size_t i = 0; !rc && i < f.n_tensors; i++) {
        const svk_st_tensor *t = &f.tensors[i];
        e[i] = (svk_st_entry){t->name, t->dtype, t->ndim, {0}, t->data};
        memcpy(e[i].shape, t->shape, sizeof(e[i].shape));
    }
    size_t n_meta = 0;
    for (size_t i = 0; !rc && i < f.n_meta; i++)
        if (strcmp(f.meta[i].key, key))
            meta[n_meta++] = f.meta[i];
    if (!rc) {
        meta[n_meta++] = (svk_st_meta){(char *)key, (char *)value};
        if (svk_st_write(NULL, dst, e, f.n_tensors, meta, n_meta) != SVK_OK) {
            fprintf(stderr, "fuzz_seeds: %s\n", svk_last_error());
            rc = 1;
        }
    }
    free(e);
    free(meta);
    svk_st_free(&f);
    return rc;
}

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
    char src[4096], dst[4096], text[64], config[1024];
    snprintf(src, sizeof(src), "%s/config0-optimizer.safetensors", argv[1]);
    snprintf(dst, sizeof(dst), "%s/config0-max-step.safetensors", argv[1]);
    snprintf(text, sizeof(text), "%llu", (unsigned long long)SVK_MAX_STEP);
    if (with_meta(src, dst, "svk.step", text))
        return 1;
    svk_model_config deep = fuzz_config(0);
    deep.layers = SVK_MAX_LAYERS;
    snprintf(dst, sizeof(dst), "%s/config0-max-layers.safetensors", argv[1]);
    if (svk_model_config_to_json(&deep, config, sizeof(config)) != SVK_OK || with_meta(src, dst, "svk.config", config))
        return 1;
    written += 2;
    printf("fuzz_seeds: %d checkpoints in %s\n", written, argv[1]);
    return 0;
}
