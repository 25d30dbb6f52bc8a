/* Byte-level text (svk/data.h): windows of a file read whole at open, at
 * random offsets or in order. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/rng.h"
#include "io/file.h"
#include "svk/data.h"

struct svk_text_data {
    uint8_t *bytes;
    size_t size;
    svk_text_data_params params;
    uint64_t state;      /* the generator (random), or the next window's offset (sequential) */
};

svk_text_data_params svk_text_data_params_default(void)
{
    return (svk_text_data_params){.order = SVK_TEXT_RANDOM, .seed = 1};
}

svk_status svk_text_data_open(const char *path, const svk_text_data_params *params, svk_text_data **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PATH(NULL, path);
    if (params)
        SVK_CHECK_RESERVED(NULL, params->reserved);
    const svk_text_data_params p = params ? *params : svk_text_data_params_default();
    if (p.order != SVK_TEXT_RANDOM && p.order != SVK_TEXT_SEQUENTIAL)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->order=%d is neither SVK_TEXT_RANDOM nor SVK_TEXT_SEQUENTIAL", __func__,
                         (int)p.order);
    svk_text_data *t = svk_calloc(1, sizeof(*t));
    if (!t)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory opening %s", path);
    /* Read whole, through the reader that refuses a FIFO or device instead
     * of blocking on it; the only limit is memory. */
    void *bytes;
    svk_status st = svk_file_read(NULL, NULL, path, UINT64_MAX, &bytes, &t->size);
    if (st != SVK_OK) {
        free(t);
        return st;
    }
    t->bytes = bytes;
    t->params = p;
    t->state = p.order == SVK_TEXT_RANDOM ? p.seed : 0;
    *out = t;
    return SVK_OK;
}

void svk_text_data_destroy(svk_text_data **data)
{
    if (!data || !*data)
        return;
    free((*data)->bytes);
    free(*data);
    *data = NULL;
}

svk_status svk_text_data_size(const svk_text_data *data, uint64_t *bytes)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    const svk_text_data *t = data;
    SVK_CHECK_PTR(NULL, bytes);
    *bytes = t->size;
    return SVK_OK;
}

svk_status svk_text_data_batch(svk_text_data *data, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    svk_text_data *t = data;
    SVK_CHECK_PTR(NULL, tokens);
    SVK_CHECK_PTR(NULL, targets);
    if (T == 0)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: T=0; a window holds at least one token", __func__);
    if (t->size < (size_t)T + 1)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "data file of %zu bytes is shorter than one sequence (%u + 1)",
                         t->size, T);
    const size_t starts = t->size - T; /* offsets whose window of T + 1 bytes fits */
    for (uint32_t r = 0; r < B; r++) {
        size_t o;
        if (t->params.order == SVK_TEXT_RANDOM) {
            o = (size_t)(svk_splitmix64(&t->state) % starts);
        } else {
            if (t->state >= starts)
                t->state = 0;
            o = (size_t)t->state;
            t->state += T;
        }
        for (uint32_t i = 0; i < T; i++) {
            tokens[(size_t)r * T + i] = t->bytes[o + i];
            targets[(size_t)r * T + i] = t->bytes[o + i + 1];
        }
    }
    return SVK_OK;
}

svk_status svk_text_data_position(const svk_text_data *data, uint64_t *position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    const svk_text_data *t = data;
    SVK_CHECK_PTR(NULL, position);
    *position = t->state;
    return SVK_OK;
}

svk_status svk_text_data_seek(svk_text_data *data, uint64_t position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    svk_text_data *t = data;
    if (t->params.order == SVK_TEXT_SEQUENTIAL && position && position >= t->size)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: offset %llu is past the end of the text (%zu bytes)", __func__,
                         (unsigned long long)position, t->size);
    t->state = position;
    return SVK_OK;
}
