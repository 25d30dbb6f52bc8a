/*
 * Reference causal multi-head self-attention (docs/MODEL.md, "Building blocks"), the naive
 * form: the whole probability matrix is materialised and saved, one row per
 * query, and the backward pass reads it back.
 */
#include "real.h"

static svk_real dot(const svk_real *a, const svk_real *b, size_t n)
{
    svk_real s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void SVK_REF(attention_fwd)(size_t B, size_t T, size_t C, size_t H,
                            const svk_real *qkv, svk_real *out, svk_real *att)
{
    size_t D = C / H, C3 = 3 * C;
    svk_real scale = 1 / ref_sqrt((svk_real)D);
    for (size_t b = 0; b < B; b++) {
        const svk_real *base = qkv + b * T * C3;
        for (size_t h = 0; h < H; h++) {
            for (size_t t = 0; t < T; t++) {
                const svk_real *q = base + t * C3 + h * D;
                svk_real *p = att + ((b * H + h) * T + t) * T;
                /* Scores over keys 0..t, then a softmax stabilised by the
                 * row maximum: every exponent is <= 0, so exp cannot
                 * overflow and the largest term is exactly 1. */
                svk_real mx = 0;
                for (size_t j = 0; j <= t; j++) {
                    p[j] = dot(q, base + j * C3 + C + h * D, D) * scale;
                    if (j == 0 || p[j] > mx)
                        mx = p[j];
                }
                svk_real sum = 0;
                for (size_t j = 0; j <= t; j++) {
                    p[j] = ref_exp(p[j] - mx);
                    sum += p[j];
                }
                for (size_t j = 0; j <= t; j++)
                    p[j] /= sum;
                for (size_t j = t + 1; j < T; j++)
                    p[j] = 0;

                svk_real *o = out + (b * T + t) * C + h * D;
                for (size_t d = 0; d < D; d++) {
                    svk_real acc = 0;
                    for (size_t j = 0; j <= t; j++)
                        acc += p[j] * base[j * C3 + 2 * C + h * D + d];
                    o[d] = acc;
                }
            }
        }
    }
}

void SVK_REF(attention_stats)(size_t B, size_t T, size_t C, size_t H, const svk_real *qkv, svk_real *stats)
{
    size_t D = C / H, C3 = 3 * C;
    svk_real scale = 1 / ref_sqrt((svk_real)D);
    for (size_t b = 0; b < B; b++) {
        const svk_real *base = qkv + b * T * C3;
        for (size_t h = 0; h < H; h++) {
            for (size_t t = 0; t < T; t++) {
                const svk_real *q = base + t * C3 + h * D;
                svk_real mx = 0;
                for (size_t j = 0; j <= t; j++) {
                    svk_real s = dot(q, base + j * C3 + C + h * D, D) * scale;
                    if (j == 0 || s > mx)
                        mx = s;
                }
                svk_real sum = 0;
                for (size_t j = 0; j <= t; j++)
                    sum += ref_exp(dot(q, base + j * C3 + C + h * D, D) * scale - mx);
                stats[2 * ((b * H + h) * T + t)] = mx;
                stats[2 * ((b * H + h) * T + t) + 1] = sum;
            }
        }
    }
}

void SVK_REF(attention_bwd)(size_t B, size_t T, size_t C, size_t H,
                            const svk_real *dout, const svk_real *qkv,
                            const svk_real *att, svk_real *dqkv)
{
    size_t D = C / H, C3 = 3 * C;
    svk_real scale = 1 / ref_sqrt((svk_real)D);
    for (size_t i = 0; i < B * T * C3; i++)
        dqkv[i] = 0;
    for (size_t b = 0; b < B; b++) {
        const svk_real *base = qkv + b * T * C3;
        svk_real *dbase = dqkv + b * T * C3;
        for (size_t h = 0; h < H; h++) {
            for (size_t t = 0; t < T; t++) {
                const svk_real *q = base + t * C3 + h * D;
                const svk_real *p = att + ((b * H + h) * T + t) * T;
                const svk_real *dor = dout + (b * T + t) * C + h * D;
                svk_real *dq = dbase + t * C3 + h * D;
                /* Softmax backward: ds_j = p_j (dp_j - sum_k p_k dp_k) with
                 * dp_j = dout . v_j. The dot products are computed twice
                 * (for the sum, then for ds) rather than stored. */
                svk_real pdp = 0;
                for (size_t j = 0; j <= t; j++)
                    pdp += p[j] * dot(dor, base + j * C3 + 2 * C + h * D, D);
                for (size_t j = 0; j <= t; j++) {
                    const svk_real *k = base + j * C3 + C + h * D;
                    const svk_real *v = base + j * C3 + 2 * C + h * D;
                    svk_real *dk = dbase + j * C3 + C + h * D;
                    svk_real *dv = dbase + j * C3 + 2 * C + h * D;
                    svk_real ds = p[j] * (dot(dor, v, D) - pdp) * scale;
                    for (size_t d = 0; d < D; d++) {
                        dq[d] += ds * k[d];
                        dk[d] += ds * q[d];
                        dv[d] += p[j] * dor[d];
                    }
                }
            }
        }
    }
}
