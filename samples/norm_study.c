/*
 * norm_study: the SiameseNorm paper's claim in miniature.
 *
 * What it shows: the same small transformer with its norms placed pre,
 * post and siamese (docs/MODEL.md, "Where the norms go"), trained on the
 * built-in addition task at several peak learning rates with three seeds
 * each: the same batches, steps and schedule for every placement. Pre-Norm
 * is the stable placement, Post-Norm the one that trains worse or falls
 * apart as the learning rate rises, and SiameseNorm (Li, Han et al., arXiv
 * 2602.08064) claims Post-Norm's results with Pre-Norm's stability. Each
 * run is scored by its final training loss and by exact match on the task's
 * held-out problems (greedy decoding of the answer). It uses the public
 * API alone (svk/svk.h).
 *
 * It writes to the output folder:
 *   norm_study.md     the table, with its caption and the setup
 *   norm_study.csv    the same table
 *   runs.csv          one row per run (placement, learning rate, seed)
 *   loss_curves.csv   every run's training loss at every step
 *   loss_curves.svg   the loss curves, one panel per learning rate
 *
 * How to run it (from the build directory):
 *   samples/norm_study --out norm-study       the full study: 27 runs of 300 steps (the README shows its table)
 *   samples/norm_study --quick --out /tmp/ns  a tiny model, 8 steps, 2 seeds: every file, in seconds
 *   samples/norm_study --lr 1e-3,3e-3,1e-2,3e-2 --seeds 5 --steps 600 --config layers=8
 * Options: --steps N, --seeds N (1..16), --lr LIST (up to 8 rates), --batch B (rows of 32 tokens),
 * --answer plain|reversed (default reversed, as svk-train's), --config KEY=VALUE (the model, as
 * svk-train's; placement is the study's). The device is the default one (SVK_DEVICE picks another).
 * With SVK_VALIDATION=1 any validation-layer message fails the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _WIN32
#include <direct.h>
#define make_dir(path) _mkdir(path)
#else
#define make_dir(path) mkdir(path, 0777)
#endif

#include <svk/svk.h>

#define MAX_LRS 8
#define MAX_SEEDS 16
#define N_PLACEMENTS 3

static const char *const placement_names[N_PLACEMENTS] = {"pre", "post", "siamese"};
static const char *const placement_colors[N_PLACEMENTS] = {"#1f77b4", "#d62728", "#2ca02c"};

typedef struct study {
    svk_model_config config;    /* the model, placement aside */
    svk_addition_params task;   /* the addition task; seed set per run */
    uint32_t batch, seq, steps;
    uint32_t warmup;            /* a tenth of the steps */
    uint32_t n_lrs, n_seeds;
    float lrs[MAX_LRS];
    uint32_t window;            /* steps averaged into the final loss and into each point of the curves */
    const char *out;
    bool quick;
} study;

typedef struct run {
    int placement;
    uint32_t lr_index, seed;    /* seeds 1..n_seeds: initialisation and training batches */
    float *loss;                /* [steps] training loss of each step (NaN or inf where it was not finite) */
    float final_loss;           /* mean of the last `window` steps' losses */
    uint32_t correct;           /* held-out problems answered exactly */
    uint64_t skipped;           /* steps whose loss or gradient was not finite (AdamW skipped them) */
    bool diverged;
    double seconds;
} run;

/* A run diverged when any step was skipped for a non-finite loss or
 * gradient norm, or its final loss is not finite or above its first step's
 * loss (at initialisation the model is near ln 256 = 5.5: a run that ends
 * above its start has come apart). Written into the table's caption. */
static bool run_diverged(const run *r, uint32_t steps)
{
    return r->skipped > 0 || !isfinite(r->final_loss) || r->final_loss > r->loss[0] || steps == 0;
}

/* Wall-clock seconds. */
static double now(void)
{
#ifdef _WIN32
    return (double)clock() / CLOCKS_PER_SEC; /* wall time there; timespec_get is missing from MinGW's msvcrt */
#else
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
#endif
}

/* ---- held-out exact match ------------------------------------------------- */

/* How many of the task's first n held-out problems the model answers
 * exactly: all prompts "a+b=" in one batch, one forward pass per answer
 * character (greedy: the likeliest byte), each row reading the logits at its
 * own last position, until it writes '\n'. The answer must then equal the
 * task's ("c\n", in the task's answer format) byte for byte. */
static svk_status exact_match(svk_model *model, const svk_addition *task, const svk_addition_params *params,
                              uint32_t *correct)
{
    const svk_model_config *c = svk_model_get_config(model);
    const uint32_t n = params->heldout, V = c->vocab;
    uint32_t len_max;
    svk_status st = svk_addition_max_len(params, &len_max);
    if (st != SVK_OK)
        return st;
    const uint32_t T = len_max + 1 < c->ctx ? len_max + 1 : c->ctx;
    typedef char text[SVK_ADDITION_TEXT_MAX];
    text *prompt = calloc(n, sizeof(text)), *answer = calloc(n, sizeof(text)), *got = calloc(n, sizeof(text));
    uint32_t *len = calloc(n, sizeof(uint32_t));
    bool *done = calloc(n, sizeof(bool));
    int32_t *tok = calloc((size_t)n * T, sizeof(int32_t));
    float *logits = malloc((size_t)n * T * V * sizeof(float));
    *correct = 0;
    if (!prompt || !answer || !got || !len || !done || !tok || !logits) {
        st = SVK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (uint32_t i = 0; i < n && st == SVK_OK; i++) {
        st = svk_addition_heldout(task, i, prompt[i], sizeof(text), answer[i], sizeof(text));
        len[i] = (uint32_t)strlen(prompt[i]);
        done[i] = len[i] >= T; /* a window too short for the prompt: wrong */
        for (uint32_t k = 0; k < T; k++) /* '\n' after the prompt: causal attention never looks there */
            tok[(size_t)i * T + k] = k < len[i] ? (unsigned char)prompt[i][k] : '\n';
    }
    for (uint32_t active = n; active > 0 && st == SVK_OK;) {
        if ((st = svk_model_forward_logits(model, tok, n, T, logits)) != SVK_OK)
            break;
        active = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            const float *row = logits + ((size_t)i * T + len[i] - 1) * V;
            uint32_t best = 0;
            for (uint32_t v = 1; v < V; v++)
                best = row[v] > row[best] ? v : best;
            const size_t g = strlen(got[i]);
            got[i][g] = best > 0 && best < 128 ? (char)best : '?';
            tok[(size_t)i * T + len[i]++] = (int32_t)best;
            /* done: answered, or no room left in the window or the text */
            done[i] = best == '\n' || len[i] >= T || g + 2 >= sizeof(text);
            active += !done[i];
        }
    }
    for (uint32_t i = 0; i < n && st == SVK_OK; i++)
        *correct += !strcmp(got[i], answer[i]);
out:
    free(prompt);
    free(answer);
    free(got);
    free(len);
    free(done);
    free(tok);
    free(logits);
    return st;
}

/* ---- one run -------------------------------------------------------------- */

static svk_status train_one(const study *s, svk_ctx *ctx, const svk_addition *heldout, run *r)
{
    const uint32_t B = s->batch, T = s->seq;
    svk_model *model = NULL;
    svk_addition *task = NULL;
    int32_t *tokens = malloc(sizeof(int32_t) * B * T), *targets = malloc(sizeof(int32_t) * B * T);
    svk_status st = tokens && targets ? SVK_OK : SVK_ERROR_OUT_OF_HOST_MEMORY;
    const double t0 = now();

    svk_model_params mp = svk_model_params_default();
    mp.ctx = ctx;
    mp.config = s->config;
    mp.config.placement = (svk_placement)r->placement;
    mp.seed = r->seed;
    svk_addition_params ap = s->task;
    ap.seed = r->seed; /* every placement and learning rate sees the same batches for a seed */
    if (st == SVK_OK)
        st = svk_model_create(&mp, &model);
    if (st == SVK_OK)
        st = svk_addition_create(&ap, &task);
    for (uint32_t step = 0; step < s->steps && st == SVK_OK; step++) {
        float lr;
        svk_step_info info;
        if ((st = svk_lr_schedule(step, s->steps, s->warmup, s->lrs[r->lr_index], &lr)) != SVK_OK ||
            (st = svk_addition_batch(task, B, T, tokens, targets)) != SVK_OK ||
            (st = svk_model_train_step(model, tokens, targets, B, T, lr, NULL)) != SVK_OK ||
            (st = svk_model_last_step(model, &info)) != SVK_OK)
            break;
        /* A skipped step's loss is what made it skip: NaN, infinite or not. */
        r->loss[step] = info.skipped && isfinite(info.loss) ? INFINITY : info.loss;
    }
    if (st == SVK_OK) {
        r->skipped = s->steps - svk_model_step(model); /* a skipped step is not counted as an update */
        double sum = 0;
        for (uint32_t k = s->steps - s->window; k < s->steps; k++)
            sum += r->loss[k];
        r->final_loss = (float)(sum / s->window);
        r->diverged = run_diverged(r, s->steps);
        st = exact_match(model, heldout, &s->task, &r->correct);
    }
    r->seconds = now() - t0;
    svk_model_destroy(&model);
    svk_addition_destroy(&task);
    free(tokens);
    free(targets);
    return st;
}

/* ---- the table ------------------------------------------------------------ */

typedef struct cell {
    double loss_mean, loss_min, loss_max;       /* over the seeds' final losses */
    double em_mean, em_min, em_max;             /* exact match, percent of the held-out problems */
    uint32_t diverged;
} cell;

static cell summarize(const study *s, const run *runs, int placement, uint32_t lr_index)
{
    cell c = {0, INFINITY, -INFINITY, 0, INFINITY, -INFINITY, 0};
    for (uint32_t k = 0; k < s->n_seeds; k++) {
        const run *r = &runs[(lr_index * N_PLACEMENTS + placement) * s->n_seeds + k];
        const double loss = r->final_loss, em = 100.0 * r->correct / s->task.heldout;
        c.loss_mean += loss / s->n_seeds;
        c.loss_min = fmin(c.loss_min, loss), c.loss_max = fmax(c.loss_max, loss);
        c.em_mean += em / s->n_seeds;
        c.em_min = fmin(c.em_min, em), c.em_max = fmax(c.em_max, em);
        c.diverged += r->diverged;
    }
    return c;
}

static FILE *open_out(const study *s, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", s->out, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "norm_study: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static bool close_out(FILE *f)
{
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}

static bool write_tables(const study *s, const run *runs, const char *device, const char *command, double seconds)
{
    FILE *md = open_out(s, "norm_study.md"), *csv = open_out(s, "norm_study.csv"), *rcsv = open_out(s, "runs.csv");
    if (!md || !csv || !rcsv) {
        if (md) fclose(md);
        if (csv) fclose(csv);
        if (rcsv) fclose(rcsv);
        return false;
    }
    const svk_model_config *c = &s->config;
    fprintf(md, "| placement | peak lr | final loss: mean (min-max) | held-out exact match: mean (min-max) "
                "| diverged |\n|---|---|---|---|---|\n");
    fprintf(csv, "placement,peak_lr,seeds,final_loss_mean,final_loss_min,final_loss_max,"
                 "exact_match_mean,exact_match_min,exact_match_max,diverged\n");
    for (uint32_t l = 0; l < s->n_lrs; l++)
        for (int p = 0; p < N_PLACEMENTS; p++) {
            const cell x = summarize(s, runs, p, l);
            fprintf(md, "| %s | %g | %.3f (%.3f-%.3f) | %.1f%% (%.1f-%.1f) | %u of %u |\n", placement_names[p],
                    (double)s->lrs[l], x.loss_mean, x.loss_min, x.loss_max, x.em_mean, x.em_min, x.em_max,
                    x.diverged, s->n_seeds);
            fprintf(csv, "%s,%g,%u,%.4f,%.4f,%.4f,%.2f,%.2f,%.2f,%u\n", placement_names[p], (double)s->lrs[l],
                    s->n_seeds, x.loss_mean, x.loss_min, x.loss_max, x.em_mean, x.em_min, x.em_max, x.diverged);
        }
    fprintf(md,
            "\nFinal loss: the mean training loss of the last %u steps. Held-out exact match: the share of the "
            "addition task's %u held-out problems (never in a training batch) whose answer the model writes "
            "exactly, greedily. Each cell is over %u seeds (seed k: the initial weights and the order of the "
            "training problems; every placement and learning rate sees the same problems for a seed). "
            "Diverged: a run with any step skipped for a non-finite loss or gradient, or whose final loss is "
            "not finite or above its first step's.\n\n",
            s->window, s->task.heldout, s->n_seeds);
    fprintf(md,
            "Setup: %u layers x %u wide, %u heads, %s, %s, %s positions; %u-digit addition (answers %s), "
            "batch %u x %u tokens, %u steps, warm-up %u steps then cosine to a tenth of the peak, AdamW "
            "(betas 0.9, 0.95, weight decay 0.1), gradient clipping at 1. Device: %s, libsvk %s. %u runs in "
            "%.0f s. Made by `%s`.\n",
            c->layers, c->width, c->heads, c->norm == SVK_NORM_RMSNORM ? "RMSNorm" : "LayerNorm",
            c->mlp == SVK_MLP_SWIGLU ? "SwiGLU" : "GELU", c->pos == SVK_POS_ROPE ? "rotary" : "learned",
            s->task.digits, s->task.answer == SVK_ADDITION_ANSWER_REVERSED ? "reversed, 57+68=521" : "plain",
            s->batch, s->seq, s->steps, s->warmup, device, svk_version(),
            (unsigned)(s->n_lrs * N_PLACEMENTS * s->n_seeds), seconds, command);
    fprintf(rcsv, "placement,peak_lr,seed,final_loss,first_loss,exact_match,heldout,skipped_steps,diverged,seconds\n");
    for (uint32_t i = 0; i < s->n_lrs * N_PLACEMENTS * s->n_seeds; i++) {
        const run *r = &runs[i];
        fprintf(rcsv, "%s,%g,%u,%.4f,%.4f,%u,%u,%llu,%d,%.1f\n", placement_names[r->placement],
                (double)s->lrs[r->lr_index], r->seed, (double)r->final_loss, (double)r->loss[0], r->correct,
                s->task.heldout, (unsigned long long)r->skipped, r->diverged, r->seconds);
    }
    bool ok = close_out(md);
    ok = close_out(csv) && ok;
    return close_out(rcsv) && ok;
}

static bool write_curves_csv(const study *s, const run *runs)
{
    FILE *f = open_out(s, "loss_curves.csv");
    if (!f)
        return false;
    const uint32_t n = s->n_lrs * N_PLACEMENTS * s->n_seeds;
    fprintf(f, "step");
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, ",%s/%g/%u", placement_names[runs[i].placement], (double)s->lrs[runs[i].lr_index], runs[i].seed);
    for (uint32_t step = 0; step < s->steps; step++) {
        fprintf(f, "\n%u", step + 1);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, ",%.4f", (double)runs[i].loss[step]);
    }
    fprintf(f, "\n");
    return close_out(f);
}

/* ---- the figure ----------------------------------------------------------- */

/* The mean of steps [end - window, end) of a run's losses: NaN when any of
 * them is not finite, so a diverged stretch leaves a gap in its line. */
static double smoothed(const study *s, const run *r, uint32_t end)
{
    const uint32_t begin = end > s->window ? end - s->window : 0;
    double sum = 0;
    for (uint32_t k = begin; k < end; k++)
        sum += r->loss[k];
    return isfinite(sum) ? sum / (end - begin) : NAN;
}

/* One SVG polyline per curve, as a path whose gaps (NaN) start new pieces;
 * values above the axis are drawn at its top. At most about 150 points a
 * curve (every stride-th step, and the last), which keeps the file small. */
static void svg_curve(FILE *f, const study *s, const double *y, double x0, double y0, double w, double h,
                      double ymax, const char *style)
{
    fprintf(f, "<path fill=\"none\" %s d=\"", style);
    bool pen = false;
    const uint32_t stride = s->steps > 150 ? (s->steps + 149) / 150 : 1;
    for (uint32_t j = 0; j < s->steps; j += stride) {
        const uint32_t k = j + stride >= s->steps ? s->steps - 1 : j; /* the last point: the last step */
        if (!isfinite(y[k]) && !(y[k] > 0)) { /* NaN: a gap; +inf: clipped at the top */
            pen = false;
            continue;
        }
        const double v = y[k] > ymax ? ymax : y[k];
        const double px = x0 + w * (s->steps > 1 ? (double)k / (s->steps - 1) : 0), py = y0 + h * (1 - v / ymax);
        fprintf(f, "%s%.1f %.1f", pen ? " L" : "M", px, py);
        pen = true;
    }
    fprintf(f, "\"/>\n");
}

static bool write_svg(const study *s, const run *runs)
{
    FILE *f = open_out(s, "loss_curves.svg");
    double *y = malloc(sizeof(double) * s->steps * (s->n_seeds + 1));
    if (!f || !y) {
        if (f) fclose(f);
        free(y);
        return false;
    }
    const double pw = 300, ph = 240, ml = 56, mr = 16, mt = 40, mb = 48; /* panel size, margins */
    const double W = s->n_lrs * (ml + pw + mr), H = mt + ph + mb + 28;
    /* The y axis: 0 to the initial loss, rounded up (ln 256 = 5.55 gives 6). */
    double ymax = 1;
    for (uint32_t i = 0; i < s->n_lrs * N_PLACEMENTS * s->n_seeds; i++)
        if (isfinite(runs[i].loss[0]))
            ymax = fmax(ymax, ceil(runs[i].loss[0]));
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    for (uint32_t l = 0; l < s->n_lrs; l++) {
        const double x0 = l * (ml + pw + mr) + ml, y0 = mt;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">peak learning rate %g</text>\n",
                x0 + pw / 2, y0 - 12, (double)s->lrs[l]);
        /* grid, ticks and labels */
        for (int t = 0; t <= (int)ymax; t++) {
            const double py = y0 + ph * (1 - t / ymax);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0, py, x0 + pw,
                    py);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", x0 - 6, py + 4, t);
        }
        for (int t = 0; t <= 4; t++) {
            const double px = x0 + pw * t / 4;
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u</text>\n", px, y0 + ph + 16,
                    (unsigned)llround((double)s->steps * t / 4));
        }
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
                x0, y0, pw, ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n", x0 + pw / 2, y0 + ph + 34);
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">"
                   "training loss (%u-step mean)</text>\n", x0 - 38, y0 + ph / 2, s->window);
        /* each seed thin, their mean thick */
        for (int p = 0; p < N_PLACEMENTS; p++) {
            double *mean = y + (size_t)s->n_seeds * s->steps;
            for (uint32_t k = 0; k < s->steps; k++)
                mean[k] = 0;
            for (uint32_t seed = 0; seed < s->n_seeds; seed++) {
                const run *r = &runs[(l * N_PLACEMENTS + p) * s->n_seeds + seed];
                double *ys = y + (size_t)seed * s->steps;
                for (uint32_t k = 0; k < s->steps; k++) {
                    ys[k] = smoothed(s, r, k + 1);
                    mean[k] += ys[k] / s->n_seeds;
                }
                char style[96];
                snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"0.8\" stroke-opacity=\"0.4\"",
                         placement_colors[p]);
                svg_curve(f, s, ys, x0, y0, pw, ph, ymax, style);
            }
            char style[96];
            snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2\"", placement_colors[p]);
            svg_curve(f, s, mean, x0, y0, pw, ph, ymax, style);
        }
    }
    /* the legend, under the panels */
    for (int p = 0; p < N_PLACEMENTS; p++) {
        const double lx = ml + p * 110, ly = H - 12;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", lx,
                ly - 4, lx + 24, ly - 4, placement_colors[p]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", lx + 30, ly, placement_names[p]);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">thick: mean over %u seed%s; thin: each seed</text>\n",
            ml + N_PLACEMENTS * 110, H - 12, s->n_seeds, s->n_seeds == 1 ? "" : "s");
    fprintf(f, "</svg>\n");
    free(y);
    return close_out(f);
}

/* ---- main ----------------------------------------------------------------- */

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: norm_study [--quick] [--out DIR] [--steps N] [--seeds N] [--lr X,Y,...] [--batch B]\n"
               "                  [--answer plain|reversed] [--config KEY=VALUE]...\n"
               "Trains pre, post and siamese placements at each peak learning rate with N seeds on the\n"
               "addition task; writes norm_study.md, norm_study.csv, runs.csv, loss_curves.csv and\n"
               "loss_curves.svg into DIR (default norm_study_out).\n");
    return status;
}

static bool parse_lrs(study *s, const char *text)
{
    s->n_lrs = 0;
    for (const char *p = text; *p;) {
        char *end;
        const double v = strtod(p, &end);
        if (end == p || !(v > 0 && v < 1) || s->n_lrs == MAX_LRS || (*end && *end != ','))
            return false;
        s->lrs[s->n_lrs++] = (float)v;
        p = *end ? end + 1 : end;
    }
    return s->n_lrs > 0;
}

int main(int argc, char **argv)
{
    study s = {
        .config = svk_model_config_default(),
        .task = svk_addition_params_default(), /* 2-digit operands, 500 held-out problems */
        .batch = 32, .seq = 32, .steps = 300,
        .n_lrs = 3, .lrs = {1e-3f, 3e-3f, 1e-2f}, .n_seeds = 3,
        .out = "norm_study_out",
    };
    s.task.answer = SVK_ADDITION_ANSWER_REVERSED; /* as svk-train's default: "57+68=521" */
    /* Six layers, narrow: deep enough that Post-Norm's trouble at the higher
     * rates shows (at 1e-2 it stalls at loss 2.15 where the others go on),
     * small enough that the 27 runs of 300 steps take about 12 minutes on
     * lavapipe with two quiet cores (25 s a run; 27 minutes under the load of
     * parallel builds). */
    s.config.ctx = s.seq;
    s.config.layers = 6, s.config.width = 64, s.config.heads = 4;
    for (int i = 1; i < argc; i++)
        s.quick |= !strcmp(argv[i], "--quick");
    if (s.quick) {
        /* Every file, in seconds: a tiny model, a few steps, 2 seeds. */
        s.config.layers = 2, s.config.width = 16, s.config.heads = 2;
        s.batch = 4, s.steps = 8, s.n_seeds = 2, s.task.heldout = 20;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick"))
            continue;
        else if (!strcmp(a, "--out") && v)
            s.out = argv[++i];
        else if (!strcmp(a, "--steps") && v)
            s.steps = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--answer") && v && (!strcmp(v, "plain") || !strcmp(v, "reversed")))
            s.task.answer = !strcmp(argv[++i], "plain") ? SVK_ADDITION_ANSWER_PLAIN : SVK_ADDITION_ANSWER_REVERSED;
        else if (!strcmp(a, "--batch") && v)
            s.batch = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--config") && v) {
            /* KEY=VALUE, as svk-train's: svk_model_config_set parses it */
            char key[64];
            const char *eq = strchr(argv[++i], '=');
            if (!eq || eq - argv[i] >= (long)sizeof(key)) {
                fprintf(stderr, "norm_study: --config takes KEY=VALUE, not '%s'\n", argv[i]);
                return 2;
            }
            snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
            if (svk_model_config_set(&s.config, key, eq + 1) != SVK_OK) {
                fprintf(stderr, "norm_study: %s\n", svk_last_error());
                return 2;
            }
        } else if (!strcmp(a, "--seeds") && v)
            s.n_seeds = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--lr") && v) {
            if (!parse_lrs(&s, argv[++i])) {
                fprintf(stderr, "norm_study: --lr takes 1 to %d learning rates in (0, 1), comma-separated\n", MAX_LRS);
                return 2;
            }
        } else if (!strcmp(a, "--help"))
            return usage(stdout, 0);
        else
            return usage(stderr, 2);
    }
    if (s.steps == 0 || s.batch == 0 || s.n_seeds == 0 || s.n_seeds > MAX_SEEDS) {
        fprintf(stderr, "norm_study: --steps and --batch must be at least 1, --seeds 1..%d\n", MAX_SEEDS);
        return 2;
    }
    s.warmup = s.steps / 10;
    s.window = s.steps >= 40 ? s.steps / 20 : s.steps >= 4 ? s.steps / 4 : 1;
    if (make_dir(s.out) != 0 && errno != EEXIST) {
        fprintf(stderr, "norm_study: cannot create %s: %s\n", s.out, strerror(errno));
        return 1;
    }
    /* The command line, for the table's caption. */
    char command[1024] = "";
    for (int i = 0; i < argc; i++) {
        const char *a = i ? argv[i] : "norm_study";
        const size_t used = strlen(command);
        snprintf(command + used, sizeof(command) - used, "%s%s", i ? " " : "", a);
    }

    int status = 1;
    svk_ctx *ctx = NULL;
    svk_addition *heldout = NULL;
    const uint32_t n_runs = s.n_lrs * N_PLACEMENTS * s.n_seeds;
    run *runs = calloc(n_runs, sizeof(run));
    float *losses = calloc((size_t)n_runs * s.steps, sizeof(float));
    if (!runs || !losses) {
        fprintf(stderr, "norm_study: out of memory\n");
        goto done;
    }
    if (svk_ctx_create(NULL, &ctx) != SVK_OK || svk_addition_create(&s.task, &heldout) != SVK_OK) {
        fprintf(stderr, "norm_study: %s\n", svk_last_error());
        goto done;
    }
    const char *device = svk_ctx_device_info(ctx)->name;
    printf("norm_study: %u runs (%u learning rates x %d placements x %u seeds) of %u steps on %s, into %s/\n",
           n_runs, s.n_lrs, N_PLACEMENTS, s.n_seeds, s.steps, device, s.out);
    const double t0 = now();
    for (uint32_t i = 0; i < n_runs; i++) {
        run *r = &runs[i];
        r->lr_index = i / (N_PLACEMENTS * s.n_seeds);
        r->placement = (int)(i / s.n_seeds % N_PLACEMENTS);
        r->seed = i % s.n_seeds + 1;
        r->loss = losses + (size_t)i * s.steps;
        if (train_one(&s, ctx, heldout, r) != SVK_OK) {
            fprintf(stderr, "norm_study: %s, lr %g, seed %u: %s\n", placement_names[r->placement],
                    (double)s.lrs[r->lr_index], r->seed, svk_last_error());
            goto done;
        }
        printf("  %-7s lr %-6g seed %u: final loss %7.4f, exact match %3u/%u%s  (%.1f s)\n",
               placement_names[r->placement], (double)s.lrs[r->lr_index], r->seed, (double)r->final_loss, r->correct,
               s.task.heldout, r->diverged ? ", diverged" : "", r->seconds);
        fflush(stdout);
    }
    const double seconds = now() - t0;
    if (!write_tables(&s, runs, device, command, seconds) || !write_curves_csv(&s, runs) || !write_svg(&s, runs))
        goto done;
    printf("norm_study: %u runs in %.0f s; wrote %s/norm_study.md, norm_study.csv, runs.csv, loss_curves.csv, "
           "loss_curves.svg\n", n_runs, seconds, s.out);
    status = 0;
done:
    if (ctx && svk_ctx_validation_enabled(ctx)) {
        svk_validation_counts vc;
        if (svk_ctx_validation_counts(ctx, &vc) == SVK_OK && vc.errors + vc.warnings > 0) {
            fprintf(stderr, "norm_study: the validation layer reported %llu error(s) and %llu warning(s)\n",
                    (unsigned long long)vc.errors, (unsigned long long)vc.warnings);
            status = 1;
        }
    }
    svk_addition_destroy(&heldout);
    svk_ctx_destroy(&ctx);
    free(runs);
    free(losses);
    return status;
}
