/*
 * Fault injection: every fallible Vulkan call and every host allocation made
 * while creating a context and a model, running one training step and
 * saving a checkpoint is made to fail in turn (the k-th call of each kind,
 * for every k the clean run reaches). Each failure must
 *   - return the status its cause maps to, with a message naming it;
 *   - leave the model unchanged (its checkpoint equals the one before, and a
 *     retried step gives the clean run's result) or refuse it from then on
 *     (SVK_ERROR_INVALID_STATE), never half-updated;
 *   - leave no checkpoint, not even a temporary file, when a save fails;
 *   - after VK_ERROR_DEVICE_LOST, make every later call return
 *     SVK_ERROR_DEVICE_LOST without calling into the device;
 *   - draw no validation message, and (in the sanitizer build) no leak and
 *     no crash.
 * A call that succeeds despite an injected failure must still produce the
 * clean run's bytes. Two fence waits that keep failing are walked apart:
 * after a step was submitted, and while a new model's first step makes
 * its training state. The host-allocation walk also runs on the CPU backend.
 *
 * --test=NAME walks only the kinds whose name contains NAME (e.g.
 * --test=FV_QUEUE_SUBMIT, --test=malloc); -v prints every k. --part=I/N
 * runs every N-th failing iteration, counted over all walks, starting at
 * the I-th (and the clean runs, which every part needs): the suite runs the
 * walk as N tests in parallel. SVK_FAULT_SAMPLE=S walks one in S of a
 * part's iterations, which ones chosen by the seed: the sanitizer build's
 * quick form (its walk takes four times the plain build's), the plain
 * build walking them all.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "fault_vk.h"
#include "svk/model.h"
#include "test_util.h"
#include "vk/result.h"

enum { B = 2, T = 8 };

/* One kind of failure to walk: a host allocation, or a Vulkan call kind
 * failing with result. */
typedef struct walk {
    const char *name;
    bool host;
    fv_kind kind;
    VkResult result;
    svk_backend backend;
} walk;

#define VKW(kind, result) {#kind " " #result, false, kind, result, SVK_BACKEND_VULKAN}
static const walk walks[] = {
    {"malloc (vulkan backend)", true, 0, VK_SUCCESS, SVK_BACKEND_VULKAN},
    {"malloc (cpu backend)", true, 0, VK_SUCCESS, SVK_BACKEND_CPU},
    VKW(FV_CREATE_INSTANCE, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_ENUMERATE_DEVICES, VK_ERROR_INITIALIZATION_FAILED),
    VKW(FV_CREATE_DEVICE, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_CREATE_MESSENGER, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_ALLOCATE_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_CREATE_BUFFER, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_BIND_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_MAP_MEMORY, VK_ERROR_MEMORY_MAP_FAILED),
    VKW(FV_CREATE_SHADER_MODULE, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_CREATE_SET_LAYOUT, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_CREATE_PIPELINE_LAYOUT, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_CREATE_PIPELINE_CACHE, VK_ERROR_OUT_OF_HOST_MEMORY),
    VKW(FV_CREATE_PIPELINE, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_CREATE_COMMAND_POOL, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_ALLOCATE_COMMAND_BUFFER, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_BEGIN_COMMAND_BUFFER, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_END_COMMAND_BUFFER, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_CREATE_FENCE, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_RESET_FENCES, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_QUEUE_SUBMIT, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_QUEUE_SUBMIT, VK_ERROR_DEVICE_LOST),
    VKW(FV_WAIT_FOR_FENCES, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_WAIT_FOR_FENCES, VK_ERROR_DEVICE_LOST),
    VKW(FV_QUEUE_WAIT_IDLE, VK_ERROR_DEVICE_LOST),
    VKW(FV_DEVICE_WAIT_IDLE, VK_ERROR_DEVICE_LOST),
    VKW(FV_CREATE_DESCRIPTOR_POOL, VK_ERROR_OUT_OF_POOL_MEMORY),
    VKW(FV_ALLOCATE_DESCRIPTOR_SET, VK_ERROR_OUT_OF_POOL_MEMORY),
    VKW(FV_CREATE_QUERY_POOL, VK_ERROR_OUT_OF_DEVICE_MEMORY),
    VKW(FV_CREATE_BUFFER_VIEW, VK_ERROR_OUT_OF_HOST_MEMORY),
};
#define N_WALKS (sizeof(walks) / sizeof(walks[0]))

static tu_tally tally;
static tu_args args;
static char dir[64];
static int32_t tokens[B * T], targets[B * T];

/* What the clean run produced: checkpoints after creation and after the
 * step, and the step's loss. */
typedef struct blob {
    unsigned char *data;
    size_t size;
} blob;
static blob ref_created[2], ref_stepped[2]; /* [cpu, vulkan] */
static float ref_loss[2];
static int be; /* the scenario's backend: 0 cpu, 1 vulkan */

#define REF_NAME "ref_created.safetensors"

/* The iteration being run, for messages; its failures are counted once. */
static const walk *cur;
static uint64_t cur_k;
static int iteration_failures;

static void expect(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect(bool ok, const char *fmt, ...)
{
    if (ok)
        return;
    iteration_failures++;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printf("     [%s, k=%llu] %s\n", cur ? cur->name : "clean run", (unsigned long long)cur_k, msg);
    fflush(stdout);
}

/* Validation messages of this iteration, counted through the log callback
 * (destruction included). */
static int validation_messages;
static void log_fn(void *user, svk_log_level level, const char *msg)
{
    (void)user;
    if (!strncmp(msg, "validation ", 11)) {
        validation_messages++;
        printf("     %s\n", msg);
    } else if (args.verbose && level <= SVK_LOG_WARN) {
        printf("     libsvk: %s\n", msg);
    }
}

static void pause_faults(bool paused)
{
    fv_pause(paused);
    svk_alloc_fault_pause(paused);
}

/* A non-empty file's bytes (a checkpoint is never empty). */
static bool read_blob(const char *path, blob *b)
{
    return tu_read_file(path, &b->data, &b->size) && b->size > 0;
}

static bool same_file(const char *path, const blob *ref)
{
    blob b;
    bool ok = read_blob(path, &b) && b.size == ref->size && !memcmp(b.data, ref->data, b.size);
    free(b.data);
    return ok;
}

/* Names in the scratch directory other than keep (NULL: none allowed). */
static int stray_files(const char *keep)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, REF_NAME) ||
            (keep && !strcmp(e->d_name, keep)))
            continue;
        printf("     stray file %s/%s\n", dir, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static svk_model_config tiny(void)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = 16, c.ctx = T, c.width = 8, c.layers = 1, c.heads = 2;
    return c;
}

static svk_status make_model(svk_ctx *ctx, svk_backend backend, svk_model **m)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny();
    p.backend = backend;
    p.ctx = ctx;
    *m = NULL;
    return svk_model_create(&p, m);
}

/* The call failed because of the injected fault: right status, a message
 * that names the cause. */
static void expect_reported(svk_status st, const char *what)
{
    svk_status want = cur->host ? SVK_ERROR_OUT_OF_HOST_MEMORY : svk_vk_status(cur->result);
    const char *msg = svk_last_error();
    expect(st == want, "%s returned %s, expected %s (%s)", what, svk_status_string(st), svk_status_string(want), msg);
    expect(msg && *msg, "%s failed without a message", what);
    const char *needle = cur->host ? "out of host memory" : fv_kind_name(cur->kind);
    expect(msg && strstr(msg, needle), "%s: message does not say '%s': %s", what, needle, msg);
}

/* After a loss, every call refuses with SVK_ERROR_DEVICE_LOST and none
 * reaches the device (the wrappers count such touches). */
static void expect_lost_everywhere(svk_ctx *ctx, svk_model *m)
{
    char path[128];
    path_of(path, sizeof(path), "lost.safetensors");
    svk_buffer_params bp = svk_buffer_params_default();
    bp.size = 256;
    svk_buffer *buf = NULL;
    svk_status st = svk_buffer_create(ctx, &bp, &buf);
    expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_buffer_create returned %s", svk_status_string(st));
    svk_buffer_destroy(&buf);
    svk_model *other = NULL;
    st = make_model(ctx, SVK_BACKEND_VULKAN, &other);
    expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_model_create returned %s", svk_status_string(st));
    svk_model_destroy(&other);
    if (m) {
        float loss;
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_model_train_step returned %s", svk_status_string(st));
        st = svk_model_eval_loss(m, tokens, targets, B, T, &loss);
        expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_model_eval_loss returned %s", svk_status_string(st));
        st = svk_model_save(m, path, true);
        expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_model_save returned %s", svk_status_string(st));
        expect(access(path, F_OK) != 0, "after the loss svk_model_save wrote %s", path);
        char ref[128];
        path_of(ref, sizeof(ref), REF_NAME);
        st = svk_model_load(m, ref, true);
        expect(st == SVK_ERROR_DEVICE_LOST, "after the loss svk_model_load returned %s", svk_status_string(st));
    }
    expect(fv_touches_after_lost() == 0, "%llu call(s) reached the device after the loss (last: %s)",
           (unsigned long long)fv_touches_after_lost(), fv_last_touch());
}

/* A model that reported a failure is either as it was before the failing
 * call (checkpoint `before`) and still works (the clean step from it gives
 * the clean result), or refuses further use. Faults are paused. */
static void expect_unchanged_or_refused(svk_model *m, const blob *before, uint64_t step_before, bool retry_step)
{
    char path[128];
    path_of(path, sizeof(path), "check.safetensors");
    pause_faults(true);
    svk_status st = svk_model_save(m, path, true);
    if (st == SVK_ERROR_INVALID_STATE) {
        float loss;
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect(st == SVK_ERROR_INVALID_STATE, "a model refusing saves ran a step (%s)", svk_status_string(st));
    } else if (st != SVK_OK) {
        expect(false, "after the failure svk_model_save returned %s: %s", svk_status_string(st), svk_last_error());
    } else {
        expect(same_file(path, before) && svk_model_step(m) == step_before,
               "the failed call changed the model but did not mark it unusable");
        if (retry_step) {
            float loss = 0;
            st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
            expect(st == SVK_OK, "retrying the step failed: %s: %s", svk_status_string(st), svk_last_error());
            expect(st != SVK_OK || loss == ref_loss[be], "retried step's loss %.9g differs from the clean %.9g",
                   (double)loss, (double)ref_loss[be]);
            st = svk_model_save(m, path, true);
            expect(st == SVK_OK && same_file(path, &ref_stepped[be]), "the retried step's checkpoint differs from the clean one");
        }
        unlink(path);
    }
    pause_faults(false);
}

/* Creates, steps, saves under the armed fault. With record (the clean run),
 * keeps the results as the references. */
static void scenario(svk_backend backend, bool record)
{
    char created[128], saved[128];
    path_of(created, sizeof(created), "created.safetensors");
    path_of(saved, sizeof(saved), "saved.safetensors");
    validation_messages = 0;
    be = backend == SVK_BACKEND_VULKAN;
    svk_ctx *ctx = NULL;
    svk_model *m = NULL;
    svk_status st;

    if (backend == SVK_BACKEND_VULKAN) {
        svk_ctx_params cp = svk_ctx_params_default();
        cp.flags = SVK_CTX_NO_PIPELINE_CACHE;
        cp.log_fn = log_fn;
        st = svk_ctx_create(&cp, &ctx);
        if (st != SVK_OK) {
            expect(ctx == NULL, "a failed svk_ctx_create returned a context");
            expect_reported(st, "svk_ctx_create");
            goto done;
        }
    }
    st = make_model(ctx, backend, &m);
    if (st != SVK_OK) {
        expect(m == NULL, "a failed svk_model_create returned a model");
        expect_reported(st, "svk_model_create");
        if (fv_lost())
            expect_lost_everywhere(ctx, NULL);
        goto done;
    }
    pause_faults(true);
    st = svk_model_save(m, created, true);
    expect(st == SVK_OK, "saving the new model: %s", svk_last_error());
    if (record)
        read_blob(created, &ref_created[be]);
    else
        expect(same_file(created, &ref_created[be]), "a model created despite a fault differs from the clean one");
    unlink(created);
    pause_faults(false);

    float loss = 0;
    st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
    if (st != SVK_OK) {
        expect_reported(st, "svk_model_train_step");
        if (fv_lost())
            expect_lost_everywhere(ctx, m);
        else
            expect_unchanged_or_refused(m, &ref_created[be], 0, true);
        goto done;
    }
    if (record)
        ref_loss[be] = loss;
    else
        expect(loss == ref_loss[be], "a step run despite a fault has loss %.9g, the clean run %.9g", (double)loss,
               (double)ref_loss[be]);

    st = svk_model_save(m, saved, true);
    if (st != SVK_OK) {
        expect_reported(st, "svk_model_save");
        expect(access(saved, F_OK) != 0, "a failed save left %s", saved);
        expect(stray_files(NULL) == 0, "a failed save left files behind");
        if (fv_lost())
            expect_lost_everywhere(ctx, m);
        else
            expect_unchanged_or_refused(m, &ref_stepped[be], 1, false);
        goto done;
    }
    if (record)
        read_blob(saved, &ref_stepped[be]);
    else
        expect(same_file(saved, &ref_stepped[be]), "a checkpoint saved despite a fault differs from the clean one");
    unlink(saved);

done:
    svk_model_destroy(&m);
    svk_ctx_destroy(&ctx);
    expect(validation_messages == 0, "the validation layer reported %d message(s)", validation_messages);
    if (fv_lost())
        expect(fv_touches_after_lost() == 0, "%llu call(s) reached the device after the loss (last: %s)",
               (unsigned long long)fv_touches_after_lost(), fv_last_touch());
    expect(stray_files(NULL) == 0, "files left in %s", dir);
}

static uint64_t calls_of(const walk *w)
{
    return w->host ? svk_alloc_fault_count() : fv_count(w->kind);
}

static void arm(const walk *w, uint64_t k)
{
    /* k == 0: count every kind, fail none. */
    svk_alloc_fault_arm(w && w->host && k ? k : UINT64_MAX);
    fv_arm(w && !w->host ? w->kind : FV_CREATE_INSTANCE, w && !w->host ? k : 0, w ? w->result : VK_SUCCESS);
}

static void run_walk(const walk *w)
{
    cur = w;
    cur_k = 0;
    arm(w, 0);
    iteration_failures = 0;
    scenario(w->backend, false);
    uint64_t n = calls_of(w);
    tu_check(&tally, iteration_failures == 0, "%s: clean run (%llu calls)", w->name, (unsigned long long)n);
    int failed_k = 0;
    uint64_t walked = 0;
    const char *sample_env = getenv("SVK_FAULT_SAMPLE");
    const uint64_t sample = sample_env && strtoull(sample_env, NULL, 10) > 1 ? strtoull(sample_env, NULL, 10) : 1;
    /* FAULT_K=N (debugging): only the N-th call. */
    uint64_t only = getenv("FAULT_K") ? strtoull(getenv("FAULT_K"), NULL, 10) : 0;
    for (uint64_t k = only ? only : 1; k <= (only ? only : n); k++) {
        /* --part: iterations are dealt out over all walks, so the short
         * walks spread over the parts as well. */
        static uint64_t iteration;
        const uint64_t it = iteration++;
        if (it % args.parts != args.part || (it / args.parts) % sample != args.seed % sample)
            continue;
        walked++;
        cur_k = k;
        iteration_failures = 0;
        arm(w, k);
        scenario(w->backend, false);
        bool fired = w->host ? svk_alloc_fault_fired() : fv_fired();
        expect(fired, "the run never reached call %llu of %llu", (unsigned long long)k, (unsigned long long)n);
        if (iteration_failures)
            failed_k++;
        if (args.verbose)
            printf("     %s k=%llu: %s\n", w->name, (unsigned long long)k, iteration_failures ? "FAIL" : "ok");
    }
    arm(NULL, 0);
    if (args.parts > 1 || sample > 1)
        tu_check(&tally, failed_k == 0,
                 "%s: %llu of its %llu calls (part %u/%u, one in %llu) failed in turn (%d mishandled)", w->name,
                 (unsigned long long)walked, (unsigned long long)n, args.part, args.parts, (unsigned long long)sample,
                 failed_k);
    else
        tu_check(&tally, failed_k == 0, "%s: each of %llu calls failed in turn (%d mishandled)", w->name,
                 (unsigned long long)n, failed_k);
    cur = NULL;
}

/* The start of a scenario of a fence wait that keeps failing: w current,
 * nothing armed, a context and a model on it; false (counted) when they
 * cannot be made. */
static bool persistent_begin(const walk *w, svk_ctx **ctx, svk_model **m)
{
    cur = w;
    cur_k = 1;
    iteration_failures = 0;
    validation_messages = 0;
    be = 1;
    arm(NULL, 0);
    svk_ctx_params cp = svk_ctx_params_default();
    cp.flags = SVK_CTX_NO_PIPELINE_CACHE;
    cp.log_fn = log_fn;
    svk_status st = svk_ctx_create(&cp, ctx);
    if (st == SVK_OK)
        st = make_model(*ctx, SVK_BACKEND_VULKAN, m);
    expect(st == SVK_OK, "creating the model: %s", svk_last_error());
    return st == SVK_OK;
}

/* Its end: the model and the context gone, no validation message, the
 * file the scenario may have written removed, and its verdict. */
static void persistent_end(svk_ctx **ctx, svk_model **m, const char *saved, const char *verdict)
{
    svk_model_destroy(m);
    svk_ctx_destroy(ctx);
    expect(validation_messages == 0, "the validation layer reported %d message(s)", validation_messages);
    unlink(saved);
    tu_check(&tally, iteration_failures == 0, "%s: %s", cur->name, verdict);
    cur = NULL;
}

/* A wait that keeps failing after a step was submitted: the step runs on
 * the device, but its outcome cannot be read, so the model must refuse use
 * (saves included: the file would pair weights with a guessed step count)
 * until a checkpoint is loaded, and then train as a fresh one does. */
static void unusable_until_loaded(void)
{
    static const walk w = {"persistent vkWaitForFences failure", false, FV_WAIT_FOR_FENCES,
                           VK_ERROR_OUT_OF_DEVICE_MEMORY, SVK_BACKEND_VULKAN};
    char ref[128], saved[128];
    path_of(ref, sizeof(ref), REF_NAME);
    path_of(saved, sizeof(saved), "unusable.safetensors");
    svk_ctx *ctx = NULL;
    svk_model *m = NULL;
    /* With its training state made (a load with the optimizer state), so
     * that the step below is submitted: a new model's first step makes
     * the state, and would fail there, before submitting anything. */
    svk_status st = persistent_begin(&w, &ctx, &m) ? svk_model_load(m, ref, true) : SVK_ERROR_INVALID_STATE;
    if (m)
        expect(st == SVK_OK, "loading the checkpoint before the failures: %s", svk_last_error());
    if (st == SVK_OK) {
        fv_arm_sticky(FV_WAIT_FOR_FENCES, 1, w.result);
        float loss = 0;
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect_reported(st, "svk_model_train_step");
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect(st == SVK_ERROR_INVALID_STATE && strstr(svk_last_error(), "unusable"),
               "the next step returned %s (%s), expected SVK_ERROR_INVALID_STATE", svk_status_string(st),
               svk_last_error());
        st = svk_model_save(m, saved, true);
        expect(st == SVK_ERROR_INVALID_STATE && access(saved, F_OK) != 0,
               "a save of the unusable model returned %s and %s a file", svk_status_string(st),
               access(saved, F_OK) == 0 ? "wrote" : "did not write");
        arm(NULL, 0);
        st = svk_model_load(m, ref, true);
        expect(st == SVK_OK, "loading a checkpoint into the unusable model: %s", svk_last_error());
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect(st == SVK_OK && loss == ref_loss[1], "after the load the step gives %s, loss %.9g (clean %.9g)",
               svk_status_string(st), (double)loss, (double)ref_loss[1]);
    }
    persistent_end(&ctx, &m, saved, "the model refuses use until a checkpoint is loaded");
}

/* A wait that keeps failing while a new model's first step makes its
 * training state (zeroing the moments): the step fails before anything is
 * submitted, and the model stays usable: a save fails cleanly and writes
 * nothing, and once waits work again the step gives the clean run's
 * loss. */
static void state_unmade_while_waits_fail(void)
{
    static const walk w = {"persistent vkWaitForFences failure at the first step", false, FV_WAIT_FOR_FENCES,
                           VK_ERROR_OUT_OF_DEVICE_MEMORY, SVK_BACKEND_VULKAN};
    char saved[128];
    path_of(saved, sizeof(saved), "unmade.safetensors");
    svk_ctx *ctx = NULL;
    svk_model *m = NULL;
    if (persistent_begin(&w, &ctx, &m)) {
        fv_arm_sticky(FV_WAIT_FOR_FENCES, 1, w.result);
        float loss = 0;
        for (int i = 0; i < 2; i++) {
            svk_status st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
            expect_reported(st, "svk_model_train_step");
        }
        svk_status st = svk_model_save(m, saved, true);
        expect(st != SVK_OK && st != SVK_ERROR_INVALID_STATE && access(saved, F_OK) != 0,
               "a save while waits fail returned %s and %s a file", svk_status_string(st),
               access(saved, F_OK) == 0 ? "wrote" : "did not write");
        arm(NULL, 0);
        st = svk_model_train_step(m, tokens, targets, B, T, 1e-2f, &loss);
        expect(st == SVK_OK && loss == ref_loss[1], "once waits work the step gives %s, loss %.9g (clean %.9g)",
               svk_status_string(st), (double)loss, (double)ref_loss[1]);
    }
    persistent_end(&ctx, &m, saved, "the model stays usable, and trains as the clean run once waits work");
}

int main(int argc, char **argv)
{
    tu_parse_args(argc, argv, "test_fault", &args);
    fv_install();
    snprintf(dir, sizeof(dir), "/tmp/svk-fault-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    uint64_t s = args.seed;
    for (int i = 0; i < B * T; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        tokens[i] = (int32_t)((s >> 33) % tiny().vocab);
        targets[i] = i % 5 == 0 ? -1 : (tokens[i] + 1) % (int32_t)tiny().vocab;
    }

    /* The references, from runs with nothing armed. */
    cur = NULL;
    for (int b = 0; b < 2; b++) {
        arm(NULL, 0);
        iteration_failures = 0;
        scenario(b ? SVK_BACKEND_VULKAN : SVK_BACKEND_CPU, true);
        tu_check(&tally, iteration_failures == 0 && ref_created[b].size && ref_stepped[b].size,
                 "clean run of the scenario on the %s backend", b ? "vulkan" : "cpu");
    }
    /* A file for expect_lost_everywhere to try loading. */
    char ref[128];
    path_of(ref, sizeof(ref), REF_NAME);
    FILE *f = fopen(ref, "wb");
    if (f) {
        fwrite(ref_created[1].data, 1, ref_created[1].size, f);
        fclose(f);
    }

    for (size_t i = 0; i < N_WALKS; i++)
        if (!args.filter || strstr(walks[i].name, args.filter))
            run_walk(&walks[i]);
    if ((!args.filter || strstr("persistent vkWaitForFences failure", args.filter)) && args.part == 0)
        unusable_until_loaded();
    if ((!args.filter || strstr("persistent vkWaitForFences failure at the first step", args.filter)) &&
        args.part == 1)
        state_unmade_while_waits_fail();

    unlink(ref);
    rmdir(dir);
    for (int b = 0; b < 2; b++) {
        free(ref_created[b].data);
        free(ref_stepped[b].data);
    }
    return tu_finish(&tally);
}
