/*
 * The svk model (docs/MODEL.md): create, train, evaluate, generate,
 * save and load, on the Vulkan device of a context or on the CPU reference.
 * The same calls give the same model on both backends; a checkpoint written
 * by one loads on the other.
 */
#ifndef SVK_MODEL_H
#define SVK_MODEL_H

#include "config.h"
#include "context.h"

SVK_BEGIN_DECLS

/* A model with its parameters, gradients and optimiser state. Opaque.
 * Thread-safety: one thread at a time (as its context). */
typedef struct svk_model svk_model;

typedef enum svk_backend {
    SVK_BACKEND_VULKAN = 0, /* the context's device */
    SVK_BACKEND_CPU,        /* the plain-C reference: slow, exact, no device needed */
} svk_backend;

/* AdamW and clipping settings (docs/MODEL.md, "Optimiser"); the learning rate is
 * given per step. */
typedef struct svk_optimizer {
    float beta1;           /* default 0.9 */
    float beta2;           /* default 0.95 */
    float eps;             /* default 1e-8 */
    float weight_decay;    /* default 0.1, on 2-D weights only */
    float max_norm;        /* gradient clipping threshold; default 1.0, 0 = off */
} svk_optimizer;

/* The learning rate of update `step` (0-based) of a run of `total` updates
 * with `warmup` warm-up updates and peak learning rate `peak`
 * (docs/MODEL.md, "Optimiser"): a linear warm-up to the peak, then a cosine
 * down to a tenth of it at the last update. Computed in double and rounded
 * once, so every caller gets the same float. step < total, and peak finite
 * and >= 0 (as svk_model_train_step's lr), else SVK_ERROR_INVALID_ARG
 * naming the value. Thread-safety: any thread. */
SVK_API svk_status svk_lr_schedule(uint64_t step, uint64_t total, uint64_t warmup, float peak, float *lr);

/* The shapes of a learning-rate schedule (docs/MODEL.md, "Optimiser").
 * Each is a function of the update's number alone, so a run resumed at any
 * step gets the rates a straight run has. */
typedef enum svk_lr_shape {
    /* svk_lr_schedule's: linear warm-up, then a cosine to a tenth of the
     * peak at the last update. */
    SVK_LR_COSINE = 0,
    /* The peak at every update, with no warm-up (warmup is not used;
     * SVK_LR_WSD with decay_frac 0 is a warm-up then the peak). */
    SVK_LR_CONSTANT = 1,
    /* Warm-up, stable, decay: the same linear warm-up, then the peak, then
     * over the last D = floor(decay_frac * total + 0.5) updates a straight
     * line down to a tenth of the peak at the last update (update
     * total - D + k - 1 has peak (1 - 0.9 k / D), k = 1 .. D). Where the
     * warm-up and the decay overlap, the warm-up's rate is the one given. */
    SVK_LR_WSD = 2,
} svk_lr_shape;

typedef struct svk_lr_params {
    svk_lr_shape shape;   /* default SVK_LR_COSINE */
    uint64_t total;       /* the run's updates, >= 1; default 1 */
    uint64_t warmup;      /* warm-up updates; default 0 */
    float peak;           /* the peak rate, finite and >= 0; default 0 */
    float decay_frac;     /* SVK_LR_WSD: the share of total that decays, 0..1; default 0.2 */
    uint64_t reserved[2]; /* must be zero */
} svk_lr_params;

SVK_API svk_lr_params svk_lr_params_default(void);

/* The learning rate of update `step` (0-based) of the schedule p
 * describes, computed in double and rounded once. With SVK_LR_COSINE it
 * is svk_lr_schedule's, bit for bit. step < p->total, p->peak finite and
 * >= 0, p->decay_frac in [0, 1], a known shape and zero reserved words,
 * else SVK_ERROR_INVALID_ARG naming the value. Thread-safety: any
 * thread. */
SVK_API svk_status svk_lr_schedule_ex(const svk_lr_params *p, uint64_t step, float *lr);

/* How a training step keeps its activations (docs/MODEL.md, "Precision").
 * Parameters, gradients, the optimiser's moments and all arithmetic stay
 * float32 in every precision. */
typedef enum svk_precision {
    SVK_PRECISION_FP32 = 0, /* every activation in float32 */
    /* The activations the backward pass reads are kept in 16 bits: each is
     * rounded to the nearest IEEE binary16 (fp16) or bfloat16 (bf16) value
     * where it is made, and the forward pass goes on from the rounded
     * value. fp16 keeps 3 more bits of mantissa, bf16 float32's range: an
     * fp16 activation past 65504 becomes infinite, and the step is then
     * skipped as any non-finite step is (svk_step_info.skipped). */
    SVK_PRECISION_FP16 = 1,
    SVK_PRECISION_BF16 = 2,
} svk_precision;

/* "fp32", "fp16" or "bf16"; NULL for any other value. */
SVK_API const char *svk_precision_name(svk_precision precision);
/* The precision a name (as svk_precision_name gives) stands for;
 * SVK_ERROR_INVALID_ARG naming it when it is none. */
SVK_API svk_status svk_precision_parse(const char *name, svk_precision *out);

typedef struct svk_model_params {
    svk_model_config config;   /* default: svk_model_config_default() */
    uint64_t seed;             /* initialisation seed; default 1 */
    svk_backend backend;       /* default SVK_BACKEND_VULKAN */
    svk_ctx *ctx;              /* required for SVK_BACKEND_VULKAN; must outlive the model */
    svk_optimizer optimizer;
    /* The longest one submission to the device may run, in milliseconds.
     * Desktop drivers reset a GPU whose work runs too long (Windows' TDR
     * after 2 s, amdgpu's job timeout), and the device is lost; so on the
     * Vulkan backend a step (and an evaluation, a forward pass) is recorded
     * as several submissions, each of ops whose time, measured with
     * timestamps on the second replay of each, fits this budget. Only the
     * submission boundaries change: the results are the same to the bit.
     * Without timestamps the ops are split by count, and an op that alone
     * takes longer is a submission of its own (logged once, as a warning).
     * Default SVK_MAX_SUBMIT_MS_DEFAULT; 0: one submission per step. Finite
     * and >= 0. The CPU backend ignores it. */
    double max_submit_ms;
    /* Activation recomputation: keep only each block's input through a
     * training step and compute the block's activations again during the
     * backward pass, for the activation memory of about one block instead
     * of every block's (svk_model_memory says how much) at the cost of a
     * second forward pass through the blocks (about a third more work a
     * step). The results are the same, bit for bit. Default false. */
    bool recompute;
    /* How activations are kept: SVK_PRECISION_FP16 or _BF16 keeps those
     * the backward pass reads in 16 bits (the forward pass runs the
     * residual streams in float32, keeping 16-bit copies of them for the
     * backward: rounding the streams themselves to bf16 lost the small
     * updates that add up along them, and trained measurably worse), for
     * half the activation memory a layer
     * (svk_model_memory says how much); the losses then follow float32's
     * to about 16-bit rounding. Evaluation and svk_model_forward_logits
     * round the same way; generation runs in float32. The CPU backend
     * rounds exactly as the device does. Works on every device: the 16-bit
     * codes are packed two to a 32-bit word, so no 16-bit storage feature
     * is needed. Default SVK_PRECISION_FP32. */
    svk_precision precision;
    /* fp16's dynamic loss scaling, as PyTorch's GradScaler does it: fp16
     * gradients below 2^-24 would round to zero, so with
     * SVK_PRECISION_FP16 the backward pass starts from the loss's gradient
     * multiplied by a scale S (a power of two), every gradient is as many
     * times larger, and the update divides it back out, exactly. A step
     * whose gradients overflow (a norm that is not finite) is skipped
     * (svk_step_info.skipped; svk_model_step does not count it) and halves
     * S; loss_scale_interval steps in a row without overflow double it. S
     * stays within [2^-24, 2^24], lives on the device (no host round
     * trip), is saved in checkpoints and reported in
     * svk_step_info.loss_scale. Other precisions ignore both settings.
     * loss_scale: the first S, a power of two in [2^-24, 2^24]; 0 or
     * default: 65536. loss_scale_interval: 0 or default: 2000. */
    float loss_scale;
    uint32_t loss_scale_interval;
    uint64_t reserved[2];      /* must be zero */
} svk_model_params;

/* svk_model_params_default()'s loss_scale and loss_scale_interval: as
 * PyTorch's GradScaler's. */
#define SVK_LOSS_SCALE_DEFAULT 65536.0f
#define SVK_LOSS_SCALE_INTERVAL_DEFAULT 2000u

/* svk_model_params_default()'s max_submit_ms: an eighth of Windows' 2 s. */
#define SVK_MAX_SUBMIT_MS_DEFAULT 250.0

SVK_API svk_model_params svk_model_params_default(void);

/* Creates a model with freshly initialised weights. */
SVK_API svk_status svk_model_create(const svk_model_params *params, svk_model **out);
SVK_API void svk_model_destroy(svk_model **model);

SVK_API const svk_model_config *svk_model_get_config(const svk_model *model);
/* Number of trainable parameters. */
SVK_API uint64_t svk_model_param_count(const svk_model *model);

/* The most updates a model counts: 2^53, the largest count every integer
 * up to which a double holds exactly (so JSON readers, and the bias
 * corrections 1 - beta^t computed in double, see every count exactly). At
 * 2^53 updates a training step (svk_model_train_step, or
 * svk_model_prepare_train_step) is refused with SVK_ERROR_INVALID_STATE
 * rather than wrap, and a checkpoint whose "svk.step" exceeds it is
 * refused. (At a million steps a second, 285 years.) */
#define SVK_MAX_STEP 9007199254740992ull

/* Updates applied so far (the AdamW step count, at most SVK_MAX_STEP): a
 * skipped non-finite step does not count. Waits for a step still running,
 * since whether it counts is known only when it has finished. */
SVK_API uint64_t svk_model_step(const svk_model *model);

/* One training step on a batch: tokens and targets are int32 [B, T]
 * (targets -1 = no loss), T <= ctx. Runs forward, loss, backward, clipping
 * and AdamW with learning rate lr. When loss is non-NULL the step's loss is
 * written (the call then waits for the step); when NULL, the step may still
 * be running when the call returns, and the next call orders after it. On
 * the Vulkan backend the next training step of the same shape is then
 * queued behind it without waiting (its batch is copied while this one
 * runs), so a loop that reads no loss keeps the device busy; the call waits
 * only for the step before the one still running.
 * A step whose loss or gradient norm is not finite changes nothing and
 * returns SVK_OK (see svk_step_info.skipped). If a step was submitted but
 * its outcome cannot be read back (waits that keep failing), the call fails
 * and the model then refuses every call with SVK_ERROR_INVALID_STATE until
 * a checkpoint is loaded: its state is not known, and guessing it could
 * save weights under the wrong step. */
SVK_API svk_status svk_model_train_step(svk_model *model, const int32_t *tokens, const int32_t *targets,
                                        uint32_t B, uint32_t T, float lr, float *loss);

/* svk_model_train_step with gradient accumulation: the B rows of tokens
 * and targets ([B, T]) run as `accum` micro-batches of B / accum rows each
 * (rows 0 .. B/accum - 1 first), whose gradients add up on the device
 * before one clipping and one AdamW update. The step is the whole batch's:
 * its loss is the mean over all B x T counted targets, and each
 * micro-batch's gradient is divided by that count, so it equals
 * svk_model_train_step on the same B rows up to the order of float sums,
 * while the activations take the memory of B / accum rows
 * (svk_model_memory). The micro-batches and the update are recorded once,
 * as one step, and replayed; nothing returns to the host between them. The
 * recording holds every micro-batch's commands, host memory growing with
 * accum (some 80 KB a micro-batch for a 2-layer model on lavapipe): for
 * hundreds of micro-batches, larger ones take less.
 * accum >= 1 dividing B, else SVK_ERROR_INVALID_ARG; accum 1 is
 * svk_model_train_step. Everything else (checks, loss, skipped steps,
 * overlap with the step before) as svk_model_train_step. Changing accum
 * (or B, or T) between calls makes the model lay out its work again, as a
 * new batch shape does. */
SVK_API svk_status svk_model_train_step_accum(svk_model *model, const int32_t *tokens, const int32_t *targets,
                                              uint32_t B, uint32_t T, uint32_t accum, float lr, float *loss);

/* Details of the last completed step, read from the device: loss, gradient
 * norm before clipping, number of targets that counted. A step whose loss
 * or gradient norm is not finite changes nothing (the device skips the
 * AdamW update, without a host round trip): `skipped` says so, and `step`
 * is the count of updates actually applied (svk_model_step). */
typedef struct svk_step_info {
    float loss, grad_norm, clip_scale;
    uint32_t valid_targets;
    bool skipped;
    uint64_t step;
    /* The loss scale the step ran with (svk_model_params.loss_scale; 1
     * without loss scaling); grad_norm and clip_scale are the unscaled
     * gradients'. */
    float loss_scale;
} svk_step_info;
SVK_API svk_status svk_model_last_step(svk_model *model, svk_step_info *info);

/* Where a training step turns non-finite (svk_model_find_nonfinite): one
 * operand of one operation of the step, and what its elements held. */
typedef struct svk_nonfinite_operand {
    char tensor[80];       /* the tensor's name: a parameter ("blocks.1.mlp.fc.weight"), its gradient
                              ("grad.blocks.1.mlp.fc.weight") or an activation ("blocks.1.mlp.a") */
    char role[16];         /* what the operation calls it: "A", "x", "dout", ... */
    uint64_t elements;     /* the elements the operation reads or writes */
    uint64_t nan, inf;     /* how many of them are NaN, and +-infinity */
    uint64_t first;        /* the index (among those elements, row by row) of the first of them;
                              UINT64_MAX when there is none */
    float max_abs;         /* the largest magnitude among the finite ones */
} svk_nonfinite_operand;

typedef struct svk_nonfinite_report {
    bool found;            /* false: every operation's outputs were finite in the replay */
    uint32_t op_index;     /* the operation's place in the step */
    char op[48];           /* its label, e.g. "blocks.1.mlp.fc" */
    char kind[24];         /* what it computes, e.g. "gemm", "layernorm_fwd", "cross_entropy" */
    char phase[12];        /* "forward", "loss", "backward" or "clip" */
    int32_t layer;         /* the block it belongs to, or -1 (embedding, final norm, loss, clipping) */
    svk_nonfinite_operand output;     /* the first of its outputs that holds NaN or infinity */
    uint32_t n_inputs;
    svk_nonfinite_operand inputs[16]; /* everything it read, as it was just before it ran */
    uint64_t reserved[4];
} svk_nonfinite_report;

/* Finds the first operation of a training step on this batch whose output
 * holds NaN or infinity, and what its inputs held: for a step that
 * svk_model_last_step reports skipped, call it with that step's batch. It
 * replays the step's forward pass, loss, backward pass and gradient norm
 * one operation at a time, checking every operand on the device as it goes
 * (much slower than a step); the optimiser does not run, so the weights,
 * moments and step count are unchanged, as they are after a skipped step.
 * The activations and gradients are overwritten, and svk_model_last_step
 * then describes the replay. B, T, tokens and targets as in
 * svk_model_train_step. report->found is false when the replay stays
 * finite (a step skipped for another batch, or weights changed since). */
SVK_API svk_status svk_model_find_nonfinite(svk_model *model, const int32_t *tokens, const int32_t *targets,
                                            uint32_t B, uint32_t T, svk_nonfinite_report *report);

/* Diagnostics, as safetensors files written like a save (atomically,
 * refusing what is not a regular file) but without a configuration, for
 * comparison with another implementation: the gradients of the last
 * training step before clipping, tensors "grad.<parameter name>" in the
 * parameters' shapes; and the logits of the last batch run by
 * svk_model_eval_loss or svk_model_forward_logits, tensor "logits"
 * [B, T, V]. Each waits for the step in flight. A model that has taken no
 * training step has no gradients to write, and one whose last batch was a
 * training step no logits: its backward pass replaces them with their
 * gradient, so that the step holds one [B, T, V] tensor, not two
 * (SVK_ERROR_INVALID_STATE both). */
SVK_API svk_status svk_model_save_grads(svk_model *model, const char *path);
SVK_API svk_status svk_model_save_logits(svk_model *model, const char *path);

/* Mean loss of the batch without changing the model. */
SVK_API svk_status svk_model_eval_loss(svk_model *model, const int32_t *tokens, const int32_t *targets, uint32_t B,
                                       uint32_t T, float *loss);

/* Logits [B, T, V] of a batch of tokens [B, T]. */
SVK_API svk_status svk_model_forward_logits(svk_model *model, const int32_t *tokens, uint32_t B, uint32_t T,
                                            float *logits);

/* Sampling settings of svk_model_generate. */
typedef struct svk_sample_params {
    float temperature;     /* 0 (default): greedy */
    uint32_t top_k;        /* 0 (default): the whole vocabulary */
    uint64_t seed;         /* for temperature > 0 */
    int32_t stop_token;    /* stop after emitting it; -1 (default): never */
} svk_sample_params;
SVK_API svk_sample_params svk_sample_params_default(void);

/* Extends prompt[0 .. n_prompt) by up to max_new tokens into out (capacity
 * max_new); *n_out receives how many were produced. The context window is
 * the last ctx tokens. With the key-value cache: svk_model_generate_ex with
 * these settings, top_p 1 and no stop strings. */
SVK_API svk_status svk_model_generate(svk_model *model, const int32_t *prompt, uint32_t n_prompt, uint32_t max_new,
                                      const svk_sample_params *sample, int32_t *out, uint32_t *n_out);

/* Settings of svk_model_generate_ex: svk_sample_params' and more. */
typedef struct svk_generate_params {
    float temperature;        /* finite, >= 0; 0 (default): greedy (top_k and top_p then unused) */
    uint32_t top_k;           /* sample among the k likeliest tokens (ties kept); 0 (default): all */
    float top_p;              /* then among the fewest likeliest tokens whose probabilities (after
                                 top_k and temperature) sum to at least top_p of theirs; in (0, 1];
                                 default 1: all; a tiny one keeps the likeliest alone: greedy */
    uint64_t seed;            /* for temperature > 0; default 1 */
    int32_t stop_token;       /* stop after emitting it; -1 (default): never */
    const char *const *stop;  /* n_stop non-empty strings, at most SVK_GENERATE_STOP_MAX bytes each: stop
                                 as soon as the generated tokens end with one's bytes (each byte a token
                                 of a byte-level model), which are kept in out; default NULL */
    uint32_t n_stop;          /* at most SVK_GENERATE_STOPS_MAX; default 0 */
    bool no_cache;            /* run the whole window for every token instead of the key-value cache
                                 (the reference the cache is tested against); default false */
    uint64_t reserved[4];     /* must be zero */
} svk_generate_params;
#define SVK_GENERATE_STOPS_MAX 64u
#define SVK_GENERATE_STOP_MAX 256u
SVK_API svk_generate_params svk_generate_params_default(void);

/* svk_model_generate with svk_generate_params. The prompt runs as one
 * forward over the window, which keeps every layer's keys and values
 * (keys RoPE'd) on the model's backend; then each new token is a forward
 * of one row that attends over them: its time grows with the text only
 * through attention's reads, not with a forward over the window each time
 * (docs/PERFORMANCE.md). Greedy output is the uncached path's (no_cache):
 * the CPU backend computes the same logits bit for bit, a device up to
 * rounding (1e-7 relative measured), so only an exact near-tie could go
 * the other way. Past ctx
 * tokens the window slides and positions (learned or RoPE) move with it,
 * so every token then runs the whole window again: the cost of no_cache.
 * Bad settings (temperature, top_p, stop strings, reserved words) are
 * SVK_ERROR_INVALID_ARG naming the value, before anything runs. */
SVK_API svk_status svk_model_generate_ex(svk_model *model, const int32_t *prompt, uint32_t n_prompt, uint32_t max_new,
                                         const svk_generate_params *params, int32_t *out, uint32_t *n_out);

/* Saves the weights as safetensors (names and shapes of docs/MODEL.md, float32,
 * the configuration as JSON in __metadata__ under "svk.config"). With
 * optimizer set, the AdamW moments and the step count go in the same file
 * (tensors "optimizer.m.<name>", "optimizer.v.<name>", metadata
 * "svk.step"), so that a run can resume exactly (a model that has not
 * trained holds no moments, and writes the zeros it would start from).
 * Without it the file holds
 * the weights and the configuration only, a third of the size: the form
 * to export a model in (svk_model_open and svk_model_load read it; a load
 * with SVK_LOAD_OPTIMIZER refuses it), and svk_save_params_default()'s.
 * What a save promises (docs/RELIABILITY.md):
 *  - it is atomic: a crash at any point leaves the old file or the new one;
 *  - it checks the state on the device first and writes nothing when a
 *    weight (or, with optimizer, a moment) is NaN or infinite:
 *    SVK_ERROR_NONFINITE, naming the first such tensor and element, and
 *    the file at path is left as it was (svk_model_save_ex can write such a
 *    state for inspection);
 *  - a symlink at path is followed, and the file it points to replaced;
 *    a path that is not a regular file (a FIFO, a device, a directory) or
 *    has more than one hard link is refused (SVK_ERROR_IO), and a replaced
 *    file keeps its permissions and, where permitted, its owner. */
SVK_API svk_status svk_model_save(svk_model *model, const char *path, bool optimizer);

/* A string an application keeps in a checkpoint beside the model (where a
 * training run stands, its data's position, ...), in __metadata__. */
typedef struct svk_metadata {
    const char *key;   /* 1..SVK_METADATA_KEY_MAX bytes of printable ASCII, no '"' or '\'; not "format" and
                          not beginning "svk." (libsvk's own keys) */
    const char *value; /* a NUL-terminated string of at most SVK_METADATA_VALUE_MAX bytes */
} svk_metadata;
#define SVK_METADATA_KEY_MAX 128u
#define SVK_METADATA_VALUE_MAX 65536u
#define SVK_METADATA_MAX 64u

/* Settings of svk_model_save_ex. */
typedef struct svk_save_params {
    bool optimizer;                /* the AdamW moments and the step too, as svk_model_save's optimizer;
                                      default false */
    bool allow_nonfinite;          /* write a state that holds NaN or infinity (to inspect a diverged
                                      run; such a file loads only with SVK_LOAD_ALLOW_NONFINITE and
                                      without its optimiser state); default false */
    const svk_metadata *metadata;  /* n_metadata entries to store, distinct keys; default NULL */
    uint32_t n_metadata;           /* at most SVK_METADATA_MAX; default 0 */
    uint64_t reserved[4];          /* must be zero */
} svk_save_params;
SVK_API svk_save_params svk_save_params_default(void);

/* svk_model_save with settings: the application's metadata, and the
 * choice to write a non-finite state. Bad metadata is SVK_ERROR_INVALID_ARG
 * naming the entry, before anything is checked or written. */
SVK_API svk_status svk_model_save_ex(svk_model *model, const char *path, const svk_save_params *params);

/* Reads the application metadata `key` of the checkpoint at path (reading
 * its header only, not its tensors) into value (size bytes, NUL included).
 * *found says whether the file holds the key; value is "" when it does
 * not. SVK_ERROR_INVALID_ARG when the value needs more than size bytes (the
 * message says how many), SVK_ERROR_BAD_CHECKPOINT or SVK_ERROR_IO when
 * the file is not a checkpoint or cannot be read. */
SVK_API svk_status svk_checkpoint_metadata(const char *path, const char *key, char *value, size_t size, bool *found);

/* Replaces the model's weights (and, with optimizer, its optimiser state
 * and step, which the file must then hold) from a checkpoint whose
 * configuration equals the model's. The file is trusted in nothing: its
 * layout, every name, shape and dtype, and every value (NaN and infinity
 * are refused; in the optimiser state also a negative second moment, and
 * a step beyond SVK_MAX_STEP) are checked before anything is written; on
 * error
 * (SVK_ERROR_BAD_CHECKPOINT, or SVK_ERROR_IO when it cannot be read) the
 * model is unchanged and the message names the problem and the tensor.
 * Same as svk_model_load_ex with flags SVK_LOAD_OPTIMIZER when optimizer
 * is set, else 0. */
SVK_API svk_status svk_model_load(svk_model *model, const char *path, bool optimizer);

/* Flags of svk_model_load_ex, or'ed together. */
enum {
    SVK_LOAD_OPTIMIZER = 1u << 0,       /* also load the AdamW moments and the step */
    SVK_LOAD_ALLOW_NONFINITE = 1u << 1, /* accept NaN and infinite weights (e.g. to inspect a diverged run);
                                           the optimiser state is still checked, since a bad moment poisons
                                           every later step */
};

/* svk_model_load with flags; any other bit set is SVK_ERROR_INVALID_ARG. */
SVK_API svk_status svk_model_load_ex(svk_model *model, const char *path, uint32_t flags);

/* Creates a model from the checkpoint at path, with the configuration the
 * file holds: the one call that svk_checkpoint_config, svk_model_create
 * and svk_model_load_ex make together, reading the file once (so it cannot
 * change between them). ctx non-NULL: the model runs on its Vulkan device
 * (ctx must outlive it); NULL: on the CPU reference. flags as
 * svk_model_load_ex's: SVK_LOAD_OPTIMIZER also takes the AdamW moments and
 * the step, which the file must then hold (without it the model starts
 * with zero moments at step 0, as a new one). The settings a checkpoint
 * does not hold are svk_model_params_default()'s: the optimiser's (beta1,
 * beta2, eps, weight_decay, max_norm) and the seed, which only
 * initialisation uses; an application that trains with other settings
 * makes the model with svk_model_create from svk_checkpoint_config and
 * loads it. The file is checked as svk_model_load checks it, and refused
 * with the same statuses and messages (SVK_ERROR_IO when it cannot be read
 * or is not a regular file, SVK_ERROR_BAD_CHECKPOINT when it is not a
 * checkpoint, its configuration is invalid or its tensors do not match
 * it). On failure *model is NULL. */
SVK_API svk_status svk_model_open(svk_ctx *ctx, const char *path, uint32_t flags, svk_model **model);

/* Reads the configuration stored in a checkpoint, for building a model to
 * load it into; the file is refused (SVK_ERROR_BAD_CHECKPOINT) unless it
 * holds every weight that configuration has, F32, in its shape, and no
 * tensor foreign to it. Its values are not read (svk_model_load checks
 * them). Takes time linear in the file's size, whatever its configuration
 * claims. */
SVK_API svk_status svk_checkpoint_config(const char *path, svk_model_config *config);

/* Memory the model holds, by kind, in bytes. A model makes its gradients
 * and AdamW moments at its first training step (or when an optimizer
 * state is loaded into it) and keeps them: until then grads and optimizer
 * are 0, so a model that only evaluates or generates holds its weights
 * and activations alone. */
typedef struct svk_memory_report {
    uint64_t params, grads, optimizer, activations, io;
    uint64_t total;
} svk_memory_report;
SVK_API svk_status svk_model_memory(const svk_model *model, svk_memory_report *report);

/* What a model would hold at a batch shape, and whether it fits where it
 * would run, worked out before anything is allocated
 * (svk_model_plan_memory). */
typedef struct svk_memory_plan {
    svk_memory_report model;  /* by kind, as svk_model_memory would report the model training on [B, T] */
    uint64_t workspace;       /* the device's besides: scratch, clipping partials, a second set of inputs
                                 and outputs (two steps in flight), allocation granularity */
    uint64_t device_bytes;    /* model.total + workspace: everything the model would allocate (on the
                                 CPU backend, host memory) */
    uint32_t heap;            /* the device's memory heap that takes it (CPU backend: 0) */
    uint64_t heap_size;       /* that heap's size as the device reports it (CPU backend: 0) */
    uint64_t heap_available;  /* what it can take now: its size less what the context holds on it, and
                                 where the heap is the system's memory (an integrated GPU, a CPU device;
                                 the CPU backend) at most what the system has free; 0 = not known */
    bool fits;                /* every buffer within the device's limits, and their sum within heap_available,
                                 with the context's staging memory for transfers (8 MiB) where the context does
                                 not hold it yet: the model's first upload takes it */
    char why_not[512];        /* when it does not fit: what is too large, as a training step would say */
    uint32_t max_batch;       /* the largest B, a multiple of accum (and at most 2^20), with which it fits at
                                 this T, accum and params->recompute; 0 when none does */
    uint64_t reserved[4];
} svk_memory_plan;

/* Works out *plan for a model made with params (its backend and context,
 * configuration and recompute) training on batches [B, T] in accum
 * micro-batches (svk_model_train_step_accum; 1: svk_model_train_step):
 * the memory by kind, the device's heap, whether it fits, and the largest
 * batch that would. Allocates nothing on the device. SVK_OK whenever the
 * plan could be worked out, whether or not it fits (plan->fits);
 * SVK_ERROR_INVALID_ARG for invalid params or shapes (as svk_model_create
 * and svk_model_train_step_accum would refuse them), SVK_ERROR_TOO_LARGE
 * for a shape whose sizes overflow. Thread-safety: as the context. */
SVK_API svk_status svk_model_plan_memory(const svk_model_params *params, uint32_t B, uint32_t T, uint32_t accum,
                                         svk_memory_plan *plan);

SVK_END_DECLS

#endif
