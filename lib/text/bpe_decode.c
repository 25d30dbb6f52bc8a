/* Decoding: each token's bytes, found at open (bpe_load.c), one after
 * another. */
#include <string.h>

#include "bpe.h"
#include "core/error.h"

svk_status svk_tokenizer_decode(const svk_tokenizer *tok, const int32_t *tokens, size_t n, char *text,
                                size_t capacity, size_t *len)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, tok);
    SVK_CHECK_PTR(NULL, len);
    *len = 0;
    SVK_CHECK_ARG(NULL, tokens || n == 0);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const int32_t id = tokens[i];
        if (id < 0 || (uint32_t)id >= tok->n_tokens)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "svk_tokenizer_decode: token %d (tokens[%zu]) is not in the vocabulary of %u", id, i,
                             tok->n_tokens);
        const bpe_token *t = &tok->tokens[id];
        if (t->n_bytes == BPE_UNDECODABLE)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                             "svk_tokenizer_decode: token %d (tokens[%zu]), \"%.80s\", holds a character that stands "
                             "for no byte",
                             id, i, tok->texts + t->text);
        if (text && total + t->n_bytes <= capacity)
            memcpy(text + total, tok->bytes + t->bytes, t->n_bytes);
        total += t->n_bytes;
    }
    *len = total;
    if (text && total > capacity)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "svk_tokenizer_decode: the tokens decode to %zu bytes, more than capacity=%zu", total,
                         capacity);
    return SVK_OK;
}
