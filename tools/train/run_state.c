#include "run_state.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_parse.h"

static const char *const data_names[SVK_TRAIN_DATA_COUNT] = {"addition", "text", "fixed", "tokens"};

const char *svk_train_data_name(svk_train_data d)
{
    return (unsigned)d < SVK_TRAIN_DATA_COUNT ? data_names[d] : "?";
}

const char *svk_train_answer_name(svk_addition_answer a)
{
    return a == SVK_ADDITION_ANSWER_PLAIN ? "plain" : a == SVK_ADDITION_ANSWER_REVERSED ? "reversed" : "?";
}

bool svk_train_answer_parse(const char *text, svk_addition_answer *a)
{
    if (!strcmp(text, "plain"))
        *a = SVK_ADDITION_ANSWER_PLAIN;
    else if (!strcmp(text, "reversed"))
        *a = SVK_ADDITION_ANSWER_REVERSED;
    else
        return false;
    return true;
}

const char *svk_train_operands_name(svk_addition_operands o)
{
    return o == SVK_ADDITION_OPERANDS_PLAIN ? "plain" : o == SVK_ADDITION_OPERANDS_PADDED ? "padded" : "?";
}

bool svk_train_operands_parse(const char *text, svk_addition_operands *o)
{
    if (!strcmp(text, "plain"))
        *o = SVK_ADDITION_OPERANDS_PLAIN;
    else if (!strcmp(text, "padded"))
        *o = SVK_ADDITION_OPERANDS_PADDED;
    else
        return false;
    return true;
}

const char *svk_train_schedule_name(svk_lr_shape s)
{
    return s == SVK_LR_COSINE ? "cosine" : s == SVK_LR_CONSTANT ? "constant" : s == SVK_LR_WSD ? "wsd" : "?";
}

bool svk_train_schedule_parse(const char *text, svk_lr_shape *s)
{
    if (!strcmp(text, "cosine"))
        *s = SVK_LR_COSINE;
    else if (!strcmp(text, "constant"))
        *s = SVK_LR_CONSTANT;
    else if (!strcmp(text, "wsd"))
        *s = SVK_LR_WSD;
    else
        return false;
    return true;
}

void svk_train_run_format(const svk_train_run *r, char *buf, size_t size)
{
    snprintf(buf, size,
             "version=1 position=%" PRIu64 " steps=%u warmup=%u lr=%.9g schedule=%s clip=%.9g wd=%.9g batch=%u "
             "seq=%u seed=%" PRIu64 " data=%s digits=%u answer=%s operands=%s data_size=%" PRIu64 " data_state=%" PRIu64,
             r->position, r->steps, r->warmup, (double)r->lr, svk_train_schedule_name(r->schedule),
             (double)r->clip, (double)r->wd, r->batch, r->seq, r->seed, svk_train_data_name(r->data), r->digits,
             svk_train_answer_name(r->answer), svk_train_operands_name(r->operands), r->data_size, r->data_state);
    /* Only where there is one: a run without a split writes the text it
     * wrote before the key existed, which an svk-train of then reads. */
    if (r->holdout > 0) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " holdout=%.9g", (double)r->holdout);
    }
    /* Likewise the keys of later options, each only where it applies. */
    if (r->schedule == SVK_LR_WSD) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " decay_frac=%.9g", (double)r->decay_frac);
    }
    if (r->accum > 1) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " accum=%u", r->accum);
    }
    if (r->data == SVK_TRAIN_DATA_ADDITION && r->eval_n != SVK_TRAIN_EVAL_DEFAULT) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " eval=%u", r->eval_n);
    }
    if (r->precision != SVK_PRECISION_FP32 && svk_precision_name(r->precision)) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " precision=%s", svk_precision_name(r->precision));
    }
    if (r->has_best) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size > n ? size - n : 0, " best_loss=%.9g best_step=%" PRIu64, (double)r->best_loss,
                 r->best_step);
    }
}

/* Every key must come exactly once, but K_ANSWER and K_OPERANDS may be
 * missing. */
enum {
    K_VERSION, K_POSITION, K_STEPS, K_WARMUP, K_LR, K_SCHEDULE, K_CLIP, K_WD, K_BATCH, K_SEQ, K_SEED, K_DATA,
    K_DIGITS, K_ANSWER, K_OPERANDS, K_DATA_SIZE, K_DATA_STATE, K_HOLDOUT, K_DECAY_FRAC, K_BEST_LOSS, K_BEST_STEP,
    K_ACCUM, K_PRECISION, K_EVAL, K_COUNT
};
static const char *const keys[K_COUNT] = {
    "version", "position", "steps", "warmup", "lr", "schedule", "clip", "wd", "batch", "seq", "seed", "data",
    "digits", "answer", "operands", "data_size", "data_state", "holdout", "decay_frac", "best_loss", "best_step",
    "accum", "precision", "eval",
};

static bool value(svk_train_run *r, int k, const char *v, svk_cli_error *err)
{
    uint32_t version;
    switch (k) {
    case K_VERSION:
        return svk_cli_u32("version", v, 1, 1, &version, err);
    case K_POSITION: return svk_cli_u64("position", v, 0, UINT64_MAX, &r->position, err);
    case K_STEPS: return svk_cli_u32("steps", v, 0, UINT32_MAX, &r->steps, err);
    case K_WARMUP: return svk_cli_u32("warmup", v, 0, UINT32_MAX, &r->warmup, err);
    case K_LR: return svk_cli_f32("lr", v, 0, INFINITY, &r->lr, err);
    case K_CLIP: return svk_cli_f32("clip", v, 0, INFINITY, &r->clip, err);
    case K_WD: return svk_cli_f32("wd", v, 0, INFINITY, &r->wd, err);
    case K_BATCH: return svk_cli_u32("batch", v, 1, UINT32_MAX, &r->batch, err);
    case K_SEQ: return svk_cli_u32("seq", v, 1, UINT32_MAX, &r->seq, err);
    case K_ACCUM: return svk_cli_u32("accum", v, 1, UINT32_MAX, &r->accum, err);
    case K_EVAL: return svk_cli_u32("eval", v, 0, UINT32_MAX, &r->eval_n, err);
    case K_SEED: return svk_cli_u64("seed", v, 0, UINT64_MAX, &r->seed, err);
    case K_DIGITS: return svk_cli_u32("digits", v, 0, UINT32_MAX, &r->digits, err);
    case K_DATA_SIZE: return svk_cli_u64("data_size", v, 0, UINT64_MAX, &r->data_size, err);
    case K_DATA_STATE: return svk_cli_u64("data_state", v, 0, UINT64_MAX, &r->data_state, err);
    case K_HOLDOUT: return svk_cli_f32("holdout", v, 0, 1, &r->holdout, err);
    case K_DECAY_FRAC: return svk_cli_f32("decay_frac", v, 0, 1, &r->decay_frac, err);
    case K_BEST_LOSS: return svk_cli_f32("best_loss", v, 0, INFINITY, &r->best_loss, err);
    case K_BEST_STEP: return svk_cli_u64("best_step", v, 0, UINT64_MAX, &r->best_step, err);
    case K_PRECISION:
        if (svk_precision_parse(v, &r->precision) == SVK_OK)
            return true;
        snprintf(err->text, sizeof(err->text), "precision '%.32s': not fp32, fp16 or bf16", v);
        return false;
    case K_ANSWER:
        if (svk_train_answer_parse(v, &r->answer))
            return true;
        snprintf(err->text, sizeof(err->text), "answer '%.32s': not plain or reversed", v);
        return false;
    case K_OPERANDS:
        if (svk_train_operands_parse(v, &r->operands))
            return true;
        snprintf(err->text, sizeof(err->text), "operands '%.32s': not plain or padded", v);
        return false;
    case K_SCHEDULE:
        if (svk_train_schedule_parse(v, &r->schedule))
            return true;
        snprintf(err->text, sizeof(err->text), "schedule '%.32s': not cosine, constant or wsd", v);
        return false;
    case K_DATA:
        for (int d = 0; d < SVK_TRAIN_DATA_COUNT; d++)
            if (!strcmp(v, data_names[d])) {
                r->data = (svk_train_data)d;
                return true;
            }
        snprintf(err->text, sizeof(err->text), "data '%.32s': not addition, text, fixed or tokens", v);
        return false;
    }
    return false;
}

bool svk_train_run_parse(const char *text, svk_train_run *r, char *why, size_t why_size)
{
    svk_train_run out = {0};
    bool seen[K_COUNT] = {false};
    char buf[SVK_TRAIN_RUN_TEXT_MAX];
    if (strlen(text) >= sizeof(buf)) {
        snprintf(why, why_size, "%zu bytes, more than a run's state takes", strlen(text));
        return false;
    }
    memcpy(buf, text, strlen(text) + 1);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        int k = 0;
        if (eq) {
            *eq = '\0';
            while (k < K_COUNT && strcmp(tok, keys[k]))
                k++;
        }
        if (!eq || k == K_COUNT) {
            snprintf(why, why_size, "'%.40s' is not one of its keys (from a newer svk-train?)", tok);
            return false;
        }
        if (seen[k]) {
            snprintf(why, why_size, "'%s' appears twice", keys[k]);
            return false;
        }
        seen[k] = true;
        svk_cli_error err;
        if (!value(&out, k, eq + 1, &err)) {
            snprintf(why, why_size, "%s", err.text);
            return false;
        }
    }
    /* holdout may be missing: 0, a run without a held-out split; decay_frac
     * (the default's); accum (1); precision (fp32); eval (500); best_loss and
     * best_step, together. */
    if (seen[K_BEST_LOSS] != seen[K_BEST_STEP]) {
        snprintf(why, why_size, "'%s' is missing", seen[K_BEST_LOSS] ? "best_step" : "best_loss");
        return false;
    }
    out.has_best = seen[K_BEST_LOSS];
    if (!seen[K_DECAY_FRAC])
        out.decay_frac = 0.2f;
    if (!seen[K_ACCUM])
        out.accum = 1;
    if (!seen[K_PRECISION])
        out.precision = SVK_PRECISION_FP32;
    if (!seen[K_EVAL])
        out.eval_n = SVK_TRAIN_EVAL_DEFAULT;
    seen[K_HOLDOUT] = seen[K_DECAY_FRAC] = seen[K_BEST_LOSS] = seen[K_BEST_STEP] = seen[K_ACCUM] = true;
    seen[K_PRECISION] = seen[K_EVAL] = true;
    for (int k = 0; k < K_COUNT; k++)
        if (!seen[k] && k != K_ANSWER && k != K_OPERANDS) {
            snprintf(why, why_size, "'%s' is missing", keys[k]);
            return false;
        }
    *r = out;
    return true;
}
