#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addition_eval.h"

svk_status svk_addition_accuracy(svk_model *m, const svk_addition *task, uint32_t digits, size_t n, size_t show,
                                 size_t *correct)
{
    const svk_model_config *c = svk_model_get_config(m);
    svk_addition_params ap = svk_addition_params_default();
    ap.digits = digits;
    ap.heldout = 0;
    uint32_t L;
    svk_status st = svk_addition_max_len(&ap, &L);
    if (st != SVK_OK)
        return st;
    const uint32_t T = L + 1 <= c->ctx ? L + 1 : c->ctx;
    *correct = 0;
    if (n == 0)
        return SVK_OK;
    char (*prompt)[SVK_ADDITION_TEXT_MAX] = calloc(n, sizeof(*prompt));
    char (*answer)[SVK_ADDITION_TEXT_MAX] = calloc(n, sizeof(*answer));
    char (*got)[32] = calloc(n, sizeof(*got));
    uint32_t *len = calloc(n, sizeof(*len));
    bool *done = calloc(n, sizeof(*done));
    int32_t *tok = calloc(n * T, sizeof(*tok));
    float *logits = malloc(n * T * c->vocab * sizeof(float));
    if (!prompt || !answer || !got || !len || !done || !tok || !logits) {
        fprintf(stderr, "svk-train: out of memory for the evaluation of %zu problems\n", n);
        st = SVK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        st = svk_addition_heldout(task, (uint32_t)i, prompt[i], sizeof(prompt[i]), answer[i], sizeof(answer[i]));
        if (st != SVK_OK)
            break;
        len[i] = (uint32_t)strlen(prompt[i]);
        for (uint32_t k = 0; k < len[i]; k++)
            tok[i * T + k] = (unsigned char)prompt[i][k];
        for (uint32_t k = len[i]; k < T; k++)
            tok[i * T + k] = '\n'; /* after the text: causal attention never looks there */
    }
    /* One forward pass per answer character (at most digits + 1 digits and
     * the newline), all problems in one batch; each row reads the logits at
     * its own last position. */
    for (uint32_t step = 0; step <= digits + 1 && st == SVK_OK; step++) {
        if ((st = svk_model_forward_logits(m, tok, (uint32_t)n, T, logits)) != SVK_OK)
            break;
        for (size_t i = 0; i < n; i++) {
            if (done[i] || len[i] >= T)
                continue;
            const float *row = logits + ((size_t)i * T + len[i] - 1) * c->vocab;
            uint32_t best = 0;
            for (uint32_t v = 1; v < c->vocab; v++)
                if (row[v] > row[best])
                    best = v;
            size_t gl = strlen(got[i]);
            got[i][gl] = best >= 32 && best < 127 ? (char)best : best == '\n' ? '\n' : '?';
            tok[i * T + len[i]] = (int32_t)best;
            len[i]++;
            done[i] = best == '\n' || gl + 2 >= sizeof(got[i]);
        }
    }
    /* The held-out problems are sorted: the ones shown are spread over
     * them, not the first few (which all start 00+). */
    const size_t stride = show && n > show ? n / show : 1;
    for (size_t i = 0; i < n; i++) {
        bool ok = !strcmp(got[i], answer[i]);
        *correct += ok;
        if (i % stride == 0 && i / stride < show) {
            size_t gl = strlen(got[i]);
            printf("  %s%-*.*s %s (want %.*s)\n", prompt[i], (int)digits + 1,
                   (int)(gl && got[i][gl - 1] == '\n' ? gl - 1 : gl), got[i], ok ? "ok" : "wrong",
                   (int)strlen(answer[i]) - 1, answer[i]);
        }
    }
out:
    free(prompt);
    free(answer);
    free(got);
    free(len);
    free(done);
    free(tok);
    free(logits);
    return st;
}

svk_status svk_addition_accuracy_forced(svk_model *m, const svk_addition *task, size_t n, uint32_t B, uint32_t T,
                                        size_t *correct)
{
    const uint32_t V = svk_model_get_config(m)->vocab;
    *correct = 0;
    int32_t *tok = malloc((size_t)B * T * sizeof(*tok));
    float *logits = malloc((size_t)B * T * V * sizeof(*logits));
    /* Each row's problem: the prompt's length and the answer's text. */
    uint32_t *lp = malloc(B * sizeof(*lp));
    char (*answer)[SVK_ADDITION_TEXT_MAX] = malloc(B * sizeof(*answer));
    svk_status st = SVK_OK;
    if (!tok || !logits || !lp || !answer) {
        fprintf(stderr, "svk-train: out of memory for the evaluation in batches of %u x %u\n", B, T);
        st = SVK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t first = 0; first < n && st == SVK_OK; first += B) {
        const uint32_t rows = n - first < B ? (uint32_t)(n - first) : B;
        for (uint32_t r = 0; r < B; r++) {
            int32_t *row = tok + (size_t)r * T;
            uint32_t len = 0;
            char prompt[SVK_ADDITION_TEXT_MAX];
            if (r < rows) {
                st = svk_addition_heldout(task, (uint32_t)(first + r), prompt, sizeof(prompt), answer[r],
                                          sizeof(answer[r]));
                if (st != SVK_OK)
                    break;
                lp[r] = (uint32_t)strlen(prompt);
                for (uint32_t k = 0; prompt[k]; k++)
                    row[len++] = (unsigned char)prompt[k];
                for (uint32_t k = 0; answer[r][k] && len < T; k++)
                    row[len++] = (unsigned char)answer[r][k];
            }
            while (len < T)
                row[len++] = '\n'; /* after the problem, or a row left over: causal attention never looks there */
        }
        if (st != SVK_OK || (st = svk_model_forward_logits(m, tok, B, T, logits)) != SVK_OK)
            break;
        for (uint32_t r = 0; r < rows; r++) {
            bool ok = true;
            /* The logits at position t choose token t + 1: the answer's
             * k-th token is chosen at lp - 1 + k. */
            for (uint32_t k = 0; answer[r][k] && ok; k++) {
                const float *lg = logits + ((size_t)r * T + lp[r] - 1 + k) * V;
                uint32_t best = 0;
                for (uint32_t v = 1; v < V; v++)
                    if (lg[v] > lg[best])
                        best = v;
                ok = best == (unsigned char)answer[r][k];
            }
            *correct += ok;
        }
    }
    free(tok);
    free(logits);
    free(lp);
    free(answer);
    return st;
}
