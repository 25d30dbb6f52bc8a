/*
 * safetensors files (the format PyTorch and Hugging Face tools read):
 *   u64 little-endian header length N, N bytes of JSON header, then the data.
 * The header maps each tensor name to {"dtype", "shape", "data_offsets":
 * [begin, end]} (offsets relative to the data) and may hold "__metadata__",
 * a map of strings to strings.
 *
 * The reader trusts nothing in the file: every length, offset, shape and
 * name is checked before anything is used, and a refusal names the problem
 * (and the tensor). Files are read and written through io/io_file.h: only a
 * regular file is read, and the writer is atomic (temporary file next to
 * the target, fsync, rename over it, fsync of the directory, so a crash at
 * any point leaves either the old file or the new one), follows symlinks,
 * refuses what is not a regular file or has other hard links, and keeps the
 * replaced file's mode and owner.
 */
#ifndef SVK_IO_SAFETENSORS_H
#define SVK_IO_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "io_file.h"

#define SVK_ST_MAX_DIMS 8
#define SVK_ST_MAX_NAME 256
/* Headers beyond this are refused as absurd (the format's own limit is 100 MB). */
#define SVK_ST_MAX_HEADER (100u << 20)
/* So are headers of more JSON values than this (about 190,000 tensors):
 * it bounds the memory the JSON parser may take to about 128 MiB. */
#define SVK_ST_MAX_VALUES (1u << 21)

/* The dtypes read and written. Checkpoints are F32 (with I32 for test
 * dumps); F16 and BF16 are read for the files other tools publish
 * (model/gpt2_convert.c converts them to float32). */
typedef enum svk_st_dtype {
    SVK_ST_F32 = 0,
    SVK_ST_I32,
    SVK_ST_F16,
    SVK_ST_BF16,
    SVK_ST_DTYPE_COUNT
} svk_st_dtype;

/* The format's name of a dtype ("F32", "BF16", ...) and its bytes an
 * element; "?" and 0 for a value that is not one. */
const char *svk_st_dtype_name(svk_st_dtype d);
uint32_t svk_st_dtype_size(svk_st_dtype d);

typedef struct svk_st_tensor {
    char name[SVK_ST_MAX_NAME];
    svk_st_dtype dtype;
    uint32_t ndim;
    uint64_t shape[SVK_ST_MAX_DIMS];
    uint64_t elems;              /* product of shape (1 for a scalar) */
    uint64_t begin;              /* the first byte's offset in the file's data */
    const void *data;            /* into the file's data; little-endian (NULL: read without data) */
    uint64_t bytes;
} svk_st_tensor;

typedef struct svk_st_meta {
    char *key, *value;
} svk_st_meta;

/* A file read into memory. */
typedef struct svk_st_file {
    svk_st_tensor *tensors;      /* in file order of data_offsets */
    size_t n_tensors;
    const svk_st_tensor **by_name; /* [n_tensors] into tensors, sorted by name: svk_st_find's index */
    svk_st_meta *meta;           /* sorted by key */
    size_t n_meta;
    void *blob;                  /* the whole file */
    size_t blob_size;
} svk_st_file;

/* Reads and validates path. On error *out is empty and the message says
 * what is wrong, e.g. "ckpt.safetensors: tensor 'wte.weight': data_offsets
 * [0, 96) do not match dtype F32 and shape [4, 8] (128 bytes)". */
svk_status svk_st_read(svk_log *log, const char *path, svk_st_file *out);
/* The same checks, reading only the header: the names, shapes, layout and
 * metadata of the tensors (checked against the file's size), but no data
 * (every tensor's data is NULL). What a caller wanting a configuration or
 * metadata reads, rather than gigabytes of weights. */
svk_status svk_st_read_header(svk_log *log, const char *path, svk_st_file *out);
/* The same checks on a file already in memory (for the fuzzer); takes
 * ownership of blob (malloc'd) on success and on failure. */
svk_status svk_st_parse(svk_log *log, const char *what, void *blob, size_t size, svk_st_file *out);
/* The same on the first `size` bytes of a file of file_size bytes, at
 * least its header (what svk_st_read_header reads): every check but the
 * data's presence, the tensors' data NULL when size < file_size. Takes
 * ownership of blob like svk_st_parse. The fuzzer holds it to agreeing
 * with svk_st_parse on the whole file. */
svk_status svk_st_parse_head(svk_log *log, const char *what, void *blob, size_t size, uint64_t file_size,
                             svk_st_file *out);
void svk_st_free(svk_st_file *f);

/* Binary searches, O(log n): a loader looks up every tensor it expects,
 * and a hostile file may hold a million. NULL when absent. */
const svk_st_tensor *svk_st_find(const svk_st_file *f, const char *name);
const char *svk_st_meta_get(const svk_st_file *f, const char *key);

/* One tensor to write. */
typedef struct svk_st_entry {
    const char *name;
    svk_st_dtype dtype;
    uint32_t ndim;
    uint64_t shape[SVK_ST_MAX_DIMS];
    const void *data;            /* elems * svk_st_dtype_size(dtype) bytes, little-endian */
} svk_st_entry;

/* The temporary a save writes first is "<path>.tmp.<pid>.<n>", next to
 * path (next to the file path points to, when path is a symlink). A process
 * killed mid-save leaves its temporary behind: nothing reads it and no later
 * save reuses it; deleting it is always safe. */
#define SVK_ST_TMP_INFIX SVK_FILE_TMP_INFIX

/* Writes the tensors (in the given order) and metadata atomically. */
svk_status svk_st_write(svk_log *log, const char *path, const svk_st_entry *tensors, size_t n,
                        const svk_st_meta *meta, size_t n_meta);

#endif
