#include "svg_plot.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svk/file.h"

/* The figure, in SVG user units (pixels at 100%), and the plot inside it. */
enum { W = 720, H = 420, LEFT = 64, RIGHT = 24, TOP = 40, BOTTOM = 48 };
#define PX0 ((double)LEFT)
#define PX1 ((double)(W - RIGHT))
#define PY0 ((double)TOP)
#define PY1 ((double)(H - BOTTOM))

/* Past this many rows the training loss is drawn as each pixel column's
 * lowest and highest point, in step order: the same envelope, spikes
 * included, in a file that stays some 100 KB however long the run. */
#define FULL_DETAIL_MAX 4000

typedef struct buf {
    char *s;
    size_t len, cap;
    bool oom;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!b->s || b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *t = realloc(b->s, cap);
        if (!t) {
            b->oom = true;
            return;
        }
        b->s = t;
        b->cap = cap;
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/* Text for an XML text node or attribute: the five special characters as
 * entities, and any byte that is not printable ASCII as '?' (a path is
 * bytes, and XML accepts neither control characters nor invalid UTF-8). */
static void put_text(buf *b, const char *s)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '&')
            put(b, "&amp;");
        else if (c == '<')
            put(b, "&lt;");
        else if (c == '>')
            put(b, "&gt;");
        else if (c == '"')
            put(b, "&quot;");
        else if (c == '\'')
            put(b, "&apos;");
        else
            put(b, "%c", c >= 0x20 && c < 0x7f ? (char)c : '?');
    }
}

/* A tick spacing of 1, 2 or 5 times a power of ten giving about `target`
 * ticks over range. */
static double tick_step(double range, int target)
{
    const double rough = range / target, mag = pow(10, floor(log10(rough))), f = rough / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

typedef struct axes {
    double x_lo, x_hi, y_lo, y_hi;
} axes;

static double px(const axes *a, double step)
{
    return PX0 + (step - a->x_lo) / (a->x_hi - a->x_lo) * (PX1 - PX0);
}

static double py(const axes *a, double v)
{
    return PY1 - (v - a->y_lo) / (a->y_hi - a->y_lo) * (PY1 - PY0);
}

static void draw_axes(buf *b, const axes *a)
{
    const double ys = tick_step(a->y_hi - a->y_lo, 6);
    /* k counts ticks: a sum of steps that stopped growing (a range too
     * narrow for doubles) would loop for ever. */
    int k = 0;
    for (double v = ceil(a->y_lo / ys) * ys; v <= a->y_hi + ys * 1e-9 && k < 20; v += ys, k++) {
        const double y = py(a, v);
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", PX0, y, PX1, y);
        /* %.4g of a multiple of the step: -0 and 1e-17 print as 0. */
        put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", PX0 - 6, y + 4,
            fabs(v) < ys * 1e-6 ? 0.0 : v);
    }
    /* Steps are whole: a spacing of at least 1. */
    double xs = tick_step(a->x_hi - a->x_lo, 8);
    xs = xs < 1 ? 1 : xs;
    k = 0;
    for (double s = ceil(a->x_lo / xs) * xs; s <= a->x_hi + xs * 1e-9 && k < 20; s += xs, k++) {
        const double x = px(a, s);
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", x, PY0, x, PY1);
        put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x, PY1 + 16, s);
    }
    put(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"black\" fill=\"none\"/>\n", PX0, PY0, PY1, PX1);
    put(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">step</text>\n", (PX0 + PX1) / 2, H - 10);
    put(b, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">loss</text>\n",
        (PY0 + PY1) / 2, (PY0 + PY1) / 2);
}

/* One point of a line: a move after a gap (a non-finite value, or the
 * start), else a line to it. */
static void line_to(buf *b, bool *open, double x, double y)
{
    put(b, "%c%.1f %.1f", *open ? 'L' : 'M', x, y);
    *open = true;
}

/* The training loss as one path: every row, or past FULL_DETAIL_MAX rows
 * each pixel column's lowest and highest finite point in step order. A
 * non-finite loss breaks the line. */
static void draw_loss(buf *b, const axes *a, const svk_train_log *l)
{
    put(b, "<path fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\" stroke-linejoin=\"round\" d=\"");
    bool open = false;
    if (l->n <= FULL_DETAIL_MAX) {
        for (size_t i = 0; i < l->n; i++) {
            const svk_train_point *p = &l->points[i];
            if (!isfinite(p->loss))
                open = false;
            else
                line_to(b, &open, px(a, (double)p->step), py(a, p->loss));
        }
        put(b, "\"/>\n");
        /* A finite loss between two that are not is a line of one point,
         * which draws nothing: a dot instead. */
        for (size_t i = 0; i < l->n; i++)
            if (isfinite(l->points[i].loss) && (i == 0 || !isfinite(l->points[i - 1].loss)) &&
                (i + 1 == l->n || !isfinite(l->points[i + 1].loss)))
                put(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#1f77b4\"/>\n",
                    px(a, (double)l->points[i].step), py(a, l->points[i].loss));
        return;
    } else {
        size_t i = 0;
        while (i < l->n) {
            const int col = (int)px(a, (double)l->points[i].step);
            size_t lo = SIZE_MAX, hi = SIZE_MAX, j = i;
            /* A column that begins with a non-finite loss starts a new
             * stretch, one that ends with one ends it (a gap inside a
             * column is under a pixel wide). */
            if (!isfinite(l->points[i].loss))
                open = false;
            for (; j < l->n && (int)px(a, (double)l->points[j].step) == col; j++) {
                const float v = l->points[j].loss;
                if (!isfinite(v))
                    continue;
                if (lo == SIZE_MAX || v < l->points[lo].loss)
                    lo = j;
                if (hi == SIZE_MAX || v > l->points[hi].loss)
                    hi = j;
            }
            const size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
            if (first != SIZE_MAX)
                line_to(b, &open, px(a, (double)l->points[first].step), py(a, l->points[first].loss));
            if (second != SIZE_MAX && second != first)
                line_to(b, &open, px(a, (double)l->points[second].step), py(a, l->points[second].loss));
            if (!isfinite(l->points[j - 1].loss))
                open = false;
            i = j;
        }
    }
    put(b, "\"/>\n");
}

static void draw_heldout(buf *b, const axes *a, const svk_train_log *l)
{
    bool open = false, any = false;
    for (size_t i = 0; i < l->n; i++)
        any |= isfinite(l->points[i].heldout);
    if (!any)
        return;
    put(b, "<path fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" d=\"");
    for (size_t i = 0; i < l->n; i++)
        if (isfinite(l->points[i].heldout))
            line_to(b, &open, px(a, (double)l->points[i].step), py(a, l->points[i].heldout));
    put(b, "\"/>\n");
    for (size_t i = 0; i < l->n; i++)
        if (isfinite(l->points[i].heldout))
            put(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#d62728\"/>\n", px(a, (double)l->points[i].step),
                py(a, l->points[i].heldout));
}

/* A tick under the plot at every skipped step, and the legend. */
static void draw_skips_and_legend(buf *b, const axes *a, const svk_train_log *l, bool heldout)
{
    size_t skipped = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->points[i].skipped) {
            const double x = px(a, (double)l->points[i].step);
            put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"/>\n",
                x, PY1 - 10, x, PY1);
            skipped++;
        }
    double y = PY0 + 14;
    const double x = PX1 - 215;
    put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
           "<text x=\"%.1f\" y=\"%.1f\">training loss</text>\n", x, y - 4, x + 20, y - 4, x + 26, y);
    if (heldout) {
        y += 16;
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">held-out loss</text>\n", x, y - 4, x + 20, y - 4, x + 26, y);
    }
    if (skipped) {
        y += 16;
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">%zu skipped step%s (non-finite)</text>\n", x + 10, y - 10, x + 10, y,
            x + 26, y, skipped, skipped == 1 ? "" : "s");
    }
}

svk_status svk_train_svg_write(const svk_train_log *l, const char *title)
{
    buf b = {0};
    axes a = {.x_lo = INFINITY, .x_hi = -INFINITY, .y_lo = INFINITY, .y_hi = -INFINITY};
    bool heldout = false;
    for (size_t i = 0; i < l->n; i++) {
        const svk_train_point *p = &l->points[i];
        a.x_lo = fmin(a.x_lo, (double)p->step - 1);
        a.x_hi = fmax(a.x_hi, (double)p->step);
        if (isfinite(p->loss))
            a.y_lo = fmin(a.y_lo, p->loss), a.y_hi = fmax(a.y_hi, p->loss);
        if (isfinite(p->heldout))
            a.y_lo = fmin(a.y_lo, p->heldout), a.y_hi = fmax(a.y_hi, p->heldout), heldout = true;
    }
    if (!(a.x_lo < a.x_hi))
        a.x_lo = 0, a.x_hi = 1;
    const bool any = a.y_lo <= a.y_hi;
    if (!any)
        a.y_lo = 0, a.y_hi = 1;
    /* A flat curve gets a band around it; others 5% of room above and
     * below, so that neither end sits on the frame. */
    const double pad = a.y_hi > a.y_lo ? 0.05 * (a.y_hi - a.y_lo) : fmax(0.5, fabs(a.y_lo) * 0.1);
    a.y_lo -= pad;
    a.y_hi += pad;

    put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n<title>", W, H, W, H);
    put_text(&b, title);
    put(&b, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">", W, H, W / 2);
    put_text(&b, title);
    put(&b, "</text>\n");
    draw_axes(&b, &a);
    draw_loss(&b, &a, l);
    draw_heldout(&b, &a, l);
    draw_skips_and_legend(&b, &a, l, heldout);
    if (!any)
        put(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no finite loss to draw</text>\n",
            (PX0 + PX1) / 2, (PY0 + PY1) / 2);
    put(&b, "</svg>\n");
    svk_status st = b.oom ? SVK_ERROR_OUT_OF_HOST_MEMORY : svk_file_write_atomic(l->svg, b.s, b.len);
    free(b.s);
    return st;
}
