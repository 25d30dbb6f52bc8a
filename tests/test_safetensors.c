/*
 * The safetensors reader and writer: a round trip, then every kind of
 * malformed file refused with a message (never a crash): truncation at every
 * byte, absurd or oversized header lengths, invalid JSON, unknown dtypes,
 * shape overflow, offsets out of range, overlapping or leaving holes,
 * duplicate names, non-string metadata.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/safetensors.h"
#include "test_util.h"

/* A file image from a header text and n data bytes (value i & 0xff). */
static void *blob_of(const char *header, size_t data, size_t *size)
{
    size_t h = strlen(header);
    *size = 8 + h + data;
    uint8_t *b = malloc(*size);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)h >> (8 * i));
    memcpy(b + 8, header, h);
    for (size_t i = 0; i < data; i++)
        b[8 + h + i] = (uint8_t)i;
    return b;
}

static void expect_refused(tu_tally *t, const char *what, const char *header, size_t data, const char *needle)
{
    size_t size;
    void *b = blob_of(header, data, &size);
    svk_st_file f;
    svk_status st = svk_st_parse(NULL, "test", b, size, &f);
    bool ok = st == SVK_ERROR_BAD_CHECKPOINT && (!needle || strstr(svk_last_error(), needle));
    tu_check(t, ok, "%s refused: %s", what, svk_last_error());
    if (st == SVK_OK)
        svk_st_free(&f);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_safetensors", &args);
    tu_tally t = {0, 0};
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);

    /* Round trip. */
    char dir[] = "/tmp/svk-st-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256];
    snprintf(path, sizeof(path), "%s/a.safetensors", dir);
    float w[4 * 8], b[8];
    int32_t ids[3] = {7, -1, 255};
    /* Two-byte dtypes (read for GPT-2's files), an odd count of each so
     * that the next tensor starts 2 bytes past a 4-byte boundary. */
    uint16_t half[3] = {0x3c00, 0x8001, 0x7bff}, bf16[5] = {0x3f80, 0xc000, 0x0001, 0x7f7f, 0};
    cf_fill_uniform(&rng, w, 32, -1, 1);
    cf_fill_uniform(&rng, b, 8, -1, 1);
    enum { N_E = 5 };
    svk_st_entry e[N_E] = {
        {"blocks.0.w", SVK_ST_F32, 2, {4, 8}, w},
        {"blocks.0.b", SVK_ST_F32, 1, {8}, b},
        {"ids", SVK_ST_I32, 1, {3}, ids},
        {"half", SVK_ST_F16, 1, {3}, half},
        {"bf16", SVK_ST_BF16, 1, {5}, bf16},
    };
    svk_st_meta meta[2] = {{"svk.config", "{\"vocab\":256}"}, {"format", "pt"}};
    svk_status st = svk_st_write(NULL, path, e, N_E, meta, 2);
    tu_check(&t, st == SVK_OK, "write: %s", st ? svk_last_error() : "ok");
    svk_st_file f;
    st = svk_st_read(NULL, path, &f);
    bool same = st == SVK_OK && f.n_tensors == N_E;
    for (int i = 0; same && i < N_E; i++) {
        const svk_st_tensor *x = svk_st_find(&f, e[i].name);
        same = x && x->dtype == e[i].dtype && x->ndim == e[i].ndim && x->shape[0] == e[i].shape[0] &&
               x->bytes == x->elems * svk_st_dtype_size(e[i].dtype) && !memcmp(x->data, e[i].data, x->bytes);
    }
    same = same && svk_st_meta_get(&f, "svk.config") && !strcmp(svk_st_meta_get(&f, "svk.config"), "{\"vocab\":256}");
    tu_check(&t, same, "read back: names, dtypes, shapes, data and metadata identical");
    size_t good_size = f.blob_size;
    void *good = malloc(good_size);
    if (st == SVK_OK)
        memcpy(good, f.blob, good_size);
    svk_st_free(&f);
    /* The data starts 8-byte aligned (the writer pads the header). */
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--)
        hl = (hl << 8) | ((uint8_t *)good)[i];
    tu_check(&t, (8 + hl) % 8 == 0, "data offset %llu is 8-byte aligned", (unsigned long long)(8 + hl));

    /* Truncated at every byte. */
    int refused = 0;
    for (size_t n = 0; n < good_size; n++) {
        void *copy = malloc(n ? n : 1);
        memcpy(copy, good, n);
        if (svk_st_parse(NULL, "trunc", copy, n, &f) == SVK_ERROR_BAD_CHECKPOINT)
            refused++;
        else
            svk_st_free(&f);
    }
    tu_check(&t, refused == (int)good_size, "truncation at each of %zu bytes refused (%d refused)", good_size, refused);
    /* Every single-byte corruption of the header is refused or still a valid
     * file: never a crash (ASan builds catch overreads). */
    int parsed = 0;
    for (size_t i = 0; i < 8 + hl; i++) {
        void *copy = malloc(good_size);
        memcpy(copy, good, good_size);
        ((uint8_t *)copy)[i] ^= (uint8_t)(1u + (cf_rng_next(&rng) % 255));
        if (svk_st_parse(NULL, "flip", copy, good_size, &f) == SVK_OK) {
            parsed++;
            svk_st_free(&f);
        }
    }
    tu_check(&t, true, "%llu single-byte header corruptions survived (%d still parse)", (unsigned long long)(8 + hl), parsed);

    /* Crafted headers. */
    size_t size;
    void *big = blob_of("{}", 0, &size);
    ((uint8_t *)big)[5] = 1; /* header length 2^40 + 2 */
    st = svk_st_parse(NULL, "test", big, size, &f);
    tu_check(&t, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "absurd"), "absurd header length: %s",
             svk_last_error());
    void *longer = blob_of("{}", 0, &size);
    ((uint8_t *)longer)[0] = 200;
    st = svk_st_parse(NULL, "test", longer, size, &f);
    tu_check(&t, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "does not fit"),
             "header longer than the file: %s", svk_last_error());
    expect_refused(&t, "invalid JSON", "{\"a\":{\"dtype\":\"F32\",", 0, "JSON");
    expect_refused(&t, "header not an object", "[1,2,3]", 0, "not a JSON object");
    expect_refused(&t, "junk after JSON", "{} x", 0, "junk");
    expect_refused(&t, "unknown dtype", "{\"a\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]}}", 16,
                   "dtype F64 is not supported");
    expect_refused(&t, "F16 of F32's size", "{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
                   "dtype F16 and its shape need 4");
    expect_refused(&t, "shape product overflow",
                   "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,4]}}", 4,
                   "overflow");
    expect_refused(&t, "negative shape", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
                   "shape[0]");
    expect_refused(&t, "offsets past the data", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4,
                   "outside");
    expect_refused(&t, "offsets not matching the shape",
                   "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "need 12");
    expect_refused(&t, "reversed offsets", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,4]}}", 8,
                   "outside");
    expect_refused(&t, "overlapping tensors",
                   "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                   "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                   12, "overlaps");
    expect_refused(&t, "a hole in the data",
                   "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                   "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                   12, "belong to no tensor");
    expect_refused(&t, "trailing bytes", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8,
                   "belong to no tensor");
    expect_refused(&t, "duplicate names",
                   "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                   "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                   8, "twice");
    expect_refused(&t, "non-string metadata", "{\"__metadata__\":{\"svk.config\":{\"vocab\":2}}}", 0, "not a string");
    expect_refused(&t, "metadata not an object", "{\"__metadata__\":[1]}", 0, "not an object");
    expect_refused(&t, "missing fields", "{\"a\":{\"dtype\":\"F32\"}}", 0, "needs");
    expect_refused(&t, "fractional offsets", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4.5]}}", 4,
                   "data_offsets");
    expect_refused(&t, "empty file", "", 0, NULL);

    /* A failed save leaves the previous file as it was. */
    st = svk_st_write(NULL, "/nonexistent-dir/x.safetensors", e, 3, meta, 2);
    tu_check(&t, st == SVK_ERROR_IO, "save into a missing directory: %s", svk_last_error());
    svk_st_entry bad = {NULL, SVK_ST_F32, 1, {1}, w};
    st = svk_st_write(NULL, path, &bad, 1, NULL, 0);
    st = svk_st_read(NULL, path, &f);
    tu_check(&t, st == SVK_OK && f.n_tensors == N_E, "a refused save leaves the old file intact");
    svk_st_free(&f);
    st = svk_st_read(NULL, "/nonexistent.safetensors", &f);
    tu_check(&t, st == SVK_ERROR_IO && strstr(svk_last_error(), "nonexistent"), "missing file: %s", svk_last_error());

    free(good);
    unlink(path);
    rmdir(dir);
    return tu_finish(&t);
}
