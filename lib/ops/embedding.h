/*
 * Token + position embedding on the device (shaders/embedding_fwd.comp,
 * embedding_bwd.comp): e[b, t] = wte[tokens[b, t]] + wpe[t], and the
 * deterministic scatter-add of its gradient (no float atomics: every
 * gradient element receives its contributions in the reference's order, so
 * the result is bit-identical from run to run). The CPU reference is
 * svk_ref_embedding_fwd / svk_ref_embedding_bwd (lib/ref/embedding.c).
 *
 * Tokens outside [0, V) are invalid input: they are never used as an
 * address, their output rows are 0 and they contribute no gradient. The op
 * can count them on the device (svk_index_check_record) into `counts`, which
 * the host reads to report the error.
 */
#ifndef SVK_OPS_EMBEDDING_H
#define SVK_OPS_EMBEDDING_H

#include "ops.h"

typedef struct svk_embedding_fwd_args {
    uint64_t B, T, C, V;  /* >= 1 each; B * T * C < 2^32, V <= 2^31 */
    svk_tref tokens;      /* [B, T] int32 */
    svk_tref wte;         /* [V, C] */
    svk_tref wpe;         /* [T, C] (the first T rows of [ctx, C]), or buf NULL (pos = rope) */
    svk_tref out;         /* [B, T, C], written */
    svk_tref counts;      /* [2] int32, written: valid, invalid tokens; or buf NULL: not counted */
    /* A table too large for one binding goes in parts: with rows > 0, wte
     * holds vocabulary rows [row0, row0 + rows) only, and only the rows of
     * out whose token lies there are written (the caller fills out with 0
     * first, for tokens outside [0, V)). rows 0: the whole table. */
    uint64_t row0, rows;
    const char *label;    /* names the dispatches in messages and timings; may be NULL */
} svk_embedding_fwd_args;

typedef struct svk_embedding_bwd_args {
    uint64_t B, T, C, V;  /* as in the forward pass */
    svk_tref tokens;      /* [B, T] int32 */
    svk_tref dout;        /* [B, T, C] */
    svk_tref dwte;        /* [V, C], accumulated (+=) */
    svk_tref dwpe;        /* [T, C], accumulated (+=), or buf NULL (pos = rope) */
    svk_tref counts;      /* [2] int32, written as in the forward pass, or buf NULL */
    /* As in the forward pass: dwte holds rows [row0, row0 + rows), and only
     * their tokens' gradients are added; dwpe (all positions) belongs with
     * one of the parts only. */
    uint64_t row0, rows;
    const char *label;
} svk_embedding_bwd_args;

svk_status svk_embedding_fwd_record(svk_cmdlist *cl, const svk_embedding_fwd_args *a);
svk_status svk_embedding_bwd_record(svk_cmdlist *cl, const svk_embedding_bwd_args *a);
/* The same with the dwte pass cut into `slices` vocabulary slices (1..V)
 * instead of the device's choice (0 keeps it). Every choice gives the same
 * bits; the conformance test uses it to cover the one-slice path of CPU
 * devices and the sliced path of GPUs on any device. */
svk_status svk_embedding_bwd_record_sliced(svk_cmdlist *cl, const svk_embedding_bwd_args *a, uint32_t slices);

#endif
