#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "io_file.h"
#include "safetensors.h"

/* Tensor data is read and written as stored: libsvk supports little-endian
 * hosts only, as does every GPU driver it targets. */
_Static_assert(sizeof(float) == 4, "float must be 32-bit");

static const char *const dtype_names[SVK_ST_DTYPE_COUNT] = {"F32", "I32", "F16", "BF16"};
static const uint32_t dtype_sizes[SVK_ST_DTYPE_COUNT] = {4, 4, 2, 2};

const char *svk_st_dtype_name(svk_st_dtype d)
{
    return (unsigned)d < SVK_ST_DTYPE_COUNT ? dtype_names[d] : "?";
}

uint32_t svk_st_dtype_size(svk_st_dtype d)
{
    return (unsigned)d < SVK_ST_DTYPE_COUNT ? dtype_sizes[d] : 0;
}

void svk_st_free(svk_st_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->meta);
    free(f->by_name);
    free(f->tensors);
    free(f->blob);
    memset(f, 0, sizeof(*f));
}

const svk_st_tensor *svk_st_find(const svk_st_file *f, const char *name)
{
    size_t lo = 0, hi = f->by_name ? f->n_tensors : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->by_name[mid]->name, name);
        if (!c)
            return f->by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *svk_st_meta_get(const svk_st_file *f, const char *key)
{
    size_t lo = 0, hi = f->n_meta;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->meta[mid].key, key);
        if (!c)
            return f->meta[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A JSON number that is a non-negative integer representable exactly. */
static bool json_u64(const cJSON *j, uint64_t *out)
{
    if (!cJSON_IsNumber(j))
        return false;
    double d = j->valuedouble;
    /* 2^53: beyond it doubles skip integers, and cJSON parses into double. */
    if (!(d >= 0) || d > 9007199254740992.0 || d != (double)(uint64_t)d)
        return false;
    *out = (uint64_t)d;
    return true;
}

static int by_offset(const void *a, const void *b)
{
    const svk_st_tensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : strcmp(x->name, y->name);
}

static int meta_by_key(const void *a, const void *b)
{
    return strcmp(((const svk_st_meta *)a)->key, ((const svk_st_meta *)b)->key);
}

static int tensor_ptr_by_name(const void *a, const void *b)
{
    return strcmp((*(const svk_st_tensor *const *)a)->name, (*(const svk_st_tensor *const *)b)->name);
}

/* An upper bound on the number of values in a JSON text: every value after
 * the first follows a ',' or '[' or ':' outside a string. cJSON spends about
 * 64 bytes on each, so a 100 MB header of "[0,0,0,..." would cost gigabytes
 * before any of it could be refused. */
static uint64_t json_value_bound(const char *s, size_t n)
{
    uint64_t values = 1;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == ',' || c == '[' || c == ':') {
            values++;
        }
    }
    return values;
}

#define BAD(...) (st = svk_error(log, SVK_ERROR_BAD_CHECKPOINT, __VA_ARGS__))

static svk_status parse_tensor(svk_log *log, const char *what, const cJSON *item, const uint8_t *data,
                               uint64_t data_size, svk_st_tensor *t)
{
    svk_status st = SVK_OK;
    const char *name = item->string;
    if (strlen(name) >= SVK_ST_MAX_NAME)
        return BAD("%s: tensor name of %zu bytes is too long (limit %d)", what, strlen(name), SVK_ST_MAX_NAME - 1);
    if (!*name)
        return BAD("%s: a tensor has an empty name", what);
    snprintf(t->name, sizeof(t->name), "%s", name);
    if (!cJSON_IsObject(item))
        return BAD("%s: tensor '%s': entry is not an object", what, name);
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs))
        return BAD("%s: tensor '%s': needs string \"dtype\", array \"shape\" and array \"data_offsets\"", what, name);
    int d;
    for (d = 0; d < SVK_ST_DTYPE_COUNT && strcmp(dtype->valuestring, dtype_names[d]); d++)
        ;
    if (d == SVK_ST_DTYPE_COUNT)
        return BAD("%s: tensor '%s': dtype %.16s is not supported (libsvk reads F32, I32, F16 and BF16)", what, name,
                   dtype->valuestring);
    t->dtype = (svk_st_dtype)d;
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > SVK_ST_MAX_DIMS)
        return BAD("%s: tensor '%s': %d dimensions (limit %d)", what, name, ndim, SVK_ST_MAX_DIMS);
    t->ndim = (uint32_t)ndim;
    uint64_t elems = 1;
    for (int i = 0; i < ndim; i++) {
        uint64_t v;
        if (!json_u64(cJSON_GetArrayItem(shape, i), &v))
            return BAD("%s: tensor '%s': shape[%d] is not a non-negative integer", what, name, i);
        if (v && elems > UINT64_MAX / 4 / v)
            return BAD("%s: tensor '%s': shape product overflows", what, name);
        t->shape[i] = v;
        elems *= v;
    }
    t->elems = elems;
    uint64_t begin, end;
    if (cJSON_GetArraySize(offs) != 2 || !json_u64(cJSON_GetArrayItem(offs, 0), &begin) ||
        !json_u64(cJSON_GetArrayItem(offs, 1), &end))
        return BAD("%s: tensor '%s': data_offsets must be two non-negative integers", what, name);
    if (end < begin || end > data_size)
        return BAD("%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 ") lie outside the %" PRIu64
                   " bytes of data (reversed, or the file is truncated?)", what, name, begin, end, data_size);
    if (end - begin != elems * dtype_sizes[d])
        return BAD("%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 ") hold %" PRIu64
                   " bytes, but dtype %s and its shape need %" PRIu64, what, name, begin, end, end - begin,
                   dtype_names[d], elems * dtype_sizes[d]);
    t->begin = begin;
    t->data = data ? data + begin : NULL;
    t->bytes = end - begin;
    return SVK_OK;
}

static svk_status parse_meta(svk_log *log, const char *what, const cJSON *m, svk_st_file *out)
{
    svk_status st = SVK_OK;
    if (!cJSON_IsObject(m))
        return BAD("%s: __metadata__ is not an object", what);
    int n = cJSON_GetArraySize(m);
    out->meta = svk_calloc(n ? (size_t)n : 1, sizeof(*out->meta));
    if (!out->meta)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    for (const cJSON *kv = m->child; kv; kv = kv->next) {
        if (!cJSON_IsString(kv))
            return BAD("%s: __metadata__ value of '%.64s' is not a string", what, kv->string);
        svk_st_meta *e = &out->meta[out->n_meta];
        e->key = svk_strdup(kv->string);
        e->value = svk_strdup(kv->valuestring);
        out->n_meta++;
        if (!e->key || !e->value)
            return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    }
    /* Duplicates by sorting, not by comparing every pair: a hostile header
     * may hold a million keys. */
    qsort(out->meta, out->n_meta, sizeof(*out->meta), meta_by_key);
    for (size_t i = 1; i < out->n_meta; i++)
        if (!strcmp(out->meta[i - 1].key, out->meta[i].key))
            return BAD("%s: __metadata__ key '%.64s' appears twice", what, out->meta[i].key);
    return SVK_OK;
}

/* The header's length from the first 8 bytes of blob (size of them read,
 * of a file of file_size bytes), checked against both. */
static svk_status header_length(svk_log *log, const char *what, const void *blob, size_t size, uint64_t file_size,
                                uint64_t *out)
{
    svk_status st = SVK_OK;
    if (size < 8)
        return BAD("%s: %zu bytes is too short for a safetensors file (truncated? the 8-byte header length is "
                    "missing)", what, size);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | ((const uint8_t *)blob)[i];
    if (hlen > SVK_ST_MAX_HEADER)
        return BAD("%s: header length %" PRIu64 " is absurd (limit %u)", what, hlen, SVK_ST_MAX_HEADER);
    if (hlen < 2 || hlen > file_size - 8)
        return BAD("%s: header length %" PRIu64 " does not fit in the file's %" PRIu64 " bytes (truncated?)", what,
                   hlen, file_size);
    if (hlen > size - 8)
        return svk_error(log, SVK_ERROR_INTERNAL, "%s: %zu bytes of the file read, its header needs %" PRIu64, what,
                         size, 8 + hlen);
    *out = hlen;
    return SVK_OK;
}

/* The header's JSON object into *root (the caller deletes it). */
static svk_status parse_header_json(svk_log *log, const char *what, const char *header, uint64_t hlen, cJSON **root)
{
    svk_status st = SVK_OK;
    if (memchr(header, '\0', hlen))
        return BAD("%s: header contains a NUL byte", what);
    if (json_value_bound(header, hlen) > SVK_ST_MAX_VALUES)
        return BAD("%s: header holds too many JSON values (limit %u)", what, SVK_ST_MAX_VALUES);
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(header, hlen, &end, false);
    if (!*root)
        return BAD("%s: header is not valid JSON (near byte %td of %" PRIu64 ")", what,
                   cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - header : (ptrdiff_t)-1, hlen);
    /* Only trailing spaces may follow the JSON (the writer pads with them). */
    for (const char *p = end; p && p < header + hlen; p++)
        if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
            return BAD("%s: junk after the header's JSON", what);
    if (!cJSON_IsObject(*root))
        return BAD("%s: header is not a JSON object", what);
    return SVK_OK;
}

/* The header's entries: the tensors (data: their bytes, or NULL) and the
 * metadata, into out. */
static svk_status parse_entries(svk_log *log, const char *what, const cJSON *root, const uint8_t *data,
                                uint64_t data_size, svk_st_file *out)
{
    svk_status st = SVK_OK;
    int count = cJSON_GetArraySize(root);
    out->tensors = svk_calloc(count ? (size_t)count : 1, sizeof(*out->tensors));
    if (!out->tensors)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    for (const cJSON *item = root->child; item; item = item->next) {
        if (!item->string)
            return BAD("%s: header entry without a name", what);
        if (!strcmp(item->string, "__metadata__")) {
            if (out->meta)
                return BAD("%s: __metadata__ appears twice", what);
            if ((st = parse_meta(log, what, item, out)) != SVK_OK)
                return st;
            continue;
        }
        if ((st = parse_tensor(log, what, item, data, data_size, &out->tensors[out->n_tensors])) != SVK_OK)
            return st;
        out->n_tensors++;
    }
    return SVK_OK;
}

/* The tensors in data order, and beside them an index by name: for the
 * duplicate check (by sorting, not by comparing every pair, as for the
 * metadata) and for svk_st_find's binary search. */
static svk_status index_tensors(svk_log *log, const char *what, svk_st_file *out)
{
    svk_status st = SVK_OK;
    qsort(out->tensors, out->n_tensors, sizeof(*out->tensors), by_offset);
    out->by_name = svk_calloc(out->n_tensors ? out->n_tensors : 1, sizeof(*out->by_name));
    if (!out->by_name)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    for (size_t i = 0; i < out->n_tensors; i++)
        out->by_name[i] = &out->tensors[i];
    qsort(out->by_name, out->n_tensors, sizeof(*out->by_name), tensor_ptr_by_name);
    for (size_t i = 1; i < out->n_tensors; i++)
        if (!strcmp(out->by_name[i - 1]->name, out->by_name[i]->name))
            return BAD("%s: tensor '%s' appears twice", what, out->by_name[i]->name);
    return SVK_OK;
}

/* The data must be exactly the tensors (in data order), back to back: no
 * overlap (two tensors aliasing one range) and no unexplained bytes. The
 * header's order need not be the data's (JSON objects are unordered). */
static svk_status check_data_layout(svk_log *log, const char *what, const svk_st_file *f, uint64_t data_size)
{
    svk_status st = SVK_OK;
    uint64_t pos = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const svk_st_tensor *t = &f->tensors[i];
        uint64_t begin = t->begin;
        if (begin < pos)
            return BAD("%s: tensor '%s' overlaps the one before it in the data", what, t->name);
        if (begin > pos)
            return BAD("%s: %" PRIu64 " bytes of data before tensor '%s' belong to no tensor", what, begin - pos,
                       t->name);
        pos = begin + t->bytes;
    }
    if (pos != data_size)
        return BAD("%s: %" PRIu64 " bytes at the end of the data belong to no tensor (file truncated or padded?)",
                   what, data_size - pos);
    return SVK_OK;
}

/* blob: the file's first `size` bytes, all of them (file_size == size) or
 * its header alone (svk_st_read_header), in which case the tensors get no
 * data; the layout is checked against file_size either way. */
static svk_status parse(svk_log *log, const char *what, void *blob, size_t size, uint64_t file_size, svk_st_file *out)
{
    cJSON *root = NULL;
    memset(out, 0, sizeof(*out));
    out->blob = blob;
    out->blob_size = size;
    uint64_t hlen = 0;
    svk_status st = header_length(log, what, blob, size, file_size, &hlen);
    if (st == SVK_OK) {
        const char *header = (const char *)blob + 8;
        const uint8_t *data = size == file_size ? (const uint8_t *)blob + 8 + hlen : NULL;
        const uint64_t data_size = file_size - 8 - hlen;
        st = parse_header_json(log, what, header, hlen, &root);
        if (st == SVK_OK)
            st = parse_entries(log, what, root, data, data_size, out);
        if (st == SVK_OK)
            st = index_tensors(log, what, out);
        if (st == SVK_OK)
            st = check_data_layout(log, what, out, data_size);
    }
    cJSON_Delete(root);
    if (st != SVK_OK)
        svk_st_free(out);
    return st;
}

svk_status svk_st_parse(svk_log *log, const char *what, void *blob, size_t size, svk_st_file *out)
{
    return parse(log, what, blob, size, size, out);
}

svk_status svk_st_parse_head(svk_log *log, const char *what, void *blob, size_t size, uint64_t file_size,
                             svk_st_file *out)
{
    if (size > file_size) {
        free(blob);
        memset(out, 0, sizeof(*out));
        return svk_error(log, SVK_ERROR_INTERNAL, "%s: %zu bytes read of a file of %" PRIu64, what, size, file_size);
    }
    return parse(log, what, blob, size, file_size, out);
}

svk_status svk_st_read_header(svk_log *log, const char *path, svk_st_file *out)
{
    memset(out, 0, sizeof(*out));
    void *blob;
    size_t size;
    uint64_t file_size;
    svk_status st = svk_file_read_head(log, NULL, path, 8, &blob, &size, &file_size);
    if (st != SVK_OK)
        return st;
    uint64_t hlen = 0;
    for (int i = 7; size == 8 && i >= 0; i--)
        hlen = (hlen << 8) | ((const uint8_t *)blob)[i];
    /* A length the parser refuses is refused there, with its message,
     * from the 8 bytes alone. */
    if (size == 8 && hlen >= 2 && hlen <= SVK_ST_MAX_HEADER && hlen <= file_size - 8) {
        free(blob);
        if ((st = svk_file_read_head(log, NULL, path, 8 + hlen, &blob, &size, &file_size)) != SVK_OK)
            return st;
    }
    return svk_st_parse_head(log, path, blob, size, file_size, out);
}

svk_status svk_st_read(svk_log *log, const char *path, svk_st_file *out)
{
    memset(out, 0, sizeof(*out));
    void *blob;
    size_t size;
    /* No size limit of its own: the parser bounds the header, and the data
     * is what the model needs (a refusal for memory names the bytes). */
    svk_status st = svk_file_read(log, NULL, path, UINT64_MAX, &blob, &size);
    if (st != SVK_OK)
        return st;
    return svk_st_parse(log, path, blob, size, out);
}

static char *build_header(svk_log *log, const svk_st_entry *t, size_t n, const svk_st_meta *meta, size_t n_meta,
                          svk_status *st)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL;
    if (ok && n_meta) {
        cJSON *m = cJSON_AddObjectToObject(root, "__metadata__");
        ok = m != NULL;
        for (size_t i = 0; ok && i < n_meta; i++)
            ok = cJSON_AddStringToObject(m, meta[i].key, meta[i].value) != NULL;
    }
    uint64_t offset = 0;
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t elems = 1;
        cJSON *e = cJSON_AddObjectToObject(root, t[i].name);
        cJSON *shape = e ? cJSON_AddArrayToObject(e, "shape") : NULL;
        ok = e && shape && cJSON_AddStringToObject(e, "dtype", dtype_names[t[i].dtype]);
        for (uint32_t d = 0; ok && d < t[i].ndim; d++) {
            elems *= t[i].shape[d];
            ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t[i].shape[d]));
        }
        const uint64_t bytes = elems * dtype_sizes[t[i].dtype];
        cJSON *offs = ok ? cJSON_AddArrayToObject(e, "data_offsets") : NULL;
        ok = offs && cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset)) &&
             cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)(offset + bytes)));
        offset += bytes;
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        *st = svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building a safetensors header");
    return text;
}

svk_status svk_st_write(svk_log *log, const char *path, const svk_st_entry *tensors, size_t n,
                        const svk_st_meta *meta, size_t n_meta)
{
    svk_status st = SVK_OK;
    for (size_t i = 0; i < n; i++) {
        if (!tensors[i].name || !*tensors[i].name || strlen(tensors[i].name) >= SVK_ST_MAX_NAME ||
            tensors[i].ndim > SVK_ST_MAX_DIMS || (unsigned)tensors[i].dtype >= SVK_ST_DTYPE_COUNT ||
            !tensors[i].data)
            return svk_error(log, SVK_ERROR_INVALID_ARG, "writing %s: tensor %zu ('%s') is malformed", path, i,
                             tensors[i].name ? tensors[i].name : "(null)");
    }
    char *header = build_header(log, tensors, n, meta, n_meta, &st);
    if (!header)
        return st;
    size_t hlen = strlen(header);
    size_t padded = (hlen + 7) / 8 * 8; /* data starts 8-byte aligned */
    /* Never a file the reader would refuse: its limits bound the memory a
     * hostile header can take, and a model deep enough to pass them (some
     * 3,000 layers with the optimiser state) must learn it now, not when it
     * tries to resume. */
    const uint64_t values = json_value_bound(header, hlen);
    if (padded > SVK_ST_MAX_HEADER || values > SVK_ST_MAX_VALUES) {
        free(header);
        return svk_error(log, SVK_ERROR_TOO_LARGE,
                         "writing %s: %zu tensors make a header of %zu bytes and %" PRIu64 " JSON values, over what "
                         "a safetensors reader takes (%u bytes, %u values); nothing was written (a model this deep "
                         "may still be saved without its optimiser state)",
                         path, n, padded, values, SVK_ST_MAX_HEADER, SVK_ST_MAX_VALUES);
    }

    svk_file_replace r;
    if ((st = svk_file_replace_begin(log, NULL, path, &r)) != SVK_OK) {
        free(header);
        return st;
    }
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)((uint64_t)padded >> (8 * i));
    static const char spaces[8] = "        ";
    st = svk_file_replace_write(&r, len, 8);
    if (st == SVK_OK)
        st = svk_file_replace_write(&r, header, hlen);
    if (st == SVK_OK)
        st = svk_file_replace_write(&r, spaces, padded - hlen);
    for (size_t i = 0; st == SVK_OK && i < n; i++) {
        uint64_t elems = 1;
        for (uint32_t d = 0; d < tensors[i].ndim; d++)
            elems *= tensors[i].shape[d];
        st = svk_file_replace_write(&r, tensors[i].data, elems * dtype_sizes[tensors[i].dtype]);
    }
    free(header);
    if (st != SVK_OK) {
        svk_file_replace_abort(&r);
        return st;
    }
    return svk_file_replace_commit(&r);
}
