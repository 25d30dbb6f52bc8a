/* Windows over spans of tokens (token_stream.h), for text and shards. */
#include <inttypes.h>

#include "core/rng.h"
#include "token_stream.h"

/* Windows of T + 1 tokens in spans before span i: span j has tokens_j - T
 * of them, so the count is (first_i - first_0) - i * T, strictly
 * increasing in i once every span holds T + 1 tokens. */
static uint64_t windows_before(const svk_token_stream *s, uint32_t i, uint32_t T)
{
    return s->spans[i].first - s->spans[0].first - (uint64_t)i * T;
}

/* The last span whose key (windows before it, or its first) is <= x: a
 * binary search, the keys being increasing. */
static uint32_t find_span(const svk_token_stream *s, uint64_t x, uint32_t T, int by_windows)
{
    uint32_t lo = 0, hi = s->count - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        uint64_t key = by_windows ? windows_before(s, mid, T) : s->spans[mid].first;
        if (key <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static inline uint32_t token_at(const uint8_t *p, unsigned width)
{
    /* Byte by byte: the file's order whatever the host's. */
    switch (width) {
    case 1: return p[0];
    case 2: return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    default: return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

/* The window at token o of span sp into one row, checked as it is read. */
static svk_status read_window(const svk_token_stream *s, const svk_token_span *sp, uint64_t o, uint32_t T,
                              int32_t *tokens, int32_t *targets)
{
    const unsigned w = s->width;
    const uint8_t *p = sp->data + (size_t)o * w;
    for (uint32_t i = 0; i <= T; i++, p += w) {
        const uint32_t v = token_at(p, w);
        if (s->vocab && v >= s->vocab)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s: token %" PRIu32 " at token offset %" PRIu64 " (byte %" PRIu64
                             ") is not below the vocabulary of %" PRIu32,
                             sp->name, v, o + i, sp->file_offset + (o + i) * w, s->vocab);
        if (i < T)
            tokens[i] = (int32_t)v;
        if (i > 0)
            targets[i - 1] = (int32_t)v;
    }
    return SVK_OK;
}

svk_status svk_token_stream_batch(svk_token_stream *s, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (s->spans[i].tokens < (uint64_t)T + 1)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "%s holds %" PRIu64 " tokens, fewer than one window of T + 1 = %" PRIu64
                             " (every shard must hold one)",
                             s->spans[i].name, s->spans[i].tokens, (uint64_t)T + 1);
    const svk_token_span *last = &s->spans[s->count - 1];
    const uint64_t windows = windows_before(s, s->count - 1, T) + (last->tokens - T);
    uint64_t state = s->state;
    for (uint32_t r = 0; r < B; r++) {
        uint32_t i;
        uint64_t o; /* within span i */
        if (s->order == SVK_TEXT_RANDOM) {
            const uint64_t w = svk_splitmix64(&state) % windows;
            i = find_span(s, w, T, 1);
            o = w - windows_before(s, i, T);
        } else {
            uint64_t g = state;
            i = find_span(s, g, T, 0);
            if (g < s->spans[i].first) {
                g = s->spans[0].first; /* before the first span: i is 0 */
            } else if (g - s->spans[i].first >= s->spans[i].tokens - T) {
                i = i + 1 < s->count ? i + 1 : 0; /* no window fits here: the next span */
                g = s->spans[i].first;
            }
            o = g - s->spans[i].first;
            state = g + T;
        }
        svk_status st = read_window(s, &s->spans[i], o, T, tokens + (size_t)r * T, targets + (size_t)r * T);
        if (st != SVK_OK)
            return st;
    }
    s->state = state;
    return SVK_OK;
}
