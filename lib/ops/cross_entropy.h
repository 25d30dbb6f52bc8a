/*
 * Fused softmax + cross-entropy loss + gradient over the vocabulary, on the
 * device (shaders/index_check.comp, cross_entropy.comp,
 * cross_entropy_loss.comp), as the CPU reference svk_ref_cross_entropy
 * (lib/ref/cross_entropy.c):
 *   loss = mean over counted rows of -log softmax(logits[r])[targets[r]],
 *   dlogits[r] = (softmax(logits[r]) - onehot(targets[r])) / count,
 * a row being counted when 0 <= target < V; -1 is ignored; any other target
 * is invalid input, treated as ignored and counted. With no counted row the
 * loss is 0 and dlogits are 0. Everything, the count of rows included, is
 * computed on the device with no host round trip, in a fixed order: the same
 * bits on every run.
 *
 * Three dispatches: index_check counts the targets into counts; the row
 * kernel writes losses and dlogits; the loss kernel reduces losses in order
 * into loss. A batch taken in pieces (gradient accumulation: the step's
 * rows in micro-batches) sets `step`: the first piece counts the whole
 * step's targets, every piece divides by that count, and the last reduces
 * the whole step's losses, so the step's loss and gradients are those of
 * its rows taken at once. On CPU devices (or with the cpu variant forced; see
 * svk_op_variant) the row kernel is its CPU form, cross_entropy_cpu.comp:
 * one invocation per row, no barriers, the same results.
 */
#ifndef SVK_OPS_CROSS_ENTROPY_H
#define SVK_OPS_CROSS_ENTROPY_H

#include "ops.h"

typedef struct svk_cross_entropy_args {
    uint64_t rows;      /* token positions (B*T), 1 <= rows < 2^31 */
    uint64_t V;         /* vocabulary, 1 <= V < 2^31 */
    svk_tref logits;    /* [rows, V] */
    svk_tref targets;   /* [rows] int32 */
    svk_tref dlogits;   /* [rows, V], written; may equal logits (in place);
                         * or buf NULL: loss only */
    svk_tref losses;    /* [rows], written: each counted row's loss, 0 for the others */
    svk_tref counts;    /* [2] int32, written: counted rows, invalid targets */
    svk_tref loss;      /* [1], written: the mean loss */
    struct {
        uint64_t rows;  /* the step's rows, a multiple of rows; 0: this batch is the step */
        svk_tref targets; /* [rows] int32: the step's targets, counted when count */
        svk_tref losses;  /* [rows]: the step's losses (this batch's among them at
                           * `losses`), reduced into loss when mean */
        bool count, mean;
    } step;
    const char *label;  /* names the dispatches in messages and timings; may be NULL */
} svk_cross_entropy_args;

svk_status svk_cross_entropy_record(svk_cmdlist *cl, const svk_cross_entropy_args *a);

#endif
