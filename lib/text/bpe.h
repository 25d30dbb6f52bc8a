/*
 * The tokenizer's tables (svk/tokenizer.h), shared by its loader
 * (bpe_load.c), encoder (bpe_encode.c) and decoder (bpe_decode.c).
 * Tokens are ids throughout: a merge is a pair of ids with a rank and the
 * id of their concatenation, which the loader checks is in the vocabulary,
 * so encoding never compares strings.
 */
#ifndef SVK_TEXT_BPE_H
#define SVK_TEXT_BPE_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/tokenizer.h"

/* A token's text (vocab.json's key) and the bytes it decodes to. */
typedef struct bpe_token {
    uint32_t text;    /* offset in svk_tokenizer.texts of its NUL-terminated text */
    uint32_t bytes;   /* offset in svk_tokenizer.bytes */
    uint32_t n_bytes; /* BPE_UNDECODABLE: a character of the text stands for no byte */
} bpe_token;
#define BPE_UNDECODABLE UINT32_MAX

/* One slot of the merge table, open addressing on the pair. */
typedef struct bpe_merge {
    uint64_t pair;  /* left id << 32 | right id; BPE_FREE for an empty slot */
    uint32_t rank;  /* merges.txt's order: lower merges first */
    int32_t result; /* the id of left's text followed by right's */
} bpe_merge;
#define BPE_FREE UINT64_MAX

struct svk_tokenizer {
    uint32_t n_tokens;
    bpe_token *tokens; /* [n_tokens], by id */
    char *texts;       /* every token's text, NUL-terminated, one after another */
    uint8_t *bytes;    /* every decodable token's bytes, one after another */
    int32_t *by_text;  /* [text_mask + 1]: text hash slots, an id or -1 */
    uint32_t text_mask;
    bpe_merge *merges; /* [merge_mask + 1] */
    uint32_t merge_mask;
    int32_t byte_token[256]; /* the id of each byte's one-character token; -1: not in the vocabulary */
};

static inline uint64_t bpe_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The merge of left and right, or NULL when merges.txt has none. */
static inline const bpe_merge *bpe_find_merge(const svk_tokenizer *t, int32_t left, int32_t right)
{
    const uint64_t pair = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    for (uint64_t i = bpe_mix(pair);; i++) {
        const bpe_merge *m = &t->merges[i & t->merge_mask];
        if (m->pair == pair)
            return m;
        if (m->pair == BPE_FREE)
            return NULL;
    }
}

#endif
