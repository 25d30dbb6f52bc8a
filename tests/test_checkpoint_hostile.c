/*
 * Hostile checkpoints, one table: every case starts from a valid checkpoint
 * of a tiny CPU model, breaks one thing (the bytes, the JSON header, the
 * metadata, the configuration or the data), writes the file and loads it
 * with svk_model_load_ex. Each must be refused with SVK_ERROR_BAD_CHECKPOINT
 * (or IO / INVALID_ARG where that is the honest answer), with a message
 * that names the file and the problem, and the model must be exactly as it
 * was. Then a truncation at every byte, and the controls that must load: the
 * valid file, its header in another order, and NaN with the opt-in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "model/checkpoint.h"
#include "test_util.h"

typedef struct bytes {
    uint8_t *p;
    size_t n;
} bytes;

static void bytes_set(bytes *b, const void *p, size_t n)
{
    free(b->p);
    b->p = malloc(n ? n : 1);
    memcpy(b->p, p, n);
    b->n = n;
}

/* The valid file, taken apart: its header as JSON and its data. */
static cJSON *base_header;
static bytes base_data;

static uint64_t header_length(const bytes *file)
{
    uint64_t h = 0;
    for (int i = 7; i >= 0; i--)
        h = (h << 8) | file->p[i];
    return h;
}

static void set_header_length(bytes *file, uint64_t h)
{
    for (int i = 0; i < 8; i++)
        file->p[i] = (uint8_t)(h >> (8 * i));
}

/* Length, header text, data: a file as the writer lays it out (header padded
 * to 8 bytes with spaces). */
static void assemble(const char *text, const bytes *data, bytes *file)
{
    size_t h = strlen(text), padded = (h + 7) / 8 * 8;
    free(file->p);
    file->n = 8 + padded + data->n;
    file->p = malloc(file->n);
    set_header_length(file, padded);
    memcpy(file->p + 8, text, h);
    memset(file->p + 8 + h, ' ', padded - h);
    if (data->n)
        memcpy(file->p + 8 + padded, data->p, data->n);
}

/* Header edits. */

static cJSON *entry(cJSON *h, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(h, name);
}

static void set_numbers(cJSON *obj, const char *key, int n, const double *v)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, a);
    else
        cJSON_AddItemToObject(obj, key, a);
}

static void set_item(cJSON *obj, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

static uint64_t offset_of(cJSON *h, const char *name, int which)
{
    return (uint64_t)cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(entry(h, name), "data_offsets"), which)
        ->valuedouble;
}

static void set_offsets(cJSON *h, const char *name, double begin, double end)
{
    set_numbers(entry(h, name), "data_offsets", 2, (double[]){begin, end});
}

static cJSON *meta(cJSON *h)
{
    return cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
}

/* Replaces key of the JSON configuration in __metadata__["svk.config"]. */
static void config_set(cJSON *h, const char *key, cJSON *value)
{
    cJSON *c = cJSON_Parse(cJSON_GetObjectItemCaseSensitive(meta(h), "svk.config")->valuestring);
    set_item(c, key, value);
    char *text = cJSON_PrintUnformatted(c);
    set_item(meta(h), "svk.config", cJSON_CreateString(text));
    free(text);
    cJSON_Delete(c);
}

/* Removes a tensor and its data, closing the gap, so nothing but its absence
 * is wrong. */
static void drop_tensor(cJSON *h, bytes *data, const char *name)
{
    uint64_t begin = offset_of(h, name, 0), end = offset_of(h, name, 1), n = end - begin;
    cJSON_DeleteItemFromObjectCaseSensitive(h, name);
    for (cJSON *e = h->child; e; e = e->next) {
        if (!strcmp(e->string, "__metadata__"))
            continue;
        uint64_t b = offset_of(h, e->string, 0), x = offset_of(h, e->string, 1);
        if (b >= end)
            set_offsets(h, e->string, (double)(b - n), (double)(x - n));
    }
    memmove(data->p + begin, data->p + end, data->n - end);
    data->n -= n;
}

/* Appends a well-formed tensor of n floats at the end of the data. */
static void add_tensor(cJSON *h, bytes *data, const char *name, uint64_t n)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "dtype", "F32");
    set_numbers(e, "shape", 1, (double[]){(double)n});
    set_numbers(e, "data_offsets", 2, (double[]){(double)data->n, (double)(data->n + 4 * n)});
    cJSON_AddItemToObject(h, name, e);
    data->p = realloc(data->p, data->n + 4 * n);
    memset(data->p + data->n, 0, 4 * n);
    data->n += 4 * n;
}

static void poke(cJSON *h, bytes *data, const char *name, size_t elem, float v)
{
    memcpy(data->p + offset_of(h, name, 0) + 4 * elem, &v, 4);
}

/* The name whose data comes last. */
static const char *last_in_data(cJSON *h)
{
    const char *last = NULL;
    uint64_t at = 0;
    for (cJSON *e = h->child; e; e = e->next)
        if (strcmp(e->string, "__metadata__") && offset_of(h, e->string, 1) >= at) {
            at = offset_of(h, e->string, 1);
            last = e->string;
        }
    return last;
}

/* The cases' edits: j_ on the header and data, r_ on the assembled bytes. */
typedef void json_edit(cJSON **h, bytes *data);
typedef void raw_edit(bytes *file);

static void r_empty(bytes *f) { f->n = 0; }
static void r_len_absurd(bytes *f) { set_header_length(f, 1ull << 40); }
static void r_len_max(bytes *f) { set_header_length(f, UINT64_MAX); }
static void r_len_past_end(bytes *f) { set_header_length(f, f->n - 8 + 1); }
static void r_len_zero(bytes *f) { set_header_length(f, 0); }
static void r_len_short(bytes *f)
{
    /* Cuts the header before its closing brace: the rest counts as data. */
    uint64_t h = header_length(f);
    while (h && f->p[8 + h - 1] != '}')
        h--;
    set_header_length(f, h - 1);
}
static void r_nul(bytes *f) { f->p[8 + 5] = 0; }
static void r_bad_json(bytes *f) { *(uint8_t *)memchr(f->p + 8, ':', header_length(f)) = ';'; }
static void r_junk(bytes *f)
{
    uint64_t h = header_length(f);
    size_t n = h;
    while (n && f->p[8 + n - 1] == ' ')
        n--;
    char *text = malloc(n + 3);
    memcpy(text, f->p + 8, n);
    memcpy(text + n, " x", 3);
    bytes data = {NULL, 0};
    bytes_set(&data, f->p + 8 + h, f->n - 8 - h);
    assemble(text, &data, f);
    free(text);
    free(data.p);
}
static void replace_header(bytes *f, const char *text)
{
    bytes none = {NULL, 0};
    assemble(text, &none, f);
}
static void r_many_values(bytes *f)
{
    size_t n = SVK_ST_MAX_VALUES + 16;
    char *t = malloc(2 * n + 2);
    t[0] = '[';
    for (size_t i = 0; i < n; i++)
        memcpy(t + 1 + 2 * i, i + 1 < n ? "0," : "0]", 2);
    t[2 * n + 1] = 0;
    replace_header(f, t);
    free(t);
}
static void r_deep(bytes *f)
{
    enum { DEPTH = 100000 };
    char *t = malloc(2 * DEPTH + 1);
    memset(t, '[', DEPTH);
    memset(t + DEPTH, ']', DEPTH);
    t[2 * DEPTH] = 0;
    replace_header(f, t);
    free(t);
}

static void j_not_object(cJSON **h, bytes *d)
{
    cJSON_Delete(*h);
    *h = cJSON_CreateArray();
}
static void j_f64(cJSON **h, bytes *d) { set_item(entry(*h, "wte.weight"), "dtype", cJSON_CreateString("F64")); }
/* F16 is read (for GPT-2's files), but its bytes here are F32's. */
static void j_f16(cJSON **h, bytes *d) { set_item(entry(*h, "wte.weight"), "dtype", cJSON_CreateString("F16")); }
static void j_i32(cJSON **h, bytes *d) { set_item(entry(*h, "wte.weight"), "dtype", cJSON_CreateString("I32")); }
static void j_dtype_number(cJSON **h, bytes *d) { set_item(entry(*h, "wte.weight"), "dtype", cJSON_CreateNumber(0)); }
static void j_shape_overflow(cJSON **h, bytes *d)
{
    set_numbers(entry(*h, "wte.weight"), "shape", 3, (double[]){4294967296.0, 4294967296.0, 4});
}
static void j_shape_negative(cJSON **h, bytes *d) { set_numbers(entry(*h, "wte.weight"), "shape", 2, (double[]){-16, -8}); }
static void j_shape_fraction(cJSON **h, bytes *d) { set_numbers(entry(*h, "wte.weight"), "shape", 2, (double[]){16, 8.5}); }
static void j_shape_huge(cJSON **h, bytes *d) { set_numbers(entry(*h, "wte.weight"), "shape", 2, (double[]){16, 1e300}); }
static void j_shape_dims(cJSON **h, bytes *d)
{
    set_numbers(entry(*h, "wte.weight"), "shape", 9, (double[]){1, 1, 1, 1, 1, 1, 1, 16, 8});
}
static void j_transposed(cJSON **h, bytes *d) { set_numbers(entry(*h, "wte.weight"), "shape", 2, (double[]){8, 16}); }
static void j_flattened(cJSON **h, bytes *d) { set_numbers(entry(*h, "wte.weight"), "shape", 1, (double[]){128}); }
static void j_offsets_past_end(cJSON **h, bytes *d)
{
    const char *last = last_in_data(*h);
    set_offsets(*h, last, (double)offset_of(*h, last, 0) + 4, (double)offset_of(*h, last, 1) + 4);
}
static void j_offsets_reversed(cJSON **h, bytes *d)
{
    set_offsets(*h, "wte.weight", (double)offset_of(*h, "wte.weight", 1), (double)offset_of(*h, "wte.weight", 0));
}
static void j_offsets_three(cJSON **h, bytes *d)
{
    set_numbers(entry(*h, "wte.weight"), "data_offsets", 3, (double[]){0, 512, 512});
}
static void j_offsets_strings(cJSON **h, bytes *d)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateString("0"));
    cJSON_AddItemToArray(a, cJSON_CreateString("512"));
    set_item(entry(*h, "wte.weight"), "data_offsets", a);
}
static void j_offsets_short(cJSON **h, bytes *d)
{
    uint64_t b = offset_of(*h, "wte.weight", 0);
    set_offsets(*h, "wte.weight", (double)b, (double)b + 4);
}
static void j_overlap(cJSON **h, bytes *d)
{
    set_offsets(*h, "norm_f.out.bias", (double)offset_of(*h, "norm_f.out.weight", 0),
                (double)offset_of(*h, "norm_f.out.weight", 1));
}
static void j_trailing(cJSON **h, bytes *d)
{
    d->p = realloc(d->p, d->n + 4);
    memset(d->p + d->n, 0, 4);
    d->n += 4;
}
static void j_leading(cJSON **h, bytes *d)
{
    for (cJSON *e = (*h)->child; e; e = e->next)
        if (strcmp(e->string, "__metadata__"))
            set_offsets(*h, e->string, (double)offset_of(*h, e->string, 0) + 4, (double)offset_of(*h, e->string, 1) + 4);
    d->p = realloc(d->p, d->n + 4);
    memmove(d->p + 4, d->p, d->n);
    d->n += 4;
}
static void j_duplicate(cJSON **h, bytes *d)
{
    cJSON_AddItemToObject(*h, "wte.weight", cJSON_Duplicate(entry(*h, "wte.weight"), true));
}
static void j_missing(cJSON **h, bytes *d) { drop_tensor(*h, d, "blocks.0.mlp.fc.bias"); }
static void j_missing_moment(cJSON **h, bytes *d) { drop_tensor(*h, d, "optimizer.v.norm_f.out.bias"); }
static void j_renamed(cJSON **h, bytes *d)
{
    cJSON *e = cJSON_DetachItemFromObjectCaseSensitive(*h, "blocks.0.attn.proj.bias");
    cJSON_AddItemToObject(*h, "blocks.0.attn.proj.b", e);
}
static void j_unexpected(cJSON **h, bytes *d) { add_tensor(*h, d, "blocks.0.extra.weight", 3); }
static void j_unexpected_moment(cJSON **h, bytes *d) { add_tensor(*h, d, "optimizer.m.bogus", 1); }
static void j_empty_name(cJSON **h, bytes *d) { add_tensor(*h, d, "", 1); }
static void j_long_name(cJSON **h, bytes *d)
{
    char name[400];
    memset(name, 'a', sizeof(name) - 1);
    name[sizeof(name) - 1] = 0;
    add_tensor(*h, d, name, 1);
}
static void j_entry_number(cJSON **h, bytes *d) { set_item(*h, "blocks.0.attn.qkv.bias", cJSON_CreateNumber(5)); }
static void j_no_metadata(cJSON **h, bytes *d) { cJSON_DeleteItemFromObjectCaseSensitive(*h, "__metadata__"); }
static void j_no_config(cJSON **h, bytes *d) { cJSON_DeleteItemFromObjectCaseSensitive(meta(*h), "svk.config"); }
static void j_metadata_array(cJSON **h, bytes *d) { set_item(*h, "__metadata__", cJSON_CreateArray()); }
static void j_metadata_twice(cJSON **h, bytes *d)
{
    cJSON_AddItemToObject(*h, "__metadata__", cJSON_Duplicate(meta(*h), true));
}
static void j_metadata_key_twice(cJSON **h, bytes *d) { cJSON_AddStringToObject(meta(*h), "format", "pt"); }
static void j_config_object(cJSON **h, bytes *d)
{
    cJSON *c = cJSON_Parse(cJSON_GetObjectItemCaseSensitive(meta(*h), "svk.config")->valuestring);
    set_item(meta(*h), "svk.config", c);
}
static void j_metadata_number(cJSON **h, bytes *d) { set_item(meta(*h), "format", cJSON_CreateNumber(1)); }
static void j_config_not_json(cJSON **h, bytes *d) { set_item(meta(*h), "svk.config", cJSON_CreateString("{width: 8")); }
static void j_config_unknown(cJSON **h, bytes *d) { config_set(*h, "dropout", cJSON_CreateNumber(0.1)); }
static void j_config_key_twice(cJSON **h, bytes *d)
{
    const char *c = cJSON_GetObjectItemCaseSensitive(meta(*h), "svk.config")->valuestring;
    char text[1200];
    snprintf(text, sizeof(text), "{\"width\":8,%s", c + 1);
    set_item(meta(*h), "svk.config", cJSON_CreateString(text));
}
static void j_config_invalid(cJSON **h, bytes *d) { config_set(*h, "heads", cJSON_CreateNumber(3)); }
static void j_config_type(cJSON **h, bytes *d) { config_set(*h, "width", cJSON_CreateString("8")); }
static void j_config_other(cJSON **h, bytes *d) { config_set(*h, "width", cJSON_CreateNumber(16)); }
static void j_no_step(cJSON **h, bytes *d) { cJSON_DeleteItemFromObjectCaseSensitive(meta(*h), "svk.step"); }
static void j_step_negative(cJSON **h, bytes *d) { set_item(meta(*h), "svk.step", cJSON_CreateString("-1")); }
static void j_step_junk(cJSON **h, bytes *d) { set_item(meta(*h), "svk.step", cJSON_CreateString("12abc")); }
static void j_step_space(cJSON **h, bytes *d) { set_item(meta(*h), "svk.step", cJSON_CreateString(" 12")); }
static void j_step_overflow(cJSON **h, bytes *d)
{
    set_item(meta(*h), "svk.step", cJSON_CreateString("18446744073709551616"));
}
static void j_step_u64_max(cJSON **h, bytes *d)
{
    set_item(meta(*h), "svk.step", cJSON_CreateString("18446744073709551615"));
}
static void j_step_past_max(cJSON **h, bytes *d)
{
    char s[32];
    snprintf(s, sizeof(s), "%llu", (unsigned long long)SVK_MAX_STEP + 1);
    set_item(meta(*h), "svk.step", cJSON_CreateString(s));
}
/* The configuration as the JSON text given (any JSON, not only an object). */
static void config_text(cJSON *h, const char *text) { set_item(meta(h), "svk.config", cJSON_CreateString(text)); }
/* Item 6 of the issue: a configuration of megabytes of nested arrays, which
 * the header's limit on JSON values does not see inside its string. */
static void j_config_huge(cJSON **h, bytes *d)
{
    enum { N = 8 << 20 };
    char *t = malloc(N + 64);
    size_t o = (size_t)sprintf(t, "{\"vocab\":16,\"x\":[");
    while (o < N)
        o += (size_t)sprintf(t + o, "[0,0,0,0],");
    sprintf(t + o, "[]]}");
    config_text(*h, t);
    free(t);
}
static void j_config_deep(cJSON **h, bytes *d)
{
    enum { DEPTH = 900 }; /* within cJSON's own limit of 1000, and 4096 bytes */
    char t[2 * DEPTH + 32];
    size_t o = (size_t)sprintf(t, "{\"vocab\":");
    memset(t + o, '[', DEPTH);
    memset(t + o + DEPTH, ']', DEPTH);
    sprintf(t + o + 2 * DEPTH, "}");
    config_text(*h, t);
}
static void j_config_nested_value(cJSON **h, bytes *d)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(8));
    config_set(*h, "width", a);
}
static void j_config_nested_unknown(cJSON **h, bytes *d)
{
    config_set(*h, "extra", cJSON_Parse("{\"a\":{\"b\":1}}"));
}
static void j_nan(cJSON **h, bytes *d) { poke(*h, d, "wte.weight", 3, NAN); }
static void j_inf(cJSON **h, bytes *d) { poke(*h, d, "blocks.0.attn.qkv.bias", 0, INFINITY); }
static void j_minus_inf_moment(cJSON **h, bytes *d) { poke(*h, d, "optimizer.v.wte.weight", 7, -INFINITY); }
/* Item 7 of the issue: moments that would turn the next step's weights
 * into NaN without the step being skipped. */
static void j_v_negative(cJSON **h, bytes *d) { poke(*h, d, "optimizer.v.blocks.0.attn.qkv.weight", 5, -0.25f); }
static void j_v_nan(cJSON **h, bytes *d) { poke(*h, d, "optimizer.v.wte.weight", 2, NAN); }
static void j_m_nan(cJSON **h, bytes *d) { poke(*h, d, "optimizer.m.norm_f.out.bias", 1, NAN); }
static void j_m_inf(cJSON **h, bytes *d) { poke(*h, d, "optimizer.m.blocks.0.mlp.fc.weight", 0, INFINITY); }
static void j_v_minus_zero(cJSON **h, bytes *d) { poke(*h, d, "optimizer.v.wte.weight", 4, -0.0f); }

typedef struct hostile {
    const char *what;
    json_edit *json;       /* on the header and data; may be NULL */
    raw_edit *raw;         /* then on the whole file; may be NULL */
    const char *config;    /* "key=value": set in the file's configuration and
                            * the model's (NULL: the tiny one) */
    uint32_t flags;
    svk_status expect;
    const char *needle;    /* the message must contain it */
} hostile;

#define OPT SVK_LOAD_OPTIMIZER
#define BAD SVK_ERROR_BAD_CHECKPOINT

static const hostile cases[] = {
    /* The bytes. */
    {"empty file", NULL, r_empty, NULL, 0, BAD, "too short"},
    {"absurd header length", NULL, r_len_absurd, NULL, 0, BAD, "absurd"},
    {"header length 2^64-1", NULL, r_len_max, NULL, 0, BAD, "absurd"},
    {"header longer than the file", NULL, r_len_past_end, NULL, 0, BAD, "does not fit"},
    {"header length zero", NULL, r_len_zero, NULL, 0, BAD, "does not fit"},
    {"header length cuts the JSON", NULL, r_len_short, NULL, 0, BAD, "not valid JSON"},
    {"NUL in the header", NULL, r_nul, NULL, 0, BAD, "NUL"},
    /* The JSON. */
    {"invalid JSON", NULL, r_bad_json, NULL, 0, BAD, "not valid JSON"},
    {"junk after the JSON", NULL, r_junk, NULL, 0, BAD, "junk"},
    {"header not an object", j_not_object, NULL, NULL, 0, BAD, "not a JSON object"},
    {"millions of JSON values", NULL, r_many_values, NULL, 0, BAD, "too many JSON values"},
    {"nesting 100000 deep", NULL, r_deep, NULL, 0, BAD, "not valid JSON"},
    /* dtypes and shapes. */
    {"dtype F64", j_f64, NULL, NULL, 0, BAD, "dtype F64 is not supported"},
    {"dtype F16 over F32's bytes", j_f16, NULL, NULL, 0, BAD, "but dtype F16 and its shape need"},
    {"dtype I32 for a weight", j_i32, NULL, NULL, 0, BAD, "'wte.weight' is I32"},
    {"dtype not a string", j_dtype_number, NULL, NULL, 0, BAD, "needs string \"dtype\""},
    {"shape product overflows", j_shape_overflow, NULL, NULL, 0, BAD, "shape product overflows"},
    {"negative shape", j_shape_negative, NULL, NULL, 0, BAD, "shape[0] is not a non-negative integer"},
    {"fractional shape", j_shape_fraction, NULL, NULL, 0, BAD, "shape[1] is not a non-negative integer"},
    {"shape 1e300", j_shape_huge, NULL, NULL, 0, BAD, "shape[1] is not a non-negative integer"},
    {"nine dimensions", j_shape_dims, NULL, NULL, 0, BAD, "9 dimensions"},
    /* The configuration disagrees with the tensors. */
    {"transposed shape", j_transposed, NULL, NULL, 0, BAD, "'wte.weight' is F32 [8, 16], but the configuration needs F32 [16, 8]"},
    {"flattened shape", j_flattened, NULL, NULL, 0, BAD, "'wte.weight' is F32 [128], but the configuration needs F32 [16, 8]"},
    {"config says mlp_hidden 32", NULL, NULL, "mlp_hidden=32", 0, BAD,
     "'blocks.0.mlp.fc.weight' is F32 [16, 8], but the configuration needs F32 [32, 8]"},
    {"config says two layers", NULL, NULL, "layers=2", 0, BAD, "'blocks.1.attn_norm.post.weight' is missing"},
    {"config says untied", NULL, NULL, "tie_embeddings=false", 0, BAD, "'lm_head.weight' is missing"},
    {"config says rope", NULL, NULL, "pos=rope", 0, BAD, "unexpected tensor 'wpe.weight'"},
    {"config says rmsnorm", NULL, NULL, "norm=rmsnorm", 0, BAD, "unexpected tensor"},
    /* Offsets. */
    {"offsets past the data", j_offsets_past_end, NULL, NULL, 0, BAD, "outside"},
    {"offsets reversed", j_offsets_reversed, NULL, NULL, 0, BAD, "reversed"},
    {"three offsets", j_offsets_three, NULL, NULL, 0, BAD, "data_offsets must be two non-negative integers"},
    {"offsets as strings", j_offsets_strings, NULL, NULL, 0, BAD, "data_offsets must be two non-negative integers"},
    {"offsets not matching the shape", j_offsets_short, NULL, NULL, 0, BAD, "need 512"},
    {"overlapping tensors", j_overlap, NULL, NULL, 0, BAD, "overlaps"},
    {"bytes after the last tensor", j_trailing, NULL, NULL, 0, BAD, "at the end of the data belong to no tensor"},
    {"bytes before the first tensor", j_leading, NULL, NULL, 0, BAD, "before tensor"},
    /* Names. */
    {"duplicate name", j_duplicate, NULL, NULL, 0, BAD, "'wte.weight' appears twice"},
    {"missing tensor", j_missing, NULL, NULL, 0, BAD, "'blocks.0.mlp.fc.bias' is missing"},
    {"missing moment", j_missing_moment, NULL, NULL, OPT, BAD, "'optimizer.v.norm_f.out.bias' is missing"},
    {"renamed tensor", j_renamed, NULL, NULL, 0, BAD, "'blocks.0.attn.proj.bias' is missing"},
    {"unexpected tensor", j_unexpected, NULL, NULL, 0, BAD, "unexpected tensor 'blocks.0.extra.weight'"},
    {"unexpected moment", j_unexpected_moment, NULL, NULL, OPT, BAD, "unexpected tensor 'optimizer.m.bogus'"},
    {"empty name", j_empty_name, NULL, NULL, 0, BAD, "empty name"},
    {"400-byte name", j_long_name, NULL, NULL, 0, BAD, "name of 399 bytes is too long"},
    {"tensor entry not an object", j_entry_number, NULL, NULL, 0, BAD, "'blocks.0.attn.qkv.bias': entry is not an object"},
    /* Metadata. */
    {"no metadata", j_no_metadata, NULL, NULL, 0, BAD, "no \"svk.config\""},
    {"no configuration", j_no_config, NULL, NULL, 0, BAD, "no \"svk.config\""},
    {"metadata an array", j_metadata_array, NULL, NULL, 0, BAD, "__metadata__ is not an object"},
    {"metadata twice", j_metadata_twice, NULL, NULL, 0, BAD, "__metadata__ appears twice"},
    {"metadata key twice", j_metadata_key_twice, NULL, NULL, 0, BAD, "key 'format' appears twice"},
    {"configuration not a string", j_config_object, NULL, NULL, 0, BAD, "value of 'svk.config' is not a string"},
    {"metadata value a number", j_metadata_number, NULL, NULL, 0, BAD, "value of 'format' is not a string"},
    {"configuration not JSON", j_config_not_json, NULL, NULL, 0, BAD, "configuration is invalid"},
    {"configuration key unknown", j_config_unknown, NULL, NULL, 0, BAD, "unknown config key 'dropout'"},
    {"configuration key twice", j_config_key_twice, NULL, NULL, 0, BAD, "'width' appears twice"},
    {"configuration breaks the spec", j_config_invalid, NULL, NULL, 0, BAD, "heads"},
    {"configuration value a string", j_config_type, NULL, NULL, 0, BAD, "'width' must be a number"},
    {"configuration of another model", j_config_other, NULL, NULL, 0, BAD, "differs from the model's"},
    {"no step", j_no_step, NULL, NULL, OPT, BAD, "no valid optimiser step"},
    {"negative step", j_step_negative, NULL, NULL, OPT, BAD, "no valid optimiser step"},
    {"step with junk", j_step_junk, NULL, NULL, OPT, BAD, "no valid optimiser step"},
    {"step with a space", j_step_space, NULL, NULL, OPT, BAD, "no valid optimiser step"},
    {"step past 2^64", j_step_overflow, NULL, NULL, OPT, BAD, "no valid optimiser step"},
    {"step 2^64-1", j_step_u64_max, NULL, NULL, OPT, BAD, "optimiser step 18446744073709551615 is beyond"},
    {"step SVK_MAX_STEP + 1", j_step_past_max, NULL, NULL, OPT, BAD, "optimiser step 9007199254740993 is beyond"},
    {"configuration of 8 MB of nested arrays", j_config_huge, NULL, NULL, 0, BAD, "longer than 4096 bytes"},
    {"configuration nested 900 deep", j_config_deep, NULL, NULL, 0, BAD, "nested array at byte 9"},
    {"configuration value an array", j_config_nested_value, NULL, NULL, 0, BAD, "nested array"},
    {"configuration key unknown, value nested", j_config_nested_unknown, NULL, NULL, 0, BAD, "nested object"},
    /* Values. */
    {"NaN in a weight", j_nan, NULL, NULL, 0, BAD, "'wte.weight' holds nan at element 3"},
    {"Inf in a bias", j_inf, NULL, NULL, 0, BAD, "'blocks.0.attn.qkv.bias' holds inf at element 0"},
    {"-Inf in a moment", j_minus_inf_moment, NULL, NULL, OPT, BAD, "'optimizer.v.wte.weight' holds -inf at element 7"},
    {"negative optimizer.v", j_v_negative, NULL, NULL, OPT, BAD,
     "'optimizer.v.blocks.0.attn.qkv.weight' holds -0.25 at element 5"},
    {"NaN in optimizer.v", j_v_nan, NULL, NULL, OPT, BAD, "'optimizer.v.wte.weight' holds nan at element 2"},
    {"NaN in optimizer.m", j_m_nan, NULL, NULL, OPT, BAD, "'optimizer.m.norm_f.out.bias' holds nan at element 1"},
    {"Inf in optimizer.m", j_m_inf, NULL, NULL, OPT, BAD,
     "'optimizer.m.blocks.0.mlp.fc.weight' holds inf at element 0"},
    /* The opt-in for non-finite values is for weights: a bad moment would
     * poison every later step. */
    {"negative optimizer.v, non-finite allowed", j_v_negative, NULL, NULL, OPT | SVK_LOAD_ALLOW_NONFINITE, BAD,
     "'optimizer.v.blocks.0.attn.qkv.weight' holds -0.25 at element 5"},
    {"NaN in optimizer.m, non-finite allowed", j_m_nan, NULL, NULL, OPT | SVK_LOAD_ALLOW_NONFINITE, BAD,
     "'optimizer.m.norm_f.out.bias' holds nan at element 1"},
    {"-Inf in a moment, non-finite allowed", j_minus_inf_moment, NULL, NULL, OPT | SVK_LOAD_ALLOW_NONFINITE, BAD,
     "'optimizer.v.wte.weight' holds -inf at element 7"},
    /* The call. */
    {"unknown flag", NULL, NULL, NULL, 1u << 7, SVK_ERROR_INVALID_ARG, "flags"},
};

static void write_file(const char *path, const bytes *b)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f)) {
        printf("cannot write %s\n", path);
        exit(1);
    }
}

static svk_model_config config_of(const char *edit)
{
    svk_model_config c = ckpt_tiny_config();
    if (edit) {
        char key[64];
        const char *eq = strchr(edit, '=');
        snprintf(key, sizeof(key), "%.*s", (int)(eq - edit), edit);
        if (svk_model_config_set(&c, key, eq + 1) != SVK_OK)
            printf("config %s: %s\n", edit, svk_last_error());
    }
    return c;
}

/* Loads path into a fresh model of config c; checks status and message, and
 * that a refusal left the model as it was. */
static void expect_refused(tu_tally *t, const char *what, const char *path, const svk_model_config *c, uint32_t flags,
                           svk_status expect, const char *needle)
{
    svk_model *m = ckpt_model(c, 2, 1);
    ckpt_state before = {0}, after = {0};
    bool ok = m && ckpt_state_get(m, &before);
    svk_status st = ok ? svk_model_load_ex(m, path, flags) : SVK_ERROR_INTERNAL;
    const char *msg = svk_last_error();
    bool named = strstr(msg, needle) && (expect == SVK_ERROR_INVALID_ARG || strstr(msg, path));
    ok = ok && st == expect && named && ckpt_state_get(m, &after) && ckpt_state_equal(&before, &after);
    tu_check(t, ok, "%s: %s, \"%s\"%s", what, svk_status_string(st), msg,
             ok || (st == expect && named) ? "" : (st != expect ? " (wrong status)" : " (message lacks the problem)"));
    ckpt_state_free(&before);
    ckpt_state_free(&after);
    svk_model_destroy(&m);
}

static void hostile_files(tu_tally *t, const char *dir, const tu_args *args)
{
    char path[512];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const hostile *c = &cases[i];
        if (args->filter && !strstr(c->what, args->filter))
            continue;
        cJSON *h = cJSON_Duplicate(base_header, true);
        bytes data = {NULL, 0}, file = {NULL, 0};
        bytes_set(&data, base_data.p, base_data.n);
        svk_model_config config = config_of(c->config);
        if (c->config) {
            const char *eq = strchr(c->config, '=');
            char key[64];
            snprintf(key, sizeof(key), "%.*s", (int)(eq - c->config), c->config);
            cJSON *v = cJSON_Parse(eq + 1);
            config_set(h, key, v ? v : cJSON_CreateString(eq + 1));
        }
        if (c->json)
            c->json(&h, &data);
        char *text = cJSON_PrintUnformatted(h);
        assemble(text, &data, &file);
        if (c->raw)
            c->raw(&file);
        snprintf(path, sizeof(path), "%s/case%02zu.safetensors", dir, i);
        write_file(path, &file);
        expect_refused(t, c->what, path, &config, c->flags, c->expect, c->needle);
        unlink(path);
        free(text);
        free(data.p);
        free(file.p);
        cJSON_Delete(h);
    }
    /* Not a file at all. */
    svk_model_config tiny = ckpt_tiny_config();
    expect_refused(t, "a directory", dir, &tiny, 0, SVK_ERROR_IO, "is not a regular file");
    snprintf(path, sizeof(path), "%s/absent.safetensors", dir);
    expect_refused(t, "a missing file", path, &tiny, 0, SVK_ERROR_IO, "cannot open");
}

/* Truncated at every byte: parsed and applied in memory (the file reader
 * adds nothing but the read), plus a few real files through
 * svk_model_load_ex. */
static void truncations(tu_tally *t, const bytes *good, const char *dir)
{
    svk_model_config c = ckpt_tiny_config();
    svk_model *m = ckpt_model(&c, 2, 1);
    ckpt_state before = {0}, after = {0};
    if (!m || !ckpt_state_get(m, &before)) {
        tu_check(t, false, "truncation: no model");
        return;
    }
    size_t refused = 0, worded = 0;
    const char *odd = NULL;
    char first_odd[256] = "";
    for (size_t n = 0; n < good->n; n++) {
        void *blob = malloc(n ? n : 1);
        memcpy(blob, good->p, n);
        svk_st_file f;
        svk_status st = svk_st_parse(NULL, "trunc", blob, n, &f);
        if (st == SVK_OK) {
            st = svk_checkpoint_apply(m, &f, "trunc", SVK_LOAD_OPTIMIZER);
            svk_st_free(&f);
        }
        if (st == SVK_ERROR_BAD_CHECKPOINT)
            refused++;
        if (strstr(svk_last_error(), "truncated"))
            worded++;
        else if (!odd)
            odd = strncpy(first_odd, svk_last_error(), sizeof(first_odd) - 1);
    }
    tu_check(t, refused == good->n && worded == good->n,
             "truncation at each of %zu bytes refused (%zu refused, %zu say \"truncated\"%s%s)", good->n, refused,
             worded, odd ? "; first that does not: " : "", odd ? odd : "");
    uint64_t h = header_length(good);
    const size_t cuts[] = {0, 7, 8, 9, 8 + h / 2, 8 + h - 1, 8 + h, 8 + h + 1, 8 + h + (good->n - 8 - h) / 2, good->n - 1};
    bool all = true;
    char path[512];
    snprintf(path, sizeof(path), "%s/truncated.safetensors", dir);
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        bytes cut = {good->p, cuts[i]};
        write_file(path, &cut);
        svk_status st = svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER);
        bool ok = st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "truncated") &&
                  strstr(svk_last_error(), path) && ckpt_state_get(m, &after) && ckpt_state_equal(&before, &after);
        ckpt_state_free(&after);
        if (!ok)
            printf("     cut at %zu: %s\n", cuts[i], svk_last_error());
        all = all && ok;
    }
    tu_check(t, all, "truncated files refused by svk_model_load_ex, the model unchanged");
    unlink(path);
    ckpt_state_free(&before);
    svk_model_destroy(&m);
}

/* What must load. */
static void controls(tu_tally *t, svk_model *a, const char *dir, const char *valid)
{
    svk_model_config c = ckpt_tiny_config();
    ckpt_state want = {0}, got = {0};
    ckpt_state_get(a, &want);
    svk_model *m = ckpt_model(&c, 2, 1);
    bool ok = m && svk_model_load_ex(m, valid, SVK_LOAD_OPTIMIZER) == SVK_OK && ckpt_state_get(m, &got) &&
              ckpt_state_equal(&want, &got);
    tu_check(t, ok, "the valid file loads with its optimiser state, bit for bit (%s)", ok ? "ok" : svk_last_error());
    ckpt_state_free(&got);

    /* The header's order is free: reversed, the file still loads. */
    cJSON *h = cJSON_Duplicate(base_header, true), *rev = cJSON_CreateObject();
    while (h->child) {
        cJSON *last = h->child;
        while (last->next)
            last = last->next;
        cJSON_AddItemToObject(rev, last->string, cJSON_DetachItemViaPointer(h, last));
    }
    char *text = cJSON_PrintUnformatted(rev);
    bytes file = {NULL, 0};
    assemble(text, &base_data, &file);
    char path[512];
    snprintf(path, sizeof(path), "%s/reversed.safetensors", dir);
    write_file(path, &file);
    svk_model_destroy(&m);
    m = ckpt_model(&c, 2, 1);
    ok = m && svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER) == SVK_OK && ckpt_state_get(m, &got) &&
         ckpt_state_equal(&want, &got);
    tu_check(t, ok, "header in reverse order of the data loads the same (%s)", ok ? "ok" : svk_last_error());
    ckpt_state_free(&got);
    free(text);

    /* A NaN weight is accepted when asked for, and arrives as NaN. */
    bytes data = {NULL, 0};
    bytes_set(&data, base_data.p, base_data.n);
    cJSON_Delete(h);
    h = cJSON_Duplicate(base_header, true);
    j_nan(&h, &data);
    text = cJSON_PrintUnformatted(h);
    assemble(text, &data, &file);
    write_file(path, &file);
    svk_status st = svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE);
    ok = st == SVK_OK && ckpt_state_get(m, &got);
    float w3 = 0;
    if (ok)
        memcpy(&w3, &got.bits[3], 4); /* wte.weight is the first parameter */
    tu_check(t, ok && isnan(w3), "with SVK_LOAD_ALLOW_NONFINITE a NaN weight loads as such (%s)",
             st == SVK_OK ? "ok" : svk_last_error());
    ckpt_state_free(&got);
    free(text);

    /* -0.0 in the second moment is zero (>= 0 holds) and harmless in the
     * update (sqrt(-0) + eps = eps): it loads, bit for bit. */
    bytes_set(&data, base_data.p, base_data.n);
    cJSON_Delete(h);
    h = cJSON_Duplicate(base_header, true);
    j_v_minus_zero(&h, &data);
    text = cJSON_PrintUnformatted(h);
    assemble(text, &data, &file);
    write_file(path, &file);
    st = svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER);
    ok = st == SVK_OK && ckpt_state_get(m, &got);
    uint32_t v4 = 0;
    if (ok)
        v4 = got.bits[2 * (got.n / 3) + 4]; /* optimizer.v.wte.weight[4] */
    tu_check(t, ok && v4 == 0x80000000u, "-0.0 in optimizer.v loads as -0.0 (%s, bits 0x%08x)",
             st == SVK_OK ? "ok" : svk_last_error(), v4);
    ckpt_state_free(&got);
    free(text);
    free(data.p);
    free(file.p);
    cJSON_Delete(h);
    cJSON_Delete(rev);
    unlink(path);
    ckpt_state_free(&want);
    svk_model_destroy(&m);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_checkpoint_hostile", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-hostile-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char valid[512];
    snprintf(valid, sizeof(valid), "%s/valid.safetensors", dir);
    svk_model_config c = ckpt_tiny_config();
    svk_model *a = ckpt_model(&c, 1, 3);
    bytes good = {NULL, 0};
    if (!a || svk_model_save(a, valid, true) != SVK_OK || !tu_read_file(valid, &good.p, &good.n)) {
        printf("cannot make the valid checkpoint: %s\n", svk_last_error());
        return 1;
    }
    uint64_t h = header_length(&good);
    base_header = cJSON_ParseWithLength((const char *)good.p + 8, h);
    bytes_set(&base_data, good.p + 8 + h, good.n - 8 - h);
    printf("valid checkpoint: %zu bytes, header %llu\n", good.n, (unsigned long long)h);

    hostile_files(&t, dir, &args);
    if (!args.filter || strstr("truncation", args.filter))
        truncations(&t, &good, dir);
    if (!args.filter || strstr("controls", args.filter))
        controls(&t, a, dir, valid);

    cJSON_Delete(base_header);
    free(base_data.p);
    free(good.p);
    svk_model_destroy(&a);
    unlink(valid);
    rmdir(dir);
    return tu_finish(&t);
}
