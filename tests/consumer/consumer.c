/*
 * An application of libsvk that knows only what is installed: the public
 * headers and the library, found through svk.pc (tests/install_test.sh)
 * or a parent project's dependency('svk') (tests/subproject.sh). It needs
 * no device: a few CPU-backend training steps of a tiny model reach the
 * reference kernels, cJSON (through the configuration's JSON) and libm, so
 * a static link missing any of them fails here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <svk/svk.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        svk_status st_ = (call);                                                           \
        if (st_ != SVK_OK) {                                                               \
            fprintf(stderr, "consumer: %s: %s: %s\n", #call, svk_status_string(st_),       \
                    svk_last_error());                                                     \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

/* The headers' version macros must agree with one another and with the
 * library the program was linked with. */
static int check_version(void)
{
    char macros[64];
    snprintf(macros, sizeof macros, "%d.%d.%d", SVK_VERSION_MAJOR, SVK_VERSION_MINOR, SVK_VERSION_PATCH);
    if (strcmp(macros, SVK_VERSION_STRING) != 0 || strcmp(svk_version(), SVK_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: versions disagree: macros %s, SVK_VERSION_STRING %s, svk_version() %s\n",
                macros, SVK_VERSION_STRING, svk_version());
        return 1;
    }
    return 0;
}

int main(void)
{
    if (check_version() != 0)
        return 1;

    svk_model_config cfg = svk_model_config_default();
    CHECK(svk_model_config_set(&cfg, "vocab", "16"));
    CHECK(svk_model_config_set(&cfg, "ctx", "8"));
    CHECK(svk_model_config_set(&cfg, "width", "8"));
    CHECK(svk_model_config_set(&cfg, "layers", "1"));
    CHECK(svk_model_config_set(&cfg, "heads", "2"));
    char json[1024];
    CHECK(svk_model_config_to_json(&cfg, json, sizeof json));
    svk_model_config back;
    CHECK(svk_model_config_from_json(json, &back));
    if (!svk_model_config_equal(&cfg, &back)) {
        fprintf(stderr, "consumer: the configuration changed through JSON: %s\n", json);
        return 1;
    }

    svk_model_params mp = svk_model_params_default();
    mp.config = cfg;
    mp.backend = SVK_BACKEND_CPU;
    svk_model *model = NULL;
    CHECK(svk_model_create(&mp, &model));
    const int32_t tokens[4] = {1, 2, 3, 4}, targets[4] = {2, 3, 4, 5};
    float first = 0.0f, loss = 0.0f;
    for (int i = 0; i < 5; i++) {
        svk_status st = svk_model_train_step(model, tokens, targets, 1, 4, 1e-2f, &loss);
        if (st != SVK_OK) {
            fprintf(stderr, "consumer: step %d: %s: %s\n", i, svk_status_string(st), svk_last_error());
            svk_model_destroy(&model);
            return 1;
        }
        if (i == 0)
            first = loss;
    }
    svk_model_destroy(&model);
    if (!isfinite(loss) || !(loss < first)) {
        fprintf(stderr, "consumer: loss went from %g to %g in 5 steps on one batch\n", first, loss);
        return 1;
    }
    printf("consumer: libsvk %s, %s, loss %.4f -> %.4f\n", svk_version(), svk_status_string(SVK_OK),
           first, loss);
    return 0;
}
