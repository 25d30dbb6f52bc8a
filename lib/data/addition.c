#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "data.h"

static uint64_t pow10u(uint32_t d)
{
    uint64_t p = 1;
    while (d--)
        p *= 10;
    return p;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool is_heldout(const svk_addition *t, uint64_t key)
{
    return t->n_heldout && bsearch(&key, t->heldout, t->n_heldout, sizeof(key), cmp_u64) != NULL;
}

svk_status svk_addition_init(svk_log *log, svk_addition *t, uint32_t digits, size_t n_heldout, uint64_t seed)
{
    memset(t, 0, sizeof(*t));
    if (digits < 1 || digits > 9)
        return svk_error(log, SVK_ERROR_INVALID_ARG, "addition task: digits=%u must be in 1..9", digits);
    uint64_t space = pow10u(digits) * pow10u(digits);
    if (n_heldout > space / 2)
        return svk_error(log, SVK_ERROR_INVALID_ARG,
                         "addition task: %zu held-out problems is more than half of the %llu there are with %u digits",
                         n_heldout, (unsigned long long)space, digits);
    t->digits = digits;
    t->state = seed;
    t->heldout = svk_calloc(n_heldout ? n_heldout : 1, sizeof(*t->heldout));
    if (!t->heldout)
        return svk_error(log, SVK_ERROR_OUT_OF_HOST_MEMORY, "addition task: out of host memory");
    /* Distinct held-out problems from their own stream, so that changing the
     * training seed does not change the test set. */
    uint64_t hs = 0x5eed0fad0u + digits;
    while (t->n_heldout < n_heldout) {
        uint64_t key = svk_splitmix64(&hs) % space;
        if (!is_heldout(t, key)) {
            t->heldout[t->n_heldout++] = key;
            qsort(t->heldout, t->n_heldout, sizeof(*t->heldout), cmp_u64);
        }
    }
    return SVK_OK;
}

void svk_addition_free(svk_addition *t)
{
    free(t->heldout);
    memset(t, 0, sizeof(*t));
}

/* Writes "a+b=" and "c\n"; digits <= 9 keeps both within
 * svk_addition_max_len + 1 bytes. */
static void problem_text(uint64_t key, uint32_t digits, char *prompt, char *answer)
{
    uint64_t p = pow10u(digits), a = key / p, b = key % p;
    size_t n = svk_addition_max_len(digits) + 1;
    snprintf(prompt, n, "%llu+%llu=", (unsigned long long)a, (unsigned long long)b);
    snprintf(answer, n, "%llu\n", (unsigned long long)(a + b));
}

void svk_addition_heldout(const svk_addition *t, size_t i, char *prompt, char *answer)
{
    problem_text(t->heldout[i % (t->n_heldout ? t->n_heldout : 1)], t->digits, prompt, answer);
}

svk_status svk_addition_batch(svk_log *log, svk_addition *t, uint32_t B, uint32_t T, int32_t *tokens,
                              int32_t *targets)
{
    uint32_t need = svk_addition_max_len(t->digits) + 1;
    if (T < need)
        return svk_error(log, SVK_ERROR_INVALID_ARG,
                         "addition task: sequence length %u is too short for %u-digit problems (needs >= %u)", T,
                         t->digits, need);
    uint64_t space = pow10u(t->digits) * pow10u(t->digits);
    for (uint32_t r = 0; r < B; r++) {
        int32_t *tok = tokens + (size_t)r * T, *tgt = targets + (size_t)r * T;
        /* The row is a stream of T + 1 bytes s[0..T]: tokens are s[0..T),
         * targets s[1..T]; byte i is written by put(). Whole problems only,
         * then '\n' padding without loss. */
        uint32_t len = 0;
        char prompt[40], answer[40];
        for (;;) {
            uint64_t key;
            do
                key = svk_splitmix64(&t->state) % space;
            while (is_heldout(t, key));
            problem_text(key, t->digits, prompt, answer);
            uint32_t lp = (uint32_t)strlen(prompt), la = (uint32_t)strlen(answer);
            if (len + lp + la > T + 1)
                break;
            for (uint32_t i = 0; i < lp + la; i++) {
                uint32_t at = len + i;
                int32_t ch = (unsigned char)(i < lp ? prompt[i] : answer[i - lp]);
                if (at < T)
                    tok[at] = ch;
                if (at > 0)
                    tgt[at - 1] = i >= lp ? ch : -1;
            }
            len += lp + la;
        }
        for (uint32_t at = len; at <= T; at++) {
            if (at < T)
                tok[at] = '\n';
            if (at > 0)
                tgt[at - 1] = -1;
        }
    }
    return SVK_OK;
}
