/* Byte-level text (svk/data.h): windows of a range of a file read whole at
 * open, at random offsets or in order; views share one read of the file. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/io_file.h"
#include "svk/data.h"
#include "token_stream.h"

struct svk_text_data {
    const uint8_t *bytes;
    uint8_t *owned;      /* bytes, where this object read them; NULL in a view (svk_text_data_view) */
    size_t size;
    size_t begin, end;   /* the range, end resolved (params.end 0 is the file's end) */
    svk_text_data_params params;
    uint64_t state;      /* the generator (random), or the next window's offset (sequential) */
};

svk_text_data_params svk_text_data_params_default(void)
{
    return (svk_text_data_params){.order = SVK_TEXT_RANDOM, .seed = 1};
}

/* params (NULL: the defaults) into *p, checked as far as they can be
 * without the file (the caller checks the reserved fields, naming itself). */
static svk_status check_params(const svk_text_data_params *params, const char *func, svk_text_data_params *p)
{
    *p = params ? *params : svk_text_data_params_default();
    if (p->order != SVK_TEXT_RANDOM && p->order != SVK_TEXT_SEQUENTIAL)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->order=%d is neither SVK_TEXT_RANDOM nor SVK_TEXT_SEQUENTIAL", func,
                         (int)p->order);
    return SVK_OK;
}

/* t's range from its params and its bytes' size, and its first position. */
static svk_status set_range(svk_text_data *t, const char *func, const char *what)
{
    const svk_text_data_params *p = &t->params;
    const uint64_t end = p->end ? p->end : t->size;
    if (end > t->size || p->begin > end)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: the range [%llu, %llu) does not lie within %s of %zu bytes (params->begin <= "
                         "params->end <= the size; end 0 is the end)", func, (unsigned long long)p->begin,
                         (unsigned long long)p->end, what, t->size);
    t->begin = (size_t)p->begin;
    t->end = (size_t)end;
    t->state = p->order == SVK_TEXT_RANDOM ? p->seed : t->begin;
    return SVK_OK;
}

svk_status svk_text_data_open(const char *path, const svk_text_data_params *params, svk_text_data **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PATH(NULL, path);
    if (params)
        SVK_CHECK_RESERVED(NULL, params->reserved);
    svk_text_data_params p;
    svk_status st = check_params(params, __func__, &p);
    if (st != SVK_OK)
        return st;
    svk_text_data *t = svk_calloc(1, sizeof(*t));
    if (!t)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory opening %s", path);
    /* Read whole, through the reader that refuses a FIFO or device instead
     * of blocking on it; the only limit is memory. */
    void *bytes;
    st = svk_file_read(NULL, NULL, path, UINT64_MAX, &bytes, &t->size);
    if (st != SVK_OK) {
        free(t);
        return st;
    }
    t->bytes = t->owned = bytes;
    t->params = p;
    if ((st = set_range(t, __func__, path)) != SVK_OK) {
        svk_text_data_destroy(&t);
        return st;
    }
    *out = t;
    return SVK_OK;
}

svk_status svk_text_data_view(const svk_text_data *data, const svk_text_data_params *params, svk_text_data **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PTR(NULL, data);
    if (params)
        SVK_CHECK_RESERVED(NULL, params->reserved);
    svk_text_data_params p;
    svk_status st = check_params(params, __func__, &p);
    if (st != SVK_OK)
        return st;
    svk_text_data *t = svk_calloc(1, sizeof(*t));
    if (!t)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", __func__);
    /* The bytes are read-only once read, so the view and data share them
     * with no lock; data owns them (hence "data must outlive the view"). */
    t->bytes = data->bytes;
    t->size = data->size;
    t->params = p;
    if ((st = set_range(t, __func__, "the text")) != SVK_OK) {
        free(t);
        return st;
    }
    *out = t;
    return SVK_OK;
}

void svk_text_data_destroy(svk_text_data **data)
{
    if (!data || !*data)
        return;
    free((*data)->owned);
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
    const size_t len = t->end - t->begin;
    if (len < (size_t)T + 1 && len == t->size)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "data file of %zu bytes is shorter than one sequence (%u + 1)",
                         t->size, T);
    if (len < (size_t)T + 1)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "the range [%zu, %zu) of the data (%zu bytes) is shorter than one sequence (%u + 1)",
                         t->begin, t->end, len, T);
    /* One span, the range: token_stream.c draws its windows as this file
     * did before it was shared with the shards' loader, draw for draw
     * (tests/test_data.c pins the stream), positions being offsets in the
     * file. Bytes are never out of a vocabulary of 256 (vocab 0: no check). */
    const svk_token_span span = {t->bytes + t->begin, len, t->begin, "the text", t->begin};
    svk_token_stream s = {&span, 1, 1, 0, t->params.order, t->state};
    svk_status st = svk_token_stream_batch(&s, B, T, tokens, targets);
    t->state = s.state;
    return st;
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
    if (t->params.order == SVK_TEXT_SEQUENTIAL && position != t->begin &&
        (position < t->begin || position >= t->end)) {
        if (t->begin == 0 && t->end == t->size)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s: offset %llu is past the end of the text (%zu bytes)", __func__,
                             (unsigned long long)position, t->size);
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: offset %llu lies outside the range [%zu, %zu)",
                         __func__, (unsigned long long)position, t->begin, t->end);
    }
    t->state = position;
    return SVK_OK;
}
