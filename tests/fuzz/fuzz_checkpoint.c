/*
 * libFuzzer target for the checkpoint loader. Each input is a whole file:
 * svk_st_parse reads it as safetensors, then svk_checkpoint_apply loads it
 * into a tiny CPU model of each configuration in fuzz_configs.c, with the
 * optimiser state, without it, and with non-finite values allowed, so that
 * the configuration, name, shape, dtype and value checks all run on
 * whatever the parser let through.
 *
 * Besides the sanitizers (built with -fsanitize=fuzzer,address,undefined,
 * every UBSan report fatal; leaks are reported at the end of each input),
 * the target checks what model.h promises, and aborts (a crash libFuzzer
 * keeps) on a miss:
 *   - a refusal is SVK_ERROR_BAD_CHECKPOINT with a message naming the file,
 *     and the model is bit for bit as it was;
 *   - a parsed file describes only bytes of the input, back to back;
 *   - a load that succeeds leaves the model holding exactly the file's
 *     tensors (and, without the optimiser, zero moments and step 0), and
 *     with the optimiser, finite moments, v >= 0 and a step of at most
 *     SVK_MAX_STEP;
 *   - what svk_checkpoint_config does with the parsed file
 *     (svk_checkpoint_file_config) accepts every file some load accepts,
 *     with that model's configuration, or refuses it as a load would;
 *   - the file's header alone (svk_st_parse_head, what svk_checkpoint_config
 *     and svk_checkpoint_metadata read) is accepted exactly when the whole
 *     file is, with the same tensors, offsets and metadata.
 *
 * The test suite runs it for 60 s from a fresh seed corpus
 * (tests/fuzz/run_fuzz.sh, suite 'fuzz', in scripts/test.sh's clang
 * sanitizer build, build-test-asan). A longer run, from the build
 * directory, keeping the corpus it grows between runs:
 *   SVK_FUZZ_TIME=3600 SVK_FUZZ_KEEP=1 tests/fuzz/run_fuzz.sh \
 *       tests/fuzz/fuzz_checkpoint tests/fuzz/fuzz_seeds \
 *       ../tests/fuzz/checkpoint.dict tests/fuzz/fuzz-run
 * or by hand, on several cores (N processes):
 *   tests/fuzz/fuzz_seeds seeds && mkdir -p corpus && \
 *   tests/fuzz/fuzz_checkpoint -dict=../tests/fuzz/checkpoint.dict \
 *       -max_total_time=3600 -jobs=N -workers=N corpus seeds
 * A crashing input is replayed with: tests/fuzz/fuzz_checkpoint <file>.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_util.h"
#include "fuzz_configs.h"
#include "io/safetensors.h"
#include "model/checkpoint.h"
#include "model/model_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The name the loader is given for the input, which every message must hold. */
#define WHAT "fuzz-input.safetensors"

static const char *const prefixes[3] = {"", "optimizer.m.", "optimizer.v."};
static const uint32_t flag_sets[] = {
    SVK_LOAD_OPTIMIZER,
    0,
    SVK_LOAD_OPTIMIZER | SVK_LOAD_ALLOW_NONFINITE,
};

/* One model per configuration, kept across inputs (creating one per input
 * would cost more than the load), with a copy of what it holds now. */
static svk_model *models[FUZZ_N_CONFIGS];
static ckpt_state held[FUZZ_N_CONFIGS];

/* How far inputs got, printed at exit: a run whose inputs never reach an
 * accepted load has not tested the tensor checks, whatever its length. */
static unsigned long long n_inputs, n_parsed, n_applied, n_accepted;

static void print_reach(void)
{
    fprintf(stderr, "fuzz_checkpoint: %llu inputs, %llu parsed, %llu loads tried, %llu accepted\n", n_inputs, n_parsed,
            n_applied, n_accepted);
}

static void miss(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void miss(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_checkpoint: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int i = 0; i < FUZZ_N_CONFIGS; i++) {
        svk_model_config c = fuzz_config(i);
        models[i] = ckpt_model(&c, 100 + (uint64_t)i, 0);
        if (!models[i] || !ckpt_state_get(models[i], &held[i]))
            miss("cannot make the model of configuration %d", i);
    }
    atexit(print_reach);
    return 0;
}

static void check_refusal(svk_status st, const char *stage)
{
    const char *msg = svk_last_error();
    if (st != SVK_ERROR_BAD_CHECKPOINT)
        miss("%s refused with %s, not SVK_ERROR_BAD_CHECKPOINT: %s", stage, svk_status_string(st), msg);
    if (!strstr(msg, WHAT))
        miss("%s refused with a message that does not name the file: \"%s\"", stage, msg);
}

/* What the parser promises of a file it accepted. */
static void check_parsed(const svk_st_file *f, const uint8_t *blob, size_t size)
{
    uint64_t total = 0;
    const uint8_t *end = blob + size;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const svk_st_tensor *t = &f->tensors[i];
        size_t len = strnlen(t->name, SVK_ST_MAX_NAME);
        uint64_t elems = 1;
        for (uint32_t d = 0; d < t->ndim && d < SVK_ST_MAX_DIMS; d++)
            elems *= t->shape[d];
        const uint8_t *p = t->data;
        if (!len || len >= SVK_ST_MAX_NAME || t->ndim > SVK_ST_MAX_DIMS || (unsigned)t->dtype >= SVK_ST_DTYPE_COUNT ||
            elems != t->elems || t->bytes != t->elems * 4 || p < blob + 8 || p > end || t->bytes > (uint64_t)(end - p))
            miss("parsed tensor %zu ('%.64s') is inconsistent or outside the input", i, t->name);
        total += t->bytes;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | blob[i];
    if (total != size - 8 - hlen)
        miss("parsed tensors hold %llu bytes, the data is %llu", (unsigned long long)total,
             (unsigned long long)(size - 8 - hlen));
}

/* What model m must hold after loading f with flags. */
static void expected_state(const svk_model *m, const svk_st_file *f, uint32_t flags, ckpt_state *want)
{
    want->n = (size_t)m->n_elems * 3;
    want->bits = calloc(want->n + 1, sizeof(*want->bits));
    want->step = 0;
    if (!want->bits)
        miss("out of memory");
    bool optimizer = flags & SVK_LOAD_OPTIMIZER;
    if (optimizer)
        want->step = strtoull(svk_st_meta_get(f, "svk.step"), NULL, 10);
    uint32_t *at = want->bits;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < m->n_params; i++) {
            const svk_param_info *p = &m->info[i];
            if (k == 0 || optimizer) {
                char name[SVK_ST_MAX_NAME + 16];
                snprintf(name, sizeof(name), "%s%s", prefixes[k], p->name);
                const svk_st_tensor *t = svk_st_find(f, name);
                if (!t || t->bytes != p->elems * 4)
                    miss("accepted a file without a well-shaped '%s'", name);
                memcpy(at, t->data, t->bytes);
            }
            at += p->elems;
        }
}

/* What an accepted load with the optimiser state must hold: finite
 * moments, v >= 0 (the loader's promise, so that no later step turns NaN). */
static void check_moments(const ckpt_state *s, int config)
{
    const size_t third = s->n / 3;
    for (size_t j = third; j < s->n; j++) {
        float x;
        memcpy(&x, &s->bits[j], sizeof(x));
        if (!isfinite(x) || (j >= 2 * third && !(x >= 0)))
            miss("model %d accepted a moment of %g (%s element %zu)", config, (double)x, j < 2 * third ? "m" : "v",
                 j - (j < 2 * third ? third : 2 * third));
    }
    if (s->step > SVK_MAX_STEP)
        miss("model %d accepted step %llu, beyond SVK_MAX_STEP", config, (unsigned long long)s->step);
}

/* The header alone must be judged as the whole file is: the same verdict,
 * and when accepted the same tensors, layout and metadata. */
static void check_head(const uint8_t *data, size_t size, svk_status whole_st, const svk_st_file *whole)
{
    uint64_t hlen = 0;
    for (int i = 7; size >= 8 && i >= 0; i--)
        hlen = (hlen << 8) | data[i];
    /* svk_st_read_header reads 8 bytes first and the header only when its
     * length is plausible; otherwise it hands the parser those 8 bytes. */
    const size_t n = size < 8 ? size : hlen >= 2 && hlen <= SVK_ST_MAX_HEADER && hlen <= size - 8 ? 8 + hlen : 8;
    uint8_t *blob = malloc(n ? n : 1);
    if (!blob)
        return;
    memcpy(blob, data, n);
    svk_st_file h;
    svk_status st = svk_st_parse_head(NULL, WHAT, blob, n, size, &h);
    if ((st == SVK_OK) != (whole_st == SVK_OK))
        miss("the header alone is %s, the whole file %s", svk_status_string(st), svk_status_string(whole_st));
    if (st != SVK_OK) {
        check_refusal(st, "svk_st_parse_head");
        return;
    }
    if (h.n_tensors != whole->n_tensors || h.n_meta != whole->n_meta)
        miss("the header alone holds %zu tensors and %zu metadata, the whole file %zu and %zu", h.n_tensors, h.n_meta,
             whole->n_tensors, whole->n_meta);
    for (size_t i = 0; i < h.n_tensors; i++) {
        const svk_st_tensor *a = &h.tensors[i], *b = &whole->tensors[i];
        if (strcmp(a->name, b->name) || a->begin != b->begin || a->bytes != b->bytes || a->ndim != b->ndim ||
            memcmp(a->shape, b->shape, sizeof(a->shape)) || a->dtype != b->dtype || (n < size && a->data))
            miss("tensor %zu ('%s') differs between the header alone and the whole file", i, a->name);
    }
    for (size_t i = 0; i < h.n_meta; i++)
        if (strcmp(h.meta[i].key, whole->meta[i].key) || strcmp(h.meta[i].value, whole->meta[i].value))
            miss("metadata '%s' differs between the header alone and the whole file", h.meta[i].key);
    svk_st_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* svk_st_parse takes a malloc'd blob; a copy of exactly the input's
     * size, so that ASan sees any read past its end. */
    n_inputs++;
    uint8_t *blob = malloc(size ? size : 1);
    if (!blob)
        return 0;
    memcpy(blob, data, size);
    svk_st_file f;
    svk_status st = svk_st_parse(NULL, WHAT, blob, size, &f);
    check_head(data, size, st, &f);
    if (st != SVK_OK) {
        check_refusal(st, "svk_st_parse");
        return 0;
    }
    n_parsed++;
    check_parsed(&f, f.blob, f.blob_size);
    svk_model_config file_config;
    const svk_status config_st = svk_checkpoint_file_config(NULL, &f, WHAT, &file_config);
    if (config_st != SVK_OK)
        check_refusal(config_st, "svk_checkpoint_file_config");
    for (int i = 0; i < FUZZ_N_CONFIGS; i++)
        for (size_t j = 0; j < sizeof(flag_sets) / sizeof(flag_sets[0]); j++) {
            svk_model *m = models[i];
            st = svk_checkpoint_apply(m, &f, WHAT, flag_sets[j]);
            n_applied++;
            ckpt_state now = {0}, want = {0};
            if (!ckpt_state_get(m, &now))
                miss("cannot read model %d back", i);
            if (st != SVK_OK) {
                check_refusal(st, "svk_checkpoint_apply");
                if (!ckpt_state_equal(&now, &held[i]))
                    miss("a refused load (flags %u) changed model %d: %s", flag_sets[j], i, svk_last_error());
                ckpt_state_free(&now);
                continue;
            }
            n_accepted++;
            if (config_st != SVK_OK || !svk_model_config_equal(&file_config, svk_model_get_config(m)))
                miss("model %d accepted a file (flags %u) whose configuration svk_checkpoint_file_config %s", i,
                     flag_sets[j], config_st != SVK_OK ? "refused" : "read as another");
            if (flag_sets[j] & SVK_LOAD_OPTIMIZER)
                check_moments(&now, i);
            expected_state(m, &f, flag_sets[j], &want);
            if (!ckpt_state_equal(&now, &want))
                miss("model %d does not hold what the file it loaded (flags %u) holds", i, flag_sets[j]);
            ckpt_state_free(&want);
            ckpt_state_free(&held[i]);
            held[i] = now;
        }
    svk_st_free(&f);
    return 0;
}
