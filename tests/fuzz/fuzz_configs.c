#include "ckpt_util.h"
#include "fuzz_configs.h"

svk_model_config fuzz_config(int i)
{
    svk_model_config c = ckpt_tiny_config(); /* layernorm, gelu, learned, bias, tied, siamese */
    switch (i) {
    case 1: /* every other choice: one more tensor family each (swiglu gate, lm_head), none of the biases */
        c.vocab = 12, c.ctx = 8, c.width = 8, c.heads = 2, c.mlp_hidden = 8;
        c.norm = SVK_NORM_RMSNORM, c.mlp = SVK_MLP_SWIGLU, c.pos = SVK_POS_ROPE;
        c.placement = SVK_PLACEMENT_PRE, c.bias = false, c.tie_embeddings = false;
        break;
    case 2: /* two layers, so names differ only in the block index; a longer wpe (ckpt_model trains at T = 8, so ctx >= 8) */
        c.vocab = 10, c.ctx = 12, c.width = 4, c.heads = 1, c.mlp_hidden = 0, c.layers = 2;
        c.placement = SVK_PLACEMENT_POST;
        break;
    default:
        break;
    }
    return c;
}
