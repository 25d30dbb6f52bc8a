/*
 * The parameter list: names and shapes are the specification's checkpoint
 * table for each placement, norm and MLP; initialisation follows the spec
 * (std 0.02, projections 0.02 / sqrt(2L), biases 0, gains 1) and is the same
 * for the same seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/params.h"
#include "test_util.h"

static const svk_param_info *find(const svk_param_info *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return &p[i];
    return NULL;
}

static bool has(const svk_param_info *p, size_t n, const char *name, uint32_t d0, uint32_t d1)
{
    const svk_param_info *x = find(p, n, name);
    return x && x->shape[0] == d0 && x->shape[1] == d1;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_params", &args);
    tu_tally t = {0, 0};
    svk_param_info p[256];

    svk_model_config c = svk_model_config_default(); /* siamese, layernorm, gelu, learned, bias, tied */
    size_t n = svk_model_param_list(&c, p, 256);
    /* wte, wpe; per layer 3*2 + 4 + 3*2 + 4 = 20; final 3*2; 4 layers. */
    tu_check(&t, n == 2 + 4 * 20 + 6, "default siamese config: %zu tensors (want %d)", n, 2 + 4 * 20 + 6);
    tu_check(&t, has(p, n, "wte.weight", 256, 128) && has(p, n, "wpe.weight", 128, 128) &&
                     has(p, n, "blocks.0.attn_norm.post.weight", 128, 0) && has(p, n, "blocks.3.attn_norm.input.bias", 128, 0) &&
                     has(p, n, "blocks.1.mlp_norm.pre.weight", 128, 0) && has(p, n, "blocks.2.attn.qkv.weight", 384, 128) &&
                     has(p, n, "blocks.2.attn.qkv.bias", 384, 0) && has(p, n, "blocks.0.attn.proj.weight", 128, 128) &&
                     has(p, n, "blocks.0.mlp.fc.weight", 512, 128) && has(p, n, "blocks.0.mlp.proj.weight", 128, 512) &&
                     has(p, n, "norm_f.x.weight", 128, 0) && has(p, n, "norm_f.out.bias", 128, 0) &&
                     !find(p, n, "lm_head.weight"),
             "siamese names and shapes per the spec");
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += p[i].elems;
    printf("     default model: %llu parameters\n", (unsigned long long)total);
    tu_check(&t, find(p, n, "wte.weight")->decay && find(p, n, "blocks.0.attn.qkv.weight")->decay &&
                     !find(p, n, "blocks.0.attn.qkv.bias")->decay && !find(p, n, "norm_f.x.weight")->decay,
             "decay on 2-D weights only");
    tu_check(&t, fabsf(find(p, n, "blocks.0.attn.proj.weight")->init_std - 0.02f / sqrtf(8.0f)) < 1e-9f &&
                     find(p, n, "blocks.0.mlp.fc.weight")->init_std == 0.02f &&
                     find(p, n, "norm_f.y.weight")->init_value == 1.0f && find(p, n, "norm_f.y.bias")->init_value == 0.0f,
             "init std and constants per the spec");

    svk_model_config pre = c;
    pre.placement = SVK_PLACEMENT_PRE;
    pre.norm = SVK_NORM_RMSNORM;
    pre.mlp = SVK_MLP_SWIGLU;
    pre.pos = SVK_POS_ROPE;
    pre.tie_embeddings = false;
    n = svk_model_param_list(&pre, p, 256);
    tu_check(&t, has(p, n, "blocks.0.attn_norm.weight", 128, 0) && !find(p, n, "blocks.0.attn_norm.bias") &&
                     has(p, n, "norm_f.weight", 128, 0) && !find(p, n, "wpe.weight") &&
                     has(p, n, "blocks.0.mlp.gate.weight", 512, 128) && has(p, n, "blocks.0.mlp.up.weight", 512, 128) &&
                     !find(p, n, "blocks.0.mlp.proj.bias") && has(p, n, "lm_head.weight", 256, 128),
             "pre + rmsnorm + swiglu + rope + untied names");
    svk_model_config post = c;
    post.placement = SVK_PLACEMENT_POST;
    n = svk_model_param_list(&post, p, 256);
    tu_check(&t, has(p, n, "blocks.0.mlp_norm.bias", 128, 0) && !find(p, n, "norm_f.weight") &&
                     !find(p, n, "norm_f.x.weight"),
             "post: per-sublayer norms, no final norm");
    tu_check(&t, svk_model_param_list(&c, NULL, 0) == 88, "counting without storage");

    /* Initialisation: deterministic per seed, with the right statistics. */
    n = svk_model_param_list(&c, p, 256);
    float **a = calloc(n, sizeof(*a)), **b = calloc(n, sizeof(*b));
    for (size_t i = 0; i < n; i++) {
        a[i] = malloc(p[i].elems * sizeof(float));
        b[i] = malloc(p[i].elems * sizeof(float));
    }
    svk_model_init_params(p, n, 1234, a);
    svk_model_init_params(p, n, 1234, b);
    bool same = true;
    for (size_t i = 0; i < n; i++)
        same = same && !memcmp(a[i], b[i], p[i].elems * sizeof(float));
    tu_check(&t, same, "same seed, same weights");
    svk_model_init_params(p, n, 1235, b);
    tu_check(&t, memcmp(a[0], b[0], p[0].elems * sizeof(float)) != 0, "another seed, other weights");
    const svk_param_info *wte = find(p, n, "wte.weight");
    size_t wi = (size_t)(wte - p);
    double s = 0, s2 = 0;
    for (uint64_t k = 0; k < wte->elems; k++) {
        s += a[wi][k];
        s2 += (double)a[wi][k] * a[wi][k];
    }
    double mean = s / (double)wte->elems, sd = sqrt(s2 / (double)wte->elems - mean * mean);
    tu_check(&t, fabs(mean) < 0.001 && fabs(sd - 0.02) < 0.0005, "wte ~ N(0, 0.02): mean %.5f, std %.5f", mean, sd);
    const svk_param_info *g = find(p, n, "norm_f.out.weight");
    tu_check(&t, a[g - p][0] == 1.0f && a[g - p][127] == 1.0f, "gains start at 1");
    for (size_t i = 0; i < n; i++) {
        free(a[i]);
        free(b[i]);
    }
    free(a);
    free(b);
    return tu_finish(&t);
}
