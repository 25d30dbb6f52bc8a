/* Pre-tokenized shards (svk/data.h): llm.c's .bin and raw uint16/uint32
 * files, memory-mapped (lib/io: mmap, MapViewOfFile), found by a glob and
 * sorted by name; their windows are token_stream.c's, as text's are. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/io_file.h"
#include "svk/data.h"
#include "token_stream.h"

/* llm.c's shard header (its dev/data/data_common.py write_datafile and
 * llmc/dataloader.h): 256 int32, magic, version, token count. */
#define LLMC_HEADER_BYTES 1024u
#define LLMC_MAGIC 20240520
#define LLMC_VERSION 1 /* uint16 tokens */

struct svk_token_data {
    svk_token_data_params params;
    uint32_t count;           /* shards */
    char **paths;             /* count, sorted by strcmp */
    svk_file_mapping *maps;   /* count */
    svk_token_span *spans;    /* count: each shard's tokens, numbered across shards from 0 */
    unsigned width;           /* bytes a token */
    uint64_t total;           /* tokens of all shards */
    uint64_t state;           /* token_stream.h's */
};

svk_token_data_params svk_token_data_params_default(void)
{
    return (svk_token_data_params){.format = SVK_TOKENS_LLMC, .vocab = 50257, .order = SVK_TEXT_RANDOM, .seed = 1};
}

static int32_t le32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Shard i's tokens from its size and header, into d->spans[i] (its first
 * set by the caller). */
static svk_status check_shard(svk_token_data *d, uint32_t i)
{
    const char *path = d->paths[i];
    const svk_file_mapping *m = &d->maps[i];
    svk_token_span *sp = &d->spans[i];
    sp->name = path;
    if (d->params.format == SVK_TOKENS_LLMC) {
        if (m->size < LLMC_HEADER_BYTES)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s holds %" PRIu64 " bytes, less than llm.c's header of %u (format SVK_TOKENS_LLMC)",
                             path, m->size, LLMC_HEADER_BYTES);
        const int32_t magic = le32(m->data), version = le32(m->data + 4), n = le32(m->data + 8);
        if (magic != LLMC_MAGIC)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s: magic %" PRId32 " is not llm.c's %d (format SVK_TOKENS_LLMC; a raw token file is "
                             "SVK_TOKENS_U16 or SVK_TOKENS_U32)", path, magic, LLMC_MAGIC);
        if (version != LLMC_VERSION)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s: llm.c format version %" PRId32 "; only version %d (uint16 tokens) is read", path,
                             version, LLMC_VERSION);
        const uint64_t after = m->size - LLMC_HEADER_BYTES;
        if (n < 0 || (uint64_t)n * 2 != after)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s: the header says %" PRId32 " tokens, but %" PRIu64 " bytes follow it (%" PRIu64
                             " uint16 tokens%s)", path, n, after, after / 2, after % 2 ? " and one byte" : "");
        sp->data = m->data + LLMC_HEADER_BYTES;
        sp->tokens = (uint64_t)n;
        sp->file_offset = LLMC_HEADER_BYTES;
        return SVK_OK;
    }
    if (m->size % d->width)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s holds %" PRIu64 " bytes, not a whole number of %u-byte tokens (format %s)", path,
                         m->size, d->width, d->width == 2 ? "SVK_TOKENS_U16" : "SVK_TOKENS_U32");
    sp->data = m->data;
    sp->tokens = m->size / d->width;
    sp->file_offset = 0;
    return SVK_OK;
}

svk_status svk_token_data_open(const char *pattern, const svk_token_data_params *params, svk_token_data **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    SVK_CHECK_PATH(NULL, pattern);
    if (params)
        SVK_CHECK_RESERVED(NULL, params->reserved);
    const svk_token_data_params p = params ? *params : svk_token_data_params_default();
    if (p.format != SVK_TOKENS_LLMC && p.format != SVK_TOKENS_U16 && p.format != SVK_TOKENS_U32)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->format=%d is not SVK_TOKENS_LLMC, SVK_TOKENS_U16 or SVK_TOKENS_U32", __func__,
                         (int)p.format);
    if (p.vocab == 0 || p.vocab > INT32_MAX)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: params->vocab=%" PRIu32 " is outside [1, 2^31 - 1]",
                         __func__, p.vocab);
    if (p.order != SVK_TEXT_RANDOM && p.order != SVK_TEXT_SEQUENTIAL)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: params->order=%d is neither SVK_TEXT_RANDOM nor SVK_TEXT_SEQUENTIAL", __func__,
                         (int)p.order);
    svk_file_list list;
    svk_status st = svk_file_glob(NULL, NULL, pattern, &list);
    if (st != SVK_OK)
        return st;
    if (list.count == 0)
        return svk_error(NULL, SVK_ERROR_IO, "no file matches %s", pattern);
    if (list.count > UINT32_MAX) {
        svk_file_list_free(&list);
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s matches %zu files, more than 2^32 - 1 shards", pattern,
                         list.count);
    }
    svk_token_data *d = svk_calloc(1, sizeof(*d));
    if (!d) {
        svk_file_list_free(&list);
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory opening %s", pattern);
    }
    d->params = p;
    d->width = p.format == SVK_TOKENS_U32 ? 4 : 2;
    d->count = (uint32_t)list.count;
    d->paths = list.paths; /* d owns them from here */
    d->maps = svk_calloc(d->count, sizeof(*d->maps));
    d->spans = svk_calloc(d->count, sizeof(*d->spans));
    if (!d->maps || !d->spans) {
        svk_token_data_destroy(&d);
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory opening %s", pattern);
    }
    for (uint32_t i = 0; i < d->count; i++) {
        /* Mapped, never read: the header (llm.c's) is the one page touched
         * here; a window's pages are read when a batch takes it. */
        if ((st = svk_file_map(NULL, NULL, d->paths[i], &d->maps[i])) != SVK_OK ||
            (st = check_shard(d, i)) != SVK_OK) {
            svk_token_data_destroy(&d);
            return st;
        }
        /* Random windows touch a page or two each: read-ahead around them
         * would read many times the bytes a batch uses. */
        if (p.order == SVK_TEXT_RANDOM)
            svk_file_map_advise_random(&d->maps[i]);
        d->spans[i].first = d->total;
        d->total += d->spans[i].tokens;
    }
    d->state = p.order == SVK_TEXT_RANDOM ? p.seed : 0;
    *out = d;
    return SVK_OK;
}

void svk_token_data_destroy(svk_token_data **data)
{
    if (!data || !*data)
        return;
    svk_token_data *d = *data;
    for (uint32_t i = 0; d->maps && i < d->count; i++)
        svk_file_unmap(&d->maps[i]);
    svk_file_list list = {d->paths, d->count};
    svk_file_list_free(&list);
    free(d->maps);
    free(d->spans);
    free(d);
    *data = NULL;
}

svk_status svk_token_data_tokens(const svk_token_data *data, uint64_t *tokens)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    SVK_CHECK_PTR(NULL, tokens);
    *tokens = data->total;
    return SVK_OK;
}

svk_status svk_token_data_shards(const svk_token_data *data, uint32_t *count)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    SVK_CHECK_PTR(NULL, count);
    *count = data->count;
    return SVK_OK;
}

svk_status svk_token_data_shard(const svk_token_data *data, uint32_t i, const char **path, uint64_t *tokens)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    if (i >= data->count)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: shard %" PRIu32 " of %" PRIu32, __func__, i, data->count);
    if (path)
        *path = data->paths[i];
    if (tokens)
        *tokens = data->spans[i].tokens;
    return SVK_OK;
}

svk_status svk_token_data_batch(svk_token_data *data, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    SVK_CHECK_PTR(NULL, tokens);
    SVK_CHECK_PTR(NULL, targets);
    if (T == 0)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: T=0; a window holds at least one token", __func__);
    svk_token_data *d = data;
    svk_token_stream s = {d->spans, d->count, d->width, d->params.vocab, d->params.order, d->state};
    svk_status st = svk_token_stream_batch(&s, B, T, tokens, targets);
    d->state = s.state;
    return st;
}

svk_status svk_token_data_position(const svk_token_data *data, uint64_t *position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    SVK_CHECK_PTR(NULL, position);
    *position = data->state;
    return SVK_OK;
}

svk_status svk_token_data_seek(svk_token_data *data, uint64_t position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    if (data->params.order == SVK_TEXT_SEQUENTIAL && position != 0 && position >= data->total)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: offset %" PRIu64 " is past the shards' %" PRIu64 " tokens",
                         __func__, position, data->total);
    data->state = position;
    return SVK_OK;
}
