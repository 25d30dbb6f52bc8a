/*
 * Reference of generation with a key-value cache: one token's embedding
 * and attention at its position (ref_decls.h). The attention repeats
 * attention_fwd's arithmetic for the last row of a causal window, so that
 * the CPU backend's cached generation gives the logits of the uncached one.
 */
#include <string.h>

#include "real.h"

void SVK_REF(embedding_decode)(size_t C, size_t V, size_t ctx, int32_t token, int32_t pos, const svk_real *wte,
                               const svk_real *wpe, svk_real *out)
{
    const int ok = token >= 0 && (size_t)token < V && pos >= 0 && (size_t)pos < ctx;
    for (size_t c = 0; c < C; c++) {
        svk_real v = ok ? wte[(size_t)token * C + c] : 0;
        if (ok && wpe)
            v += wpe[(size_t)pos * C + c];
        out[c] = v;
    }
}

void SVK_REF(attention_decode)(size_t C, size_t H, size_t ctx, int32_t pos, svk_real theta, const svk_real *qkv,
                               svk_real *cache, svk_real *out)
{
    if (pos < 0 || (size_t)pos >= ctx)
        return;
    const size_t D = C / H, C3 = 3 * C, t = (size_t)pos;
    svk_real *row = cache + t * C3;
    memcpy(row, qkv, C3 * sizeof(svk_real));
    if (theta > 0)
        SVK_REF(rope_fwd_at)(C, H, t, theta, row);
    const svk_real scale = 1 / ref_sqrt((svk_real)D);
    for (size_t h = 0; h < H; h++) {
        const svk_real *q = row + h * D;
        svk_real *o = out + h * D;
        /* Each pass recomputes the scores, the same values each time:
         * no scratch the length of the window. */
        svk_real mx = 0;
        for (size_t j = 0; j <= t; j++) {
            svk_real s = 0;
            for (size_t d = 0; d < D; d++)
                s += q[d] * cache[j * C3 + C + h * D + d];
            s *= scale;
            if (j == 0 || s > mx)
                mx = s;
        }
        svk_real sum = 0;
        for (size_t j = 0; j <= t; j++) {
            svk_real s = 0;
            for (size_t d = 0; d < D; d++)
                s += q[d] * cache[j * C3 + C + h * D + d];
            sum += ref_exp(s * scale - mx);
        }
        for (size_t d = 0; d < D; d++)
            o[d] = 0;
        for (size_t j = 0; j <= t; j++) {
            svk_real s = 0;
            for (size_t d = 0; d < D; d++)
                s += q[d] * cache[j * C3 + C + h * D + d];
            const svk_real p = ref_exp(s * scale - mx) / sum;
            for (size_t d = 0; d < D; d++)
                o[d] += p * cache[j * C3 + 2 * C + h * D + d];
        }
    }
}
