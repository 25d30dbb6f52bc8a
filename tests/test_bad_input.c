/*
 * Every public entry point refuses bad arguments (docs/RELIABILITY.md,
 * "Input validation"): one table row per case, each the call, the status it
 * must return and the words its message must hold (the field and the
 * value). Model rows run on both backends, the CPU reference and the
 * Vulkan device, since the checks must not depend on which runs the model;
 * after them a good step must still work, so a refused call left nothing
 * half done.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svk/svk.h"
#include "svk/vulkan.h"
#include "test_util.h"

enum { B = 2, T = 8 };

typedef struct fixture {
    svk_ctx *ctx;
    svk_model *m;       /* the model of the backend being tested */
    svk_buffer *buf;    /* 64 bytes of device memory */
    int32_t tokens[B * T], targets[B * T];
    float logits[B * T * 64];
    char dir[64];       /* scratch directory */
} fixture;

static svk_model_config tiny_config(void)
{
    svk_model_config c = svk_model_config_default();
    c.vocab = 64;
    c.ctx = 16;
    c.width = 32;
    c.layers = 1;
    c.heads = 2;
    return c;
}

/* A model of config c with params p otherwise default, destroyed at once. */
static svk_status create_with(fixture *f, const svk_model_config *c, const svk_model_params *p)
{
    svk_model_params mp = p ? *p : svk_model_params_default();
    if (!p) {
        mp.backend = SVK_BACKEND_CPU;
        mp.ctx = f->ctx;
    }
    if (c)
        mp.config = *c;
    svk_model *m = NULL;
    svk_status st = svk_model_create(&mp, &m);
    svk_model_destroy(&m);
    return st;
}

/* ---- context and buffers ------------------------------------------------ */

static svk_status ctx_null_out(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    return svk_ctx_create(&p, NULL);
}
static svk_status ctx_reserved(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    p.reserved[3] = 7;
    svk_ctx *c = NULL;
    return svk_ctx_create(&p, &c);
}
static svk_status ctx_no_such_index(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    p.device_index = 999;
    svk_ctx *c = NULL;
    svk_status st = svk_ctx_create(&p, &c);
    svk_ctx_destroy(&c);
    return st;
}
/* Any negative index but -1 ("choose") was once taken for -1. */
static svk_status ctx_negative_index(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    p.device_index = -2;
    svk_ctx *c = NULL;
    svk_status st = svk_ctx_create(&p, &c);
    svk_ctx_destroy(&c);
    return st;
}
static svk_status ctx_no_such_name(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    p.device_name = "no-such-gpu-xyzzy";
    svk_ctx *c = NULL;
    svk_status st = svk_ctx_create(&p, &c);
    svk_ctx_destroy(&c);
    return st;
}
/* $SVK_COOPMAT_EXT takes "nv" or "khr" (lib/vk/env.c); the context
 * refuses anything else before it touches Vulkan. */
static svk_status ctx_bad_coopmat_ext(fixture *f)
{
    (void)f;
    svk_ctx_params p = svk_ctx_params_default();
    svk_ctx *c = NULL;
    setenv("SVK_COOPMAT_EXT", "amd", 1);
    svk_status st = svk_ctx_create(&p, &c);
    unsetenv("SVK_COOPMAT_EXT");
    svk_ctx_destroy(&c);
    return st;
}
static svk_status list_null_count(fixture *f)
{
    (void)f;
    return svk_list_devices(NULL, NULL);
}
static svk_status buffer_null_ctx(fixture *f)
{
    (void)f;
    svk_buffer_params p = svk_buffer_params_default();
    p.size = 64;
    svk_buffer *b = NULL;
    return svk_buffer_create(NULL, &p, &b);
}
static svk_status buffer_size_zero(fixture *f)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = 0;
    svk_buffer *b = NULL;
    return svk_buffer_create(f->ctx, &p, &b);
}
static svk_status buffer_size_absurd(fixture *f)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = UINT64_MAX - 3;
    p.name = "huge";
    svk_buffer *b = NULL;
    svk_status st = svk_buffer_create(f->ctx, &p, &b);
    svk_buffer_destroy(&b);
    return st;
}
static svk_status buffer_bad_memory(fixture *f)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = 64;
    p.memory = (svk_memory_kind)42;
    svk_buffer *b = NULL;
    svk_status st = svk_buffer_create(f->ctx, &p, &b);
    svk_buffer_destroy(&b);
    return st;
}
static svk_status buffer_reserved(fixture *f)
{
    svk_buffer_params p = svk_buffer_params_default();
    p.size = 64;
    p.reserved[0] = 1;
    svk_buffer *b = NULL;
    svk_status st = svk_buffer_create(f->ctx, &p, &b);
    svk_buffer_destroy(&b);
    return st;
}
static svk_status upload_past_end(fixture *f)
{
    float x[4] = {0};
    return svk_buffer_upload(f->buf, 60, x, sizeof(x));
}
static svk_status upload_offset_wraps(fixture *f)
{
    float x[4] = {0};
    return svk_buffer_upload(f->buf, UINT64_MAX - 7, x, sizeof(x));
}
static svk_status upload_null_data(fixture *f)
{
    return svk_buffer_upload(f->buf, 0, NULL, 16);
}
static svk_status download_past_end(fixture *f)
{
    float x[32];
    return svk_buffer_download(f->buf, 0, x, sizeof(x));
}
static svk_status map_device_memory(fixture *f)
{
    void *p = NULL;
    return svk_buffer_map(f->buf, &p);
}
static svk_status map_null(fixture *f)
{
    (void)f;
    void *p = NULL;
    return svk_buffer_map(NULL, &p);
}

/* ---- configurations and model creation ----------------------------------- */

static svk_status config_set_null_key(fixture *f)
{
    (void)f;
    svk_model_config c = svk_model_config_default();
    return svk_model_config_set(&c, NULL, "1");
}
static svk_status config_validate_null(fixture *f)
{
    (void)f;
    return svk_model_config_validate(NULL);
}
static svk_status config_from_json_null(fixture *f)
{
    (void)f;
    svk_model_config c;
    return svk_model_config_from_json(NULL, &c);
}
static svk_status create_heads_not_dividing(fixture *f)
{
    svk_model_config c = tiny_config();
    c.heads = 3;
    return create_with(f, &c, NULL);
}
static svk_status create_odd_head_rope(fixture *f)
{
    svk_model_config c = tiny_config();
    c.width = 30;
    c.heads = 2; /* head width 15 */
    c.pos = SVK_POS_ROPE;
    return create_with(f, &c, NULL);
}
static svk_status create_vocab_one(fixture *f)
{
    svk_model_config c = tiny_config();
    c.vocab = 1;
    return create_with(f, &c, NULL);
}
static svk_status create_layers_zero(fixture *f)
{
    svk_model_config c = tiny_config();
    c.layers = 0;
    return create_with(f, &c, NULL);
}
static svk_status create_bad_norm_enum(fixture *f)
{
    svk_model_config c = tiny_config();
    c.norm = (svk_norm_kind)9;
    return create_with(f, &c, NULL);
}
static svk_status create_eps_nan(fixture *f)
{
    svk_model_config c = tiny_config();
    c.norm_eps = NAN;
    return create_with(f, &c, NULL);
}
static svk_status create_params_overflow(fixture *f)
{
    /* Four billion layers: refused by the configuration's rule, before
     * anything loops over them. */
    svk_model_config c = tiny_config();
    c.layers = 4000000000u;
    return create_with(f, &c, NULL);
}
static svk_status create_null_params(fixture *f)
{
    (void)f;
    svk_model *m = NULL;
    return svk_model_create(NULL, &m);
}
static svk_status create_null_out(fixture *f)
{
    (void)f;
    svk_model_params p = svk_model_params_default();
    p.backend = SVK_BACKEND_CPU;
    p.config = tiny_config();
    return svk_model_create(&p, NULL);
}
static svk_status create_vulkan_without_ctx(fixture *f)
{
    (void)f;
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_VULKAN;
    p.ctx = NULL;
    return create_with(f, NULL, &p);
}
static svk_status create_bad_backend(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = (svk_backend)5;
    p.ctx = f->ctx;
    return create_with(f, NULL, &p);
}
static svk_status create_reserved(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_CPU;
    p.reserved[1] = 1;
    return create_with(f, NULL, &p);
}
static svk_status create_beta1_one(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_CPU;
    p.optimizer.beta1 = 1.0f;
    return create_with(f, NULL, &p);
}
static svk_status create_max_norm_negative(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_CPU;
    p.optimizer.max_norm = -1.0f;
    return create_with(f, NULL, &p);
}
static svk_status create_submit_negative(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_CPU;
    p.max_submit_ms = -1;
    return create_with(f, NULL, &p);
}
static svk_status create_submit_nan(fixture *f)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_CPU;
    p.max_submit_ms = NAN;
    return create_with(f, NULL, &p);
}

/* ---- model calls (each backend) ------------------------------------------ */

static svk_status train_null_model(fixture *f)
{
    return svk_model_train_step(NULL, f->tokens, f->targets, B, T, 1e-3f, NULL);
}
static svk_status train_null_tokens(fixture *f)
{
    return svk_model_train_step(f->m, NULL, f->targets, B, T, 1e-3f, NULL);
}
static svk_status train_null_targets(fixture *f)
{
    return svk_model_train_step(f->m, f->tokens, NULL, B, T, 1e-3f, NULL);
}
static svk_status train_batch_zero(fixture *f)
{
    return svk_model_train_step(f->m, f->tokens, f->targets, 0, T, 1e-3f, NULL);
}
static svk_status train_seq_zero(fixture *f)
{
    return svk_model_train_step(f->m, f->tokens, f->targets, B, 0, 1e-3f, NULL);
}
static svk_status train_seq_past_ctx(fixture *f)
{
    int32_t *tok = calloc(17, sizeof(int32_t)), *tgt = calloc(17, sizeof(int32_t));
    svk_status st = tok && tgt ? svk_model_train_step(f->m, tok, tgt, 1, 17, 1e-3f, NULL) : SVK_ERROR_OUT_OF_HOST_MEMORY;
    free(tok);
    free(tgt);
    return st;
}
static svk_status train_batch_overflow(fixture *f)
{
    /* B*T tokens, then B*T*V logits: far past any device, and past 32 bits
     * on the way. Nothing is read from tokens before the size is refused. */
    return svk_model_train_step(f->m, f->tokens, f->targets, 0xFFFFFFFFu, 16, 1e-3f, NULL);
}
static svk_status train_token_is_vocab(fixture *f)
{
    f->tokens[5] = 64;
    svk_status st = svk_model_train_step(f->m, f->tokens, f->targets, B, T, 1e-3f, NULL);
    f->tokens[5] = 5;
    return st;
}
static svk_status train_token_negative(fixture *f)
{
    f->tokens[0] = -1;
    svk_status st = svk_model_train_step(f->m, f->tokens, f->targets, B, T, 1e-3f, NULL);
    f->tokens[0] = 0;
    return st;
}
static svk_status train_target_is_vocab(fixture *f)
{
    f->targets[15] = 64;
    svk_status st = svk_model_train_step(f->m, f->tokens, f->targets, B, T, 1e-3f, NULL);
    f->targets[15] = 1;
    return st;
}
static svk_status train_target_minus_two(fixture *f)
{
    f->targets[3] = -2;
    svk_status st = svk_model_train_step(f->m, f->tokens, f->targets, B, T, 1e-3f, NULL);
    f->targets[3] = 4;
    return st;
}
static svk_status train_lr_nan(fixture *f)
{
    return svk_model_train_step(f->m, f->tokens, f->targets, B, T, NAN, NULL);
}
static svk_status train_lr_negative(fixture *f)
{
    return svk_model_train_step(f->m, f->tokens, f->targets, B, T, -0.5f, NULL);
}
static svk_status eval_null_loss(fixture *f)
{
    return svk_model_eval_loss(f->m, f->tokens, f->targets, B, T, NULL);
}
static svk_status eval_target_big(fixture *f)
{
    float loss;
    f->targets[1] = 1000;
    svk_status st = svk_model_eval_loss(f->m, f->tokens, f->targets, B, T, &loss);
    f->targets[1] = 2;
    return st;
}
static svk_status logits_null_out(fixture *f)
{
    return svk_model_forward_logits(f->m, f->tokens, B, T, NULL);
}
static svk_status logits_token_big(fixture *f)
{
    f->tokens[7] = 99;
    svk_status st = svk_model_forward_logits(f->m, f->tokens, B, T, f->logits);
    f->tokens[7] = 7;
    return st;
}
static svk_status generate_null_prompt(fixture *f)
{
    int32_t out[4];
    uint32_t n;
    return svk_model_generate(f->m, NULL, 3, 4, NULL, out, &n);
}
static svk_status generate_empty_prompt(fixture *f)
{
    int32_t out[4];
    uint32_t n;
    return svk_model_generate(f->m, f->tokens, 0, 4, NULL, out, &n);
}
static svk_status generate_prompt_token_big(fixture *f)
{
    int32_t prompt[2] = {1, 64}, out[4];
    uint32_t n;
    return svk_model_generate(f->m, prompt, 2, 4, NULL, out, &n);
}
static svk_status generate_temperature_negative(fixture *f)
{
    int32_t out[4];
    uint32_t n;
    svk_sample_params s = svk_sample_params_default();
    s.temperature = -1.0f;
    return svk_model_generate(f->m, f->tokens, 2, 4, &s, out, &n);
}
static svk_status generate_null_count(fixture *f)
{
    int32_t out[4];
    return svk_model_generate(f->m, f->tokens, 2, 4, NULL, out, NULL);
}
static svk_status last_step_null(fixture *f)
{
    return svk_model_last_step(f->m, NULL);
}
static svk_status memory_null(fixture *f)
{
    return svk_model_memory(f->m, NULL);
}
static svk_status save_null_path(fixture *f)
{
    return svk_model_save(f->m, NULL, true);
}
static svk_status save_empty_path(fixture *f)
{
    return svk_model_save(f->m, "", true);
}
static svk_status save_missing_dir(fixture *f)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/no/such/dir/ck.safetensors", f->dir);
    return svk_model_save(f->m, path, true);
}
static svk_status load_missing_file(fixture *f)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/absent.safetensors", f->dir);
    return svk_model_load(f->m, path, true);
}
static svk_status load_bad_flags(fixture *f)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/absent.safetensors", f->dir);
    return svk_model_load_ex(f->m, path, 1u << 7);
}
static svk_status checkpoint_config_null(fixture *f)
{
    (void)f;
    svk_model_config c;
    return svk_checkpoint_config(NULL, &c);
}
static svk_status open_null_model(fixture *f)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/absent.safetensors", f->dir);
    return svk_model_open(NULL, path, 0, NULL);
}
static svk_status open_bad_flags(fixture *f)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/absent.safetensors", f->dir);
    svk_model *m = NULL;
    return svk_model_open(f->ctx, path, 1u << 6, &m);
}
static svk_status lr_schedule_peak_nan(fixture *f)
{
    (void)f;
    float lr;
    return svk_lr_schedule(0, 10, 2, NAN, &lr);
}
static svk_status lr_schedule_past_total(fixture *f)
{
    (void)f;
    float lr;
    return svk_lr_schedule(10, 10, 2, 1e-3f, &lr);
}
static svk_status lr_schedule_null_lr(fixture *f)
{
    (void)f;
    return svk_lr_schedule(0, 10, 2, 1e-3f, NULL);
}
static svk_status lr_schedule_ex_decay_frac(fixture *f)
{
    (void)f;
    svk_lr_params p = svk_lr_params_default();
    p.shape = SVK_LR_WSD;
    p.total = 10;
    p.decay_frac = 2;
    float lr;
    return svk_lr_schedule_ex(&p, 0, &lr);
}
static svk_status lr_schedule_ex_shape(fixture *f)
{
    (void)f;
    svk_lr_params p = svk_lr_params_default();
    p.shape = (svk_lr_shape)4;
    float lr;
    return svk_lr_schedule_ex(&p, 0, &lr);
}
static svk_status lr_schedule_ex_null(fixture *f)
{
    (void)f;
    float lr;
    return svk_lr_schedule_ex(NULL, 0, &lr);
}
static svk_status text_open_null_path(fixture *f)
{
    (void)f;
    svk_text_data *d = NULL;
    return svk_text_data_open(NULL, NULL, &d);
}
static svk_status text_open_bad_order(fixture *f)
{
    (void)f;
    svk_text_data_params p = svk_text_data_params_default();
    p.order = (svk_text_order)9;
    svk_text_data *d = NULL;
    return svk_text_data_open("/dev/null", &p, &d);
}
static svk_status text_batch_null(fixture *f)
{
    return svk_text_data_batch(NULL, B, T, f->tokens, f->targets);
}
static svk_status addition_zero_digits(fixture *f)
{
    (void)f;
    svk_addition_params p = svk_addition_params_default();
    p.digits = 0;
    svk_addition *a = NULL;
    return svk_addition_create(&p, &a);
}
static svk_status addition_reserved(fixture *f)
{
    (void)f;
    svk_addition_params p = svk_addition_params_default();
    p.reserved[2] = 5;
    uint32_t len;
    return svk_addition_max_len(&p, &len);
}
static svk_status addition_short_seq(fixture *f)
{
    svk_addition *a = NULL;
    svk_status st = svk_addition_create(NULL, &a);
    if (st == SVK_OK)
        st = svk_addition_batch(a, B, T, f->tokens, f->targets);
    svk_addition_destroy(&a);
    return st;
}
static svk_status token_data_null_pattern(fixture *f)
{
    (void)f;
    svk_token_data *d = NULL;
    return svk_token_data_open(NULL, NULL, &d);
}
static svk_status token_data_vocab_zero(fixture *f)
{
    (void)f;
    svk_token_data_params p = svk_token_data_params_default();
    p.vocab = 0;
    svk_token_data *d = NULL;
    return svk_token_data_open("/dev/null", &p, &d);
}
static svk_status token_data_batch_null(fixture *f)
{
    return svk_token_data_batch(NULL, B, T, f->tokens, f->targets);
}
static svk_status token_file_null_values(fixture *f)
{
    (void)f;
    return svk_token_file_read("/dev/null", NULL, 4);
}
static svk_status save_grads_null_path(fixture *f)
{
    return svk_model_save_grads(f->m, NULL);
}
static svk_status save_logits_empty_path(fixture *f)
{
    return svk_model_save_logits(f->m, "");
}
static svk_status save_grads_null_model(fixture *f)
{
    (void)f;
    return svk_model_save_grads(NULL, "/tmp/never-written.safetensors");
}
static svk_status prepare_bad_token(fixture *f)
{
    f->tokens[2] = 64;
    svk_status st = svk_model_prepare_train_step(f->m, f->tokens, f->targets, 1e-3f);
    f->tokens[2] = 2;
    return st;
}
static svk_status record_null_cmd(fixture *f)
{
    return svk_model_record_train_step(f->m, VK_NULL_HANDLE, B, T);
}

typedef struct bad_case {
    const char *name;
    svk_status (*run)(fixture *f);
    svk_status want;
    /* Words the message must hold (field, value); NULL: none asked. */
    const char *needle[2];
} bad_case;

/* Calls that take no model, or make their own. */
static const bad_case global_cases[] = {
    {"svk_ctx_create out NULL", ctx_null_out, SVK_ERROR_INVALID_ARG, {"out", NULL}},
    {"svk_ctx_create reserved set", ctx_reserved, SVK_ERROR_INVALID_ARG, {"reserved[3] is 7", NULL}},
    {"svk_ctx_create device 999", ctx_no_such_index, SVK_ERROR_NO_DEVICE, {"999", NULL}},
    {"svk_ctx_create device_index -2", ctx_negative_index, SVK_ERROR_INVALID_ARG, {"device_index=-2", NULL}},
    {"svk_ctx_create device name unknown", ctx_no_such_name, SVK_ERROR_NO_DEVICE, {"no-such-gpu-xyzzy", NULL}},
    {"svk_ctx_create SVK_COOPMAT_EXT=amd", ctx_bad_coopmat_ext, SVK_ERROR_INVALID_ARG, {"SVK_COOPMAT_EXT", "'amd'"}},
    {"svk_list_devices count NULL", list_null_count, SVK_ERROR_INVALID_ARG, {"count", NULL}},
    {"svk_buffer_create ctx NULL", buffer_null_ctx, SVK_ERROR_INVALID_ARG, {"ctx", NULL}},
    {"svk_buffer_create size 0", buffer_size_zero, SVK_ERROR_INVALID_ARG, {"size", "0"}},
    {"svk_buffer_create size 2^64-4", buffer_size_absurd, SVK_ERROR_TOO_LARGE, {"huge", "18446744073709551612"}},
    {"svk_buffer_create memory kind 42", buffer_bad_memory, SVK_ERROR_INVALID_ARG, {"memory is 42", NULL}},
    {"svk_buffer_create reserved set", buffer_reserved, SVK_ERROR_INVALID_ARG, {"reserved[0] is 1", NULL}},
    {"svk_buffer_upload past the end", upload_past_end, SVK_ERROR_INVALID_ARG, {"60", "64"}},
    {"svk_buffer_upload offset wraps", upload_offset_wraps, SVK_ERROR_INVALID_ARG, {"18446744073709551608", NULL}},
    {"svk_buffer_upload data NULL", upload_null_data, SVK_ERROR_INVALID_ARG, {"data", NULL}},
    {"svk_buffer_download past the end", download_past_end, SVK_ERROR_INVALID_ARG, {"128", "64"}},
    {"svk_buffer_map device memory", map_device_memory, SVK_ERROR_INVALID_ARG, {"scratch", "device memory"}},
    {"svk_buffer_map buffer NULL", map_null, SVK_ERROR_INVALID_ARG, {"buf", NULL}},
    {"svk_model_config_set key NULL", config_set_null_key, SVK_ERROR_INVALID_ARG, {"key", NULL}},
    {"svk_model_config_validate NULL", config_validate_null, SVK_ERROR_INVALID_ARG, {"config", NULL}},
    {"svk_model_config_from_json NULL", config_from_json_null, SVK_ERROR_INVALID_ARG, {"json", NULL}},
    {"create: heads 3 do not divide width 32", create_heads_not_dividing, SVK_ERROR_INVALID_CONFIG, {"heads=3", "32"}},
    {"create: rope with odd head width 15", create_odd_head_rope, SVK_ERROR_INVALID_CONFIG, {"rope", "15"}},
    {"create: vocab 1", create_vocab_one, SVK_ERROR_INVALID_CONFIG, {"vocab=1", NULL}},
    {"create: layers 0", create_layers_zero, SVK_ERROR_INVALID_CONFIG, {"layers=0", NULL}},
    {"create: norm enum 9", create_bad_norm_enum, SVK_ERROR_INVALID_CONFIG, {"norm", "9"}},
    {"create: norm_eps NaN", create_eps_nan, SVK_ERROR_INVALID_CONFIG, {"norm_eps", "nan"}},
    {"create: 4e9 layers", create_params_overflow, SVK_ERROR_INVALID_CONFIG, {"layers=4000000000", "65536"}},
    {"svk_model_create params NULL", create_null_params, SVK_ERROR_INVALID_ARG, {"params", NULL}},
    {"svk_model_create out NULL", create_null_out, SVK_ERROR_INVALID_ARG, {"out", NULL}},
    {"create: Vulkan backend without ctx", create_vulkan_without_ctx, SVK_ERROR_INVALID_ARG, {"ctx", NULL}},
    {"create: backend 5", create_bad_backend, SVK_ERROR_INVALID_ARG, {"backend", "5"}},
    {"create: reserved set", create_reserved, SVK_ERROR_INVALID_ARG, {"reserved[1] is 1", NULL}},
    {"create: beta1 1", create_beta1_one, SVK_ERROR_INVALID_ARG, {"beta1", "1"}},
    {"create: max_norm -1", create_max_norm_negative, SVK_ERROR_INVALID_ARG, {"max_norm", "-1"}},
    {"create: max_submit_ms -1", create_submit_negative, SVK_ERROR_INVALID_ARG, {"max_submit_ms=-1", NULL}},
    {"create: max_submit_ms NaN", create_submit_nan, SVK_ERROR_INVALID_ARG, {"max_submit_ms=nan", NULL}},
    {"svk_checkpoint_config path NULL", checkpoint_config_null, SVK_ERROR_INVALID_ARG, {"path", NULL}},
    {"svk_model_open model NULL", open_null_model, SVK_ERROR_INVALID_ARG, {"model is NULL", NULL}},
    {"svk_model_open flags 0x40", open_bad_flags, SVK_ERROR_INVALID_ARG, {"flags 0x40", NULL}},
    {"svk_lr_schedule peak NaN", lr_schedule_peak_nan, SVK_ERROR_INVALID_ARG, {"peak", "nan"}},
    {"svk_lr_schedule step 10 of 10", lr_schedule_past_total, SVK_ERROR_INVALID_ARG, {"step 10", "10 updates"}},
    {"svk_lr_schedule lr NULL", lr_schedule_null_lr, SVK_ERROR_INVALID_ARG, {"lr is NULL", NULL}},
    {"svk_lr_schedule_ex decay_frac 2", lr_schedule_ex_decay_frac, SVK_ERROR_INVALID_ARG, {"decay_frac=2", NULL}},
    {"svk_lr_schedule_ex shape 4", lr_schedule_ex_shape, SVK_ERROR_INVALID_ARG, {"shape 4", NULL}},
    {"svk_lr_schedule_ex p NULL", lr_schedule_ex_null, SVK_ERROR_INVALID_ARG, {"p is NULL", NULL}},
    {"svk_text_data_open path NULL", text_open_null_path, SVK_ERROR_INVALID_ARG, {"path is NULL", NULL}},
    {"svk_text_data_open order 9", text_open_bad_order, SVK_ERROR_INVALID_ARG, {"order=9", NULL}},
    {"svk_text_data_batch data NULL", text_batch_null, SVK_ERROR_INVALID_ARG, {"data is NULL", NULL}},
    {"svk_addition_create digits 0", addition_zero_digits, SVK_ERROR_INVALID_ARG, {"digits=0", NULL}},
    {"svk_addition_max_len reserved set", addition_reserved, SVK_ERROR_INVALID_ARG, {"reserved[2] is 5", NULL}},
    {"svk_addition_batch T 8 < 11", addition_short_seq, SVK_ERROR_INVALID_ARG, {"length 8", "needs >= 11"}},
    {"svk_token_data_open pattern NULL", token_data_null_pattern, SVK_ERROR_INVALID_ARG, {"pattern is NULL", NULL}},
    {"svk_token_data_open vocab 0", token_data_vocab_zero, SVK_ERROR_INVALID_ARG, {"vocab=0", NULL}},
    {"svk_token_data_batch data NULL", token_data_batch_null, SVK_ERROR_INVALID_ARG, {"data is NULL", NULL}},
    {"svk_token_file_read values NULL", token_file_null_values, SVK_ERROR_INVALID_ARG, {"values is NULL", NULL}},
    {"svk_model_save_grads model NULL", save_grads_null_model, SVK_ERROR_INVALID_ARG, {"model is NULL", NULL}},
};

/* Calls on a model: run once per backend. */
/* svk_model_generate_ex with one setting changed by `set`. */
static svk_status generate_ex_with(fixture *f, void (*set)(svk_generate_params *))
{
    int32_t out[4];
    uint32_t n;
    svk_generate_params g = svk_generate_params_default();
    set(&g);
    return svk_model_generate_ex(f->m, f->tokens, 2, 4, &g, out, &n);
}
static void set_top_p_zero(svk_generate_params *g) { g->top_p = 0.0f; }
static void set_top_p_big(svk_generate_params *g) { g->top_p = 1.5f; }
static void set_top_p_nan(svk_generate_params *g) { g->top_p = NAN; }
static void set_stop_null(svk_generate_params *g) { g->n_stop = 1; }
static void set_stop_empty(svk_generate_params *g)
{
    static const char *const stops[2] = {"ab", ""};
    g->stop = stops;
    g->n_stop = 2;
}
static void set_stops_many(svk_generate_params *g)
{
    static const char *const stops[SVK_GENERATE_STOPS_MAX + 1] = {"x"};
    g->stop = stops;
    g->n_stop = SVK_GENERATE_STOPS_MAX + 1;
}
static void set_reserved(svk_generate_params *g) { g->reserved[2] = 5; }
static void set_temperature_inf(svk_generate_params *g) { g->temperature = INFINITY; }
static svk_status generate_ex_top_p_zero(fixture *f) { return generate_ex_with(f, set_top_p_zero); }
static svk_status generate_ex_top_p_big(fixture *f) { return generate_ex_with(f, set_top_p_big); }
static svk_status generate_ex_top_p_nan(fixture *f) { return generate_ex_with(f, set_top_p_nan); }
static svk_status generate_ex_stop_null(fixture *f) { return generate_ex_with(f, set_stop_null); }
static svk_status generate_ex_stop_empty(fixture *f) { return generate_ex_with(f, set_stop_empty); }
static svk_status generate_ex_stops_many(fixture *f) { return generate_ex_with(f, set_stops_many); }
static svk_status generate_ex_reserved(fixture *f) { return generate_ex_with(f, set_reserved); }
static svk_status generate_ex_temperature_inf(fixture *f) { return generate_ex_with(f, set_temperature_inf); }
static svk_status generate_ex_null_model(fixture *f)
{
    int32_t out[4];
    uint32_t n;
    return svk_model_generate_ex(NULL, f->tokens, 2, 4, NULL, out, &n);
}

static const bad_case model_cases[] = {
    {"train_step model NULL", train_null_model, SVK_ERROR_INVALID_ARG, {"model", NULL}},
    {"train_step tokens NULL", train_null_tokens, SVK_ERROR_INVALID_ARG, {"tokens", NULL}},
    {"train_step targets NULL", train_null_targets, SVK_ERROR_INVALID_ARG, {"targets", NULL}},
    {"train_step B 0", train_batch_zero, SVK_ERROR_INVALID_ARG, {"B=0", NULL}},
    {"train_step T 0", train_seq_zero, SVK_ERROR_INVALID_ARG, {"T=0", NULL}},
    {"train_step T 17 > ctx 16", train_seq_past_ctx, SVK_ERROR_INVALID_ARG, {"T=17", "ctx=16"}},
    {"train_step B 2^32-1", train_batch_overflow, SVK_ERROR_TOO_LARGE, {"4294967295", NULL}},
    {"train_step token 64 = vocab", train_token_is_vocab, SVK_ERROR_INVALID_ARG, {"token 64 at [0, 5]", "[0, 64)"}},
    {"train_step token -1", train_token_negative, SVK_ERROR_INVALID_ARG, {"token -1 at [0, 0]", NULL}},
    {"train_step target 64 = vocab", train_target_is_vocab, SVK_ERROR_INVALID_ARG, {"target 64 at [1, 7]", "[-1, 64)"}},
    {"train_step target -2", train_target_minus_two, SVK_ERROR_INVALID_ARG, {"target -2 at [0, 3]", NULL}},
    {"train_step lr NaN", train_lr_nan, SVK_ERROR_INVALID_ARG, {"lr", "nan"}},
    {"train_step lr -0.5", train_lr_negative, SVK_ERROR_INVALID_ARG, {"lr", "-0.5"}},
    {"eval_loss loss NULL", eval_null_loss, SVK_ERROR_INVALID_ARG, {"loss", NULL}},
    {"eval_loss target 1000", eval_target_big, SVK_ERROR_INVALID_ARG, {"target 1000 at [0, 1]", NULL}},
    {"forward_logits logits NULL", logits_null_out, SVK_ERROR_INVALID_ARG, {"logits", NULL}},
    {"forward_logits token 99", logits_token_big, SVK_ERROR_INVALID_ARG, {"token 99 at [0, 7]", NULL}},
    {"generate prompt NULL", generate_null_prompt, SVK_ERROR_INVALID_ARG, {"prompt", NULL}},
    {"generate prompt empty", generate_empty_prompt, SVK_ERROR_INVALID_ARG, {"n_prompt", NULL}},
    {"generate prompt token 64", generate_prompt_token_big, SVK_ERROR_INVALID_ARG, {"prompt[1]=64", NULL}},
    {"generate temperature -1", generate_temperature_negative, SVK_ERROR_INVALID_ARG, {"temperature", "-1"}},
    {"generate n_out NULL", generate_null_count, SVK_ERROR_INVALID_ARG, {"n_out", NULL}},
    {"generate_ex top_p 0", generate_ex_top_p_zero, SVK_ERROR_INVALID_ARG, {"top_p=0", "(0, 1]"}},
    {"generate_ex top_p 1.5", generate_ex_top_p_big, SVK_ERROR_INVALID_ARG, {"top_p=1.5", NULL}},
    {"generate_ex top_p NaN", generate_ex_top_p_nan, SVK_ERROR_INVALID_ARG, {"top_p=nan", NULL}},
    {"generate_ex stop NULL, n_stop 1", generate_ex_stop_null, SVK_ERROR_INVALID_ARG, {"stop is NULL", "n_stop=1"}},
    {"generate_ex stop[1] empty", generate_ex_stop_empty, SVK_ERROR_INVALID_ARG, {"stop[1] is empty", NULL}},
    {"generate_ex 65 stop strings", generate_ex_stops_many, SVK_ERROR_INVALID_ARG, {"n_stop=65", NULL}},
    {"generate_ex reserved[2] 5", generate_ex_reserved, SVK_ERROR_INVALID_ARG, {"params->reserved[2] is 5", NULL}},
    {"generate_ex temperature inf", generate_ex_temperature_inf, SVK_ERROR_INVALID_ARG, {"temperature=inf", NULL}},
    {"generate_ex model NULL", generate_ex_null_model, SVK_ERROR_INVALID_ARG, {"model", NULL}},
    {"last_step info NULL", last_step_null, SVK_ERROR_INVALID_ARG, {"info", NULL}},
    {"memory report NULL", memory_null, SVK_ERROR_INVALID_ARG, {"report", NULL}},
    {"save path NULL", save_null_path, SVK_ERROR_INVALID_ARG, {"path", NULL}},
    {"save path empty", save_empty_path, SVK_ERROR_INVALID_ARG, {"path", NULL}},
    {"save into a missing directory", save_missing_dir, SVK_ERROR_IO, {"no/such/dir", NULL}},
    {"load a missing file", load_missing_file, SVK_ERROR_IO, {"absent.safetensors", NULL}},
    {"load_ex flags 0x80", load_bad_flags, SVK_ERROR_INVALID_ARG, {"flags 0x80", NULL}},
    {"save_grads path NULL", save_grads_null_path, SVK_ERROR_INVALID_ARG, {"svk_model_save_grads", "path is NULL"}},
    {"save_logits path empty", save_logits_empty_path, SVK_ERROR_INVALID_ARG, {"svk_model_save_logits", "path is empty"}},
    {"prepare_train_step token 64", prepare_bad_token, SVK_ERROR_INVALID_ARG, {"token 64 at [0, 2]", NULL}},
    {"record_train_step cmd NULL", record_null_cmd, SVK_ERROR_INVALID_ARG, {"cmd", NULL}},
};

static void run_cases(tu_tally *t, fixture *f, const bad_case *cases, size_t n, const char *where,
                      const char *filter)
{
    for (size_t i = 0; i < n; i++) {
        const bad_case *c = &cases[i];
        if (filter && !strstr(c->name, filter))
            continue;
        svk_status st = c->run(f);
        /* A call on a model reports through the model's context too, but
         * svk_last_error is the one place every call writes. */
        const char *msg = svk_last_error();
        bool ok = st == c->want;
        for (int k = 0; k < 2; k++)
            ok = ok && (!c->needle[k] || strstr(msg, c->needle[k]));
        tu_check(t, ok, "%s%s: %s (want %s%s%s%s%s): \"%s\"", where, c->name, svk_status_string(st),
                 svk_status_string(c->want), c->needle[0] ? ", naming " : "", c->needle[0] ? c->needle[0] : "",
                 c->needle[1] ? " and " : "", c->needle[1] ? c->needle[1] : "", msg);
    }
}

/* A new tiny Vulkan model on f's context and one training step (loss may
 * be NULL), as the environment now asks; the model is destroyed again.
 * Returns the first failure: creation's or the step's. */
static svk_status fresh_step(fixture *f, float *loss)
{
    svk_model_params p = svk_model_params_default();
    p.config = tiny_config();
    p.backend = SVK_BACKEND_VULKAN;
    p.ctx = f->ctx;
    svk_status st = svk_model_create(&p, &f->m);
    if (st == SVK_OK)
        st = svk_model_train_step(f->m, f->tokens, f->targets, B, T, 1e-3f, loss);
    svk_model_destroy(&f->m);
    return st;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_bad_input", &args);
    tu_tally t = {0, 0};
    fixture f;
    memset(&f, 0, sizeof(f));
    snprintf(f.dir, sizeof(f.dir), "/tmp/svk-bad-input-XXXXXX");
    if (!mkdtemp(f.dir))
        return 1;
    for (int i = 0; i < B * T; i++) {
        f.tokens[i] = i % 64;
        f.targets[i] = (i + 1) % 64;
    }
    f.ctx = tu_ctx_create();
    if (!f.ctx)
        return 1;
    svk_buffer_params bp = svk_buffer_params_default();
    bp.size = 64;
    bp.name = "scratch";
    if (svk_buffer_create(f.ctx, &bp, &f.buf) != SVK_OK) {
        printf("cannot create a buffer: %s\n", svk_last_error());
        return 1;
    }

    run_cases(&t, &f, global_cases, sizeof(global_cases) / sizeof(global_cases[0]), "", args.filter);

    static const char *const names[2] = {"cpu", "vulkan"};
    for (int be = 0; be < 2; be++) {
        svk_model_params p = svk_model_params_default();
        p.config = tiny_config();
        p.backend = be ? SVK_BACKEND_VULKAN : SVK_BACKEND_CPU;
        p.ctx = f.ctx;
        svk_status st = svk_model_create(&p, &f.m);
        tu_check(&t, st == SVK_OK, "%s: tiny model created: %s", names[be], st == SVK_OK ? "ok" : svk_last_error());
        if (st != SVK_OK)
            continue;
        /* One good step first, so that every refusal meets a model with a
         * recorded shape and a step behind it. */
        float before = NAN, after = NAN;
        st = svk_model_train_step(f.m, f.tokens, f.targets, B, T, 1e-3f, &before);
        tu_check(&t, st == SVK_OK && isfinite(before), "%s: a good step before: loss %g", names[be], before);
        uint64_t steps = svk_model_step(f.m);
        char where[32];
        snprintf(where, sizeof(where), "%s: ", names[be]);
        /* record_train_step is Vulkan-only: on the CPU model it is refused
         * for the backend, whatever the arguments. */
        for (size_t i = 0; i < sizeof(model_cases) / sizeof(model_cases[0]); i++) {
            const bad_case *c = &model_cases[i];
            if (!be && (c->run == record_null_cmd || c->run == prepare_bad_token))
                continue;
            run_cases(&t, &f, c, 1, where, args.filter);
        }
        tu_check(&t, svk_model_step(f.m) == steps, "%s: no refused call counted a step (%llu)", names[be],
                 (unsigned long long)svk_model_step(f.m));
        st = svk_model_train_step(f.m, f.tokens, f.targets, B, T, 1e-3f, &after);
        tu_check(&t, st == SVK_OK && isfinite(after) && svk_model_step(f.m) == steps + 1,
                 "%s: a good step after every refusal: loss %g -> %g", names[be], before, after);
        svk_model_destroy(&f.m);
    }

    /* The environment is read when a context is created (lib/vk/env.c):
     * a value libsvk does not know is refused there, by name and value;
     * without it the same model trains. */
    static const char *const bad_env[][2] = {
        {"SVK_ATTENTION", "bogus"}, {"SVK_GEMM_COOPMAT", "yes"}, {"SVK_KERNEL_VARIANT", "gpu"}};
    for (size_t i = 0; i < sizeof(bad_env) / sizeof(bad_env[0]); i++) {
        setenv(bad_env[i][0], bad_env[i][1], 1);
        svk_ctx *bad = NULL;
        svk_status st = svk_ctx_create(NULL, &bad);
        const char *msg = svk_last_error();
        tu_check(&t, st == SVK_ERROR_INVALID_ARG && !bad && strstr(msg, bad_env[i][0]) && strstr(msg, bad_env[i][1]),
                 "%s=%s refused by svk_ctx_create: %s (%s)", bad_env[i][0], bad_env[i][1], svk_status_string(st), msg);
        svk_ctx_destroy(&bad);
        unsetenv(bad_env[i][0]);
    }
    float loss = NAN;
    svk_status st = fresh_step(&f, &loss);
    tu_check(&t, st == SVK_OK && isfinite(loss), "with the environment unset the model trains: loss %g", loss);

    /* SVK_GEMM_COOPMAT=1 trains, on cooperative matrices where the device
     * has them and with a warning and float32 GEMMs where it has not. The
     * portable variant is forced, the one the request applies to. */
    setenv("SVK_KERNEL_VARIANT", "portable", 1);
    setenv("SVK_GEMM_COOPMAT", "1", 1);
    svk_ctx *coop = tu_ctx_create();
    unsetenv("SVK_GEMM_COOPMAT");
    unsetenv("SVK_KERNEL_VARIANT");
    if (coop) {
        svk_ctx *keep = f.ctx;
        f.ctx = coop;
        loss = NAN;
        st = fresh_step(&f, &loss);
        tu_check(&t, st == SVK_OK && isfinite(loss), "with SVK_GEMM_COOPMAT=1 the model trains (%s): loss %g",
                 svk_ctx_device_info(coop)->coopmat_m ? "cooperative matrices" : "none on this device: float32", loss);
        f.ctx = keep;
        tu_ctx_finish(&coop, &t);
    } else {
        tu_check(&t, false, "a context with SVK_GEMM_COOPMAT=1: %s", svk_last_error());
    }

    svk_buffer_destroy(&f.buf);
    tu_ctx_finish(&f.ctx, &t);
    rmdir(f.dir);
    return tu_finish(&t);
}
