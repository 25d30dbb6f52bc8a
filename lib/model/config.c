/* The model configuration: one table of keys drives parsing from text and
 * JSON and writing JSON, so the three cannot disagree. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "svk/config.h"

svk_model_config svk_model_config_default(void)
{
    return (svk_model_config){
        .vocab = 256, .ctx = 128, .width = 128, .layers = 4, .heads = 4, .mlp_hidden = 0,
        .norm = SVK_NORM_LAYERNORM, .placement = SVK_PLACEMENT_SIAMESE, .mlp = SVK_MLP_GELU,
        .pos = SVK_POS_LEARNED, .bias = true, .tie_embeddings = true,
        .norm_eps = 1e-5f, .rope_theta = 10000.0f,
    };
}

bool svk_model_config_equal(const svk_model_config *a, const svk_model_config *b)
{
    return a && b && a->vocab == b->vocab && a->ctx == b->ctx && a->width == b->width && a->layers == b->layers &&
           a->heads == b->heads && svk_model_config_hidden(a) == svk_model_config_hidden(b) && a->norm == b->norm &&
           a->placement == b->placement && a->mlp == b->mlp && a->pos == b->pos && a->bias == b->bias &&
           a->tie_embeddings == b->tie_embeddings && a->norm_eps == b->norm_eps && a->rope_theta == b->rope_theta;
}

uint32_t svk_model_config_hidden(const svk_model_config *c)
{
    if (!c)
        return 0;
    return c->mlp_hidden ? c->mlp_hidden : 4 * c->width;
}

typedef enum key_type { K_U32, K_F32, K_BOOL, K_ENUM } key_type;

typedef struct key_def {
    const char *name;
    key_type type;
    size_t offset;
    const char *const *names; /* K_ENUM: value names by enum value, NULL-terminated */
} key_def;

static const char *const norm_names[] = {"layernorm", "rmsnorm", NULL};
static const char *const placement_names[] = {"pre", "post", "siamese", NULL};
static const char *const mlp_names[] = {"gelu", "swiglu", NULL};
static const char *const pos_names[] = {"learned", "rope", NULL};

#define KEY(n, t, names) {#n, t, offsetof(svk_model_config, n), names}
static const key_def keys[] = {
    KEY(vocab, K_U32, NULL),      KEY(ctx, K_U32, NULL),          KEY(width, K_U32, NULL),
    KEY(layers, K_U32, NULL),     KEY(heads, K_U32, NULL),        KEY(mlp_hidden, K_U32, NULL),
    KEY(norm, K_ENUM, norm_names), KEY(placement, K_ENUM, placement_names), KEY(mlp, K_ENUM, mlp_names),
    KEY(pos, K_ENUM, pos_names),  KEY(bias, K_BOOL, NULL),        KEY(tie_embeddings, K_BOOL, NULL),
    KEY(norm_eps, K_F32, NULL),   KEY(rope_theta, K_F32, NULL),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const key_def *find_key(const char *name)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].name, name))
            return &keys[i];
    return NULL;
}

static svk_status unknown_key(const char *key)
{
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < N_KEYS; i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", keys[i].name);
    return svk_error(NULL, SVK_ERROR_INVALID_CONFIG, "unknown config key '%s' (keys: %s)", key, list);
}

static svk_status set_text(svk_model_config *c, const key_def *k, const char *value)
{
    void *field = (char *)c + k->offset;
    char *end = NULL;
    errno = 0;
    switch (k->type) {
    case K_U32: {
        unsigned long long v = strtoull(value, &end, 10);
        if (!*value || *end || errno || v > UINT32_MAX || value[0] == '-')
            return svk_error(NULL, SVK_ERROR_INVALID_CONFIG, "config %s=%s: not an integer in 0..%u", k->name, value,
                             UINT32_MAX);
        *(uint32_t *)field = (uint32_t)v;
        return SVK_OK;
    }
    case K_F32: {
        float v = strtof(value, &end);
        if (!*value || *end || errno || !isfinite(v))
            return svk_error(NULL, SVK_ERROR_INVALID_CONFIG, "config %s=%s: not a finite number", k->name, value);
        *(float *)field = v;
        return SVK_OK;
    }
    case K_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "1"))
            *(bool *)field = true;
        else if (!strcmp(value, "false") || !strcmp(value, "0"))
            *(bool *)field = false;
        else
            return svk_error(NULL, SVK_ERROR_INVALID_CONFIG, "config %s=%s: not true or false", k->name, value);
        return SVK_OK;
    case K_ENUM:
        for (int i = 0; k->names[i]; i++)
            if (!strcmp(value, k->names[i])) {
                *(int *)field = i; /* the enums are int-sized, values 0..n-1 */
                return SVK_OK;
            }
        {
            char list[128] = "";
            size_t used = 0;
            for (int i = 0; k->names[i]; i++)
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", k->names[i]);
            return svk_error(NULL, SVK_ERROR_INVALID_CONFIG, "config %s=%s: not one of %s", k->name, value, list);
        }
    }
    return SVK_ERROR_INTERNAL;
}

svk_status svk_model_config_set(svk_model_config *c, const char *key, const char *value)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, c);
    SVK_CHECK_PTR(NULL, key);
    SVK_CHECK_PTR(NULL, value);
    const key_def *k = find_key(key);
    return k ? set_text(c, k, value) : unknown_key(key);
}

#define BAD(...) svk_error(NULL, SVK_ERROR_INVALID_CONFIG, __VA_ARGS__)

svk_status svk_model_config_validate(const svk_model_config *c)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, c);
    SVK_CHECK_RESERVED(NULL, c->reserved);
    if (c->vocab < 2)
        return BAD("config vocab=%u: must be at least 2", c->vocab);
    if (c->ctx < 1)
        return BAD("config ctx=%u: must be at least 1", c->ctx);
    if (c->width < 1)
        return BAD("config width=%u: must be at least 1", c->width);
    if (c->layers < 1 || c->layers > SVK_MAX_LAYERS)
        return BAD("config layers=%u: must be in [1, %u]", c->layers, SVK_MAX_LAYERS);
    if (c->heads < 1 || c->width % c->heads)
        return BAD("config heads=%u: must divide width=%u", c->heads, c->width);
    if (c->pos == SVK_POS_ROPE && (c->width / c->heads) % 2)
        return BAD("config heads=%u: head width %u must be even with pos=rope", c->heads, c->width / c->heads);
    if ((unsigned)c->norm > SVK_NORM_RMSNORM)
        return BAD("config norm=%d: unknown", (int)c->norm);
    if ((unsigned)c->placement > SVK_PLACEMENT_SIAMESE)
        return BAD("config placement=%d: unknown", (int)c->placement);
    if ((unsigned)c->mlp > SVK_MLP_SWIGLU)
        return BAD("config mlp=%d: unknown", (int)c->mlp);
    if ((unsigned)c->pos > SVK_POS_ROPE)
        return BAD("config pos=%d: unknown", (int)c->pos);
    if (!(c->norm_eps > 0) || !isfinite(c->norm_eps))
        return BAD("config norm_eps=%g: must be a finite number > 0", (double)c->norm_eps);
    if (!(c->rope_theta > 0) || !isfinite(c->rope_theta))
        return BAD("config rope_theta=%g: must be a finite number > 0", (double)c->rope_theta);
    /* Sizes: the largest single tensor must be addressable (element counts
     * travel in 32 bits to the shaders). */
    uint64_t F = c->mlp_hidden ? c->mlp_hidden : 4ull * c->width;
    if (F > UINT32_MAX)
        return BAD("config mlp_hidden: 4 * width = %llu is too large", (unsigned long long)F);
    /* Every factor is below 2^32, so none of these products wraps 64 bits. */
    const uint64_t C = c->width;
    const struct {
        const char *name;
        uint64_t elems;
    } weights[] = {
        {"wte.weight [vocab, width]", (uint64_t)c->vocab * C},
        {"wpe.weight [ctx, width]", c->pos == SVK_POS_LEARNED ? (uint64_t)c->ctx * C : 0},
        {"attn.qkv.weight [3 * width, width]", 3 * C * C},
        {"mlp weights [mlp_hidden, width]", F * C},
    };
    for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
        if (weights[i].elems > UINT32_MAX)
            return BAD("config vocab=%u ctx=%u width=%u mlp_hidden=%llu: the weight %s would have %llu elements, "
                       "more than 2^32 - 1",
                       c->vocab, c->ctx, c->width, (unsigned long long)F, weights[i].name,
                       (unsigned long long)weights[i].elems);
    return SVK_OK;
}

svk_status svk_model_config_to_json(const svk_model_config *c, char *buf, size_t size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, c);
    SVK_CHECK_PTR(NULL, buf);
    if (size == 0)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: size is 0", __func__);
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (size_t i = 0; ok && i < N_KEYS; i++) {
        const key_def *k = &keys[i];
        const void *field = (const char *)c + k->offset;
        switch (k->type) {
        case K_U32: {
            uint32_t v = *(const uint32_t *)field;
            if (!strcmp(k->name, "mlp_hidden"))
                v = svk_model_config_hidden(c); /* store what the model uses */
            ok = cJSON_AddNumberToObject(o, k->name, v) != NULL;
            break;
        }
        case K_F32:
            ok = cJSON_AddNumberToObject(o, k->name, (double)*(const float *)field) != NULL;
            break;
        case K_BOOL:
            ok = cJSON_AddBoolToObject(o, k->name, *(const bool *)field) != NULL;
            break;
        case K_ENUM: {
            int v = *(const int *)field;
            ok = v >= 0 && v < 3 && k->names[v] && cJSON_AddStringToObject(o, k->name, k->names[v]) != NULL;
            break;
        }
        }
    }
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return svk_error(NULL, ok ? SVK_ERROR_OUT_OF_HOST_MEMORY : SVK_ERROR_INVALID_CONFIG,
                         "svk_model_config_to_json: %s", ok ? "out of host memory" : "an enum field is out of range");
    size_t len = strlen(text);
    svk_status st = SVK_OK;
    if (len + 1 > size)
        st = svk_error(NULL, SVK_ERROR_INVALID_ARG, "svk_model_config_to_json: needs %zu bytes, got %zu", len + 1, size);
    else
        memcpy(buf, text, len + 1);
    cJSON_free(text);
    return st;
}

/* The most bytes of configuration JSON parsed. svk_model_config_to_json
 * writes about 220 (all 14 keys, no spaces); the limit leaves room for
 * hand-written JSON with whitespace and long decimals. Checked before
 * parsing: a checkpoint's header may be 100 MB, and its configuration is
 * one string in it, which the header's own limit on JSON values does not
 * look inside (cJSON takes some 60 bytes per value: a 104 MB file of
 * nested arrays took 4.3 GB to refuse). */
#define CONFIG_JSON_MAX 4096

/* The configuration is one flat object of known keys: nothing in it may
 * open an object or array but the first brace. Scanned on the text, before
 * cJSON builds anything (it would otherwise build up to its own nesting
 * limit of 1000, and any number of values, before the keys are looked at). */
static svk_status check_flat(const char *json, size_t len)
{
    size_t i = 0;
    while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\r' || json[i] == '\n'))
        i++;
    if (i == len || json[i] != '{')
        return BAD("model config: not a JSON object");
    for (i++; i < len && json[i] != '}'; i++) {
        if (json[i] == '"') { /* a string: brackets in it are text */
            for (i++; i < len && json[i] != '"'; i++)
                if (json[i] == '\\')
                    i++;
        } else if (json[i] == '{' || json[i] == '[') {
            return BAD("model config: a nested %s at byte %zu (the configuration is a flat object of the known "
                       "keys, each a number, a string or true/false)",
                       json[i] == '{' ? "object" : "array", i);
        }
    }
    /* With nothing nested, the first brace outside a string closes the
     * object (or the object is unclosed, which the parser reports). */
    for (i++; i < len; i++)
        if (json[i] != ' ' && json[i] != '\t' && json[i] != '\r' && json[i] != '\n')
            return BAD("model config: text after the object, at byte %zu", i);
    return SVK_OK;
}

svk_status svk_model_config_from_json(const char *json, svk_model_config *out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, json);
    SVK_CHECK_PTR(NULL, out);
    svk_model_config c = svk_model_config_default();
    const size_t len = strnlen(json, CONFIG_JSON_MAX + 1);
    if (len > CONFIG_JSON_MAX)
        return BAD("model config: JSON longer than %d bytes (the %zu keys take about 220)", CONFIG_JSON_MAX, N_KEYS);
    svk_status flat = check_flat(json, len);
    if (flat != SVK_OK)
        return flat;
    /* Null-terminated: text after the object is refused, not ignored (as
     * check_flat has, already). */
    cJSON *o = cJSON_ParseWithOpts(json, NULL, true);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return BAD("model config: not a JSON object");
    }
    svk_status st = SVK_OK;
    /* A key given twice is refused: readers disagree on which one wins. */
    bool seen[N_KEYS] = {false};
    for (const cJSON *it = o->child; it && st == SVK_OK; it = it->next) {
        const key_def *k = find_key(it->string);
        if (!k) {
            st = unknown_key(it->string);
            break;
        }
        if (seen[k - keys]) {
            st = BAD("model config: '%s' appears twice", k->name);
            break;
        }
        seen[k - keys] = true;
        char text[64];
        if (k->type == K_U32 || k->type == K_F32) {
            if (!cJSON_IsNumber(it)) {
                st = BAD("model config: '%s' must be a number", k->name);
                break;
            }
            if (k->type == K_U32 && (it->valuedouble < 0 || it->valuedouble > UINT32_MAX ||
                                     it->valuedouble != floor(it->valuedouble))) {
                st = BAD("model config: '%s'=%g is not an integer in 0..%u", k->name, it->valuedouble, UINT32_MAX);
                break;
            }
            snprintf(text, sizeof(text), k->type == K_U32 ? "%.0f" : "%.9g", it->valuedouble);
        } else if (k->type == K_BOOL) {
            if (!cJSON_IsBool(it)) {
                st = BAD("model config: '%s' must be true or false", k->name);
                break;
            }
            snprintf(text, sizeof(text), "%s", cJSON_IsTrue(it) ? "true" : "false");
        } else {
            if (!cJSON_IsString(it)) {
                st = BAD("model config: '%s' must be a string", k->name);
                break;
            }
            snprintf(text, sizeof(text), "%.60s", it->valuestring);
        }
        st = set_text(&c, k, text);
    }
    cJSON_Delete(o);
    if (st == SVK_OK)
        *out = c;
    return st;
}
