/*
 * Windows of T + 1 tokens from spans of little-endian tokens, at random or
 * in order, with a position that is one number: what svk_text_data (one
 * span: the bytes of its range) and svk_token_data (one span per shard)
 * share. Each caller keeps its own files, checks and messages about them;
 * this draws the windows, decodes them and checks them against the
 * vocabulary. Internal to lib/data.
 */
#ifndef SVK_DATA_TOKEN_STREAM_H
#define SVK_DATA_TOKEN_STREAM_H

#include <stdint.h>

#include "core/error.h"
#include "svk/data.h"

/* A run of tokens in memory (a mapping, or a file read whole). */
typedef struct svk_token_span {
    const uint8_t *data;  /* the first token */
    uint64_t tokens;      /* how many */
    /* Its first token's number in the positions the caller gives out: each
     * span's first is the previous span's first plus its tokens (the spans
     * are contiguous in that numbering; the first may start anywhere). */
    uint64_t first;
    const char *name;     /* the file, for messages */
    uint64_t file_offset; /* data's offset in that file in bytes, for messages */
} svk_token_span;

typedef struct svk_token_stream {
    const svk_token_span *spans;
    uint32_t count;        /* >= 1 */
    unsigned width;        /* bytes a token: 1, 2 or 4 */
    uint32_t vocab;        /* a token >= vocab is refused; 0: no check (bytes need none) */
    svk_text_order order;
    /* SVK_TEXT_RANDOM: the generator's state. SVK_TEXT_SEQUENTIAL: the next
     * window's first token, numbered as the spans' first; a number where
     * no window fits moves on to the next span's first (after the last,
     * the first span's). */
    uint64_t state;
} svk_token_stream;

/* The next B windows into tokens and targets [B, T] (T >= 1: the caller
 * checks it, and any other refusal about its own data, first). A span
 * shorter than T + 1 tokens, or a token >= vocab, fails the batch with
 * SVK_ERROR_INVALID_ARG naming the span's file (and the token's offset);
 * s->state is then unchanged.
 *
 * Random: one draw a row, uniform over every window of every span, so a
 * span's weight is its count of windows (tokens - T). With one span the
 * draw is begin + splitmix64 % (tokens - T), the byte-level text's stream
 * of before this file (tests/test_data.c pins it). */
svk_status svk_token_stream_batch(svk_token_stream *s, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets);

#endif
