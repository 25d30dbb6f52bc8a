/*
 * Generation with a key-value cache on the device: one token's embedding
 * and attention at the position held in a step buffer, int32 {token, pos},
 * which the host writes before each token, so that one recording serves
 * every position (lib/model/plan_decode.c). Semantics of
 * svk_ref_embedding_decode and svk_ref_attention_decode (lib/ref/decode.c);
 * conformance: tools/conformance/conform_decode.c.
 */
#ifndef SVK_OPS_DECODE_H
#define SVK_OPS_DECODE_H

#include "ops.h"

/* out [C] = wte [V, C] row token + wpe [ctx, C] row pos (wpe.buf NULL:
 * none); zeros for a token outside [0, V) or a position outside [0, ctx). */
typedef struct svk_decode_embed_args {
    uint32_t C, V, ctx;  /* >= 1 */
    svk_tref step;       /* int32 [2]: token, position */
    svk_tref wte, wpe, out;
    /* rows > 0: wte holds vocabulary rows [row0, row0 + rows) of a table
     * too large for one binding, and out is written only for a token
     * there (the caller fills it with 0 first); 0: the whole table. */
    uint32_t row0, rows;
    const char *label;   /* NULL: "decode_embed" */
} svk_decode_embed_args;

svk_status svk_decode_embed_record(svk_cmdlist *cl, const svk_decode_embed_args *a);

/* qkv [3C] (before RoPE) RoPE'd at pos (rope, theta) into row pos of
 * cache [ctx, 3C], then out [C] = causal attention of its queries over
 * the cache's rows 0..pos. Nothing for a position outside [0, ctx). */
typedef struct svk_decode_attention_args {
    uint32_t C, H, ctx;  /* >= 1; C % H == 0, and D = C / H even with rope */
    bool rope;
    float theta;         /* rope: > 0, finite */
    svk_tref step;       /* int32 [2]: token, position */
    svk_tref qkv, cache, out;
    const char *label;   /* NULL: "decode_attention" */
} svk_decode_attention_args;

svk_status svk_decode_attention_record(svk_cmdlist *cl, const svk_decode_attention_args *a);

#endif
