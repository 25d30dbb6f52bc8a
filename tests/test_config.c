/*
 * The model configuration: defaults match the specification's table, every
 * key parses from text and round-trips through JSON, and every rule of the
 * specification is enforced with a message naming the key and the value.
 */
#include <stdio.h>
#include <string.h>

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
    tu_check(&t, st == SVK_OK && !memcmp(&back, &c, sizeof(c)), "JSON round trip: %s", json);

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
    st = svk_model_config_to_json(&c, json, 10);
    tu_check(&t, st == SVK_ERROR_INVALID_ARG, "to_json into a small buffer: %s", svk_last_error());
    return tu_finish(&t);
}
