/*
 * Writes the GPT-2 importer fuzzer's seed corpus into a directory: a tiny
 * GPT-2-shaped model (2 layers, 8 wide, 2 heads, vocabulary 16, context 8),
 * briefly trained, exported by svk_gpt2_export, and the same file with
 * every name under the "transformer." prefix that some published files
 * use. Generated at test time by the library itself, so no binary file is
 * committed.
 *   fuzz_gpt2_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "svk/convert.h"

/* src's tensors under prefix + name, into dst. */
static int prefixed(const char *src, const char *dst, const char *prefix)
{
    svk_st_file f;
    if (svk_st_read(NULL, src, &f) != SVK_OK)
        return 1;
    svk_st_entry *e = calloc(f.n_tensors + 1, sizeof(*e));
    char (*names)[SVK_ST_MAX_NAME] = calloc(f.n_tensors + 1, sizeof(*names));
    int rc = !e || !names;
    for (size_t i = 0; !rc && i < f.n_tensors; i++) {
        const svk_st_tensor *t = &f.tensors[i];
        snprintf(names[i], sizeof(names[i]), "%s%s", prefix, t->name);
        e[i] = (svk_st_entry){names[i], t->dtype, t->ndim, {0}, t->data};
        memcpy(e[i].shape, t->shape, sizeof(e[i].shape));
    }
    svk_st_meta meta = {(char *)"format", (char *)"pt"};
    rc = rc || svk_st_write(NULL, dst, e, f.n_tensors, &meta, 1) != SVK_OK;
    free(e);
    free(names);
    svk_st_free(&f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_gpt2_seeds DIR\n");
        return 2;
    }
    svk_model_config c = ckpt_tiny_config();
    c.placement = SVK_PLACEMENT_PRE;
    c.layers = 2;
    svk_model *m = ckpt_model(&c, 7, 2);
    if (!m)
        return 1;
    char svk[4096], gpt2[4096], pre[4096];
    snprintf(svk, sizeof(svk), "%s/.model.safetensors", argv[1]);
    snprintf(gpt2, sizeof(gpt2), "%s/gpt2.safetensors", argv[1]);
    snprintf(pre, sizeof(pre), "%s/gpt2-transformer.safetensors", argv[1]);
    const svk_gpt2_params p = svk_gpt2_params_default();
    int rc = svk_model_save(m, svk, false) != SVK_OK || svk_gpt2_export(svk, gpt2, &p) != SVK_OK ||
             prefixed(gpt2, pre, "transformer.");
    svk_model_destroy(&m);
    remove(svk);
    if (rc) {
        fprintf(stderr, "fuzz_gpt2_seeds: %s\n", svk_last_error());
        return 1;
    }
    printf("fuzz_gpt2_seeds: 2 GPT-2 files in %s\n", argv[1]);
    return 0;
}
