/*
 * GPT-2's weights in and out: Hugging Face's GPT-2 safetensors files (the
 * model.safetensors of GPT2LMHeadModel or GPT2Model) to libsvk checkpoints
 * and back. GPT-2 is docs/MODEL.md's pre-norm model: placement=pre,
 * norm=layernorm, norm_eps=1e-5, mlp=gelu (the tanh form), pos=learned,
 * bias=true, tie_embeddings=true. The two files hold the same arrays under
 * other names, except that GPT-2's Linear layers ("Conv1D") store their
 * weights [in, out], transposed to libsvk's [out, in]; GPT-2's fused
 * c_attn is libsvk's qkv, queries, keys and values in that order.
 *
 * Files only: no context or device is involved. Errors are reported through
 * svk_last_error(). Thread-safety: any thread.
 */
#ifndef SVK_CONVERT_H
#define SVK_CONVERT_H

#include <stdbool.h>
#include "common.h"

SVK_BEGIN_DECLS

/* Settings of svk_gpt2_import and svk_gpt2_export. */
typedef struct svk_gpt2_params {
    uint32_t heads;       /* import: attention heads H, which must divide the width C (GPT-2's files do not
                             hold it); 0 (default): C / 64, the head width of every published GPT-2 (768
                             wide and 12 heads, 1024 and 16, 1280 and 20, 1600 and 25), refused
                             (SVK_ERROR_INVALID_ARG) when 64 does not divide C. Export: not used (a GPT-2
                             file has no place for it) */
    bool overwrite;       /* replace a file already at the output path; default false: SVK_ERROR_IO naming
                             it, and nothing is read or written */
    uint64_t reserved[4]; /* must be zero */
} svk_gpt2_params;
SVK_API svk_gpt2_params svk_gpt2_params_default(void);

/* Converts the GPT-2 file at gpt2_path into a libsvk checkpoint at
 * svk_path, weights and configuration only (as svk_model_save without the
 * optimiser state): svk_model_open, svk-train --init-from and svk-generate
 * take it. Names with or without the "transformer." prefix are read; the
 * attention masks some files carry ("h.<l>.attn.bias",
 * "h.<l>.attn.masked_bias") are not weights and are skipped; an
 * "lm_head.weight" must equal "wte.weight" (GPT-2 ties them, and so does
 * the libsvk model written). Tensors may be F32, F16 or BF16 (widened to
 * float32, exactly). The shape comes from the tensors: the vocabulary and
 * width from wte, the context from wpe, the layers from the "h.<l>." names,
 * the MLP's width from c_fc. Refused with SVK_ERROR_BAD_CHECKPOINT naming
 * the tensor: a missing, misshapen, non-float or non-finite tensor, one
 * that is not GPT-2's, an lm_head that is not wte. SVK_ERROR_IO: the file
 * cannot be read. The output is written atomically (svk_model_save's rules:
 * a crash leaves the old file or the new one). */
SVK_API svk_status svk_gpt2_import(const char *gpt2_path, const char *svk_path, const svk_gpt2_params *params);

/* Converts the libsvk checkpoint at svk_path (with or without its
 * optimiser state, which is left out) into a GPT-2 file at gpt2_path: F32
 * tensors under the names of Hugging Face's published GPT-2 files (no
 * prefix, no lm_head: it is wte), metadata {"format": "pt"}. Its
 * configuration must be GPT-2's (above; any layers, width, heads,
 * vocabulary, context and MLP width): any other is refused with
 * SVK_ERROR_UNSUPPORTED and a message naming the key and saying why
 * (siamese and post placement, RMSNorm, SwiGLU, RoPE, no biases, an untied
 * output layer, another norm_eps); python/svk_torch takes every
 * configuration to PyTorch. A checkpoint svk_model_open refuses is refused
 * alike (SVK_ERROR_BAD_CHECKPOINT), and so is one with a non-finite weight.
 * svk_gpt2_import of the result gives back the same tensors, to the bit. */
SVK_API svk_status svk_gpt2_export(const char *svk_path, const char *gpt2_path, const svk_gpt2_params *params);

SVK_END_DECLS

#endif
