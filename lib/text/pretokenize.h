/*
 * GPT-2's pre-tokenisation: text is cut into the pieces its pattern
 *     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * finds, one after another, and BPE then runs inside each piece alone.
 * The pattern is matched by hand over UTF-8 (pretokenize.c says how), so
 * the pieces cover the text exactly, invalid UTF-8 included.
 */
#ifndef SVK_TEXT_PRETOKENIZE_H
#define SVK_TEXT_PRETOKENIZE_H

#include <stddef.h>
#include <stdint.h>

/* The class of a code point, as the pattern sees it. */
typedef enum svk_cp_class {
    SVK_CP_OTHER = 0, /* [^\s\p{L}\p{N}] */
    SVK_CP_LETTER,    /* \p{L} */
    SVK_CP_NUMBER,    /* \p{N} */
    SVK_CP_SPACE,     /* \s: Unicode's White_Space */
} svk_cp_class;

svk_cp_class svk_cp_classify(uint32_t cp);

/* The length in bytes of the piece that starts at text[pos] (pos < len),
 * at least 1. */
size_t svk_pretokenize_next(const uint8_t *text, size_t len, size_t pos);

#endif
