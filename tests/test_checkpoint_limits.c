/*
 * Checkpoints that would exhaust the machine or poison a run, and the step
 * counter's end:
 *   - "layers65536": a file of 408 bytes whose configuration claims 65536
 *     layers is refused by svk_checkpoint_config (what svk-train --resume
 *     and svk-generate call before building a model) and by a load, within
 *     a second or so, not after building the model;
 *   - "plan_layers": the plan of a deep model is built in time linear in its
 *     layers (parameter lookup by name was quadratic: 65536 layers took
 *     over an hour);
 *   - "deep_file": a real checkpoint of 2048 layers goes through
 *     svk_checkpoint_config, model creation and a load with its optimiser
 *     state in a few seconds (each lookup in the loader was linear);
 *   - "many_tensors": headers of a million tensors, and of 150,000 (under the
 *     parser's limit on JSON values), are refused quickly;
 *   - "step_limit": a model stops at SVK_MAX_STEP with a status instead of
 *     wrapping; a checkpoint at the limit loads, one past it does not.
 * Time bounds are generous (they are there to catch a return of quadratic
 * work, which costs minutes to hours at these sizes, not to time the code),
 * and an alarm ends the test if a case hangs, naming the case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_util.h"
#include "io/safetensors.h"
#include "model/model_internal.h"
#include "test_util.h"

/* Seconds a case may take before it counts as failed, and before the alarm
 * ends the process: far above what linear work costs here (3 s at most
 * under the sanitizers, on two busy cores), and far below what quadratic
 * work cost (48 and 115 s, optimised, without sanitizers). */
#define BOUND_S 20.0
#define ALARM_S 120

static void start_case(const char *name)
{
    tu_watchdog(ALARM_S, "test_checkpoint_limits case %s (quadratic work?)", name);
}

static bool write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f))
        ok = false;
    if (!ok)
        printf("cannot write %s\n", path);
    return ok;
}

/* A safetensors file of a header text (padded with spaces to 8 bytes) and
 * data. */
static bool write_st(const char *path, const char *header, const void *data, size_t data_n)
{
    size_t h = strlen(header), padded = (h + 7) / 8 * 8, n = 8 + padded + data_n;
    unsigned char *b = malloc(n);
    if (!b)
        return false;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(b + 8, header, h);
    memset(b + 8 + h, ' ', padded - h);
    if (data_n)
        memcpy(b + 8 + padded, data, data_n);
    bool ok = write_file(path, b, n);
    free(b);
    return ok;
}

/* The configuration as a JSON string literal's contents (quotes escaped). */
static void config_literal(const svk_model_config *c, char *out, size_t cap)
{
    char json[1024];
    svk_model_config_to_json(c, json, sizeof(json));
    size_t o = 0;
    for (const char *s = json; *s && o + 2 < cap; s++) {
        if (*s == '"')
            out[o++] = '\\';
        out[o++] = *s;
    }
    out[o] = 0;
}

/* The smallest configuration: every tensor of one element or a few. */
static svk_model_config narrow_config(uint32_t layers)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = 2, c.ctx = 1, c.width = 1, c.heads = 1, c.mlp_hidden = 1, c.layers = layers;
    return c;
}

/* Item 5 of the issue: the configuration claims 65536 layers, the file
 * holds one tensor. */
static void layers65536(tu_tally *t, const char *dir)
{
    start_case("layers65536");
    char path[512], lit[1200], header[2048];
    snprintf(path, sizeof(path), "%s/layers65536.safetensors", dir);
    svk_model_config claimed = narrow_config(SVK_MAX_LAYERS);
    config_literal(&claimed, lit, sizeof(lit));
    snprintf(header, sizeof(header),
             "{\"__metadata__\":{\"format\":\"pt\",\"svk.config\":\"%s\",\"svk.step\":\"0\"},"
             "\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[0,8]}}",
             lit);
    const float data[2] = {0.5f, -0.5f};
    if (!write_st(path, header, data, sizeof(data))) {
        tu_check(t, false, "layers65536: cannot write the file");
        return;
    }
    FILE *f = fopen(path, "rb");
    long size = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
    if (f)
        fclose(f);

    double t0 = tu_now();
    svk_model_config got;
    svk_status st = svk_checkpoint_config(path, &got);
    double dt = tu_now() - t0;
    const char *msg = svk_last_error();
    tu_check(t, st == SVK_ERROR_BAD_CHECKPOINT && strstr(msg, path) && strstr(msg, "layers=65536") &&
                    strstr(msg, "needs") && dt < BOUND_S,
             "layers65536: a %ld-byte file claiming 65536 layers: svk_checkpoint_config says %s in %.3f s: %s", size,
             svk_status_string(st), dt, msg);

    /* The same file loaded into a model: refused, the model unchanged. */
    svk_model_config tiny = ckpt_tiny_config();
    svk_model *m = ckpt_model(&tiny, 3, 1);
    ckpt_state before = {0}, after = {0};
    bool ok = m && ckpt_state_get(m, &before);
    t0 = tu_now();
    st = ok ? svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER) : SVK_ERROR_INTERNAL;
    dt = tu_now() - t0;
    msg = svk_last_error();
    ok = ok && st == SVK_ERROR_BAD_CHECKPOINT && strstr(msg, path) && dt < BOUND_S && ckpt_state_get(m, &after) &&
         ckpt_state_equal(&before, &after);
    tu_check(t, ok, "layers65536: loaded into a model: %s in %.3f s, the model unchanged: %s", svk_status_string(st),
             dt, msg);
    ckpt_state_free(&before);
    ckpt_state_free(&after);
    svk_model_destroy(&m);
    unlink(path);
}

/* The plan of a deep model. At 8192 layers (164,000 parameters, 1.6
 * million lookups by name) the quadratic search took minutes. */
static void plan_layers(tu_tally *t)
{
    start_case("plan_layers");
    const uint32_t layers = 8192;
    svk_model_config c = narrow_config(layers);
    svk_plan p;
    double t0 = tu_now();
    svk_status st = svk_plan_build(NULL, &c, 1, 1, NULL, &p);
    double dt = tu_now() - t0;
    /* Every parameter reference resolved: a failed lookup is SVK_NONE. */
    size_t unresolved = 0;
    for (size_t i = 0; st == SVK_OK && i < p.n_ops; i++)
        if (p.ops[i].code == SVK_OP_GEMM && (p.ops[i].gemm.b == SVK_NONE || p.ops[i].gemm.c == SVK_NONE))
            unresolved++;
    tu_check(t, st == SVK_OK && unresolved == 0 && dt < BOUND_S,
             "plan_layers: the plan of %u layers (%zu parameters) built in %.3f s (%s), %zu GEMMs unresolved", layers,
             st == SVK_OK ? p.n_params : 0, dt, st == SVK_OK ? "ok" : svk_last_error(), unresolved);
    if (st == SVK_OK)
        svk_plan_free(&p);
}

/* A real deep checkpoint, through what svk-train --resume does. */
static void deep_file(tu_tally *t, const char *dir)
{
    start_case("deep_file");
    char path[512];
    snprintf(path, sizeof(path), "%s/deep.safetensors", dir);
    svk_model_params mp = svk_model_params_default();
    mp.config = narrow_config(2048);
    mp.backend = SVK_BACKEND_CPU;
    svk_model *a = NULL, *b = NULL;
    svk_status st = svk_model_create(&mp, &a);
    if (st == SVK_OK)
        st = svk_model_save(a, path, true);
    if (st != SVK_OK) {
        tu_check(t, false, "deep_file: cannot make the checkpoint: %s", svk_last_error());
        svk_model_destroy(&a);
        return;
    }
    double t0 = tu_now();
    svk_model_config c;
    st = svk_checkpoint_config(path, &c);
    mp.config = c;
    if (st == SVK_OK)
        st = svk_model_create(&mp, &b);
    if (st == SVK_OK)
        st = svk_model_load(b, path, true);
    double dt = tu_now() - t0;
    ckpt_state want = {0}, got = {0};
    bool ok = st == SVK_OK && ckpt_state_get(a, &want) && ckpt_state_get(b, &got) && ckpt_state_equal(&want, &got);
    tu_check(t, ok && dt < BOUND_S,
             "deep_file: 2048 layers with their moments: svk_checkpoint_config, create and load in %.3f s (%s)", dt,
             st == SVK_OK ? (ok ? "the same state" : "a different state") : svk_last_error());
    ckpt_state_free(&want);
    ckpt_state_free(&got);
    svk_model_destroy(&a);
    svk_model_destroy(&b);
    unlink(path);
}

/* A header of n tensors "t<i>" of one element each, with the tiny
 * configuration. */
static bool many_tensor_file(const char *path, size_t n)
{
    svk_model_config tiny = ckpt_tiny_config();
    char lit[1200];
    config_literal(&tiny, lit, sizeof(lit));
    size_t cap = 256 + strlen(lit) + n * 80;
    char *h = malloc(cap);
    float *data = calloc(n ? n : 1, sizeof(float));
    if (!h || !data) {
        free(h);
        free(data);
        return false;
    }
    size_t o = (size_t)snprintf(h, cap, "{\"__metadata__\":{\"format\":\"pt\",\"svk.config\":\"%s\",\"svk.step\":\"0\"}",
                                lit);
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(h + o, cap - o, ",\"t%zu\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}", i,
                              4 * i, 4 * i + 4);
    snprintf(h + o, cap - o, "}");
    bool ok = write_st(path, h, data, n * sizeof(float));
    free(h);
    free(data);
    return ok;
}

static void many_tensors(tu_tally *t, const char *dir)
{
    static const size_t counts[] = {1000000, 150000};
    char path[512];
    snprintf(path, sizeof(path), "%s/many.safetensors", dir);
    svk_model_config tiny = ckpt_tiny_config();
    svk_model *m = ckpt_model(&tiny, 3, 1);
    ckpt_state before = {0}, after = {0};
    if (!m || !ckpt_state_get(m, &before)) {
        tu_check(t, false, "many_tensors: no model");
        svk_model_destroy(&m);
        return;
    }
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        start_case("many_tensors");
        if (!many_tensor_file(path, counts[i])) {
            tu_check(t, false, "many_tensors: cannot write %zu tensors", counts[i]);
            continue;
        }
        double t0 = tu_now();
        svk_model_config c;
        svk_status st = svk_checkpoint_config(path, &c);
        double dt = tu_now() - t0;
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", svk_last_error());
        t0 = tu_now();
        svk_status st2 = svk_model_load(m, path, true);
        double dt2 = tu_now() - t0;
        bool ok = st == SVK_ERROR_BAD_CHECKPOINT && st2 == SVK_ERROR_BAD_CHECKPOINT && dt < BOUND_S &&
                  dt2 < BOUND_S && ckpt_state_get(m, &after) && ckpt_state_equal(&before, &after);
        ckpt_state_free(&after);
        tu_check(t, ok, "many_tensors: %zu tensors refused by svk_checkpoint_config in %.3f s (%s), by a load in %.3f s "
                        "(%s)",
                 counts[i], dt, msg, dt2, svk_last_error());
    }
    unlink(path);
    ckpt_state_free(&before);
    svk_model_destroy(&m);
}

/* The writer never makes a file the reader refuses: 130,000 tensors of 8
 * dimensions (17 JSON values each, over SVK_ST_MAX_VALUES in all) are
 * refused before anything is created, and a file of 13,000 reads back. */
static void write_limit(tu_tally *t, const char *dir)
{
    start_case("write_limit");
    enum { N = 130000 };
    char path[512];
    snprintf(path, sizeof(path), "%s/wide.safetensors", dir);
    svk_st_entry *e = calloc(N, sizeof(*e));
    char (*names)[16] = calloc(N, sizeof(*names));
    static const float one = 1.0f;
    if (!e || !names) {
        tu_check(t, false, "write_limit: out of memory");
        free(e);
        free(names);
        return;
    }
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "t%zu", i);
        e[i] = (svk_st_entry){names[i], SVK_ST_F32, 8, {1, 1, 1, 1, 1, 1, 1, 1}, &one};
    }
    svk_status st = svk_st_write(NULL, path, e, N, NULL, 0);
    tu_check(t, st == SVK_ERROR_TOO_LARGE && strstr(svk_last_error(), "nothing was written") && access(path, F_OK) != 0,
             "write_limit: %d tensors refused before anything is written (%s)", N, svk_last_error());
    st = svk_st_write(NULL, path, e, N / 10, NULL, 0);
    svk_st_file f = {0};
    if (st == SVK_OK)
        st = svk_st_read(NULL, path, &f);
    tu_check(t, st == SVK_OK && f.n_tensors == N / 10, "write_limit: %d tensors write and read back: %s", N / 10,
             svk_last_error());
    svk_st_free(&f);
    unlink(path);
    free(e);
    free(names);
}

/* A copy of checkpoint src at dst with "svk.step" set to step. */
static bool with_step(const char *src, const char *dst, const char *step)
{
    svk_st_file f;
    if (svk_st_read(NULL, src, &f) != SVK_OK)
        return false;
    svk_st_entry *e = calloc(f.n_tensors, sizeof(*e));
    svk_st_meta *meta = calloc(f.n_meta + 1, sizeof(*meta));
    bool ok = e && meta;
    for (size_t i = 0; ok && i < f.n_tensors; i++) {
        const svk_st_tensor *x = &f.tensors[i];
        e[i] = (svk_st_entry){x->name, x->dtype, x->ndim, {0}, x->data};
        memcpy(e[i].shape, x->shape, sizeof(e[i].shape));
    }
    size_t n_meta = 0;
    for (size_t i = 0; ok && i < f.n_meta; i++)
        if (strcmp(f.meta[i].key, "svk.step"))
            meta[n_meta++] = f.meta[i];
    if (ok) {
        meta[n_meta++] = (svk_st_meta){"svk.step", (char *)step};
        ok = svk_st_write(NULL, dst, e, f.n_tensors, meta, n_meta) == SVK_OK;
    }
    free(e);
    free(meta);
    svk_st_free(&f);
    return ok;
}

static void step_limit(tu_tally *t, const char *dir)
{
    start_case("step_limit");
    char base[512], path[512], max_s[32], below_s[32], above_s[32];
    snprintf(base, sizeof(base), "%s/step.safetensors", dir);
    snprintf(path, sizeof(path), "%s/step-edited.safetensors", dir);
    snprintf(max_s, sizeof(max_s), "%llu", (unsigned long long)SVK_MAX_STEP);
    snprintf(below_s, sizeof(below_s), "%llu", (unsigned long long)SVK_MAX_STEP - 1);
    snprintf(above_s, sizeof(above_s), "%llu", (unsigned long long)SVK_MAX_STEP + 1);
    tu_check(t, SVK_MAX_STEP == 9007199254740992ull && (double)SVK_MAX_STEP == 9007199254740992.0,
             "step_limit: SVK_MAX_STEP is 2^53, exact in a double");
    svk_model_config c = ckpt_tiny_config();
    svk_model *m = ckpt_model(&c, 4, 2);
    if (!m || svk_model_save(m, base, true) != SVK_OK) {
        tu_check(t, false, "step_limit: no checkpoint: %s", svk_last_error());
        svk_model_destroy(&m);
        return;
    }
    enum { B = 2, T = 8 };
    int32_t tok[B * T], tgt[B * T];
    for (int i = 0; i < B * T; i++)
        tok[i] = i % 16, tgt[i] = (i + 3) % 16;

    /* Refused: past 2^64 (wraps), 2^64 - 1 (the issue's), SVK_MAX_STEP + 1. */
    const char *values[3] = {"18446744073709551616", "18446744073709551615", above_s};
    for (int i = 0; i < 3; i++) {
        ckpt_state before = {0}, after = {0};
        bool ok = with_step(base, path, values[i]) && ckpt_state_get(m, &before);
        svk_status st = ok ? svk_model_load(m, path, true) : SVK_ERROR_INTERNAL;
        ok = ok && st == SVK_ERROR_BAD_CHECKPOINT && strstr(svk_last_error(), path) && ckpt_state_get(m, &after) &&
             ckpt_state_equal(&before, &after);
        tu_check(t, ok, "step_limit: svk.step %s refused, the model unchanged: %s", values[i], svk_last_error());
        ckpt_state_free(&before);
        ckpt_state_free(&after);
    }

    /* At the limit: loads; the next step is refused with the model as it
     * was, and so is every one after. */
    svk_status st = with_step(base, path, max_s) ? svk_model_load(m, path, true) : SVK_ERROR_INTERNAL;
    tu_check(t, st == SVK_OK && svk_model_step(m) == SVK_MAX_STEP, "step_limit: svk.step %s (SVK_MAX_STEP) loads: %s",
             max_s, st == SVK_OK ? "ok" : svk_last_error());
    ckpt_state before = {0}, after = {0};
    bool ok = ckpt_state_get(m, &before);
    float loss = 0;
    st = svk_model_train_step(m, tok, tgt, B, T, 1e-2f, &loss);
    svk_status st2 = svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL);
    ok = ok && st == SVK_ERROR_INVALID_STATE && st2 == SVK_ERROR_INVALID_STATE &&
         strstr(svk_last_error(), "SVK_MAX_STEP") && ckpt_state_get(m, &after) && ckpt_state_equal(&before, &after) &&
         svk_model_step(m) == SVK_MAX_STEP;
    tu_check(t, ok, "step_limit: at SVK_MAX_STEP svk_model_train_step refuses (%s, %s), the model unchanged: %s",
             svk_status_string(st), svk_status_string(st2), svk_last_error());
    ckpt_state_free(&before);
    ckpt_state_free(&after);
    /* Saved at the limit, it loads again at the limit. */
    st = svk_model_save(m, path, true);
    if (st == SVK_OK)
        st = svk_model_load(m, path, true);
    tu_check(t, st == SVK_OK && svk_model_step(m) == SVK_MAX_STEP, "step_limit: saved at SVK_MAX_STEP, loads: %s",
             st == SVK_OK ? "ok" : svk_last_error());

    /* One below: one more step (left in flight, so that the next call must
     * settle it to know the count), then refused. */
    st = with_step(base, path, below_s) ? svk_model_load(m, path, true) : SVK_ERROR_INTERNAL;
    if (st == SVK_OK)
        st = svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL);
    st2 = st == SVK_OK ? svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL) : st;
    tu_check(t, st == SVK_OK && st2 == SVK_ERROR_INVALID_STATE && svk_model_step(m) == SVK_MAX_STEP,
             "step_limit: from SVK_MAX_STEP - 1 one step runs (%s) and the next is refused (%s), at step %llu: %s",
             svk_status_string(st), svk_status_string(st2), (unsigned long long)svk_model_step(m), svk_last_error());

    /* A skipped step does not count: from SVK_MAX_STEP - 1 with a NaN
     * weight, the step in flight is skipped, so the next may still run. */
    st = with_step(base, path, below_s) ? SVK_OK : SVK_ERROR_INTERNAL;
    svk_st_file f;
    if (st == SVK_OK && (st = svk_st_read(NULL, path, &f)) == SVK_OK) {
        /* Poison wte.weight[0] in the bytes, then load with the opt-in. */
        const svk_st_tensor *w = svk_st_find(&f, "wte.weight");
        size_t at = w ? (size_t)((const unsigned char *)w->data - (const unsigned char *)f.blob) : 0;
        float nan = NAN;
        unsigned char *bytes = f.blob;
        if (w)
            memcpy(bytes + at, &nan, sizeof(nan));
        st = w && write_file(path, f.blob, f.blob_size) ? SVK_OK : SVK_ERROR_INTERNAL;
        svk_st_free(&f);
    }
    if (st == SVK_OK)
        st = svk_model_load_ex(m, path, SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE);
    if (st == SVK_OK)
        st = svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL);
    st2 = st == SVK_OK ? svk_model_train_step(m, tok, tgt, B, T, 1e-2f, NULL) : st;
    svk_step_info info = {0};
    if (st2 == SVK_OK)
        st2 = svk_model_last_step(m, &info);
    tu_check(t, st == SVK_OK && st2 == SVK_OK && info.skipped && svk_model_step(m) == SVK_MAX_STEP - 1,
             "step_limit: skipped steps at SVK_MAX_STEP - 1 do not count (%s, %s, step %llu): %s",
             svk_status_string(st), svk_status_string(st2), (unsigned long long)svk_model_step(m), svk_last_error());
    svk_model_destroy(&m);
    unlink(base);
    unlink(path);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_checkpoint_limits", &args);
    tu_tally t = {0, 0};
    char dir[] = "/tmp/svk-limits-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    static const struct {
        const char *name;
        void (*fn)(tu_tally *, const char *);
    } cases[] = {
        {"layers65536", layers65536}, {"deep_file", deep_file}, {"many_tensors", many_tensors},
        {"step_limit", step_limit}, {"write_limit", write_limit},
    };
    if (!args.filter || strstr("plan_layers", args.filter))
        plan_layers(&t);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!args.filter || strstr(cases[i].name, args.filter))
            cases[i].fn(&t, dir);
    tu_watchdog_off();
    rmdir(dir);
    return tu_finish(&t);
}
