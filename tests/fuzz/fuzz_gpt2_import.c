/*
 * libFuzzer target for the GPT-2 importer (svk_gpt2_import, svk-convert
 * --from-gpt2): each input is a whole file, written where the importer
 * reads it, and converted with 2 heads (the seeds are 8 wide). Besides the
 * sanitizers, it checks what svk/convert.h promises, and aborts (a crash
 * libFuzzer keeps) on a miss:
 *   - a refusal is SVK_ERROR_BAD_CHECKPOINT, or SVK_ERROR_INVALID_ARG for a
 *     width 2 heads do not divide, with a message naming the input file,
 *     and leaves no output file, not even a temporary;
 *   - a conversion that succeeds writes a checkpoint that svk_model_open
 *     takes, whose wte is the input's (F32), to the bit.
 * The inputs are mutated as the checkpoint fuzzer's are (fuzz_mutator.c:
 * shapes, names, dtypes, tensors added and dropped, values), from seeds
 * that fuzz_gpt2_seeds writes with svk_gpt2_export. The test suite runs it
 * for 30 s (tests/fuzz/run_fuzz.sh, suite 'fuzz', in the clang sanitizer
 * build); by hand, from the build directory:
 *   tests/fuzz/fuzz_gpt2_seeds seeds && mkdir -p corpus && \
 *   tests/fuzz/fuzz_gpt2_import -dict=../tests/fuzz/checkpoint.dict \
 *       -max_total_time=600 corpus seeds
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/safetensors.h"
#include "svk/convert.h"
#include "svk/model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], in_path[300], out_path[300];
static unsigned long long n_inputs, n_converted;

static void print_reach(void)
{
    fprintf(stderr, "fuzz_gpt2_import: %llu inputs, %llu converted\n", n_inputs, n_converted);
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            remove(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void miss(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void miss(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_gpt2_import: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* Memory-backed where there is such a place: every input is a file. */
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof(dir), "%s/svk-fuzz-gpt2.XXXXXX", base);
    if (!mkdtemp(dir))
        miss("cannot make a directory under %s", base);
    snprintf(in_path, sizeof(in_path), "%s/input.safetensors", dir);
    snprintf(out_path, sizeof(out_path), "%s/output.safetensors", dir);
    atexit(print_reach);
    atexit(cleanup);
    return 0;
}

/* The files in dir besides the input: none after a refusal. */
static int others(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.' && strcmp(e->d_name, "input.safetensors");
    if (d)
        closedir(d);
    return n;
}

/* The written checkpoint's wte against the input's F32 one, to the bit
 * (widened F16 and BF16 are the importer's own test's). */
static void check_wte(void)
{
    svk_st_file in, out;
    if (svk_st_read(NULL, in_path, &in) != SVK_OK)
        miss("a converted input does not parse: %s", svk_last_error());
    if (svk_st_read(NULL, out_path, &out) != SVK_OK)
        miss("the converted checkpoint does not parse: %s", svk_last_error());
    const svk_st_tensor *t = svk_st_find(&in, "wte.weight");
    if (!t)
        t = svk_st_find(&in, "transformer.wte.weight");
    const svk_st_tensor *w = svk_st_find(&out, "wte.weight");
    if (!t || !w)
        miss("wte is missing from the %s", t ? "converted checkpoint" : "converted input");
    if (t->dtype == SVK_ST_F32 && (t->bytes != w->bytes || memcmp(t->data, w->data, t->bytes)))
        miss("the converted checkpoint's wte is not the input's");
    svk_st_free(&in);
    svk_st_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    n_inputs++;
    FILE *fp = fopen(in_path, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        miss("cannot write the input to %s", in_path);
    remove(out_path);
    svk_gpt2_params p = svk_gpt2_params_default();
    p.heads = 2;
    p.overwrite = true;
    const svk_status st = svk_gpt2_import(in_path, out_path, &p);
    if (st != SVK_OK) {
        const char *msg = svk_last_error();
        if (st != SVK_ERROR_BAD_CHECKPOINT && st != SVK_ERROR_INVALID_ARG)
            miss("refused with %s, not SVK_ERROR_BAD_CHECKPOINT or _INVALID_ARG: %s", svk_status_string(st), msg);
        if (!strstr(msg, in_path) && !(st == SVK_ERROR_INVALID_ARG && strstr(msg, "heads")))
            miss("refused with a message that names neither the file nor the heads: \"%s\"", msg);
        if (others())
            miss("a refused conversion left a file beside the input: %s", msg);
        return 0;
    }
    n_converted++;
    svk_model *m = NULL;
    if (svk_model_open(NULL, out_path, 0, &m) != SVK_OK)
        miss("svk_model_open refuses what the importer wrote: %s", svk_last_error());
    svk_model_destroy(&m);
    check_wte();
    return 0;
}
