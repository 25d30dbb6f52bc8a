/*
 * The Vulkan backend's recorded op ranges, each cut into submissions that
 * run at most the model's max_submit_ms: a desktop driver's watchdog resets
 * a GPU whose submission runs too long (Windows' TDR after 2 s), and the
 * device is lost. Each of a range's lists begins with the barrier that
 * orders it after the work before it on the queue (svk_cmdlist_begin), so
 * the range computes what one list would, to the bit. The first replays of
 * a range run lists of SVK_SUBMIT_UNMEASURED_OPS ops: the first untimed,
 * since a driver may finish compiling a pipeline at its first dispatch
 * (lavapipe does: hundreds of milliseconds for a large shader, which would
 * count as the op's time), the second with a timestamp around every
 * dispatch; once that has finished, the range is cut by the times
 * measured (submit_split.h) and recorded again, for both parities.
 * A range in flight is its lists; waiting for it is waiting for each.
 */
#ifndef SVK_MODEL_VK_SUBMIT_H
#define SVK_MODEL_VK_SUBMIT_H

#include "model_internal.h"
#include "vk/cmd.h"

/* Records ops [begin, end) of m's plan into cl, bound for a parity of the
 * double-buffered inputs and outputs; op_first (NULL: not wanted) receives
 * each op's first dispatch in cl. */
typedef svk_status (*svk_vk_record_fn)(svk_model *m, svk_cmdlist *cl, int parity, size_t begin, size_t end,
                                       uint32_t *op_first);

/* Ops [begin, end) for a parity as n lists, cl[i] running ops
 * [cut[i], cut[i + 1]). timing: the lists carry timestamps, and
 * op_first[j - begin] is op j's first dispatch in its list. */
typedef struct svk_vk_range {
    size_t begin, end;
    int parity;
    svk_vk_record_fn record; /* what recorded it: ranges of the same ops recorded otherwise are others */
    size_t n;
    svk_cmdlist **cl;
    size_t *cut;
    uint32_t *op_first;
    bool timing;
    bool warmup;        /* the range's first replay: once finished, recorded again, timed */
    double longest_ms;  /* the longest list's measured time; < 0: not measured */
    /* timing: the measurement's room, made with the lists, so that
     * measuring the finished replay allocates nothing (a failure there
     * could not be reported by the step, which has run) */
    double *op_ms;      /* [end - begin] */
    size_t *new_cut;    /* [end - begin + 1] */
    double *ns;         /* [ns_cap]: one list's dispatch times */
    uint32_t ns_cap;
} svk_vk_range;

/* A range's cuts once measured, shared by both parities' recordings. */
typedef struct svk_vk_cuts {
    size_t begin, end, n;
    size_t *cut;
    double longest_ms;
} svk_vk_cuts;

/* A step's ranges, a reduced step's buckets (grad_buckets.h) among them,
 * and evaluation's, for both parities. */
#define SVK_VK_RANGES 48

typedef struct svk_vk_ranges {
    svk_vk_range range[SVK_VK_RANGES];
    svk_vk_cuts cuts[SVK_VK_RANGES];
    /* by parity: submitted, not yet waited for, in submission order (a
     * step reduced in buckets has several ranges in flight at once) */
    svk_vk_range *inflight[2][SVK_VK_RANGES];
    size_t n_inflight[2];
    /* the ranges whose first, untimed replay has finished */
    struct {
        size_t begin, end;
    } warm[SVK_VK_RANGES];
    size_t n_warm;
    bool warned_long;           /* an op over max_submit_ms was logged */
    bool noted_count;           /* a split by op count (no timestamps) was logged */
} svk_vk_ranges;

/* The recorded lists of ops [begin, end) for a parity, made with record on
 * first use (a range is found again by its ops, parity and record). */
svk_status svk_vk_range_get(svk_model *m, svk_vk_ranges *r, svk_vk_record_fn record, size_t begin, size_t end,
                            int parity, svk_vk_range **out);

/* Submits l's lists in turn; l is in flight on its parity from the first.
 * One that fails after the first has left the range run in part: it is
 * tried again, and if it still fails the model is marked unusable (its
 * state is not known) unless the device is lost. */
svk_status svk_vk_range_submit(svk_model *m, svk_vk_ranges *r, svk_vk_range *l);

/* Waits for the lists in flight on a parity, in order. A failed wait keeps
 * them in flight (a later wait may succeed; a list waited for is not
 * waited for again). A finished timed replay is measured, and its range
 * recorded again on its next use. */
svk_status svk_vk_range_finish(svk_model *m, svk_vk_ranges *r, int parity);

/* Waits for the lists in flight on l's parity up to l's last (those of
 * ranges submitted after l still run); as svk_vk_range_finish otherwise.
 * SVK_OK at once if l is not in flight. l may be freed (a measured
 * replay). */
svk_status svk_vk_range_finish_through(svk_model *m, svk_vk_ranges *r, svk_vk_range *l);

/* Whether l is in flight (submitted and not waited for). */
bool svk_vk_range_in_flight(const svk_vk_ranges *r, const svk_vk_range *l);

/* Frees every range's lists (each waits for its submission); with cuts,
 * the measured cuts too (they belong to a batch shape). */
void svk_vk_ranges_free(svk_vk_ranges *r, bool cuts);

#endif
