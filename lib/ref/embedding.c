/* Reference token and position embedding (docs/MODEL.md, "Building blocks"). */
#include "real.h"

static int valid(int32_t tok, size_t V)
{
    return tok >= 0 && (uint64_t)tok < (uint64_t)V;
}

size_t SVK_REF(embedding_fwd)(size_t B, size_t T, size_t C, size_t V,
                              const int32_t *tokens, const svk_real *wte,
                              const svk_real *wpe, svk_real *out)
{
    size_t bad = 0;
    for (size_t b = 0; b < B; b++) {
        for (size_t t = 0; t < T; t++) {
            int32_t tok = tokens[b * T + t];
            svk_real *o = out + (b * T + t) * C;
            /* An invalid token is reported, never clamped; its row is a
             * defined 0 so that nothing downstream reads garbage. */
            if (!valid(tok, V)) {
                bad++;
                for (size_t c = 0; c < C; c++)
                    o[c] = 0;
                continue;
            }
            const svk_real *e = wte + (size_t)tok * C;
            for (size_t c = 0; c < C; c++)
                o[c] = e[c] + (wpe ? wpe[t * C + c] : 0);
        }
    }
    return bad;
}

/* The scatter-add runs in the fixed order b, then t: a token that occurs
 * several times receives its contributions in the same order on every run,
 * so dwte is bit-identical across runs (an atomic-add GPU kernel is not). */
size_t SVK_REF(embedding_bwd)(size_t B, size_t T, size_t C, size_t V,
                              const int32_t *tokens, const svk_real *dout,
                              svk_real *dwte, svk_real *dwpe)
{
    size_t bad = 0;
    for (size_t b = 0; b < B; b++) {
        for (size_t t = 0; t < T; t++) {
            int32_t tok = tokens[b * T + t];
            const svk_real *d = dout + (b * T + t) * C;
            if (!valid(tok, V)) {
                bad++;
                continue;
            }
            svk_real *e = dwte + (size_t)tok * C;
            for (size_t c = 0; c < C; c++)
                e[c] += d[c];
            if (dwpe)
                for (size_t c = 0; c < C; c++)
                    dwpe[t * C + c] += d[c];
        }
    }
    return bad;
}
