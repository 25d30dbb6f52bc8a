/*
 * GPT-2's tokenizer: byte-level BPE from the two files GPT-2 ships with,
 * vocab.json (each token's text and id) and merges.txt (the merges, in
 * order of rank). Text encodes as GPT-2's encoder encodes it: cut into
 * pieces by GPT-2's pre-tokenisation pattern (contractions, words with
 * their leading space, numbers, punctuation runs, whitespace), each
 * piece's bytes written as GPT-2's printable characters for them, then
 * merged pair by pair, the lowest rank first, within the piece. Any bytes
 * encode, UTF-8 or not, and decode back to themselves.
 * "<|endoftext|>" in the text is plain text, as in GPT-2's encoder: the
 * special token's id comes from svk_tokenizer_token_id.
 *
 * No device or context is involved; errors are reported through
 * svk_last_error().
 */
#ifndef SVK_TOKENIZER_H
#define SVK_TOKENIZER_H

#include "common.h"

SVK_BEGIN_DECLS

/* A vocabulary and its merges, read whole at open. Opaque.
 * Thread-safety: immutable once open; any number of threads may encode and
 * decode with one tokenizer at once. */
typedef struct svk_tokenizer svk_tokenizer;

/* Reads a vocabulary and its merges:
 *   vocab.json  one JSON object, each token's text (GPT-2's characters:
 *               "Ġthe" for " the") to its id; the ids must number the
 *               tokens 0..n-1, each once;
 *   merges.txt  one merge a line, "left right" (one space), the first line
 *               the lowest rank; a first line beginning "#version" is
 *               skipped, as are empty lines. Both tokens and their
 *               concatenation must be in the vocabulary. A merge given
 *               twice takes its later rank, as GPT-2's dict does.
 * A file that cannot be read is SVK_ERROR_IO; one that breaks these rules
 * SVK_ERROR_INVALID_ARG, naming the file and the line, byte or token. On
 * failure *out is NULL. */
SVK_API svk_status svk_tokenizer_open(const char *vocab_path, const char *merges_path, svk_tokenizer **out);

/* svk_tokenizer_open of dir/vocab.json and dir/merges.txt. */
SVK_API svk_status svk_tokenizer_open_dir(const char *dir, svk_tokenizer **out);

/* Frees the tokenizer and sets *tok to NULL. Accepts NULL and &NULL. */
SVK_API void svk_tokenizer_destroy(svk_tokenizer **tok);

/* The number of tokens in the vocabulary (GPT-2's: 50257); ids are
 * 0..size-1. A model needs a vocabulary at least this large. */
SVK_API svk_status svk_tokenizer_vocab_size(const svk_tokenizer *tok, uint32_t *size);

/* The id of the token whose vocab.json text is token, e.g.
 * "<|endoftext|>" (GPT-2's: 50256). One not in the vocabulary is
 * SVK_ERROR_INVALID_ARG naming it. */
SVK_API svk_status svk_tokenizer_token_id(const svk_tokenizer *tok, const char *token, int32_t *id);

/* Encodes len bytes of text (any bytes; text may be NULL when len is 0).
 * *n_tokens receives the number of tokens; they are written to tokens when
 * it is not NULL, which must then hold capacity >= *n_tokens of them, else
 * SVK_ERROR_INVALID_ARG naming both (*n_tokens is still set). A text never
 * has more tokens than bytes: capacity len always suffices, and tokens
 * NULL only counts. A byte whose one-character token is missing from the
 * vocabulary (merges.txt's are checked at open) is SVK_ERROR_INVALID_ARG
 * naming the token and the byte's offset in the text. */
SVK_API svk_status svk_tokenizer_encode(const svk_tokenizer *tok, const char *text, size_t len, int32_t *tokens,
                                        size_t capacity, size_t *n_tokens);

/* Decodes n tokens to the bytes they stand for (not NUL-terminated: text
 * may hold any bytes). *len receives their number; they are written to
 * text when it is not NULL, which must then hold capacity >= *len bytes,
 * else SVK_ERROR_INVALID_ARG naming both (*len is still set). A token
 * outside 0..size-1, or whose vocab.json text holds a character that
 * stands for no byte, is SVK_ERROR_INVALID_ARG naming it and its index. */
SVK_API svk_status svk_tokenizer_decode(const svk_tokenizer *tok, const int32_t *tokens, size_t n, char *text,
                                        size_t capacity, size_t *len);

SVK_END_DECLS

#endif
