/*
 * Training data: byte-level text (vocabulary 256, any file) and the built-in
 * addition task, each producing batches of tokens and next-token targets
 * [B, T] (int32; target -1 = no loss at that position).
 */
#ifndef SVK_DATA_DATA_H
#define SVK_DATA_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* The addition task: problems "a+b=c\n" with a, b < 10^digits, packed whole
 * into sequences of length T and padded with '\n'. The loss is on the answer
 * only: the digits of c and the newline that ends it (the newline is what
 * tells generation to stop). A fixed set of held-out problems never appears
 * in training batches; exact-match accuracy is measured on them. */
typedef struct svk_addition {
    uint32_t digits;        /* operand digits, 1..9 */
    uint64_t state;         /* generator of training problems */
    uint64_t *heldout;      /* sorted keys a * 10^digits + b */
    size_t n_heldout;
} svk_addition;

/* Longest problem text in bytes: 2 digits + '+' + '=' + (digits + 1) + '\n'. */
static inline uint32_t svk_addition_max_len(uint32_t digits)
{
    return 3 * digits + 4;
}

svk_status svk_addition_init(svk_log *log, svk_addition *task, uint32_t digits, size_t n_heldout, uint64_t seed);
void svk_addition_free(svk_addition *task);

/* A training batch: tokens, targets [B, T]. T must hold at least one problem
 * plus one token (svk_addition_max_len(digits) + 1). */
svk_status svk_addition_batch(svk_log *log, svk_addition *task, uint32_t B, uint32_t T, int32_t *tokens,
                              int32_t *targets);

/* Held-out problem i: its prompt "a+b=" and expected answer "c\n" as text
 * (NUL-terminated; buffers of svk_addition_max_len + 1 bytes). */
void svk_addition_heldout(const svk_addition *task, size_t i, char *prompt, char *answer);

/* Byte-level text: random windows of T + 1 bytes of a file. */
typedef struct svk_text {
    uint8_t *bytes;
    size_t size;
    uint64_t state;
} svk_text;

svk_status svk_text_open(svk_log *log, svk_text *text, const char *path, uint64_t seed);
void svk_text_free(svk_text *text);
/* tokens[b, t] = bytes[o + t], targets[b, t] = bytes[o + t + 1], o random
 * per row. The file must hold at least T + 1 bytes. */
svk_status svk_text_batch(svk_log *log, svk_text *text, uint32_t B, uint32_t T, int32_t *tokens,
                          int32_t *targets);

#endif
