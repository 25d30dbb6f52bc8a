/*
 * Encoding: each piece of GPT-2's pre-tokenisation (pretokenize.c) starts
 * as its bytes' one-character tokens and is merged as GPT-2's encoder
 * merges a word: find the adjacent pair of lowest rank, merge every
 * occurrence of it from left to right (an occurrence that overlaps one
 * just merged, as in "aaa", is not merged), and again until no pair has a
 * merge.
 *
 * GPT-2 rescans the whole word for each rank it applies, quadratic in a
 * piece's length, and a piece can be a file's whole run of letters or
 * spaces. Here the pairs wait in a heap ordered by (rank, position), which
 * gives the same merges in O(n log n): one pass pops every pair of the
 * lowest rank, left to right, skipping those a merge before it changed, and
 * the pairs its merges create go into the heap only after the pass, as
 * GPT-2 considers them only on its next scan (one of lower rank could
 * otherwise take a token that the pass would have merged).
 */
#include <stdlib.h>
#include <string.h>

#include "bpe.h"
#include "byte_map.h"
#include "core/alloc.h"
#include "core/error.h"
#include "pretokenize.h"

/* A pair waiting to merge: the left token's node and the pair's rank. */
typedef struct pair_entry {
    uint32_t rank, left;
} pair_entry;

/* A piece's tokens as a linked list over its bytes' positions, and the
 * heap; grown to the longest piece of the text. */
typedef struct work {
    size_t cap;
    int32_t *id;         /* [cap]: the token at each node; -1 once merged into the node before it */
    int32_t *next;       /* [cap]: the next live node; -1 at the end */
    int32_t *prev;       /* [cap] */
    pair_entry *heap;    /* [3 cap]: n - 1 first pairs, then two for each of at most n - 1 merges */
    uint32_t *pending;   /* [2 cap]: left nodes of the pairs a pass has made */
    size_t n_heap;
} work;

static bool before(pair_entry a, pair_entry b)
{
    return a.rank < b.rank || (a.rank == b.rank && a.left < b.left);
}

static void heap_push(work *w, pair_entry e)
{
    size_t i = w->n_heap++;
    while (i > 0 && before(e, w->heap[(i - 1) / 2])) {
        w->heap[i] = w->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->heap[i] = e;
}

static pair_entry heap_pop(work *w)
{
    const pair_entry top = w->heap[0], last = w->heap[--w->n_heap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->n_heap)
            break;
        if (c + 1 < w->n_heap && before(w->heap[c + 1], w->heap[c]))
            c++;
        if (!before(w->heap[c], last))
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->n_heap)
        w->heap[i] = last;
    return top;
}

/* Queues the pair whose left token is node i, if it has a merge. */
static void push_pair(const svk_tokenizer *t, work *w, int32_t i)
{
    if (i < 0 || w->id[i] < 0 || w->next[i] < 0)
        return;
    const bpe_merge *m = bpe_find_merge(t, w->id[i], w->id[w->next[i]]);
    if (m)
        heap_push(w, (pair_entry){.rank = m->rank, .left = (uint32_t)i});
}

static bool work_reserve(work *w, size_t n)
{
    if (n <= w->cap)
        return true;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < n)
        cap *= 2;
    free(w->id);
    free(w->next);
    free(w->prev);
    free(w->heap);
    free(w->pending);
    w->id = svk_malloc(cap * sizeof(*w->id));
    w->next = svk_malloc(cap * sizeof(*w->next));
    w->prev = svk_malloc(cap * sizeof(*w->prev));
    w->heap = svk_malloc(3 * cap * sizeof(*w->heap));
    w->pending = svk_malloc(2 * cap * sizeof(*w->pending));
    w->cap = w->id && w->next && w->prev && w->heap && w->pending ? cap : 0;
    return w->cap != 0;
}

/* Merges the n tokens in w->id (n >= 2, at most 2^31 - 1). */
static void merge_piece(const svk_tokenizer *t, work *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        w->next[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
        w->prev[i] = (int32_t)i - 1;
    }
    w->n_heap = 0;
    for (size_t i = 0; i + 1 < n; i++)
        push_pair(t, w, (int32_t)i);
    while (w->n_heap) {
        const uint32_t rank = w->heap[0].rank;
        size_t n_pending = 0;
        while (w->n_heap && w->heap[0].rank == rank) {
            const int32_t i = (int32_t)heap_pop(w).left, j = w->id[i] >= 0 ? w->next[i] : -1;
            if (j < 0)
                continue;
            /* Ranks are unique to a pair: the one at i now is the popped
             * one if and only if it has this rank. */
            const bpe_merge *m = bpe_find_merge(t, w->id[i], w->id[j]);
            if (!m || m->rank != rank)
                continue;
            w->id[i] = m->result;
            w->id[j] = -1;
            w->next[i] = w->next[j];
            if (w->next[j] >= 0)
                w->prev[w->next[j]] = i;
            if (w->prev[i] >= 0)
                w->pending[n_pending++] = (uint32_t)w->prev[i];
            w->pending[n_pending++] = (uint32_t)i;
        }
        for (size_t k = 0; k < n_pending; k++)
            push_pair(t, w, (int32_t)w->pending[k]);
    }
}

static svk_status missing_byte(const uint8_t *text, size_t at)
{
    char c[3] = {0};
    svk_byte_char_utf8(text[at], c);
    return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                     "svk_tokenizer_encode: byte 0x%02x (at byte %zu of the text) has no token: \"%s\" is not in the "
                     "vocabulary",
                     text[at], at, c);
}

svk_status svk_tokenizer_encode(const svk_tokenizer *tok, const char *text, size_t len, int32_t *tokens,
                                size_t capacity, size_t *n_tokens)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, tok);
    SVK_CHECK_PTR(NULL, n_tokens);
    *n_tokens = 0;
    SVK_CHECK_ARG(NULL, text || len == 0);
    const uint8_t *s = (const uint8_t *)text;
    work w = {0};
    svk_status st = SVK_OK;
    size_t count = 0;
    for (size_t pos = 0; pos < len && st == SVK_OK;) {
        const size_t n = svk_pretokenize_next(s, len, pos);
        if (n > INT32_MAX) {
            st = svk_error(NULL, SVK_ERROR_TOO_LARGE,
                           "svk_tokenizer_encode: a piece of %zu bytes (at byte %zu) is over 2^31 - 1", n, pos);
            break;
        }
        if (!work_reserve(&w, n)) {
            st = svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY,
                           "svk_tokenizer_encode: out of host memory for a piece of %zu bytes", n);
            break;
        }
        for (size_t i = 0; i < n && st == SVK_OK; i++)
            if ((w.id[i] = tok->byte_token[s[pos + i]]) < 0)
                st = missing_byte(s, pos + i);
        if (st != SVK_OK)
            break;
        if (n > 1)
            merge_piece(tok, &w, n);
        else
            w.next[0] = -1;
        for (int32_t i = 0; i >= 0; i = w.next[i]) {
            if (tokens && count < capacity)
                tokens[count] = w.id[i];
            count++;
        }
        pos += n;
    }
    free(w.id);
    free(w.next);
    free(w.prev);
    free(w.heap);
    free(w.pending);
    if (st != SVK_OK)
        return st;
    *n_tokens = count;
    if (tokens && count > capacity)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "svk_tokenizer_encode: the text has %zu tokens, more than capacity=%zu", count, capacity);
    return SVK_OK;
}
