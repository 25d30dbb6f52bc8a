#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "data.h"

svk_status svk_text_open(svk_log *log, svk_text *t, const char *path, uint64_t seed)
{
    memset(t, 0, sizeof(*t));
    FILE *f = fopen(path, "rb");
    if (!f)
        return svk_error(log, SVK_ERROR_IO, "cannot open data file %s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return svk_error(log, SVK_ERROR_IO, "data file %s is not a regular file", path);
    }
    t->size = (size_t)sb.st_size;
    t->bytes = svk_malloc(t->size ? t->size : 1);
    if (!t->bytes) {
        fclose(f);
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading %s", path);
    }
    size_t got = fread(t->bytes, 1, t->size, f);
    fclose(f);
    if (got != t->size) {
        svk_text_free(t);
        return svk_error(log, SVK_ERROR_IO, "short read of %s", path);
    }
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
