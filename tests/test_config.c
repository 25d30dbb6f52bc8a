/*
 * The model configuration: defaults match the specification's table, every
 * key parses from text and round-trips through JSON, and every rule of the
 * specification is enforced with a message naming the key and the value.
 * JSON that would cost memory or time before its keys are read (megabytes,
 * nesting, text after the object) is refused on its text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "svk/config.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_config", &args);
    tu_tally t = {0, 0};
    svk_model_config c = svk_model_config_default();
    tu_check(&t, c.vocab == 256 && c.ctx == 128 && c.width == 128 && c.layers == 4 && c.heads == 4 &&
                     svk_model_config_hidden(&c) == 512 && c.norm == SVK_NORM_LAYERNORM &&
                     c.placement == SVK_PLACEMENT_SIAMESE && c.mlp == SVK_MLP_GELU && c.pos == SVK_POS_LEARNED &&
                     c.bias && c.tie_embeddings && c.norm_eps == 1e-5f && c.rope_theta == 10000.0f,
             "defaults are the specification's");
    tu_check(&t, svk_model_config_validate(&c) == SVK_OK, "defaults validate");

    /* Text -> config -> JSON -> config. */
    static const char *const kv[][2] = {
        {"vocab", "300"}, {"ctx", "64"}, {"width", "96"}, {"layers", "2"}, {"heads", "6"}, {"mlp_hidden", "200"},
        {"norm", "rmsnorm"}, {"placement", "pre"}, {"mlp", "swiglu"}, {"pos", "rope"}, {"bias", "false"},
        {"tie_embeddings", "false"}, {"norm_eps", "1e-6"}, {"rope_theta", "500000"},
    };
    svk_status st = SVK_OK;
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && st == SVK_OK; i++)
        st = svk_model_config_set(&c, kv[i][0], kv[i][1]);
    tu_check(&t, st == SVK_OK && c.vocab == 300 && c.heads == 6 && c.norm == SVK_NORM_RMSNORM && c.pos == SVK_POS_ROPE &&
                     !c.bias && c.rope_theta == 500000.0f && c.norm_eps == 1e-6f,
             "every key set from text");
    char json[1024];
    st = svk_model_config_to_json(&c, json, sizeof(json));
    svk_model_config back;
    if (st == SVK_OK)
        st = svk_model_config_from_json(json, &back);
    /* Field by field: memcmp would also compare the padding after the
     * bools, which struct copies need not preserve (clang's ASan build
     * left stack bytes there). */
    tu_check(&t, st == SVK_OK && svk_model_config_equal(&back, &c) && back.mlp_hidden == c.mlp_hidden &&
                     !memcmp(back.reserved, c.reserved, sizeof(c.reserved)),
             "JSON round trip: %s", json);

    /* Bad text. */
    svk_model_config d = svk_model_config_default();
    st = svk_model_config_set(&d, "colour", "blue");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "colour"), "unknown key: %s",
             svk_last_error());
    st = svk_model_config_set(&d, "width", "12x");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "12x"), "bad integer: %s", svk_last_error());
    st = svk_model_config_set(&d, "width", "-3");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "negative integer: %s", svk_last_error());
    st = svk_model_config_set(&d, "norm", "batchnorm");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "layernorm"), "bad enum: %s",
             svk_last_error());
    st = svk_model_config_set(&d, "bias", "yes");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "bad bool: %s", svk_last_error());
    st = svk_model_config_set(&d, "norm_eps", "nan");
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "non-finite float: %s", svk_last_error());

    /* The specification's rules. */
    static const struct {
        const char *key, *value, *needle;
    } rules[] = {
        {"vocab", "1", "vocab=1"},        {"ctx", "0", "ctx=0"},       {"width", "0", "width=0"},
        {"layers", "0", "layers=0"},      {"heads", "3", "heads=3"},   {"heads", "0", "heads=0"},
        {"norm_eps", "0", "norm_eps"},    {"rope_theta", "-1", "rope_theta"},
        {"vocab", "4294967295", "2^32"},
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        svk_model_config r = svk_model_config_default();
        st = svk_model_config_set(&r, rules[i].key, rules[i].value);
        if (st == SVK_OK)
            st = svk_model_config_validate(&r);
        tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), rules[i].needle), "%s=%s refused: %s",
                 rules[i].key, rules[i].value, svk_last_error());
    }
    svk_model_config r = svk_model_config_default();
    svk_model_config_set(&r, "width", "12");
    svk_model_config_set(&r, "heads", "4"); /* head width 3 */
    svk_model_config_set(&r, "pos", "rope");
    st = svk_model_config_validate(&r);
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "even"), "odd head width with rope: %s",
             svk_last_error());
    st = svk_model_config_from_json("{\"width\": \"wide\"}", &r);
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "JSON with a mistyped value: %s", svk_last_error());
    st = svk_model_config_from_json("{\"width\": 1.5}", &r);
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "JSON with a fractional integer: %s", svk_last_error());
    st = svk_model_config_from_json("not json", &r);
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG, "not JSON: %s", svk_last_error());

    /* Item 6 of the issue: JSON that costs memory before its keys are
     * looked at is refused on its text, before parsing. */
    enum { HUGE = 8 << 20 };
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const long rss0 = ru.ru_maxrss; /* KiB, the high-water mark */
    char *big = malloc(HUGE + 64);
    size_t o = (size_t)sprintf(big, "{\"vocab\": 16, \"x\": [");
    while (o < HUGE)
        o += (size_t)sprintf(big + o, "[0,0,0,0],");
    sprintf(big + o, "[]]}");
    st = svk_model_config_from_json(big, &r);
    getrusage(RUSAGE_SELF, &ru);
    /* Parsed, the arrays took some 330 MB; the text itself is 8. */
    const long grew_mb = (ru.ru_maxrss - rss0) / 1024;
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "longer than 4096 bytes") && grew_mb < 64,
             "8 MB of nested arrays refused before parsing, the peak memory %ld MB higher: %s", grew_mb,
             svk_last_error());
    /* 900 deep: within cJSON's own limit of 1000 and within 4096 bytes. */
    o = (size_t)sprintf(big, "{\"vocab\": ");
    memset(big + o, '[', 900);
    memset(big + o + 900, ']', 900);
    sprintf(big + o + 1800, "}");
    st = svk_model_config_from_json(big, &r);
    tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), "nested array at byte 10"),
             "nesting 900 deep refused: %s", svk_last_error());
    free(big);
    static const struct {
        const char *json, *needle;
    } flat[] = {
        {"{\"width\": [8]}", "nested array at byte 10"},
        {"{\"extra\": {\"a\": 1}}", "nested object at byte 10"},
        {"{\"dropout\": 0.1}", "unknown config key 'dropout'"},          /* flat, but not a key */
        {"{\"norm\": \"[{layernorm\"}", "not one of"},                   /* brackets in a string are text */
        {"{\"norm\": \"a\\\"[\", \"vocab\": [2]}", "nested array at byte 26"}, /* an escaped quote */
        {"{\"vocab\": 16} {", "text after the object, at byte 14"},        /* text after the object */
        {"{\"vocab\": 16", "not a JSON object"},                           /* unclosed */
        {"[{\"vocab\": 16}]", "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof(flat) / sizeof(flat[0]); i++) {
        st = svk_model_config_from_json(flat[i].json, &r);
        tu_check(&t, st == SVK_ERROR_INVALID_CONFIG && strstr(svk_last_error(), flat[i].needle), "%s refused: %s",
                 flat[i].json, svk_last_error());
    }
    st = svk_model_config_from_json("  {\"vocab\": 300, \"norm\": \"rmsnorm\"}\n", &r);
    tu_check(&t, st == SVK_OK && r.vocab == 300 && r.norm == SVK_NORM_RMSNORM,
             "a flat object with spaces around it parses: %s", st == SVK_OK ? "ok" : svk_last_error());
    st = svk_model_config_to_json(&c, json, 10);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "to_json into a small buffer: %s", svk_last_error());
    return tu_finish(&t);
}
