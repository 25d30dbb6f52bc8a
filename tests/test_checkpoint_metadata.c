/*
 * An application's metadata in a checkpoint (svk_save_params.metadata,
 * svk_checkpoint_metadata): entries come back as saved, a missing key is
 * found = false, a value larger than the caller's buffer is refused with
 * the size it needs, and bad entries (a key of libsvk's own, "format", a
 * space or quote in a key, a key too long, a value too long, a key given
 * twice, too many entries, nonzero reserved fields) are refused before
 * anything is written. svk_checkpoint_metadata and svk_checkpoint_config
 * read the header alone: they work on a file whose tensor data was cut off
 * (while a load refuses it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/model.h"
#include "test_util.h"

static tu_tally tally;

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_checkpoint_metadata", &args);
    char dir[] = "/tmp/svk_ckpt_meta_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[256], cut[256];
    snprintf(path, sizeof(path), "%s/run.safetensors", dir);
    snprintf(cut, sizeof(cut), "%s/cut.safetensors", dir);
    svk_model_params p = svk_model_params_default();
    p.config.vocab = 16, p.config.ctx = 8, p.config.width = 8, p.config.layers = 1, p.config.heads = 2;
    p.backend = SVK_BACKEND_CPU;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&p, &m);
    tu_check(&tally, st == SVK_OK, "create: %s", svk_last_error());
    if (st != SVK_OK)
        return tu_finish(&tally);

    char big[2000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    const svk_metadata meta[] = {{"train.position", "1234"}, {"train.data", "text:{\"a\": [1, 2]}\n\t\\"},
                                 {"big", big}};
    svk_save_params sp = svk_save_params_default();
    sp.optimizer = true;
    sp.metadata = meta;
    sp.n_metadata = 3;
    st = svk_model_save_ex(m, path, &sp);
    tu_check(&tally, st == SVK_OK, "save with three entries: %s", svk_last_error());
    char value[4096];
    bool found = false;
    for (int i = 0; i < 3; i++) {
        st = svk_checkpoint_metadata(path, meta[i].key, value, sizeof(value), &found);
        tu_check(&tally, st == SVK_OK && found && !strcmp(value, meta[i].value), "'%s' comes back as saved: %s",
                 meta[i].key, svk_last_error());
    }
    st = svk_checkpoint_metadata(path, "train.nothing", value, sizeof(value), &found);
    tu_check(&tally, st == SVK_OK && !found && !value[0], "a missing key: found false, value empty");
    st = svk_checkpoint_metadata(path, "svk.step", value, sizeof(value), &found);
    tu_check(&tally, st == SVK_OK && found && !strcmp(value, "0"), "libsvk's own keys read too (svk.step '%s')",
             value);
    st = svk_checkpoint_metadata(path, "big", value, 100, &found);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "2000"),
             "a value over the buffer is refused with the bytes it needs: %s", svk_last_error());
    svk_model_config c;
    st = svk_checkpoint_config(path, &c);
    tu_check(&tally, st == SVK_OK && c.width == 8, "its configuration reads: %s", svk_last_error());

    /* The header alone: a copy cut off inside its tensors still answers. */
    unsigned char *bytes = NULL;
    size_t n = 0;
    FILE *f = NULL;
    bool copied = tu_read_file(path, &bytes, &n) && n > 64 && (f = fopen(cut, "wb")) &&
                  fwrite(bytes, 1, n - 64, f) == n - 64;
    if (f)
        copied = fclose(f) == 0 && copied;
    free(bytes);
    tu_check(&tally, copied, "a copy without its last 64 bytes");
    st = svk_checkpoint_metadata(cut, "train.position", value, sizeof(value), &found);
    tu_check(&tally, st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), "truncated"),
             "the cut file's header no longer matches its size: refused (%s)", svk_last_error());
    unlink(cut);

    /* Bad entries: refused, nothing written. */
    static const struct {
        const char *what, *key, *value;
    } bad[] = {
        {"a key of libsvk's own", "svk.config", "{}"},
        {"the key 'format'", "format", "np"},
        {"a space in a key", "train position", "1"},
        {"a quote in a key", "train\"", "1"},
        {"an empty key", "", "1"},
        {"a key of 129 bytes", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                               "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", "1"},
        {"a NULL value", "train.x", NULL},
    };
    char other[256];
    snprintf(other, sizeof(other), "%s/other.safetensors", dir);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svk_metadata e = {bad[i].key, bad[i].value};
        sp.metadata = &e;
        sp.n_metadata = 1;
        st = svk_model_save_ex(m, other, &sp);
        tu_check(&tally, st == SVK_ERROR_INVALID_ARG && access(other, F_OK) != 0, "%s: refused, nothing written (%s)",
                 bad[i].what, svk_last_error());
    }
    char *huge = malloc(SVK_METADATA_VALUE_MAX + 2);
    if (huge) {
        memset(huge, 'v', SVK_METADATA_VALUE_MAX + 1);
        huge[SVK_METADATA_VALUE_MAX + 1] = '\0';
        svk_metadata e = {"train.huge", huge};
        sp.metadata = &e;
        st = svk_model_save_ex(m, other, &sp);
        tu_check(&tally, st == SVK_ERROR_INVALID_ARG && access(other, F_OK) != 0, "a value over %u bytes refused (%s)",
                 SVK_METADATA_VALUE_MAX, svk_last_error());
        free(huge);
    }
    svk_metadata twice[2] = {{"train.a", "1"}, {"train.a", "2"}};
    sp.metadata = twice;
    sp.n_metadata = 2;
    st = svk_model_save_ex(m, other, &sp);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && strstr(svk_last_error(), "twice"), "a key given twice: %s",
             svk_last_error());
    sp.n_metadata = SVK_METADATA_MAX + 1;
    st = svk_model_save_ex(m, other, &sp);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG, "%u entries refused: %s", SVK_METADATA_MAX + 1, svk_last_error());
    sp = svk_save_params_default();
    sp.reserved[2] = 1;
    st = svk_model_save_ex(m, other, &sp);
    tu_check(&tally, st == SVK_ERROR_INVALID_ARG && access(other, F_OK) != 0, "a nonzero reserved field refused: %s",
             svk_last_error());
    svk_model_destroy(&m);
    unlink(path);
    rmdir(dir);
    return tu_finish(&tally);
}
