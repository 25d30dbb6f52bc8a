#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "data.h"
#include "io/file.h"

svk_status svk_text_open(svk_log *log, svk_text *t, const char *path, uint64_t seed)
{
    memset(t, 0, sizeof(*t));
    void *bytes;
    size_t size;
    /* Read whole, through the reader that refuses a FIFO or device instead
     * of blocking on it; the only limit is memory. */
    svk_status st = svk_file_read(log, NULL, path, UINT64_MAX, &bytes, &size);
    if (st != SVK_OK)
        return st;
    t->bytes = bytes;
    t->size = size;
    t->state = seed;
    return SVK_OK;
}

void svk_text_free(svk_text *t)
{
    free(t->bytes);
    memset(t, 0, sizeof(*t));
}

svk_status svk_text_batch(svk_log *log, svk_text *t, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets)
{
    if (t->size < (size_t)T + 1)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "data file of %zu bytes is shorter than one sequence (%u + 1)",
                         t->size, T);
    size_t starts = t->size - T;
    for (uint32_t r = 0; r < B; r++) {
        size_t o = (size_t)(svk_splitmix64(&t->state) % starts);
        for (uint32_t i = 0; i < T; i++) {
            tokens[(size_t)r * T + i] = t->bytes[o + i];
            targets[(size_t)r * T + i] = t->bytes[o + i + 1];
        }
    }
    return SVK_OK;
}
