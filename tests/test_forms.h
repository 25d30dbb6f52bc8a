/*
 * The model forms the whole-model tests walk: each placement, and the
 * other block forms (SwiGLU, RoPE, RMSNorm, untied embeddings) over
 * siamese and post. tu_form_apply sets one on a configuration.
 */
#ifndef SVK_TEST_FORMS_H
#define SVK_TEST_FORMS_H

#include <stdbool.h>

#include "svk/config.h"

typedef struct tu_form {
    const char *name;
    svk_placement placement;
    svk_mlp_kind mlp;
    svk_pos_kind pos;
    svk_norm_kind norm;
    bool tied;
} tu_form;

static const tu_form tu_forms[] = {
    {"siamese", SVK_PLACEMENT_SIAMESE, SVK_MLP_GELU, SVK_POS_LEARNED, SVK_NORM_LAYERNORM, true},
    {"pre", SVK_PLACEMENT_PRE, SVK_MLP_GELU, SVK_POS_LEARNED, SVK_NORM_LAYERNORM, true},
    {"post", SVK_PLACEMENT_POST, SVK_MLP_GELU, SVK_POS_LEARNED, SVK_NORM_LAYERNORM, true},
    {"siamese swiglu rope rmsnorm untied", SVK_PLACEMENT_SIAMESE, SVK_MLP_SWIGLU, SVK_POS_ROPE, SVK_NORM_RMSNORM,
     false},
    {"post swiglu rope", SVK_PLACEMENT_POST, SVK_MLP_SWIGLU, SVK_POS_ROPE, SVK_NORM_LAYERNORM, true},
};
#define TU_N_FORMS (sizeof(tu_forms) / sizeof(tu_forms[0]))

static inline void tu_form_apply(const tu_form *f, svk_model_config *c)
{
    c->placement = f->placement, c->mlp = f->mlp, c->pos = f->pos, c->norm = f->norm;
    c->tie_embeddings = f->tied;
}

#endif
