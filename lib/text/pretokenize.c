/*
 * GPT-2's pattern matched by hand. Its alternatives are tried in order at
 * each position and the first that matches wins (not the longest), so:
 *   1. an apostrophe followed by s, t, re, ve, m, ll or d (ASCII, case
 *      sensitive, no word boundary: "'sx" gives "'s" then "x");
 *   2-4. an optional U+0020 space, then a run of letters, of numbers, or of
 *      what is neither those nor whitespace; the space belongs to the run
 *      only if the run's first code point follows it;
 *   5. a run of whitespace that reaches the end of the text, or else all of
 *      it but its last code point (\s+(?!\S) backs off one, leaving the last
 *      space to the word after it: "a   b" gives "a", "  ", " b");
 *   6. a single whitespace code point, where 5 could back off no further.
 * Classes follow the `regex` module GPT-2 used: \s is Unicode's White_Space
 * property, \p{L} and \p{N} the general categories (unicode_classes.c).
 *
 * Text is UTF-8; Python's str, which GPT-2 works on, cannot hold bytes that
 * are not, but shards are made from files that may. Each byte of an
 * ill-formed sequence (per the Unicode standard's table of well-formed
 * sequences: no overlong forms, no surrogates, nothing past U+10FFFF) is
 * taken as one code point of class other, as U+FFFD would be, so it joins
 * rule 4's runs and the pieces still cover every byte.
 */
#include "pretokenize.h"
#include "unicode_classes.h"

#define CP_INVALID 0xFFFFFFFFu

static int in_ranges(const svk_cp_range *r, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

svk_cp_class svk_cp_classify(uint32_t cp)
{
    if (cp == CP_INVALID)
        return SVK_CP_OTHER;
    if (cp < 0x80) { /* the common case, without a search */
        if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D))
            return SVK_CP_SPACE;
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z')
            return SVK_CP_LETTER;
        return cp >= '0' && cp <= '9' ? SVK_CP_NUMBER : SVK_CP_OTHER;
    }
    /* White_Space beyond ASCII. */
    if (cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
        cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000)
        return SVK_CP_SPACE;
    if (in_ranges(svk_unicode_letters, svk_unicode_letters_count, cp))
        return SVK_CP_LETTER;
    if (in_ranges(svk_unicode_numbers, svk_unicode_numbers_count, cp))
        return SVK_CP_NUMBER;
    return SVK_CP_OTHER;
}

/* The code point at text[pos] into *cp (CP_INVALID for a byte that starts
 * no well-formed sequence); returns its length in bytes. */
static size_t decode(const uint8_t *t, size_t len, size_t pos, uint32_t *cp)
{
    const uint8_t b = t[pos];
    *cp = CP_INVALID;
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t n;
    uint32_t v;
    uint8_t lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2, v = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3, v = b & 0x0F;
        if (b == 0xE0)
            lo = 0xA0; /* overlong below */
        else if (b == 0xED)
            hi = 0x9F; /* surrogates above */
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4, v = b & 0x07;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F; /* past U+10FFFF above */
    } else {
        return 1;
    }
    if (len - pos < n || t[pos + 1] < lo || t[pos + 1] > hi)
        return 1;
    for (size_t i = 1; i < n; i++) {
        if ((t[pos + i] & 0xC0) != 0x80)
            return 1;
        v = (v << 6) | (t[pos + i] & 0x3F);
    }
    *cp = v;
    return n;
}

static svk_cp_class class_at(const uint8_t *t, size_t len, size_t pos, size_t *n)
{
    uint32_t cp;
    *n = decode(t, len, pos, &cp);
    return svk_cp_classify(cp);
}

/* The end of the run of class c that starts at pos. */
static size_t run_end(const uint8_t *t, size_t len, size_t pos, svk_cp_class c)
{
    size_t n;
    while (pos < len && class_at(t, len, pos, &n) == c)
        pos += n;
    return pos;
}

size_t svk_pretokenize_next(const uint8_t *t, size_t len, size_t pos)
{
    /* 1: contractions. */
    if (t[pos] == '\'' && pos + 1 < len) {
        const uint8_t a = t[pos + 1], b = pos + 2 < len ? t[pos + 2] : 0;
        if (a == 's' || a == 't' || a == 'm' || a == 'd')
            return 2;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
            return 3;
    }
    /* 2-4: the optional space, then a run of the next code point's class. */
    size_t n, start = pos;
    if (t[pos] == ' ' && pos + 1 < len && class_at(t, len, pos + 1, &n) != SVK_CP_SPACE)
        start = pos + 1;
    const svk_cp_class c = class_at(t, len, start, &n);
    if (c != SVK_CP_SPACE)
        return run_end(t, len, start + n, c) - pos;
    /* 5 and 6: whitespace. */
    size_t end = pos, last = pos;
    while (end < len && class_at(t, len, end, &n) == SVK_CP_SPACE) {
        last = end;
        end += n;
    }
    if (end == len || last == pos)
        return end - pos;
    return last - pos;
}
