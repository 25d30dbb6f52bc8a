/* The context's tuning (tuning.h): its accessors and the tools' --tune parser. */
#include "tuning.h"

#include <stdio.h>
#include <string.h>

#include "vk_context.h"

/* The =0 switches: one table, so that a switch is added in one row. */
static const struct {
    const char *name;
    uint32_t bit;
} off_switches[] = {
    {"vec4", SVK_TUNE_OFF_VEC4},
    {"transfer_copies", SVK_TUNE_OFF_TRANSFER_COPIES},
    {"gemm_split", SVK_TUNE_OFF_GEMM_SPLIT},
    {"gemm_pack", SVK_TUNE_OFF_GEMM_PACK},
    {"gemm_wide", SVK_TUNE_OFF_GEMM_WIDE},
    {"gemm_k8", SVK_TUNE_OFF_GEMM_K8},
    {"gemm_rows", SVK_TUNE_OFF_GEMM_ROWS},
    {"gemm_store64", SVK_TUNE_OFF_GEMM_STORE64},
    {"norm_split", SVK_TUNE_OFF_NORM_SPLIT},
    {"fused_siamese_bwd", SVK_TUNE_OFF_FUSED_SIAMESE_BWD},
};
#define N_OFF (sizeof(off_switches) / sizeof(off_switches[0]))
#define ALL_OFF ((SVK_TUNE_OFF_FUSED_SIAMESE_BWD << 1) - 1u)

const char svk_ctx_tuning_help[] =
    "  kernel_variant=portable|cpu  attention=flash|scores  gemm_coopmat=0|1\n"
    "  texel_buffers=0|1  coopmat_frags=1..4\n"
    "  =0 (=1: the default): vec4 transfer_copies gemm_split gemm_pack gemm_wide gemm_k8\n"
    "                        gemm_rows gemm_store64 norm_split fused_siamese_bwd\n";

const svk_ctx_tuning *svk_ctx_tuning_get(const svk_ctx *ctx)
{
    return &ctx->settings.tuning;
}

svk_status svk_ctx_tuning_set(svk_ctx *ctx, const svk_ctx_tuning *t)
{
    SVK_CHECK_ARG(NULL, ctx && t);
    if ((unsigned)t->variant > SVK_TUNE_VARIANT_CPU || (unsigned)t->attention > SVK_TUNE_ATTENTION_SCORES ||
        (unsigned)t->texel > SVK_TUNE_TEXEL_ON || t->coopmat_frags > 4 || (t->off & ~ALL_OFF))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG,
                         "%s: variant %d, attention %d, texel %d, coopmat_frags %u or off 0x%x out of range", __func__,
                         (int)t->variant, (int)t->attention, (int)t->texel, t->coopmat_frags, t->off);
    ctx->settings.tuning = *t;
    return SVK_OK;
}

/* Whether item (length n) is "name=value" for this name; *value then
 * points at the value (up to the item's end). */
static bool item_is(const char *item, size_t n, const char *name, const char **value)
{
    const size_t len = strlen(name);
    if (n <= len || strncmp(item, name, len) || item[len] != '=')
        return false;
    *value = item + len + 1;
    return true;
}

static bool value_is(const char *value, const char *end, const char *word)
{
    return (size_t)(end - value) == strlen(word) && !strncmp(value, word, (size_t)(end - value));
}

/* One item of svk_ctx_tuning_parse; false if it names nothing known or
 * its value is not one the name takes. */
static bool apply_item(const char *item, const char *end, svk_ctx_tuning *t)
{
    const size_t n = (size_t)(end - item);
    const char *v;
    if (item_is(item, n, "kernel_variant", &v)) {
        if (value_is(v, end, "portable") || value_is(v, end, "cpu"))
            t->variant = value_is(v, end, "cpu") ? SVK_TUNE_VARIANT_CPU : SVK_TUNE_VARIANT_PORTABLE;
        return value_is(v, end, "portable") || value_is(v, end, "cpu");
    }
    if (item_is(item, n, "attention", &v)) {
        if (value_is(v, end, "flash") || value_is(v, end, "scores"))
            t->attention = value_is(v, end, "flash") ? SVK_TUNE_ATTENTION_FLASH : SVK_TUNE_ATTENTION_SCORES;
        return value_is(v, end, "flash") || value_is(v, end, "scores");
    }
    if (item_is(item, n, "coopmat_frags", &v)) {
        if (end - v != 1 || *v < '1' || *v > '4')
            return false;
        t->coopmat_frags = (uint32_t)(*v - '0');
        return true;
    }
    for (size_t i = 0; i < N_OFF + 2; i++) {
        const char *name = i < N_OFF ? off_switches[i].name : i == N_OFF ? "gemm_coopmat" : "texel_buffers";
        if (!item_is(item, n, name, &v))
            continue;
        if (!value_is(v, end, "0") && !value_is(v, end, "1"))
            return false;
        const bool on = value_is(v, end, "1");
        if (i < N_OFF)
            t->off = on ? t->off & ~off_switches[i].bit : t->off | off_switches[i].bit;
        else if (i == N_OFF)
            t->gemm_coopmat = on;
        else
            t->texel = on ? SVK_TUNE_TEXEL_ON : SVK_TUNE_TEXEL_OFF;
        return true;
    }
    return false;
}

bool svk_ctx_tuning_parse(const char *text, svk_ctx_tuning *t, char *why, size_t why_size)
{
    svk_ctx_tuning next = *t;
    const char *item = text;
    while (true) {
        const char *end = strchr(item, ',');
        if (!end)
            end = item + strlen(item);
        if (!apply_item(item, end, &next)) {
            snprintf(why, why_size, "'%.*s' is not one of:\n%s", (int)(end - item), item, svk_ctx_tuning_help);
            return false;
        }
        if (!*end)
            break;
        item = end + 1;
    }
    *t = next;
    return true;
}
