/* The addition task (svk/data.h): problems "a+b=c\n" (c plain or
 * reversed), a held-out set that training never sees, and batches with the
 * loss on the answers only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/rng.h"
#include "svk/data.h"

struct svk_addition {
    svk_addition_params params;
    uint64_t state;      /* generator of training problems */
    uint64_t *heldout;   /* sorted keys a * 10^digits + b */
    size_t n_heldout;
};

/* Longest problem text in bytes: 2 digits + '+' + '=' + (digits + 1) + '\n'. */
static uint32_t max_len(uint32_t digits)
{
    return 3 * digits + 4;
}

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

svk_addition_params svk_addition_params_default(void)
{
    return (svk_addition_params){.digits = 2, .heldout = 500, .seed = 1};
}

/* The values of params (the callers check its reserved fields, so that the
 * message names them as the caller's). */
static svk_status check_params(const svk_addition_params *p)
{
    if (p->answer != SVK_ADDITION_ANSWER_PLAIN && p->answer != SVK_ADDITION_ANSWER_REVERSED)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "addition task: answer=%u is not SVK_ADDITION_ANSWER_PLAIN (0) or _REVERSED (1)",
                         (unsigned)p->answer);
    if (p->operands != SVK_ADDITION_OPERANDS_PLAIN && p->operands != SVK_ADDITION_OPERANDS_PADDED)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "addition task: operands=%u is not SVK_ADDITION_OPERANDS_PLAIN (0) or _PADDED (1)",
                         (unsigned)p->operands);
    if (p->digits < 1 || p->digits > 9)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "addition task: digits=%u must be in 1..9", p->digits);
    const uint64_t space = pow10u(p->digits) * pow10u(p->digits);
    if (p->heldout > space / 2)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "addition task: %u held-out problems is more than half of the %llu there are with %u digits",
                         p->heldout, (unsigned long long)space, p->digits);
    return SVK_OK;
}

svk_status svk_addition_max_len(const svk_addition_params *params, uint32_t *len)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_PTR(NULL, len);
    SVK_CHECK_RESERVED(NULL, params->reserved);
    svk_status st = check_params(params);
    if (st == SVK_OK)
        *len = max_len(params->digits);
    return st;
}

/* The held-out keys: the first n distinct ones of their own stream, so that
 * the training seed does not change the test set (and a smaller set is a
 * subset of a larger one), sorted for bsearch. Distinctness is tracked in
 * an open-addressing set of 2n..4n slots (keys stored + 1, 0 = empty), so
 * drawing n keys costs O(n), not a sort per key. */
static svk_status draw_heldout(svk_addition *t, uint64_t space)
{
    const size_t n = t->params.heldout;
    size_t cap = 1;
    while (cap < 2 * n)
        cap *= 2;
    uint64_t *set = svk_calloc(cap, sizeof(*set));
    t->heldout = svk_calloc(n ? n : 1, sizeof(*t->heldout));
    if (!set || !t->heldout) {
        free(set);
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "addition task: out of host memory");
    }
    uint64_t hs = 0x5eed0fad0u + t->params.digits;
    while (t->n_heldout < n) {
        const uint64_t key = svk_splitmix64(&hs) % space;
        uint64_t h = key * 0x9e3779b97f4a7c15ull;
        size_t i = (size_t)(h >> 17) & (cap - 1);
        while (set[i] && set[i] != key + 1)
            i = (i + 1) & (cap - 1);
        if (!set[i]) {
            set[i] = key + 1;
            t->heldout[t->n_heldout++] = key;
        }
    }
    free(set);
    qsort(t->heldout, t->n_heldout, sizeof(*t->heldout), cmp_u64);
    return SVK_OK;
}

svk_status svk_addition_create(const svk_addition_params *params, svk_addition **out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, out);
    *out = NULL;
    if (params)
        SVK_CHECK_RESERVED(NULL, params->reserved);
    const svk_addition_params p = params ? *params : svk_addition_params_default();
    svk_status st = check_params(&p);
    if (st != SVK_OK)
        return st;
    svk_addition *t = svk_calloc(1, sizeof(*t));
    if (!t)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "addition task: out of host memory");
    t->params = p;
    t->state = p.seed;
    if ((st = draw_heldout(t, pow10u(p.digits) * pow10u(p.digits))) != SVK_OK) {
        svk_addition_destroy(&t);
        return st;
    }
    *out = t;
    return SVK_OK;
}

void svk_addition_destroy(svk_addition **task)
{
    if (!task || !*task)
        return;
    free((*task)->heldout);
    free(*task);
    *task = NULL;
}

/* Room for any text problem_text writes as far as the compiler can tell
 * (two 20-digit numbers); digits <= 9 keeps it within
 * SVK_ADDITION_TEXT_MAX. */
#define TEXT_BUF 48

/* Writes "a+b=" and "c\n" in the format of params. */
static void problem_text(uint64_t key, const svk_addition_params *params, char prompt[TEXT_BUF], char answer[TEXT_BUF])
{
    const uint32_t digits = params->digits;
    uint64_t p = pow10u(digits), a = key / p, b = key % p;
    const int w = params->operands == SVK_ADDITION_OPERANDS_PADDED ? (int)digits : 1;
    snprintf(prompt, TEXT_BUF, "%0*llu+%0*llu=", w, (unsigned long long)a, w, (unsigned long long)b);
    int n = snprintf(answer, TEXT_BUF, "%llu\n", (unsigned long long)(a + b));
    if (params->answer == SVK_ADDITION_ANSWER_REVERSED)
        for (int i = 0, j = n - 2; i < j; i++, j--) {
            char c = answer[i];
            answer[i] = answer[j];
            answer[j] = c;
        }
}

svk_status svk_addition_heldout(const svk_addition *task, uint32_t i, char *prompt, size_t prompt_size, char *answer,
                                size_t answer_size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, task);
    const svk_addition *t = task;
    SVK_CHECK_PTR(NULL, prompt);
    SVK_CHECK_PTR(NULL, answer);
    if (i >= t->n_heldout)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: problem %u of a held-out set of %zu", __func__, i,
                         t->n_heldout);
    char p[TEXT_BUF], a[TEXT_BUF];
    problem_text(t->heldout[i], &t->params, p, a);
    if (strlen(p) >= prompt_size || strlen(a) >= answer_size)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s: problem %u needs %zu bytes for its prompt and %zu for its answer; prompt_size is %zu "
                         "and answer_size %zu", __func__, i, strlen(p) + 1, strlen(a) + 1, prompt_size, answer_size);
    memcpy(prompt, p, strlen(p) + 1);
    memcpy(answer, a, strlen(a) + 1);
    return SVK_OK;
}

svk_status svk_addition_position(const svk_addition *task, uint64_t *position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, task);
    const svk_addition *t = task;
    SVK_CHECK_PTR(NULL, position);
    *position = t->state;
    return SVK_OK;
}

svk_status svk_addition_seek(svk_addition *task, uint64_t position)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, task);
    svk_addition *t = task;
    t->state = position;
    return SVK_OK;
}

svk_status svk_addition_batch(svk_addition *task, uint32_t B, uint32_t T, int32_t *tokens, int32_t *targets)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, task);
    svk_addition *t = task;
    SVK_CHECK_PTR(NULL, tokens);
    SVK_CHECK_PTR(NULL, targets);
    const uint32_t digits = t->params.digits, need = max_len(digits) + 1;
    if (T < need)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "addition task: sequence length %u is too short for %u-digit problems (needs >= %u)", T,
                         digits, need);
    uint64_t space = pow10u(digits) * pow10u(digits);
    for (uint32_t r = 0; r < B; r++) {
        int32_t *tok = tokens + (size_t)r * T, *tgt = targets + (size_t)r * T;
        /* The row is a stream of T + 1 bytes s[0..T]: tokens are s[0..T),
         * targets s[1..T]; byte `at` of it goes to tok[at] and tgt[at - 1].
         * Whole problems only, then '\n' padding without loss. Counted in
         * 64 bits: T + 1 is 2^32 at T's largest. */
        uint64_t len = 0;
        char prompt[TEXT_BUF], answer[TEXT_BUF];
        for (;;) {
            uint64_t key;
            do
                key = svk_splitmix64(&t->state) % space;
            while (is_heldout(t, key));
            problem_text(key, &t->params, prompt, answer);
            uint32_t lp = (uint32_t)strlen(prompt), la = (uint32_t)strlen(answer);
            if (len + lp + la > (uint64_t)T + 1)
                break;
            for (uint32_t i = 0; i < lp + la; i++) {
                uint64_t at = len + i;
                int32_t ch = (unsigned char)(i < lp ? prompt[i] : answer[i - lp]);
                if (at < T)
                    tok[at] = ch;
                if (at > 0)
                    tgt[at - 1] = i >= lp ? ch : -1;
            }
            len += lp + la;
        }
        for (uint64_t at = len; at <= T; at++) {
            if (at < T)
                tok[at] = '\n';
            if (at > 0)
                tgt[at - 1] = -1;
        }
    }
    return SVK_OK;
}
