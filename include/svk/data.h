/*
 * Training data: for byte-level models (a vocabulary of at least 256: a
 * token is a byte) the bytes of a text file and the built-in addition
 * task; for any vocabulary, pre-tokenized shard files (llm.c's .bin,
 * nanoGPT's raw uint16, uint32); and raw token files. The first three
 * give batches of tokens and
 * next-token targets, int32 [B, T] (a target of -1 carries no loss), to
 * hand to svk_model_train_step, from a generator whose position can be
 * read and set again: a run that saves the position beside its weights
 * (svk_save_params.metadata) goes on later with the very batches it would
 * have had. No device or context is involved; errors are reported through
 * svk_last_error().
 */
#ifndef SVK_DATA_H
#define SVK_DATA_H

#include <stdbool.h>
#include "common.h"

SVK_BEGIN_DECLS

/* ---- byte-level text ------------------------------------------------------ */

/* The bytes of a file, read whole at open, and where its batches stand.
 * Opaque. Thread-safety: one thread at a time; distinct objects are
 * independent. */
typedef struct svk_text_data svk_text_data;

/* Windows come from a range of the file's bytes, [begin, end)
 * (svk_text_data_params; the whole file by default); below, "the range". */
typedef enum svk_text_order {
    /* Each row of a batch is the window at an offset drawn uniformly from
     * the range's [begin, end - T) by a generator seeded with
     * svk_text_data_params.seed; windows may overlap and repeat. */
    SVK_TEXT_RANDOM = 0,
    /* Rows are consecutive windows T bytes apart (each row's last target
     * is the next row's first token), from offset begin: a pass over the
     * range in order, for evaluation. A window that would run past its end
     * starts the range again at begin, so the last (end - begin) mod T
     * bytes or so of a pass may be left out. */
    SVK_TEXT_SEQUENTIAL,
} svk_text_order;

typedef struct svk_text_data_params {
    svk_text_order order; /* default SVK_TEXT_RANDOM */
    uint64_t seed;        /* SVK_TEXT_RANDOM's generator; any value, default 1 */
    /* The range windows are taken from: bytes [begin, end) of the file, end
     * 0 meaning the file's end; default 0 and 0, the whole file (and then
     * the batches are those of a version without a range). Every window
     * (T + 1 bytes) lies wholly inside, so two ranges that do not overlap
     * never share a byte: a training range and a held-out one beside it
     * (svk_text_data_view reads the file once for both). begin <= end <=
     * the file's size, else svk_text_data_open refuses them. */
    uint64_t begin, end;
    uint64_t reserved[2]; /* must be zero */
} svk_text_data_params;

SVK_API svk_text_data_params svk_text_data_params_default(void);

/* Reads the regular file at path whole (any size that fits in memory,
 * empty included; its length decides which batches it can give). A FIFO,
 * directory, socket or device is refused at once (SVK_ERROR_IO, naming
 * what it is), never waited on. params NULL: the defaults. On failure
 * *out is NULL. */
SVK_API svk_status svk_text_data_open(const char *path, const svk_text_data_params *params, svk_text_data **out);

/* A second stream over the bytes data holds, with params of its own
 * (order, seed, range) and its own position, without reading the file
 * again: e.g. a held-out range beside the training one, from the same read
 * of the file. The view shares data's bytes, so data must outlive it (as a
 * context its models); each is destroyed with svk_text_data_destroy, and
 * the two may be used from two threads. params NULL: the defaults;
 * checked as svk_text_data_open checks them. On failure *out is NULL. */
SVK_API svk_status svk_text_data_view(const svk_text_data *data, const svk_text_data_params *params,
                                      svk_text_data **out);

/* Frees the data and sets *data to NULL. Accepts NULL and &NULL. */
SVK_API void svk_text_data_destroy(svk_text_data **data);

/* The file's length in bytes. */
SVK_API svk_status svk_text_data_size(const svk_text_data *data, uint64_t *bytes);

/* The next batch: for each row b, a window of T + 1 bytes at offset o,
 * tokens[b, t] = bytes[o + t] and targets[b, t] = bytes[o + t + 1], so
 * every position carries a loss. T >= 1 and the range must hold at least
 * T + 1 bytes (else SVK_ERROR_INVALID_ARG with both sizes); the position
 * advances only when the batch is given. */
SVK_API svk_status svk_text_data_batch(svk_text_data *data, uint32_t B, uint32_t T, int32_t *tokens,
                                       int32_t *targets);

/* Where the data stands, as one number to store and give back to
 * svk_text_data_seek: the generator's state (SVK_TEXT_RANDOM) or the next
 * window's offset (SVK_TEXT_SEQUENTIAL). The same file, params and
 * position give the same batches. */
SVK_API svk_status svk_text_data_position(const svk_text_data *data, uint64_t *position);

/* Goes to a position read by svk_text_data_position. Any value is a
 * generator state; an offset must lie within the range (below its end, or
 * begin itself), else SVK_ERROR_INVALID_ARG and the position is
 * unchanged. */
SVK_API svk_status svk_text_data_seek(svk_text_data *data, uint64_t position);

/* ---- the addition task ---------------------------------------------------- */

/* Problems "a+b=c\n" in decimal, with a and b drawn below 10^digits,
 * packed whole into each row of T tokens and padded with '\n'. The loss is
 * on the answer only: the digits of c and the newline that ends it (what
 * tells generation to stop). A fixed set of held-out problems, which
 * depends on digits alone, never appears in a training batch; a model's
 * exact-match accuracy is measured on them (svk_addition_heldout gives
 * their text). Opaque. Thread-safety: one thread at a time; distinct
 * objects are independent. */
typedef struct svk_addition svk_addition;

/* How the answer c is written. */
typedef enum svk_addition_answer {
    /* c as usual: "57+68=125\n". */
    SVK_ADDITION_ANSWER_PLAIN = 0,
    /* c's digits least significant first, the same digits in the opposite
     * order: "57+68=521\n". Each digit then follows the ones it carries
     * from, so a causal model can write it from what it has seen. */
    SVK_ADDITION_ANSWER_REVERSED = 1,
} svk_addition_answer;

/* How the operands a and b are written, always most significant digit
 * first. */
typedef enum svk_addition_operands {
    /* As usual, without leading zeros: "7+45=". */
    SVK_ADDITION_OPERANDS_PLAIN = 0,
    /* Each with `digits` digits, leading zeros included: "07+45=". Every
     * problem then has the same shape, each digit at the same place
     * relative to '+' and '=' as its counterpart in the other operand. */
    SVK_ADDITION_OPERANDS_PADDED = 1,
} svk_addition_operands;

typedef struct svk_addition_params {
    uint32_t digits;      /* operand digits, 1..9; default 2 */
    uint32_t heldout;     /* held-out problems, at most half of the 10^(2 digits) there are; default 500 */
    uint64_t seed;        /* the training problems' generator; any value, default 1 */
    /* The answer's digit order, in training batches and held-out answers
     * alike; default SVK_ADDITION_ANSWER_PLAIN. The problems drawn, the
     * held-out set and the generator's positions do not depend on it. */
    svk_addition_answer answer;
    /* How the operands are written, likewise; default
     * SVK_ADDITION_OPERANDS_PLAIN. The held-out set does not depend on
     * it, and the problems come in the same order, but a row holds fewer
     * of the longer padded ones, so the batches and the positions after
     * them differ. */
    svk_addition_operands operands;
    /* Must be zero. Later versions give them meaning with zero as today's
     * behaviour, so a struct from svk_addition_params_default() keeps this
     * format. */
    uint64_t reserved[3];
} svk_addition_params;

SVK_API svk_addition_params svk_addition_params_default(void);

/* The most bytes any prompt or answer text takes, NUL included, whatever
 * the params: a size for svk_addition_heldout's buffers. */
#define SVK_ADDITION_TEXT_MAX 32u

/* The longest problem's length in tokens for params (3 digits + 4 today:
 * two operands, '+', '=', a sum one digit longer, '\n'): a batch's T must
 * be greater. Checks params as svk_addition_create does. */
SVK_API svk_status svk_addition_max_len(const svk_addition_params *params, uint32_t *len);

/* Makes the task and draws its held-out set. params NULL: the defaults.
 * On failure *out is NULL. */
SVK_API svk_status svk_addition_create(const svk_addition_params *params, svk_addition **out);

/* Frees the task and sets *task to NULL. Accepts NULL and &NULL. */
SVK_API void svk_addition_destroy(svk_addition **task);

/* The next training batch, tokens and targets [B, T]: whole problems in
 * each row, then '\n' padding without loss. T must exceed the longest
 * problem (svk_addition_max_len), else SVK_ERROR_INVALID_ARG. */
SVK_API svk_status svk_addition_batch(svk_addition *task, uint32_t B, uint32_t T, int32_t *tokens,
                                      int32_t *targets);

/* The training problems' generator state, and going back to one: as
 * svk_text_data_position and _seek (any value is a state). */
SVK_API svk_status svk_addition_position(const svk_addition *task, uint64_t *position);
SVK_API svk_status svk_addition_seek(svk_addition *task, uint64_t position);

/* Held-out problem i, 0 <= i < params.heldout, in increasing order of (a,
 * b): its prompt "a+b=" and the answer a model should continue it with,
 * "c\n" in params.answer's digit order, as NUL-terminated text into
 * buffers of prompt_size and answer_size bytes (SVK_ADDITION_TEXT_MAX
 * always suffices). */
SVK_API svk_status svk_addition_heldout(const svk_addition *task, uint32_t i, char *prompt, size_t prompt_size,
                                        char *answer, size_t answer_size);

/* ---- pre-tokenized shards ------------------------------------------------- */

/* Token files as people make them for GPT-2-style training, memory-mapped
 * (mmap, MapViewOfFile): a file's pages are read as windows touch them,
 * and no file is ever read whole, so shards larger than memory train.
 * Several shards are given by one pattern and kept sorted by name
 * (strcmp's order, the same everywhere). Opaque. Thread-safety: one thread
 * at a time; distinct objects are independent. */
typedef struct svk_token_data svk_token_data;

/* What a shard file holds. Every value is little-endian, whatever the
 * host. */
typedef enum svk_token_format {
    /* llm.c's .bin: a header of 256 int32, header[0] the magic 20240520,
     * header[1] the version, 1 (uint16 tokens; other versions are
     * refused), header[2] the number of tokens, which must account for the
     * whole rest of the file; then that many uint16 tokens. */
    SVK_TOKENS_LLMC = 0,
    /* uint16 tokens and nothing else (nanoGPT's train.bin and val.bin):
     * the file's size must be a multiple of 2. */
    SVK_TOKENS_U16 = 1,
    /* uint32 tokens and nothing else: the size a multiple of 4. */
    SVK_TOKENS_U32 = 2,
} svk_token_format;

/* The tokens of all shards, in name order, numbered from 0 as though the
 * files were one: "offset" below. A window of T + 1 tokens never crosses
 * from one shard into the next. */
typedef struct svk_token_data_params {
    svk_token_format format; /* every shard's; default SVK_TOKENS_LLMC */
    /* The model's vocabulary: a token >= vocab in a window read is refused
     * (SVK_ERROR_INVALID_ARG naming the file and the token's offset in it).
     * 1..2^31 - 1; default 50257, GPT-2's, which llm.c's and nanoGPT's
     * scripts write. */
    uint32_t vocab;
    /* As for text: SVK_TEXT_RANDOM (default) draws each row's window from
     * all windows of all shards alike, so a shard is chosen with weight its
     * count of windows (tokens - T), then an offset in it uniformly, by a
     * generator seeded with seed; SVK_TEXT_SEQUENTIAL gives consecutive
     * windows T tokens apart from offset 0, going on to the next shard's
     * first token where a window would run past a shard's end (leaving its
     * last tokens out, as text does) and back to the first shard after the
     * last: a pass in order, for evaluation. */
    svk_text_order order;
    uint64_t seed;        /* SVK_TEXT_RANDOM's generator; any value, default 1 */
    uint64_t reserved[4]; /* must be zero */
} svk_token_data_params;

SVK_API svk_token_data_params svk_token_data_params_default(void);

/* Maps every regular file whose name matches pattern (POSIX glob(3), e.g.
 * "fineweb_train_*.bin", or one file's path; on Windows * and ? work in
 * the last component only) and checks each against the format by its size
 * and header alone: a bad llm.c magic or version, a header token count that
 * disagrees with the file's size, or a raw file whose size is not a
 * multiple of its token size is refused with SVK_ERROR_INVALID_ARG; a
 * pattern that matches no file, a file that cannot be opened, and a FIFO,
 * directory, socket or device (at once, never waited on) with
 * SVK_ERROR_IO; each message names the file. The tokens themselves are
 * checked against params.vocab as batches read them, not here: that would
 * read every file whole. With SVK_TEXT_RANDOM the system is told the files
 * are read at random places (POSIX_MADV_RANDOM), so each window reads its
 * own pages rather than read-ahead around them. The files must not change
 * while open (on POSIX, reading a page of a file truncated since raises
 * SIGBUS). params NULL: the defaults. On failure *out is NULL. */
SVK_API svk_status svk_token_data_open(const char *pattern, const svk_token_data_params *params,
                                       svk_token_data **out);

/* Unmaps the shards, frees the data and sets *data to NULL. Accepts NULL
 * and &NULL. */
SVK_API void svk_token_data_destroy(svk_token_data **data);

/* The tokens of all shards together, and the number of shards. */
SVK_API svk_status svk_token_data_tokens(const svk_token_data *data, uint64_t *tokens);
SVK_API svk_status svk_token_data_shards(const svk_token_data *data, uint32_t *count);

/* Shard i (0 <= i < the count, in name order): its path, valid until the
 * data is destroyed, and its number of tokens. Either output may be NULL. */
SVK_API svk_status svk_token_data_shard(const svk_token_data *data, uint32_t i, const char **path,
                                        uint64_t *tokens);

/* The next batch: for each row b, a window w of T + 1 tokens within one
 * shard, tokens[b, t] = w[t] and targets[b, t] = w[t + 1]. T >= 1, and
 * every shard must hold at least T + 1 tokens (else SVK_ERROR_INVALID_ARG
 * naming the shard, its tokens and T + 1). Each token is checked as it is
 * read: one >= vocab fails the batch naming the file and the token's
 * offset in it. On failure the position is unchanged, and tokens and
 * targets may hold part of a batch. */
SVK_API svk_status svk_token_data_batch(svk_token_data *data, uint32_t B, uint32_t T, int32_t *tokens,
                                        int32_t *targets);

/* Where the data stands, as text's (svk_text_data_position): the
 * generator's state (SVK_TEXT_RANDOM) or the next window's offset among
 * all shards' tokens (SVK_TEXT_SEQUENTIAL). The same files, params, T and
 * position give the same batches. */
SVK_API svk_status svk_token_data_position(const svk_token_data *data, uint64_t *position);

/* Goes to a position read by svk_token_data_position. Any value is a
 * generator state; an offset must be below the tokens' count (or 0), else
 * SVK_ERROR_INVALID_ARG and the position is unchanged. */
SVK_API svk_status svk_token_data_seek(svk_token_data *data, uint64_t position);

/* ---- raw token files ------------------------------------------------------ */

/* Reads a file of exactly count little-endian int32 values (a batch's
 * tokens or targets, B * T of them) into values. A file of another length
 * is refused with SVK_ERROR_INVALID_ARG naming both lengths, after reading
 * at most count * 4 bytes of it; a FIFO, directory, socket or device with
 * SVK_ERROR_IO, at once. The values are not checked against a vocabulary
 * (svk_model_train_step does that). */
SVK_API svk_status svk_token_file_read(const char *path, int32_t *values, uint64_t count);

SVK_END_DECLS

#endif
