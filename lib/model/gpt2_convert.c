/*
 * GPT-2's weights in and out (svk/convert.h): Hugging Face's GPT-2 files
 * and libsvk checkpoints of the same model, tensor by tensor.
 *
 * GPT-2 (Radford et al., 2019, as Hugging Face's GPT2LMHeadModel computes
 * it) is docs/MODEL.md's pre-norm configuration. Its file holds the same
 * arrays as a libsvk checkpoint under other names (the table below), with
 * one difference of layout: GPT-2's Linear layers are "Conv1D" modules,
 * whose weight is stored [in, out] and applied as x W + b, where libsvk's
 * is [out, in] and applied as x Wᵀ + b. Each such weight is transposed;
 * nothing else is rearranged. c_attn's output columns are the queries, then
 * the keys, then the values, each split into heads of D consecutive
 * columns (Hugging Face's split(C) and view(B, T, H, D)), which is libsvk's
 * qkv (docs/MODEL.md, "Attention"). Transposing and widening F16 or BF16
 * to float32 are exact, so a checkpoint exported and imported again holds
 * the same bits.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "half16.h" /* lib/ref: the codes' exact float32 values */
#include "io/io_file.h"
#include "io/safetensors.h"
#include "checkpoint.h"
#include "params.h"
#include "svk/convert.h"

/* Every published GPT-2 has heads 64 wide (small 768 / 12 up to XL
 * 1600 / 25): the default when no head count is given. */
#define GPT2_HEAD_WIDTH 64u
/* GPT2Config's layer_norm_epsilon. */
#define GPT2_NORM_EPS 1e-5f
/* A GPT-2 file's longest name: "transformer.h.65535.attn.c_attn.weight"
 * and the like. */
#define GPT2_NAME_MAX 96

/* libsvk's names and GPT-2's: a block's, after "blocks.<l>." and "h.<l>.",
 * and the rest, matched by their beginnings (".weight" and ".bias" follow
 * unchanged). */
typedef struct name_pair {
    const char *svk, *gpt2;
} name_pair;
static const name_pair block_names[] = {
    {"attn_norm.", "ln_1."},        {"attn.qkv.", "attn.c_attn."}, {"attn.proj.", "attn.c_proj."},
    {"mlp_norm.", "ln_2."},         {"mlp.fc.", "mlp.c_fc."},      {"mlp.proj.", "mlp.c_proj."},
};
static const name_pair top_names[] = {{"wte.", "wte."}, {"wpe.", "wpe."}, {"norm_f.", "ln_f."}};

/* GPT-2's name (after prefix) of libsvk parameter p, and whether its
 * weight is stored transposed (a block's 2-D weights: the Conv1D layers).
 * False for a name outside the table: a parameter of a configuration that
 * is not GPT-2's, which the callers have refused already. */
static bool gpt2_name(const svk_param_info *p, const char *prefix, char out[GPT2_NAME_MAX], bool *transposed)
{
    const char *n = p->name;
    *transposed = false;
    if (!strncmp(n, "blocks.", 7)) {
        char *end;
        unsigned long l = strtoul(n + 7, &end, 10);
        if (*end != '.')
            return false;
        for (size_t i = 0; i < sizeof(block_names) / sizeof(block_names[0]); i++) {
            size_t k = strlen(block_names[i].svk);
            if (!strncmp(end + 1, block_names[i].svk, k)) {
                *transposed = p->ndim == 2;
                return snprintf(out, GPT2_NAME_MAX, "%sh.%lu.%s%s", prefix, l, block_names[i].gpt2, end + 1 + k) <
                       GPT2_NAME_MAX;
            }
        }
        return false;
    }
    for (size_t i = 0; i < sizeof(top_names) / sizeof(top_names[0]); i++) {
        size_t k = strlen(top_names[i].svk);
        if (!strncmp(n, top_names[i].svk, k))
            return snprintf(out, GPT2_NAME_MAX, "%s%s%s", prefix, top_names[i].gpt2, n + k) < GPT2_NAME_MAX;
    }
    return false;
}

/* Element j of t (F32, F16 or BF16) as float32. The data need not be
 * aligned: memcpy. */
static float element(const svk_st_tensor *t, uint64_t j)
{
    const uint8_t *p = t->data;
    if (t->dtype == SVK_ST_F32) {
        float f;
        memcpy(&f, p + 4 * j, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p + 2 * j, 2);
    return t->dtype == SVK_ST_F16 ? svk_f32_from_f16(h) : svk_f32_from_bf16(h);
}

static const char *shape_text(char buf[64], uint32_t ndim, const uint64_t *shape)
{
    int used = snprintf(buf, 64, "[");
    for (uint32_t d = 0; d < ndim && used > 0 && used < 64; d++)
        used += snprintf(buf + used, 64 - (size_t)used, "%s%" PRIu64, d ? ", " : "", shape[d]);
    if (used > 0 && used < 64)
        snprintf(buf + used, 64 - (size_t)used, "]");
    return buf;
}

/* Tensor `name` of f, float, of ndim dimensions and, where want is not
 * NULL, of that shape; with its place in f's table marked in claimed. */
static svk_status get_tensor(const svk_st_file *f, const char *path, const char *name, uint32_t ndim,
                             const uint64_t *want, bool *claimed, const svk_st_tensor **out)
{
    const svk_st_tensor *t = svk_st_find(f, name);
    *out = NULL;
    if (!t)
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' is missing (a GPT-2 file of this shape holds "
                         "it)", path, name);
    claimed[t - f->tensors] = true;
    if (t->dtype != SVK_ST_F32 && t->dtype != SVK_ST_F16 && t->dtype != SVK_ST_BF16)
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' is %s; GPT-2's weights are F32, F16 or BF16",
                         path, name, svk_st_dtype_name(t->dtype));
    bool ok = t->ndim == ndim;
    for (uint32_t d = 0; ok && want && d < ndim; d++)
        ok = t->shape[d] == want[d];
    for (uint32_t d = 0; ok && d < ndim; d++)
        ok = t->shape[d] > 0 && t->shape[d] <= UINT32_MAX;
    if (!ok) {
        char got[64], need[64];
        if (want)
            return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT,
                             "%s: tensor '%s' has shape %s, but the model the other tensors describe needs %s", path,
                             name, shape_text(got, t->ndim, t->shape), shape_text(need, ndim, want));
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' has shape %s; GPT-2's is %u-dimensional and "
                         "not empty", path, name, shape_text(got, t->ndim, t->shape), ndim);
    }
    *out = t;
    return SVK_OK;
}

/* The output may be replaced only when asked. Checked before anything is
 * read, so the refusal comes at once. */
static svk_status check_output(const char *path, bool overwrite, const char *func)
{
    bool exists = false;
    svk_status st = svk_file_exists(NULL, path, &exists);
    if (st == SVK_OK && exists && !overwrite)
        st = svk_error(NULL, SVK_ERROR_IO, "%s: %s exists and is kept (svk_gpt2_params.overwrite, svk-convert "
                       "--force, replaces it)", func, path);
    return st;
}

svk_gpt2_params svk_gpt2_params_default(void)
{
    return (svk_gpt2_params){0};
}

/* The layers of a GPT-2 file: one more than the largest l of a name
 * "<prefix>h.<l>." (decimal, no leading zero); 0 when there is none. */
static svk_status count_layers(const svk_st_file *f, const char *path, const char *prefix, uint32_t *layers)
{
    const size_t k = strlen(prefix);
    uint64_t n = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const char *s = f->tensors[i].name;
        if (strncmp(s, prefix, k) || strncmp(s + k, "h.", 2))
            continue;
        s += k + 2;
        if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '.'))
            continue; /* not a layer's: refused later as unexpected */
        uint64_t l = 0;
        for (; *s >= '0' && *s <= '9' && l <= SVK_MAX_LAYERS; s++)
            l = l * 10 + (uint64_t)(*s - '0');
        if (*s != '.')
            continue;
        if (l >= SVK_MAX_LAYERS)
            return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' is of layer %" PRIu64 "%s, beyond the "
                             "%u layers libsvk builds", path, f->tensors[i].name, l, l > SVK_MAX_LAYERS ? " or more" : "",
                             SVK_MAX_LAYERS);
        if (l + 1 > n)
            n = l + 1;
    }
    *layers = (uint32_t)n;
    return SVK_OK;
}

/* The configuration a GPT-2 file describes, from its tensors' shapes:
 * wte [V, C], wpe [ctx, C], c_fc of block 0 [C, F], the layers from the
 * names. */
static svk_status gpt2_config(const svk_st_file *f, const char *path, const char *prefix, uint32_t heads,
                              bool *claimed, svk_model_config *c)
{
    char name[GPT2_NAME_MAX];
    const svk_st_tensor *wte, *wpe, *fc;
    snprintf(name, sizeof(name), "%swte.weight", prefix);
    svk_status st = get_tensor(f, path, name, 2, NULL, claimed, &wte);
    if (st != SVK_OK)
        return st;
    const uint64_t V = wte->shape[0], C = wte->shape[1];
    snprintf(name, sizeof(name), "%swpe.weight", prefix);
    if ((st = get_tensor(f, path, name, 2, NULL, claimed, &wpe)) != SVK_OK)
        return st;
    if (wpe->shape[1] != C) {
        char a[64], b[64];
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' has shape %s, but wte.weight's %s makes the "
                         "width %" PRIu64, path, name, shape_text(a, 2, wpe->shape), shape_text(b, 2, wte->shape), C);
    }
    uint32_t layers = 0;
    if ((st = count_layers(f, path, prefix, &layers)) != SVK_OK)
        return st;
    if (layers == 0)
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: no block's tensors (%sh.0.ln_1.weight, ...): not a GPT-2 "
                         "file, or one with no layers", path, prefix);
    snprintf(name, sizeof(name), "%sh.0.mlp.c_fc.weight", prefix);
    if ((st = get_tensor(f, path, name, 2, NULL, claimed, &fc)) != SVK_OK)
        return st;
    if (fc->shape[0] != C) {
        char a[64];
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' has shape %s, but its first dimension must be "
                         "the width %" PRIu64 " (GPT-2's Conv1D weights are [in, out])", path, name,
                         shape_text(a, 2, fc->shape), C);
    }
    if (heads == 0) {
        if (C % GPT2_HEAD_WIDTH)
            return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: the width %" PRIu64 " is not a multiple of %u, GPT-2's "
                             "head width: give the number of heads", path, C, GPT2_HEAD_WIDTH);
        heads = (uint32_t)(C / GPT2_HEAD_WIDTH);
    } else if (C % heads) {
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: heads %u does not divide the width %" PRIu64, path, heads, C);
    }
    svk_model_config m = svk_model_config_default();
    m.vocab = (uint32_t)V;
    m.ctx = (uint32_t)wpe->shape[0];
    m.width = (uint32_t)C;
    m.layers = layers;
    m.heads = heads;
    m.mlp_hidden = fc->shape[1] == 4 * C ? 0 : (uint32_t)fc->shape[1];
    m.norm = SVK_NORM_LAYERNORM;
    m.placement = SVK_PLACEMENT_PRE;
    m.mlp = SVK_MLP_GELU;
    m.pos = SVK_POS_LEARNED;
    m.bias = true;
    m.tie_embeddings = true;
    m.norm_eps = GPT2_NORM_EPS;
    if ((st = svk_model_config_validate(&m)) != SVK_OK) {
        char why[512];
        snprintf(why, sizeof(why), "%s", svk_last_error());
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: its tensors describe a model libsvk does not build: %s",
                         path, why);
    }
    *c = m;
    return SVK_OK;
}

/* Copies t into out as float32 in libsvk's layout: transposed from [in,
 * out] when transposed, refusing a value that is not finite. */
static svk_status take_values(const svk_st_tensor *t, const char *path, bool transposed, float *out)
{
    const uint64_t rows = t->ndim == 2 ? t->shape[0] : 1, cols = t->ndim == 2 ? t->shape[1] : t->shape[0];
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < cols; k++) {
            const float v = element(t, r * cols + k);
            if (!isfinite(v))
                return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' holds %g at element %" PRIu64
                                 " (only finite weights are converted)", path, t->name, (double)v, r * cols + k);
            out[transposed ? k * rows + r : r * cols + k] = v;
        }
    return SVK_OK;
}

/* GPT2LMHeadModel's lm_head.weight is wte.weight (tied); a file that holds
 * it must hold the same values, since libsvk's GPT-2 ties them too. */
static svk_status check_lm_head(const svk_st_file *f, const char *path, const svk_model_config *c,
                                const float *wte, bool *claimed)
{
    const svk_st_tensor *t = svk_st_find(f, "lm_head.weight");
    if (!t)
        return SVK_OK;
    const uint64_t want[2] = {c->vocab, c->width};
    svk_status st = get_tensor(f, path, "lm_head.weight", 2, want, claimed, &t);
    for (uint64_t j = 0; st == SVK_OK && j < t->elems; j++) {
        const float v = element(t, j);
        if (memcmp(&v, &wte[j], sizeof(v)))
            st = svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor 'lm_head.weight' differs from wte.weight (element "
                           "%" PRIu64 ": %g, wte's %g): GPT-2 ties its output layer to the token embedding, and the "
                           "libsvk model written would too; this file's are untied", path, j, (double)v,
                           (double)wte[j]);
    }
    return st;
}

/* Everything a GPT-2 file holds besides the weights is refused, but for
 * the attention masks older files stored as buffers. */
static svk_status check_leftovers(const svk_st_file *f, const char *path, const char *prefix, uint32_t layers,
                                  bool *claimed)
{
    char name[GPT2_NAME_MAX];
    for (uint32_t l = 0; l < layers; l++)
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof(name), "%sh.%u.attn.%s", prefix, l, k ? "masked_bias" : "bias");
            const svk_st_tensor *t = svk_st_find(f, name);
            if (t)
                claimed[t - f->tensors] = true;
        }
    for (size_t i = 0; i < f->n_tensors; i++)
        if (!claimed[i])
            return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: tensor '%s' is not one of a %u-layer GPT-2's (a "
                             "model of another shape or kind?)", path, f->tensors[i].name, layers);
    return SVK_OK;
}

static svk_status import_file(const svk_st_file *f, const char *path, const char *out_path,
                              const svk_gpt2_params *gp)
{
    /* Hugging Face writes GPT2Model's names bare and GPT2LMHeadModel's
     * under "transformer."; one file holds one of the two. */
    const bool bare = svk_st_find(f, "wte.weight") != NULL, prefixed = svk_st_find(f, "transformer.wte.weight") != NULL;
    if (bare == prefixed)
        return svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: %s: not a GPT-2 file", path,
                         bare ? "both wte.weight and transformer.wte.weight" : "no wte.weight (nor transformer.wte.weight)");
    const char *prefix = bare ? "" : "transformer.";
    bool *claimed = svk_calloc(f->n_tensors ? f->n_tensors : 1, sizeof(*claimed));
    if (!claimed)
        return svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading %s", path);
    svk_model_config c;
    svk_status st = gpt2_config(f, path, prefix, gp->heads, claimed, &c);
    /* Weighed before the list of names is built: a few bytes naming layer
     * 60000 must not cost a list of a million tensors. Every tensor is at
     * least 2 bytes an element. */
    uint64_t elems = 0, bytes = 0;
    const size_t n = st == SVK_OK ? svk_model_param_totals(&c, &elems) : 0;
    for (size_t i = 0; i < f->n_tensors; i++)
        bytes += f->tensors[i].bytes;
    if (st == SVK_OK && (f->n_tensors < n || bytes / 2 < elems))
        st = svk_error(NULL, SVK_ERROR_BAD_CHECKPOINT, "%s: a GPT-2 of %u layers, width %u and vocabulary %u needs %zu "
                       "tensors of %" PRIu64 " elements, but the file holds %zu tensors of %" PRIu64 " bytes", path,
                       c.layers, c.width, c.vocab, n, elems, f->n_tensors, bytes);
    svk_param_info *params = st == SVK_OK ? svk_calloc(n, sizeof(*params)) : NULL;
    svk_st_entry *e = st == SVK_OK ? svk_calloc(n, sizeof(*e)) : NULL;
    float *values = st == SVK_OK ? svk_malloc((elems ? elems : 1) * sizeof(float)) : NULL;
    if (st == SVK_OK && (!params || !e || !values))
        st = svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory converting %s (%" PRIu64 " weights)",
                       path, elems);
    if (st == SVK_OK)
        svk_model_param_list(&c, params, n);
    float *at = values;
    for (size_t i = 0; i < n && st == SVK_OK; i++) {
        const svk_param_info *p = &params[i];
        char name[GPT2_NAME_MAX];
        bool transposed;
        if (!gpt2_name(p, prefix, name, &transposed)) {
            st = svk_error(NULL, SVK_ERROR_INTERNAL, "%s: libsvk's parameter '%s' has no GPT-2 name", __func__, p->name);
            break;
        }
        const uint64_t want[2] = {transposed ? p->shape[1] : p->shape[0], transposed ? p->shape[0] : p->shape[1]};
        const svk_st_tensor *t;
        st = get_tensor(f, path, name, p->ndim, want, claimed, &t);
        if (st == SVK_OK)
            st = take_values(t, path, transposed, at);
        e[i] = (svk_st_entry){p->name, SVK_ST_F32, p->ndim, {p->shape[0], p->shape[1]}, at};
        at += p->elems;
    }
    /* wte is the first parameter (lib/model/params.c). */
    if (st == SVK_OK)
        st = check_lm_head(f, path, &c, values, claimed);
    if (st == SVK_OK)
        st = check_leftovers(f, path, prefix, c.layers, claimed);
    char config[1024];
    if (st == SVK_OK)
        st = svk_model_config_to_json(&c, config, sizeof(config));
    if (st == SVK_OK) {
        const svk_st_meta meta[2] = {{"svk.config", config}, {"format", "pt"}};
        st = svk_st_write(NULL, out_path, e, n, meta, 2);
    }
    free(values);
    free(e);
    free(params);
    free(claimed);
    return st;
}

typedef svk_status (*convert_fn)(const svk_st_file *f, const char *path, const char *out_path,
                                 const svk_gpt2_params *gp);

/* Either direction, its arguments checked: in_path read, out_path made by
 * fn unless it exists and params does not say to replace it. */
static svk_status convert(const char *in_path, const char *out_path, const svk_gpt2_params *params, convert_fn fn,
                          const char *func)
{
    svk_status st = check_output(out_path, params->overwrite, func);
    if (st != SVK_OK)
        return st;
    svk_st_file f;
    if ((st = svk_st_read(NULL, in_path, &f)) != SVK_OK)
        return st;
    st = fn(&f, in_path, out_path, params);
    svk_st_free(&f);
    return st;
}

svk_status svk_gpt2_import(const char *gpt2_path, const char *svk_path, const svk_gpt2_params *params)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, gpt2_path);
    SVK_CHECK_PATH(NULL, svk_path);
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_RESERVED(NULL, params->reserved);
    return convert(gpt2_path, svk_path, params, import_file, __func__);
}

/* Whether a GPT-2 file can hold the model of configuration c: the
 * refusal names the first key that is not GPT-2's and why. */
static svk_status check_exportable(const svk_model_config *c, const char *path)
{
    const char *why = NULL;
    if (c->placement == SVK_PLACEMENT_SIAMESE)
        why = "placement=siamese: SiameseNorm's two streams and six norms a block have no place in GPT-2's, which "
              "is the pre-norm model (one LayerNorm before each sublayer, one at the end)";
    else if (c->placement == SVK_PLACEMENT_POST)
        why = "placement=post: its norms follow each sublayer's residual, where GPT-2's precede the sublayer and "
              "one more ends the stack; the weights would fit GPT-2's names but compute another model";
    else if (c->norm != SVK_NORM_LAYERNORM)
        why = "norm=rmsnorm: GPT-2 uses LayerNorm (and its norms have biases)";
    else if (c->mlp != SVK_MLP_GELU)
        why = "mlp=swiglu: GPT-2's MLP is one GELU layer between two Linears";
    else if (c->pos != SVK_POS_LEARNED)
        why = "pos=rope: GPT-2 learns its positions (wpe)";
    else if (!c->bias)
        why = "bias=false: GPT-2's Linear layers have biases";
    else if (!c->tie_embeddings)
        why = "tie_embeddings=false: GPT-2's output layer is its token embedding";
    else if (c->norm_eps != GPT2_NORM_EPS)
        why = "norm_eps is not 1e-5, GPT-2's LayerNorm epsilon";
    if (!why)
        return SVK_OK;
    return svk_error(NULL, SVK_ERROR_UNSUPPORTED, "%s: not exported as GPT-2: %s. python/svk_torch (svk_torch.load) "
                     "takes any libsvk checkpoint to PyTorch", path, why);
}

static svk_status export_file(const svk_st_file *f, const char *path, const char *out_path,
                              const svk_gpt2_params *gp)
{
    svk_model_config c;
    svk_status st = svk_checkpoint_file_config(NULL, f, path, &c);
    if (st == SVK_OK)
        st = check_exportable(&c, path);
    if (st != SVK_OK)
        return st;
    uint64_t elems = 0;
    const size_t n = svk_model_param_totals(&c, &elems);
    svk_param_info *params = svk_calloc(n, sizeof(*params));
    svk_st_entry *e = svk_calloc(n, sizeof(*e));
    char (*names)[GPT2_NAME_MAX] = svk_calloc(n, sizeof(*names));
    float *values = svk_malloc((elems ? elems : 1) * sizeof(float));
    if (!params || !e || !names || !values)
        st = svk_error(NULL, SVK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory converting %s (%" PRIu64 " weights)",
                       path, elems);
    if (st == SVK_OK)
        svk_model_param_list(&c, params, n);
    float *at = values;
    for (size_t i = 0; i < n && st == SVK_OK; i++) {
        const svk_param_info *p = &params[i];
        bool transposed;
        if (!gpt2_name(p, "", names[i], &transposed)) {
            st = svk_error(NULL, SVK_ERROR_INTERNAL, "%s: libsvk's parameter '%s' has no GPT-2 name", __func__, p->name);
            break;
        }
        /* Checked by svk_checkpoint_file_config: present, F32, p's shape. */
        const svk_st_tensor *t = svk_st_find(f, p->name);
        st = take_values(t, path, transposed, at);
        e[i] = (svk_st_entry){names[i], SVK_ST_F32, p->ndim, {p->shape[transposed], p->shape[!transposed]}, at};
        at += p->elems;
    }
    if (st == SVK_OK) {
        const svk_st_meta meta[1] = {{"format", "pt"}};
        st = svk_st_write(NULL, out_path, e, n, meta, 1);
    }
    free(values);
    free(names);
    free(e);
    free(params);
    return st;
}

svk_status svk_gpt2_export(const char *svk_path, const char *gpt2_path, const svk_gpt2_params *params)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, svk_path);
    SVK_CHECK_PATH(NULL, gpt2_path);
    SVK_CHECK_PTR(NULL, params);
    SVK_CHECK_RESERVED(NULL, params->reserved);
    return convert(svk_path, gpt2_path, params, export_file, __func__);
}
