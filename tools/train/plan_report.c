#include "plan_report.h"

/* bytes in the unit that keeps 3 or 4 digits: "12.3 MiB". */
static const char *human(char buf[32], uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, 32, u ? "%.2f %s" : "%.0f %s", v, units[u]);
    return buf;
}

static const char *placement_name(svk_placement p)
{
    return p == SVK_PLACEMENT_SIAMESE ? "siamese" : p == SVK_PLACEMENT_PRE ? "pre" : "post";
}

/* "B x T", and the micro-batches where there are several. */
static void batch_text(char *buf, size_t size, uint32_t B, uint32_t T, uint32_t accum)
{
    if (accum > 1)
        snprintf(buf, size, "%u x %u (%u micro-batches of %u)", B, T, accum, B / accum);
    else
        snprintf(buf, size, "%u x %u", B, T);
}

void svk_train_plan_print(FILE *f, const svk_model_params *params, const char *dev, uint32_t B, uint32_t T,
                          uint32_t accum, const svk_memory_plan *plan)
{
    const svk_model_config *c = &params->config;
    const svk_memory_report *r = &plan->model;
    char b[8][32], batch[96];
    batch_text(batch, sizeof(batch), B, T, accum);
    fprintf(f, "svk-train --plan: %s placement, %u layers x %u wide, %u heads, vocab %u, ctx %u: %.2f M parameters\n",
            placement_name(c->placement), c->layers, c->width, c->heads, c->vocab, c->ctx,
            (double)(r->params / 4) * 1e-6);
    fprintf(f, "  batch %s, %s, recomputation %s, on %s\n", batch, svk_precision_name(params->precision),
            params->recompute ? "on" : "off", dev);
    fprintf(f, "  parameters       %12s\n  gradients        %12s\n  optimizer state  %12s  (AdamW's two moments)\n"
               "  activations      %12s\n  inputs, outputs  %12s\n  workspace        %12s  (scratch, clipping, the "
               "second step's inputs and outputs)\n  total            %12s\n",
            human(b[0], r->params), human(b[1], r->grads), human(b[2], r->optimizer), human(b[3], r->activations),
            human(b[4], r->io), human(b[5], plan->workspace), human(b[6], plan->device_bytes));
    if (params->backend == SVK_BACKEND_CPU)
        fprintf(f, "  host memory: %s free\n", plan->heap_available ? human(b[7], plan->heap_available) : "unknown");
    else
        fprintf(f, "  device heap %u: %s, of which %s can be taken now\n", plan->heap, human(b[7], plan->heap_size),
                human(b[0], plan->heap_available));
    if (plan->fits)
        fprintf(f, "  fits: yes\n");
    else
        fprintf(f, "  fits: no: %s\n", plan->why_not);
    if (plan->max_batch)
        fprintf(f, "  the largest batch that fits at --seq %u%s: %u\n", T, accum > 1 ? " and this --accum" : "",
                plan->max_batch);
    else
        fprintf(f, "  no batch fits at --seq %u%s\n", T, accum > 1 ? " and this --accum" : "");
}

void svk_train_plan_refuse(FILE *f, uint32_t B, uint32_t T, uint32_t accum, const svk_memory_plan *plan)
{
    char batch[96];
    batch_text(batch, sizeof(batch), B, T, accum);
    fprintf(f, "svk-train: the run does not fit: batch %s: %s\n", batch, plan->why_not);
    if (plan->max_batch && accum > 1)
        fprintf(f, "svk-train: the largest batch that fits is %u rows (--batch %u --accum %u); or raise --accum, or "
                   "use --recompute or --precision bf16 (svk-train --plan shows the memory)\n", plan->max_batch,
                plan->max_batch / accum,
                accum);
    else if (plan->max_batch)
        fprintf(f, "svk-train: the largest batch that fits is --batch %u; or keep --batch with --accum, or use "
                   "--recompute or --precision bf16 (svk-train --plan shows the memory)\n", plan->max_batch);
    else
        fprintf(f, "svk-train: no batch fits at --seq %u: a shorter --seq, --recompute, --precision bf16 or a "
                   "smaller model (svk-train --plan shows the memory)\n", T);
}
