/* svk-train's parameter hash (param_hash.h). */
#include <stdio.h>
#include <unistd.h>

#include "param_hash.h"
#include "svk/file.h"

/* The export, rather than a read of the device's memory: the tool sees the
 * model through the public API alone, and the file is what a checkpoint
 * would hold, so ranks that agree save the same bytes. */
svk_status svk_train_param_hash(svk_model *m, const char *dir, int rank, uint64_t *out)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/svk-train-hash.%ld.%d.safetensors", dir, (long)getpid(), rank);
    void *data = NULL;
    size_t size = 0;
    svk_status st = svk_model_save(m, path, false);
    if (st == SVK_OK)
        st = svk_file_read_whole(path, UINT64_MAX, &data, &size);
    remove(path);
    if (st != SVK_OK)
        return st;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ ((const unsigned char *)data)[i]) * 1099511628211ull;
    svk_file_data_free(&data);
    *out = h;
    return SVK_OK;
}
