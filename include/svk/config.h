/*
 * Model configuration: the keys of the model specification
 * (docs/MODEL.md, "Configuration"), with the same names, defaults and
 * ranges. Plain data; safe to copy. Thread-safety: any thread.
 */
#ifndef SVK_CONFIG_H
#define SVK_CONFIG_H

#include <stdbool.h>
#include "common.h"

SVK_BEGIN_DECLS

/* The most layers a configuration may have: far beyond any trained model,
 * and low enough that listing a model's tensors is instant and no size sum
 * over layers can overflow. */
#define SVK_MAX_LAYERS 65536u

typedef enum svk_norm_kind { SVK_NORM_LAYERNORM = 0, SVK_NORM_RMSNORM } svk_norm_kind;
typedef enum svk_placement { SVK_PLACEMENT_PRE = 0, SVK_PLACEMENT_POST, SVK_PLACEMENT_SIAMESE } svk_placement;
typedef enum svk_mlp_kind { SVK_MLP_GELU = 0, SVK_MLP_SWIGLU } svk_mlp_kind;
typedef enum svk_pos_kind { SVK_POS_LEARNED = 0, SVK_POS_ROPE } svk_pos_kind;

typedef struct svk_model_config {
    uint32_t vocab;          /* V >= 2; default 256 */
    uint32_t ctx;            /* maximum sequence length, >= 1; default 128 */
    uint32_t width;          /* C >= 1; default 128 */
    uint32_t layers;         /* 1 <= L <= SVK_MAX_LAYERS; default 4 */
    uint32_t heads;          /* H, divides width; head width even when pos = rope; default 4 */
    uint32_t mlp_hidden;     /* F >= 1; 0 means 4 * width (the default) */
    svk_norm_kind norm;      /* default layernorm */
    svk_placement placement; /* default siamese */
    svk_mlp_kind mlp;        /* default gelu */
    svk_pos_kind pos;        /* default learned */
    bool bias;               /* Linear layers have biases; default true */
    bool tie_embeddings;     /* logits use wte; default true */
    float norm_eps;          /* > 0; default 1e-5 */
    float rope_theta;        /* > 0; default 10000 */
    uint64_t reserved[4];    /* must be zero */
} svk_model_config;

SVK_API svk_model_config svk_model_config_default(void);

/* Sets one key from text, e.g. ("placement", "pre") or ("width", "256"):
 * the form of svk-train's --config KEY=VALUE. Unknown keys and values that
 * do not parse give SVK_ERROR_INVALID_CONFIG naming the key and value. */
SVK_API svk_status svk_model_config_set(svk_model_config *config, const char *key, const char *value);

/* Checks every rule of docs/MODEL.md; the message names the first key
 * that breaks one and its value. */
SVK_API svk_status svk_model_config_validate(const svk_model_config *config);

/* Whether two configurations describe the same model (mlp_hidden 0 and
 * 4 * width are the same). */
SVK_API bool svk_model_config_equal(const svk_model_config *a, const svk_model_config *b);

/* F: mlp_hidden, or 4 * width when it is 0. */
SVK_API uint32_t svk_model_config_hidden(const svk_model_config *config);

/* The configuration as the JSON object stored in checkpoints (every key of
 * docs/MODEL.md). Writes at most size bytes including the NUL;
 * SVK_ERROR_INVALID_ARG if it does not fit. */
SVK_API svk_status svk_model_config_to_json(const svk_model_config *config, char *buf, size_t size);

/* Parses such a JSON object: at most 4096 bytes, flat (no nested object or
 * array) and nothing after it, checked on the text before it is parsed.
 * Every key must be known and well typed, and appear once; missing keys
 * keep their defaults. */
SVK_API svk_status svk_model_config_from_json(const char *json, svk_model_config *out);

SVK_END_DECLS

#endif
