/*
 * Generation with a key-value cache, as plan ops (svk_plan_options.decode).
 * A plan of B = 1, T = ctx is the prefill: its forward over the window
 * leaves each attention's qkv, keys RoPE'd, in its activations. After the
 * step's ops comes one token's forward, rows of 1 written by the same
 * block builders (plan_model.c, with svk_pb.decoding): its embedding and
 * attention take the token and its position from decode.step in the input
 * slab (EMBED_DECODE, ATTN_DECODE), so one recording serves every position,
 * and each attention appends its row to the prefill's qkv and attends over
 * rows 0..pos of it. Only the host moves the position along.
 */
#include "plan_builder.h"

void svk_pb_decode(svk_pb *b)
{
    svk_plan *p = b->p;
    const svk_pb_dims full = b->d;
    const bool nn = p->linear_nn;
    const uint32_t wt = b->wt;
    p->decode_step = svk_pb_tensor(b, SVK_SLAB_INPUT, 2, -1, "decode.step");
    /* From here on tensors are named "decode.<name>" (svk_pb_tensor). */
    b->d.B = b->d.T = b->d.N = 1;
    /* One row: a Linear on a transposed copy of its weight would copy the
     * whole weight for a product of the same size (svk_plan_options). */
    p->linear_nn = false;
    b->wt = SVK_NONE;
    b->decoding = true;
    p->phases.decode = p->n_ops;
    p->decode_logits = svk_pb_forward(b);
    p->phases.decode_end = p->n_ops;
    b->decoding = false;
    b->wt = wt;
    p->linear_nn = nn;
    b->d = full;
}
